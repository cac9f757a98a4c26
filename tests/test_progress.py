"""Progress is visible in a log: periodic lines with done/total, rate and ETA when stderr is no terminal."""

from __future__ import annotations

import csv
import io
import json
import logging
import os
import re
from pathlib import Path

import pytest

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
    assert (
        lines[1] == "generate: 1/40 chunks (2%), 0.5 chunks/s, elapsed 0:00:02, ETA 0:01:18"
    )  # first estimate
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
    from autocheck import generate as generation
    from autocheck import store

    dataset = tmp_path / "reviews.csv"
    with open(dataset, "w", newline="") as f:
        csv.writer(f).writerows(
            [("text", "label")] + [(f"The film {i} is a good story.", "positive") for i in range(30)]
        )
    lexicon = Path(__file__).parent / "fixtures" / "lexicon" / "sentiwordnet_snippet.txt"
    config = generation.GenerateConfig(dataset=str(dataset), lexicon=str(lexicon), expand=False, chunk_size=2)
    seen: dict[str, list] = {}

    def progress(items, total, description):
        seen[description] = [total, 0]
        for item in items:
            seen[description][1] += 1
            yield item

    generation.generate(config, tmp_path / "full", progress=progress)
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
        generation.generate(config, tmp_path / "resumed")
    except KeyboardInterrupt:
        pass
    monkeypatch.undo()
    generation.generate(config, tmp_path / "resumed", resume=True, progress=progress)
    assert seen["generate"] == [all_chunks - 2, all_chunks - 2]  # two chunks were finished before
    assert (tmp_path / "resumed" / "cases.jsonl").read_bytes() == (
        tmp_path / "full" / "cases.jsonl"
    ).read_bytes()


@pytest.mark.slow  # two seeds parsed and filled by the stand-in models: about a minute here
def test_generate_log_lines_name_the_expansion_stages(shared_data, tmp_path, monkeypatch, caplog):
    from conftest import require

    from autocheck import generate as generation
    from autocheck.cli import _progress

    models = shared_data / "models"
    dataset = tmp_path / "reviews.csv"
    with open(dataset, "w", newline="") as f:
        csv.writer(f).writerows(
            [("text", "label"), ("This is a bad movie.", "negative"), ("This is an awful film.", "negative")]
        )
    config = generation.GenerateConfig(
        dataset=str(dataset),
        lexicon="opinion",
        capabilities=["LC2"],
        max_seeds=2,
        max_variants=1,
        parser=str(require(models / "benepar_ptbsample_charlstm")),
        mlm=str(require(models / "mini-bert-mlm")),
        chunk_size=4,
        unit_size=1,
    )
    monkeypatch.setenv("AUTOCHECK_PROGRESS_INTERVAL", "0")
    with caplog.at_level(logging.INFO):
        summary = generation.generate(config, tmp_path / "suite", progress=_progress)
    # the cases it will write: the seed cases up front, all of them after the first (here the only) chunk
    seed_cases = summary.counts["LC2"].seed_cases
    written = seed_cases + summary.counts["LC2"].expansions
    assert f"writing {seed_cases} seed cases, and the expansions of {seed_cases} of them" in caplog.text
    assert f"about {written} cases in all: {seed_cases} seed cases and about" in caplog.text
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("generate: ")]
    last = lines[-1]
    assert re.match(r"generate: (\d+)/\1 chunks \(100%\)", last)
    assert re.search(r"; parse \d+s, differentiate \d+s, fill \d+s$", last)
    # inside the chunk, a line per unit (the interval is 0): the chunk is never silent for longer
    units = [line for line in lines if re.search(r" \| chunk 1: \d+/\d+ units", line)]
    n = int(re.search(r"/(\d+) units", units[0]).group(1))
    assert n > 1 and [re.search(r"chunk 1: (\d+)/", u).group(1) for u in units] == [
        str(k) for k in range(1, n + 1)
    ]
    assert all(line.startswith("generate: 0/1 chunks (0%)") for line in units)
    assert re.search(r"1: 1/\d+ units; parse \d+s, differentiate \d+s, fill \d+s$", units[0])


def test_run_reports_each_batch_at_the_interval(tmp_path, monkeypatch, caplog):
    """A slow model (0.05 s a batch of 2) over 20 inputs, lines every 0.12 s: several lines, each with
    done/total, rate and ETA, and never closer together than the interval except the last."""
    import time

    from autocheck.models import CallableModel
    from autocheck.run import run_suite

    suite = _positive_suite(tmp_path, 20)

    def slow(texts):
        time.sleep(0.05)
        return [[0.1, 0.9] for _ in texts]

    monkeypatch.setenv("AUTOCHECK_PROGRESS_INTERVAL", "0.12")
    with caplog.at_level(logging.INFO, logger="autocheck.progress"):
        run_suite(suite, [CallableModel("slow", slow, batch_size=2)], tmp_path / "run")
    records = [r for r in caplog.records if r.name == "autocheck.progress"]
    lines = [r.getMessage() for r in records]
    assert lines[0].startswith("slow: 0/20 inputs (0%)")
    assert lines[-1].startswith("slow: 20/20 inputs (100%), ")
    done = [
        int(re.match(r"slow: (\d+)/20 inputs \(\d+%\), [\d.]+ inputs/s", line).group(1)) for line in lines
    ]
    middle = done[1:-1]
    assert len(middle) >= 3 and middle == sorted(middle) and 0 < middle[0] < 20  # per batch, not per chunk
    assert all("ETA" in line for line in lines[1:-1])
    assert done[1] == 2  # the first batch: the first time estimate, at once
    beat = [records[0], *records[2:-1]]  # the first estimate is off the beat of the interval
    gaps = [b.created - a.created for a, b in zip(beat, beat[1:])]
    assert min(gaps) >= 0.12 - 0.01  # then not a line per batch: one per interval

    caplog.clear()  # answered from the cache: counted at once
    with caplog.at_level(logging.INFO, logger="autocheck.progress"):
        run_suite(suite, [CallableModel("slow", slow, batch_size=2)], tmp_path / "again")
    lines = [r.getMessage() for r in caplog.records if r.name == "autocheck.progress"]
    assert lines[-1].startswith("slow: 20/20 inputs (100%)")


def test_the_unit_loop_reports_each_unit_as_it_is_collected():
    """expand_chunks calls ``on_unit`` for each unit of a chunk, in order, before the chunk is handed on,
    whatever the executor (units answered from the chunk cache here, so no process has to start)."""
    from types import SimpleNamespace

    from autocheck.execute import expand_chunks
    from autocheck.execute.local import LocalExecutor
    from autocheck.expand.job import ChunkResult

    seen = []

    def cached(unit):
        return ChunkResult({case: [] for case in unit}, {}, {}, cached=True)

    config = SimpleNamespace(unit_size=2, mlm="no-masked-lm")
    expander = SimpleNamespace(config=config, cached=cached, lexicon=None, capabilities={}, options=dict)
    chunks = [[f"c{i}" for i in range(8)], ["d0", "d1"]]
    out = []
    report = lambda done, units: seen.append((done, units))  # noqa: E731
    for chunk, result in expand_chunks(LocalExecutor(workers=2), chunks, expander, report):
        out.append((chunk[0], list(result.expansions)))
        seen.append("chunk")
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4), "chunk", (1, 2), (2, 2), "chunk"]
    assert out == [("c0", [f"c{i}" for i in range(8)]), ("d0", ["d0", "d1"])]


def test_run_on_a_terminal_shows_a_bar_of_inputs(tmp_path, monkeypatch, caplog):

    from autocheck.models import CallableModel
    from autocheck.run import run_suite

    suite = _positive_suite(tmp_path, 6)
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    with caplog.at_level(logging.INFO, logger="autocheck.progress"):
        run_suite(
            suite,
            [CallableModel("m", lambda texts: [[0.1, 0.9] for _ in texts], batch_size=2)],
            tmp_path / "r",
        )
    assert not [r for r in caplog.records if r.name == "autocheck.progress"]  # a bar, not log lines
    assert re.search(r"m: 100%.*6/6 \[.*inputs/s\]", terminal.getvalue())


def test_a_jupyter_kernel_gets_the_notebook_bar_not_log_lines(monkeypatch):
    """In a kernel stderr is no terminal, yet a person watches the cell: tqdm.auto's bar, not log lines."""
    import sys
    import types

    from tqdm import tqdm as std_tqdm

    from autocheck import progress

    log_stream = io.StringIO()  # not a terminal
    assert isinstance(progress.bar(10, "run", stream=log_stream), progress.LogProgress)
    kernel = types.SimpleNamespace(config={"IPKernelApp": {"connection_file": "kernel.json"}})
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: kernel))
    reporter = progress.bar(10, "run", stream=log_stream)
    assert isinstance(reporter, std_tqdm)
    reporter.close()


def _positive_suite(tmp_path, n: int):
    """A suite of ``n`` one-word-different MFT cases that expect "positive"."""
    import json

    suite = tmp_path / "suite"
    suite.mkdir()
    rows = [
        {"id": f"c{i}", "capability": "LC1", "kind": "seed", "text": f"film {i}", "expected": "positive",
         "test_type": "MFT", "label": "positive"}
        for i in range(n)
    ]  # fmt: skip
    (suite / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return suite


def test_the_generate_bar_counts_finished_chunks_not_taken_ones(shared_data, tmp_path, monkeypatch):
    """Worker processes and Ray actors take chunks ahead of the ones they finish; the bar reached 100 %
    while work still ran (it counted chunks as they were taken). Here an executor takes every chunk at
    once: each count must come after that chunk is written."""
    from autocheck import generate as generation
    from autocheck.execute import EXECUTORS
    from autocheck.expand.job import ChunkResult

    class ReadsAhead:
        def __init__(self, **options):
            pass

        def map(self, work, units):
            taken = list(units)  # every unit taken before the first is finished
            for _ in taken:
                yield ChunkResult.merge([])

        def close(self):
            pass

    monkeypatch.setitem(EXECUTORS._parts, "reads-ahead", ReadsAhead)
    dataset = tmp_path / "reviews.csv"
    with open(dataset, "w", newline="") as f:
        csv.writer(f).writerows(
            [("text", "label")] + [(f"This is a good film {i}.", "positive") for i in range(12)]
        )
    lexicon = Path(__file__).parent / "fixtures" / "lexicon" / "sentiwordnet_snippet.txt"
    parser = shared_data / "models" / "benepar_ptbsample_charlstm"  # found, never loaded: nothing is parsed
    config = generation.GenerateConfig(
        dataset=str(dataset), lexicon=str(lexicon), capabilities=["LC2"], chunk_size=2, parser=str(parser)
    )
    written = []

    def progress(items, total, description):
        for item in items:
            yield item
            if description == "generate":  # counted: the chunk must be in the suite already
                written.append(json.loads((tmp_path / "suite" / "state.json").read_text())["chunks"])

    generation.generate(config, tmp_path / "suite", progress=progress, executor="reads-ahead")
    assert len(written) > 2 and written == list(range(1, len(written) + 1))


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_line_is_printed_above_the_bar_not_into_its_line():
    from autocheck.progress import LogHandler, bar

    terminal = FakeTerminal()
    work = bar(10, "work", stream=terminal)
    work.update(3)
    logger = logging.getLogger("autocheck.test-above-the-bar")
    handler = LogHandler(terminal)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    try:
        logger.warning("a line of the log")
    finally:
        logger.removeHandler(handler)
        work.close()
    (line,) = [part for part in terminal.getvalue().split("\n") if "a line of the log" in part]
    assert line.rsplit("\r", 1)[-1] == "WARNING autocheck.test-above-the-bar: a line of the log"
    assert "3/10" in terminal.getvalue().rsplit("a line of the log", 1)[1]  # the bar drawn again below


def test_a_script_without_logging_shows_progress_on_stderr(tmp_path):
    """A plain script (no logging configured, stderr no terminal) heard nothing for a whole run: the
    progress lines now go to stderr, as the command line's do."""
    import subprocess
    import sys

    script = (
        "from autocheck import Suite, Test\n"
        "test = Test.from_perturbation('typos', ['a good film', 'a bad film'], 'typos')\n"
        "suite = Suite('s', tests=[test])\n"
        "suite.run(lambda texts: [[0.5, 0.5] for _ in texts])\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent), "AUTOCHECK_CACHE": "off"}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert re.search(r"^INFO autocheck\.progress: <lambda>: \d+/\d+ inputs \(100%\)", done.stderr, re.M), (
        done.stderr
    )
