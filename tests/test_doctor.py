"""autocheck doctor as a pre-flight: what generate and run need, honest offline, non-zero when missing."""

from __future__ import annotations

import json
import socket
import threading

import pytest
from conftest import require, tiny_bert

from autocheck.cli import main
from autocheck.doctor import FOUND, MISSING, NOT_NEEDED, ON_FIRST_USE, check


@pytest.fixture
def bare(tmp_path, monkeypatch):
    """Nothing installed: an empty NLTK folder, an empty Hugging Face cache, no stand-ins."""
    (tmp_path / "nltk").mkdir()
    monkeypatch.setenv("NLTK_DATA", str(tmp_path / "nltk"))
    monkeypatch.setattr("nltk.data.path", [str(tmp_path / "nltk")])
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setenv("AUTOCHECK_SHARED_DATA", str(tmp_path / "no-shared"))
    for switch in ("AUTOCHECK_OFFLINE", "HF_HUB_OFFLINE"):  # restored after the test (--offline sets them)
        monkeypatch.setenv(switch, "1")
    return tmp_path


def rows_by_name(rows):
    return {row.name: row for row in rows}


def test_offline_says_missing_never_downloaded_and_exits_1(bare, capsys):
    assert main(["--offline", "doctor", "--for", "generate"]) == 1
    out, err = capsys.readouterr()
    assert "on first use" not in out and "downloaded" not in out
    rows = rows_by_name(check(command="generate"))
    for name in ("POS tagger (search)", "lexicon: sentiwordnet", "parser: benepar_en3"):
        assert rows[name].status == MISSING and "not installed (offline)" in rows[name].detail
    assert rows["masked LM: bert-base-uncased"].status == MISSING
    assert "not in the Hugging Face cache (offline)" in rows["masked LM: bert-base-uncased"].detail
    assert rows["grammar: ptb_sample"].status == FOUND
    (line,) = err.splitlines()
    assert line.startswith("autocheck: doctor: 4 required resources missing: POS tagger (search), lexicon")


def test_online_the_same_resources_come_on_first_use(bare, monkeypatch, tmp_path):
    monkeypatch.delenv("AUTOCHECK_OFFLINE")
    monkeypatch.delenv("HF_HUB_OFFLINE")
    mlm = tiny_bert(tmp_path / "mlm", "ForMaskedLM", ["good", "film"])
    parser_dir = tmp_path / "parser"
    parser_dir.mkdir()
    rows = rows_by_name(check(command="generate", mlm=mlm, parser=str(parser_dir), lexicon="opinion"))
    assert rows["lexicon: opinion"].status == ON_FIRST_USE and rows["lexicon: opinion"].ok
    assert (
        "downloaded by NLTK on first use (opinion_lexicon; needs the network)"
        in rows["lexicon: opinion"].detail
    )
    assert rows[f"parser: {parser_dir}"].status == FOUND
    assert rows[f"masked LM: {mlm}"].detail.startswith(f"local directory {mlm} (model.safetensors)")
    assert all(row.ok for row in rows.values())


def test_stand_ins_are_named_and_pass_the_preflight(shared_data, monkeypatch, capsys):
    models = shared_data / "models"
    parser, mlm = require(models / "benepar_ptbsample_charlstm"), require(models / "mini-bert-mlm")
    monkeypatch.setenv("NLTK_DATA", str(require(shared_data / "nltk_data")))
    args = ["--offline", "doctor", "--for", "generate", "--lexicon", "opinion", "--parser", str(parser)]
    assert main([*args, "--mlm", str(mlm)]) == 0
    assert main(["--offline", "doctor", "--for", "generate", "--lexicon", "opinion"]) == 1  # benepar_en3
    rows = rows_by_name(check(command="generate", lexicon="opinion"))
    assert f"stand-in here: {parser.resolve()}" in rows["parser: benepar_en3"].detail
    assert f"stand-in here: {mlm.resolve()}" in rows["masked LM: bert-base-uncased"].detail


def test_every_shipped_task_is_checked_for_what_it_uses(bare):
    for task in ("sentiment", "nli", "qqp", "squad", "hate_speech"):
        rows = check(task, command="generate")
        assert rows[0].name == f"task: {task}" and rows[0].status == FOUND
    nli = rows_by_name(check("nli", command="generate"))
    assert nli["expansion (parser, grammar, masked LM)"].status == NOT_NEEDED  # two inputs: not expanded
    assert "parser: benepar_en3" in rows_by_name(check("sentiment", command="generate"))
    (unknown,) = check("weather", command="generate")
    assert unknown.status == MISSING
    assert "no task named 'weather' (known: hate_speech, ner, nli" in unknown.detail


class Listening:
    """A TCP server on 127.0.0.1 that accepts connections (what an endpoint check needs)."""

    def __enter__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()
        return self

    def _serve(self):
        try:
            while True:
                conn, _ = self.sock.accept()
                conn.close()
        except OSError:
            pass

    def __exit__(self, *exc):
        self.sock.close()


def test_models_are_checked_the_way_run_loads_them(bare, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    good = tiny_bert(tmp_path / "clf", "ForSequenceClassification", ["good"], {0: "negative", 1: "positive"})
    (tmp_path / "clf" / "model.safetensors").write_bytes(b"not weights")  # never loaded: still found
    odd = tiny_bert(tmp_path / "odd", "ForSequenceClassification", ["good"], {0: "cat", 1: "dog", 2: "cow"})
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "config.json").write_text(json.dumps({"model_type": "bert"}))
    (tmp_path / "preds.jsonl").write_text("")
    with Listening() as live:
        dead = socket.socket()
        dead.bind(("127.0.0.1", 0))
        dead_port = dead.getsockname()[1]
        dead.close()  # nothing listens there any more
        models = {
            good: FOUND,
            odd: MISSING,
            str(empty): MISSING,
            f"http://127.0.0.1:{live.port}/predict": FOUND,
            f"http://127.0.0.1:{dead_port}/predict": MISSING,
            "report_data:toy": FOUND,
            "no_such_module_here:predict": MISSING,
            f"{tmp_path}/missing.py:predict": MISSING,
            f"file:{tmp_path}/preds.jsonl": FOUND,
            f"file:{tmp_path}/nothing.jsonl": MISSING,
            "openai:gpt-4o-mini": MISSING,
            "textattack/bert-base-uncased-SST-2": MISSING,  # offline and not cached
        }
        rows = check(models=list(models), command="run")
    assert {row.name[len("model: ") :]: row.status for row in rows[1:]} == models
    by = rows_by_name(rows)
    assert by[f"model: {good}"].detail.endswith("(model.safetensors); labels negative, positive")
    assert "cannot read labels ['cat', 'dog', 'cow'] as sentiment labels" in by[f"model: {odd}"].detail
    assert "no weights" in by[f"model: {empty}"].detail
    assert "Connection refused" in by[f"model: http://127.0.0.1:{dead_port}/predict"].detail
    assert "not imported" in by["model: report_data:toy"].detail
    assert "$OPENAI_API_KEY is not set" in by["model: openai:gpt-4o-mini"].detail
    assert main(["--offline", "doctor", "--for", "run", "--model", good]) == 0
    assert main(["--offline", "doctor", "--for", "run"]) == 1  # run needs a model
    assert "models under test" in capsys.readouterr().err
    assert main(["doctor", "--for", "test"]) == 2  # argparse: not a command it checks


def test_run_check_refuses_a_masked_lm_folder_as_run_does(tmp_path, capsys):
    """``--for run --model <masked-LM folder>``: run refuses it (no trained head to test), so the
    pre-flight does too, with run's words, instead of passing it."""
    mlm = tiny_bert(tmp_path / "mlm", "ForMaskedLM", ["good", "film"])
    assert main(["doctor", "--for", "run", "--model", str(mlm)]) == 1
    row = rows_by_name(check(models=[str(mlm)], command="run"))[f"model: {mlm}"]
    assert row.status == MISSING
    assert "holds BertForMaskedLM, not a sequence-classification model for the sentiment task" in row.detail
    assert main(["run", str(tmp_path), "--model", str(mlm), "--out", str(tmp_path / "out")]) == 2
    classifier = tiny_bert(
        tmp_path / "clf", "ForSequenceClassification", ["good"], {0: "negative", 1: "positive"}
    )
    assert main(["doctor", "--for", "run", "--model", str(classifier)]) == 0
