"""Progress is visible in a log: periodic lines with done/total, rate and ETA when stderr is no terminal."""

from __future__ import annotations

import csv
import io
import logging
import re
from pathlib import Path

from autocheck.progress import LogProgress, track


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_log_lines_say_done_total_rate_and_eta(caplog):
    clock = FakeClock()
    with caplog.at_level(logging.INFO, logger="autocheck.progress"):
        progress = LogProgress(40, "generate", "chunks", interval=10, clock=clock)
        for _ in range(10):
            clock.now += 2  # 0.5 chunks/s
            progress.update()
        progress.set_postfix_str("LC4: 12 seed cases")
        clock.now += 2
        progress.update()
        progress.close()
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0].startswith("generate: 0/40 chunks (0%)")
    assert "generate: 5/40 chunks (12%), 0.5 chunks/s, elapsed 0:00:10, ETA 0:01:10" in lines  # every 10 s
    assert "generate: 10/40 chunks (25%), 0.5 chunks/s, elapsed 0:00:20, ETA 0:01:00" in lines
    assert (
        lines[-1]
        == "generate: 11/40 chunks (28%), 0.5 chunks/s, elapsed 0:00:22, ETA 0:00:58 | LC4: 12 seed cases"
    )


def test_unknown_total_still_reports_count_and_rate(caplog):
    with caplog.at_level(logging.INFO, logger="autocheck.progress"):
        assert list(track(range(3), None, "load dataset", "rows", stream=io.StringIO(), interval=0)) == [
            0,
            1,
            2,
        ]
    assert caplog.records[-1].getMessage().startswith("load dataset: 3 rows, ")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_terminal_gets_a_bar_with_total_and_eta(caplog):
    stream = Terminal()
    with caplog.at_level(logging.INFO, logger="autocheck.progress"):
        assert sum(track(range(5), 5, "search", "capabilities", stream=stream)) == 10
    assert not caplog.records
    assert re.search(r"search: 100%.*5/5", stream.getvalue())


def test_seeds_progress_appears_in_a_log(shared_data, tmp_path, monkeypatch, caplog):
    from autocheck.cli import main

    monkeypatch.setenv("AUTOCHECK_PROGRESS_INTERVAL", "0")
    dataset = tmp_path / "reviews.csv"
    with open(dataset, "w", newline="") as f:
        csv.writer(f).writerows(
            [("text", "label"), ("This is a bad movie.", "negative"), ("This is a good film.", "positive")]
            + [(f"The film {i} is a good story.", "positive") for i in range(30)]
        )
    lexicon = Path(__file__).parent / "fixtures" / "lexicon" / "sentiwordnet_snippet.txt"
    args = ["seeds", "--dataset", str(dataset), "--lexicon", str(lexicon), "--out", str(tmp_path / "s")]
    with caplog.at_level(logging.INFO, logger="autocheck.progress"):
        assert main([*args, "--chunk-size", "4"]) == 0
    lines = [r.getMessage() for r in caplog.records if r.name == "autocheck.progress"]
    # the dataset is read as it is searched: progress in megabytes of the file's size
    assert any(re.match(r"search \(MB read\): 1/1 \w+ \(100%\)", line) for line in lines)
    chunks = [line for line in lines if line.startswith("generate: ")]
    total = int(re.match(r"generate: \d+/(\d+) chunks", chunks[0]).group(1))
    assert total > 1 and any("ETA" in line for line in chunks)
    assert chunks[-1].startswith(f"generate: {total}/{total} chunks (100%)")


def test_resumed_run_reports_only_the_chunks_left(shared_data, tmp_path, monkeypatch):
    from autocheck import pipeline, store

    dataset = tmp_path / "reviews.csv"
    with open(dataset, "w", newline="") as f:
        csv.writer(f).writerows(
            [("text", "label")] + [(f"The film {i} is a good story.", "positive") for i in range(30)]
        )
    lexicon = Path(__file__).parent / "fixtures" / "lexicon" / "sentiwordnet_snippet.txt"
    config = pipeline.GenerateConfig(dataset=str(dataset), lexicon=str(lexicon), expand=False, chunk_size=2)
    seen: dict[str, list] = {}

    def progress(items, total, description):
        seen[description] = [total, 0]
        for item in items:
            seen[description][1] += 1
            yield item

    pipeline.generate(config, tmp_path / "full", progress=progress)
    all_chunks = seen["generate"][0]
    assert seen["generate"] == [all_chunks, all_chunks] and all_chunks > 3

    real_flush, flushes = store.JsonlWriter.flush, []

    def interrupted(self):
        flushes.append(1)
        if len(flushes) == 3:
            raise KeyboardInterrupt
        return real_flush(self)

    monkeypatch.setattr(store.JsonlWriter, "flush", interrupted)
    try:
        pipeline.generate(config, tmp_path / "resumed")
    except KeyboardInterrupt:
        pass
    monkeypatch.undo()
    pipeline.generate(config, tmp_path / "resumed", resume=True, progress=progress)
    assert seen["generate"] == [all_chunks - 2, all_chunks - 2]  # two chunks were finished before
    assert (tmp_path / "resumed" / "cases.jsonl").read_bytes() == (
        tmp_path / "full" / "cases.jsonl"
    ).read_bytes()


def test_generate_log_lines_name_the_expansion_stages(shared_data, tmp_path, monkeypatch, caplog):
    from conftest import require

    from autocheck import pipeline
    from autocheck.cli import _progress

    models = shared_data / "models"
    dataset = tmp_path / "reviews.csv"
    with open(dataset, "w", newline="") as f:
        csv.writer(f).writerows(
            [("text", "label"), ("This is a bad movie.", "negative"), ("A dull plot.", "negative")]
        )
    config = pipeline.GenerateConfig(
        dataset=str(dataset),
        lexicon="opinion",
        capabilities=["LC2"],
        max_seeds=2,
        max_variants=1,
        parser=str(require(models / "benepar_ptbsample_charlstm")),
        mlm=str(require(models / "mini-bert-mlm")),
        chunk_size=1,
    )
    monkeypatch.setenv("AUTOCHECK_PROGRESS_INTERVAL", "0")
    with caplog.at_level(logging.INFO, logger="autocheck.progress"):
        pipeline.generate(config, tmp_path / "suite", progress=_progress)
    last = [r.getMessage() for r in caplog.records if r.getMessage().startswith("generate: ")][-1]
    assert re.match(r"generate: (\d+)/\1 chunks \(100%\)", last)
    assert re.search(r"; parse \d+s, differentiate \d+s, fill \d+s$", last)
