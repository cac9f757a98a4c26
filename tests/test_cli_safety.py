"""The command line never replaces a user's file unasked, and every hint names an option that exists
(``--text-column`` on the command line, ``text_column=`` from Python)."""

from __future__ import annotations

import argparse
import csv
import json
import re
from pathlib import Path

import pytest

from autocheck import cli
from autocheck.cli import build_parser, main
from autocheck.store import InputError

TREE = "( (S (NP-SBJ (DT The) (NN film)) (VP (VBZ runs) (ADVP (RB long))) (. .)) )\n"
SENTENCES = [("This is a bad movie.", "negative"), ("This is a good film.", "positive")]


def _options(command: str) -> set[str]:
    """The option strings of ``autocheck COMMAND`` (``grammar build`` for the nested one)."""
    parser = build_parser()
    for name in command.split():
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[name]
    return {flag for action in parser._actions for flag in action.option_strings}


def _assert_real_options(command: str, message: str) -> None:
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", message))
    assert named, message
    assert named <= _options(command), f"{command}: {message!r} names {named - _options(command)}"
    assert not re.search(r"\b\w+=(True|NAME|DIR)\b", message), message  # no Python keyword wording


def _error(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_grammar_build_refuses_to_replace_a_file(tmp_path, capsys):
    treebank = tmp_path / "ptb"
    treebank.mkdir()
    (treebank / "wsj_0001.mrg").write_text(TREE)
    out = tmp_path / "grammar.json"
    out.write_text("mine")
    assert main(["grammar", "build", "--treebank", str(treebank), "--out", str(out)]) == 2
    _assert_real_options("grammar build", _error(capsys))
    assert out.read_text() == "mine"
    assert main(["grammar", "build", "--treebank", str(treebank), "--out", str(out), "--overwrite"]) == 0
    assert out.read_text() != "mine"


def test_report_html_refuses_to_replace_a_file(tmp_path, capsys):
    html = tmp_path / "report.html"
    html.write_text("mine")
    assert main(["report", str(tmp_path / "results"), "--html", str(html)]) == 2
    err = _error(capsys)
    assert "report.html: file exists" in err
    _assert_real_options("report", err)
    assert html.read_text() == "mine"


def test_retrain_refuses_a_non_empty_out(tmp_path, capsys):
    out = tmp_path / "retrained"
    out.mkdir()
    (out / "retrain_results.json").write_text("{}")
    code = main(["retrain", "--model", "x", "--data", str(tmp_path), "--out", str(out)])
    assert code == 2
    _assert_real_options("retrain", _error(capsys))
    assert (out / "retrain_results.json").read_text() == "{}"


@pytest.mark.parametrize("command", ["run", "checklist"])
def test_non_empty_out_hint_offers_only_real_options(tmp_path, capsys, command):
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.json").write_text("{}")
    argv = {
        "run": ["run", str(tmp_path), "--model", "nothing:here", "--out", str(out)],
        "checklist": ["checklist", str(tmp_path / "suite.json"), "--out", str(out)],
    }[command]
    assert main(argv) == 2
    err = _error(capsys)
    assert "--resume" not in err and "--overwrite" in err
    _assert_real_options(command, err)


def _dataset(tmp_path: Path, header: tuple[str, str]) -> Path:
    path = tmp_path / "reviews.csv"
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows([header, *SENTENCES])
    return path


def test_seeds_hints_use_cli_wording(tmp_path, capsys):
    dataset = _dataset(tmp_path, ("review", "label"))
    assert (
        main(["seeds", "--dataset", str(dataset), "--lexicon", "opinion", "--out", str(tmp_path / "s")]) == 2
    )
    err = _error(capsys)
    assert "--text-column NAME" in err
    _assert_real_options("seeds", err)

    out = tmp_path / "busy"
    out.mkdir()
    (out / "cases.jsonl").write_text("")
    assert main(["seeds", "--dataset", str(dataset), "--out", str(out)]) == 2
    err = _error(capsys)
    assert "--resume" in err and "--overwrite" in err
    _assert_real_options("seeds", err)


def test_api_errors_use_keyword_wording(tmp_path):
    from autocheck.sources.checklist import load_checklist
    from autocheck.sources.datasets import load_examples
    from autocheck.store import prepare_output_dir

    with pytest.raises(InputError, match=r"pass text_column=NAME") as info:
        list(load_examples(str(_dataset(tmp_path, ("review", "label")))))
    assert "--" not in str(info.value)
    (tmp_path / "x.pkl").write_bytes(b"")
    with pytest.raises(InputError, match=r"pass trust_pickle=True only") as info:
        load_checklist(tmp_path / "x.pkl")
    assert "--" not in str(info.value) and "--trust-pickle" in info.value.cli
    with pytest.raises(InputError, match=r"pass resume=True to continue that run or overwrite=True"):
        prepare_output_dir(tmp_path, resume=False)
    with pytest.raises(InputError, match=r"pass overwrite=True to replace its files$"):
        prepare_output_dir(tmp_path)


@pytest.mark.parametrize(
    "command,expected",
    [("run", "--overwrite"), ("seeds", "--resume"), ("report", "run the same command again")],
)
def test_ctrl_c_hint_names_options_of_the_interrupted_command(
    tmp_path, capsys, monkeypatch, command, expected
):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(
        cli,
        {"run": "cmd_run", "seeds": "cmd_generate", "report": "cmd_report"}[command],
        lambda *a, **k: interrupted(a),
    )
    argv = {
        "run": ["run", str(tmp_path), "--model", "m", "--out", str(tmp_path / "o")],
        "seeds": ["seeds", "--dataset", "d.csv", "--out", str(tmp_path / "o")],
        "report": ["report", str(tmp_path)],
    }[command]
    assert main(argv) == 130
    err = _error(capsys)
    assert expected in err
    if "--" in err:
        _assert_real_options(command, err)
    if command != "seeds":
        assert "--resume" not in err


def test_every_resumable_command_hint_is_true(tmp_path, capsys):
    """perturb writes through the generation job, so its refusal offers --resume: it must have it."""
    dataset = _dataset(tmp_path, ("text", "label"))
    out = tmp_path / "busy"
    out.mkdir()
    (out / "cases.jsonl").write_text("")
    assert main(["perturb", str(dataset), "--perturbation", "typos", "--out", str(out)]) == 2
    err = _error(capsys)
    assert "--resume" in err
    _assert_real_options("perturb", err)


def test_demo_hint_offers_only_its_own_options(tmp_path, capsys):
    """A demo folder whose suite was made with other settings: demo has --overwrite, not --resume."""
    suite = tmp_path / "demo" / "suite"
    suite.mkdir(parents=True)
    (suite / "manifest.json").write_text('{"fingerprint": "other settings"}')
    (suite / "cases.jsonl").write_text("")
    assert main(["demo", "--out", str(tmp_path / "demo"), "--shared", str(tmp_path / "none")]) == 2
    err = _error(capsys)
    assert "--overwrite" in err and "--resume" not in err
    _assert_real_options("demo", err)
    assert (suite / "manifest.json").read_text() == '{"fingerprint": "other settings"}'


@pytest.mark.parametrize(
    "argv,flag",
    [
        (["seeds", "--max-seeds", "-1"], "--max-seeds"),
        (["seeds", "--chunk-size", "0"], "--chunk-size"),
        (["generate", "--fills-per-mask", "0"], "--fills-per-mask"),
        (["generate", "--batch-size", "0"], "--batch-size"),
        (["generate", "--beam-size", "0"], "--beam-size"),
        (["generate", "--workers", "0"], "--workers"),
        (["generate", "--fluency-threshold", "nan"], "--fluency-threshold"),
        (["run", "s", "--model", "m", "--batch-size", "0"], "--batch-size"),
        (["run", "s", "--model", "m", "--timeout", "0"], "--timeout"),
        (["run", "s", "--model", "m", "--concurrency", "0"], "--concurrency"),
        (["run", "s", "--model", "m", "--retries", "-1"], "--retries"),
        (["export", "s", "--split", "nan:1:1"], "--split"),
        (["metrics", "s", "--sample-sizes", "200,0"], "--sample-sizes"),
        (["metrics", "s", "--trials", "0"], "--trials"),
        (["retrain", "--model", "m", "--data", "d", "--lr", "inf"], "--lr"),
        (["perturb", "d.csv", "--perturbation", "typos", "--tolerance", "-0.1"], "--tolerance"),
        (["demo", "--max-seeds", "0"], "--max-seeds"),
        (["report", "r", "--max-failures", "-1"], "--max-failures"),
    ],
)
def test_bad_numbers_are_one_line_errors_naming_the_flag(tmp_path, capsys, monkeypatch, argv, flag):
    monkeypatch.chdir(tmp_path)
    out = [] if argv[0] in ("metrics", "report") else ["--out", "o"]
    assert main([*argv, *out]) == 2
    err = _error(capsys)
    assert len(err.strip().splitlines()) == 1 and f"argument {flag}: expected" in err, err
    assert not (tmp_path / "o").exists()  # refused before any work


def _model_dir(path: Path, config: dict, *files: str) -> Path:
    path.mkdir()
    (path / "config.json").write_text(json.dumps(config))
    for name in files:
        (path / name).write_bytes(b"")
    return path


def test_swapped_parser_and_mlm_are_named_before_anything_loads(tmp_path, capsys):
    mlm = _model_dir(tmp_path / "mlm", {"model_type": "bert", "architectures": ["BertForMaskedLM"]})
    parser = _model_dir(tmp_path / "parser", {"model_type": "bert", "benepar": {}}, "benepar_model.bin")
    head = _model_dir(tmp_path / "clf", {"architectures": ["BertForSequenceClassification"]})
    generate = ["generate", "--dataset", "missing.csv", "--out", str(tmp_path / "o")]
    swapped = "not a masked LM (is it the --parser?)", "not a benepar parser (is it the --mlm?)"
    for options, message in [
        (
            ["--mlm", str(parser), "--parser", str(mlm)],
            f"--mlm {parser}: the directory holds a benepar parser, {swapped[0]}",
        ),
        (["--parser", str(mlm)], f"--parser {mlm}: the directory holds a masked LM, {swapped[1]}"),
        (["--mlm", str(head)], f"--mlm {head}: the directory holds a sequence classifier, not a masked LM"),
        (["--parser", str(mlm / "config.json")], "is a file"),
    ]:
        assert main([*generate, *options]) == 2
        err = _error(capsys)
        assert message in err and len(err.strip().splitlines()) == 1, err
        assert not (tmp_path / "o").exists()
    assert (
        main(["seeds", "--dataset", "missing.csv", "--out", str(tmp_path / "s"), "--mlm", str(parser)]) == 2
    )
    assert "holds a benepar parser" in _error(capsys)


def test_a_folder_given_as_an_output_file_is_a_clear_error(tmp_path, capsys, monkeypatch):
    # found by the options property test: "report --html ." raised ValueError from pathlib
    from autocheck.cli import main

    monkeypatch.chdir(tmp_path)
    for target in (".", str(tmp_path)):
        assert main(["report", "results", "--html", target]) == 2
        err = capsys.readouterr().err
        assert "is a directory; give a file name" in err and "Traceback" not in err


@pytest.mark.parametrize("name", ["", " ", "\x1f", "a\x01b"])
def test_a_parser_name_that_is_no_name_is_a_clear_error(name):
    # found by the options property test: "metrics --parser ' '" raised benepar's "Unsafe resource path"
    from autocheck.expand.parsing import locate_model
    from autocheck.resources import ResourceMissing

    with pytest.raises(ResourceMissing, match="benepar model"):
        locate_model(name)
