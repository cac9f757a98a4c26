"""The command line over real (small) inputs: every command a user runs, end to end."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from autocheck.cli import main
from autocheck.records import TestCase
from autocheck.store import JsonlWriter, read_jsonl

KEYWORD_MODEL = '''
labels = ["negative", "positive"]


def predict(texts):
    """A keyword "model": positive unless the text says "bad"."""
    return [[0.9, 0.1] if "bad" in t else [0.2, 0.8] for t in texts]
'''


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """A hand-made suite: two seeds of LC4 (negated negative) and an expansion of each."""
    cases = []
    for i, (text, expansion, at) in enumerate(
        [
            ("This is not a bad film.", "This is not a really bad film.", 14),
            ("That is not a dull plot.", "", 0),
        ]
    ):
        seed = TestCase(
            f"s{i}", "LC4", "seed", text, ("neutral", "positive"), "MFT", "negative",
            editable=((0, 7), (11, len(text))), provenance={"dataset": "toy", "example_id": str(i)},
        )  # fmt: skip
        cases.append(seed)
        if expansion:
            inserted = {"word": "really", "tag": "RB", "offset": at}
            cases.append(
                TestCase(
                    f"s{i}-x",
                    "LC4",
                    "expansion",
                    expansion,
                    seed.expected,
                    "MFT",
                    "negative",
                    seed.id,
                    seed.editable,
                    {**seed.provenance, "inserted": [inserted]},
                )  # fmt: skip
            )
    out = tmp_path / "suite"
    with JsonlWriter(out / "cases.jsonl") as writer:
        writer.write_all(case.to_json() for case in cases)
    (out / "manifest.json").write_text(json.dumps({"kind": "suite"}))
    return out


def test_run_and_report_with_a_python_function(suite, tmp_path, capsys):
    model_file = tmp_path / "keyword_model.py"
    model_file.write_text(KEYWORD_MODEL)
    results = tmp_path / "results"
    assert main(["run", str(suite), "--model", f"{model_file}:predict", "--out", str(results)]) == 0
    data = json.loads((results / "results.json").read_text())
    (model,) = data["models"].values()
    lc4 = model["capabilities"]["LC4"]
    assert lc4["seeds"]["failures"] == 1 and lc4["expansions"]["failures"] == 1  # the "not bad" ones
    assert "LC4" in capsys.readouterr().out

    html = tmp_path / "report.html"
    assert main(["report", str(results), "--html", str(html)]) == 0
    page = html.read_text()
    assert "<mark" in page and "really" in page
    # an existing results directory is not overwritten without --overwrite
    assert main(["run", str(suite), "--model", f"{model_file}:predict", "--out", str(results)]) == 2


def test_run_on_ray_without_ray_installed_says_how_to_get_it(suite, tmp_path, capsys, monkeypatch):
    (tmp_path / "keyword_model.py").write_text(KEYWORD_MODEL)
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails, as when it is not installed
    run = ["run", str(suite), "--model", f"{tmp_path / 'keyword_model.py'}:predict", "--executor", "ray"]
    assert main([*run, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "pip install 'autocheck[ray]'" in err and "Traceback" not in err


def test_export_then_metrics(suite, tmp_path, capsys):
    out = tmp_path / "export"
    assert main(["export", str(suite), "--out", str(out), "--split", "1:0:0"]) == 0
    rows = [row for part in ("train", "validation", "test") for row in _rows(out, part)]
    assert {row["label_name"] for row in rows} == {"positive"}  # "neutral or positive" in a binary space
    assert len(rows) == 3
    assert main(["export", str(suite), "--out", str(out), "--split", "x"]) == 2

    capsys.readouterr()
    assert main(["metrics", str(suite), "--sample-sizes", "2", "--trials", "2"]) == 0
    table = capsys.readouterr().out
    assert "Self-BLEU" in table and "LC4" in table


def _rows(out: Path, part: str) -> list[dict]:
    path = out / f"{part}.jsonl"
    return list(read_jsonl(path)) if path.exists() else []


def test_grammar_build_from_a_treebank_directory(tmp_path):
    treebank = tmp_path / "ptb"
    treebank.mkdir()
    (treebank / "wsj_0001.mrg").write_text(
        "( (S (NP-SBJ (DT The) (NN film)) (VP (VBZ runs) (ADVP (RB long))) (. .)) )\n"
        "( (S (NP-SBJ (DT The) (JJ old) (NN film)) (VP (VBZ runs)) (. .)) )\n"
    )
    out = tmp_path / "grammar.json"
    assert main(["grammar", "build", "--treebank", str(treebank), "--out", str(out)]) == 0
    grammar = json.loads(out.read_text())
    assert "NP" in json.dumps(grammar) and "NP-SBJ" not in json.dumps(grammar)


def test_checklist_conversion(shared_data, tmp_path):
    source = shared_data / "checklist" / "sentiment_suite.tests.json"
    if not source.exists():
        pytest.skip(f"missing resource: {source}")
    out = tmp_path / "checklist"
    assert main(["checklist", str(source), "--out", str(out), "--max-per-test", "2"]) == 0
    cases = [TestCase.from_json(d) for d in read_jsonl(out / "cases.jsonl")]
    assert {case.test_type for case in cases} == {"MFT", "INV", "DIR"}


def test_offline_missing_model_is_a_one_line_error(tmp_path, capsys):
    code = main(
        [
            "--offline",
            "run",
            str(tmp_path),
            "--model",
            "no-such-org/no-such-model",
            "--out",
            str(tmp_path / "r"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "no-such-org/no-such-model" in err and len(err.strip().splitlines()) == 1


def test_generate_options_reach_the_config():
    from autocheck.cli import _config, build_parser
    from autocheck.config import GenerateConfig

    args = build_parser().parse_args(
        ["generate", "--dataset", "d.csv", "--out", "o", "--top-k-per", "production"]
    )
    config = _config(args, expand=True)
    # fluency and re-parse are off by default (held-out AUC below 0.65, benchmarks/bench_validity.py)
    assert (config.kept_top_k, config.top_k_per, config.fluency_threshold, config.reparse) == (
        10, "production", None, "off",
    )  # fmt: skip
    default = _config(
        build_parser().parse_args(["generate", "--dataset", "d.csv", "--out", "o"]), expand=True
    )
    assert default.top_k_per == "seed"
    # one default per setting: the command line's are GenerateConfig's, and so are fill()'s
    assert default == GenerateConfig(dataset="d.csv")
    import inspect

    from autocheck.expand.fill import fill

    defaults = {name: p.default for name, p in inspect.signature(fill).parameters.items()}
    for name in ("fills_per_mask", "beam_size", "top_n", "first_beam"):
        assert defaults[name] == getattr(GenerateConfig(), name), name


def test_the_generation_options_are_gathered_from_the_config():
    """seeds and generate take every option GenerateConfig declares, with its flag, default and help."""
    from autocheck.cli import build_parser
    from autocheck.config import DATASET, EXPAND, SEEDS, options

    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # argparse keeps its subcommands there
    for command, groups in (("seeds", (SEEDS, DATASET)), ("generate", (SEEDS, DATASET, EXPAND))):
        actions = {a.dest: a for a in commands[command]._actions}
        for f in options(*groups):
            assert f.metadata["flag"] in actions[f.name].option_strings, (command, f.name)
            assert f.metadata["help"] in actions[f.name].help
    seeds = {a.dest for a in commands["seeds"]._actions}
    assert not {f.name for f in options(EXPAND)} & seeds  # expansion options are generate's alone


def test_a_bad_top_k_rule_in_python_is_a_clear_error(tmp_path):
    from autocheck import generate as generation
    from autocheck.store import InputError

    config = generation.GenerateConfig(dataset="d.csv", top_k_per="productions")
    with pytest.raises(InputError, match="top_k_per must be 'seed' or 'production', not 'productions'"):
        generation.generate(config, tmp_path / "out")
    assert not (tmp_path / "out").exists()  # refused before anything is written


def test_generate_imports_nltk_without_its_optional_scipy_and_sklearn_imports():
    """NLTK imports scipy.stats, scipy.sparse and scikit-learn (and so pandas) for parts autocheck never
    uses, 0.7-1.2 CPU-s of a default run; the CLI's generate and fuzz import it without them, and they
    still import afterwards. A fresh interpreter: this one has NLTK imported whole already."""
    import subprocess

    code = (
        "import importlib.util, sys\n"
        "from autocheck.resources import import_nltk_lean\n"
        "import_nltk_lean()\n"
        "from nltk.tree import Tree\n"
        "print([n for n in ('scipy.stats', 'scipy.sparse', 'sklearn', 'pandas') if n in sys.modules])\n"
        "for name in ('scipy.stats', 'scipy.sparse', 'sklearn'):\n"
        "    if importlib.util.find_spec(name.split('.')[0]):\n"
        "        importlib.import_module(name)\n"
        "print('imported after')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["[]", "imported after"]
