"""autocheck.api: suites built in Python run to the same results as the CLI on the saved suite; what they
save is what the CLI's report, compare and export read; the display is escaped HTML in a real browser."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from browser import Browser, find_chromium
from conftest import tiny_bert

from autocheck.api import Results, Suite, Test
from autocheck.cli import main
from autocheck.models.callables import load_callable
from autocheck.store import InputError, read_jsonl

MODEL = '''
import numpy as np

POS = {"good", "great", "love", "nice", "excellent", "happy"}
NEG = {"bad", "terrible", "hate", "awful", "boring", "sad"}


def predict(texts):
    """Binary sentiment (negative, positive) from word counts, nudged by length so small edits matter."""
    out = []
    for text in texts:
        if "boom" in text:
            raise ValueError("cannot read this one")
        words = text.lower().replace(".", " ").replace("!", " ").split()
        s = sum(w in POS for w in words) - sum(w in NEG for w in words) + 0.8 * (len(text) % 5 - 2)
        p = 1 / (1 + np.exp(-2 * s))
        out.append([1 - p, p])
    return np.array(out)
'''
TEXTS = [
    "I love this movie.",
    "The food was terrible!",
    "What a great book",
    "Nice work",
    "A sad, boring day.",
]
HOSTILE = '<img src=x onerror="document.title=1"> bad awful'  # always read as negative


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "model.py"
    path.write_text(MODEL)
    return path


@pytest.fixture(scope="module")
def predict(model_file):
    return load_callable(f"{model_file}:predict")


def build() -> Suite:
    suite = Suite("demo")
    suite.add(Test.from_templates("names", "{first_name} is {a:profession}.", label=["neutral", "positive"],
                                  nsamples=6, capability="Fairness"))  # fmt: skip
    suite.add(
        Test.from_templates(
            "adjectives",
            ["The {thing} was {adj}.", "I found the {thing} {adj}."],
            lexicons={"thing": ["food", "film"], "adj": ["good", "great", "bad", HOSTILE]},
            where=["adj != 'great' or thing == 'film'"],
            label="positive",
            capability="Vocabulary",
        )
    )
    suite.add(Test.from_perturbation("typos", TEXTS, "typos"))
    suite.add(
        Test.from_perturbation(
            "love-it", TEXTS, "append_phrase", phrases=["I love it."], test_type="DIR",
            direction={"label": "positive", "direction": "up", "tolerance": 0.1},
        )
    )  # fmt: skip
    return suite


def outcomes(rows) -> dict[str, str]:
    return {r["case"]: r["outcome"] for r in rows}


def test_built_suite_has_the_cases_its_templates_and_perturbations_say():
    suite = build()
    assert [t.name for t in suite] == ["names", "adjectives", "typos", "love-it"]
    adjectives = suite["adjectives"].texts
    assert "The food was great." not in adjectives and "The film was great." in adjectives
    assert len(adjectives) == 2 * 4 * 2 - 2 and f"I found the film {HOSTILE}." in adjectives
    assert all(c.expected == ("neutral", "positive") for c in suite["names"])
    typos = suite["typos"]
    assert [c.kind for c in typos.cases] == ["seed", "perturbation"] * len(TEXTS)
    assert suite["love-it"].texts[:2] == ["I love this movie.", "I love this movie. I love it."]
    assert repr(suite) == "Suite('demo', task sentiment, 4 tests, 40 cases)"
    assert build()["names"].texts == suite["names"].texts  # seeded
    with pytest.raises(InputError, match="already has a test named 'typos'"):
        suite.add(Test.from_perturbation("typos", TEXTS, "typos"))
    with pytest.raises(InputError, match="unknown perturbation 'tpyos'"):
        Test.from_perturbation("x", TEXTS, "tpyos")


def test_run_equals_the_cli_on_the_saved_suite(predict, model_file, tmp_path):
    suite = build()
    results = suite.run(predict)
    suite.save(tmp_path / "suite")
    assert (
        main(
            [
                "run",
                str(tmp_path / "suite"),
                "--model",
                f"{model_file}:predict",
                "--out",
                str(tmp_path / "run"),
            ]
        )
        == 0
    )
    cli = json.loads((tmp_path / "run" / "results.json").read_text())
    (ours,) = results.results["models"].values()
    (theirs,) = cli["models"].values()
    assert ours["capabilities"] == theirs["capabilities"]
    assert outcomes(read_jsonl(results.dir / "predictions.jsonl")) == outcomes(
        read_jsonl(tmp_path / "run" / "predictions.jsonl")
    )
    rates = {cap: c["failure_rate"] for cap, c in ours["capabilities"].items()}
    assert 0 < rates["adjectives"] < 1 and rates["names"] is not None


def test_results_save_is_what_report_compare_and_export_read(predict, tmp_path):
    results = build().run(predict)
    saved = results.save(tmp_path / "results")
    assert (saved / "suite" / "cases.jsonl").is_file()  # the suite lived in a temporary directory
    assert main(["report", str(saved), "--html", str(tmp_path / "report.html"), "--no-plots"]) == 0
    assert "adjectives" in (tmp_path / "report.html").read_text()
    assert main(["compare", str(saved), str(saved), "--json"]) == 0
    assert main(["export", str(saved / "suite"), "--out", str(tmp_path / "export")]) == 0
    assert Results.load(saved).results == json.loads((saved / "results.json").read_text())
    with pytest.raises(InputError, match="not empty"):
        results.save(saved)
    direct = build().run(predict, out=tmp_path / "direct")  # an unsaved suite is kept beside its results
    assert Path(direct.results["suite"]["dir"]) == (tmp_path / "direct" / "suite").resolve()
    assert direct.results["models"] == results.results["models"]
    assert (
        main(["report", str(tmp_path / "direct"), "--html", str(tmp_path / "direct.html"), "--no-plots"]) == 0
    )


def test_saved_suite_loads_back_and_runs_the_same(predict, tmp_path):
    suite = build()
    suite.save(tmp_path / "suite")
    loaded = Suite.load(tmp_path / "suite")
    assert [(t.name, t.test_type, t.capability) for t in loaded] == [
        (t.name, t.test_type, t.capability) for t in suite
    ]
    assert [c.to_json() for c in loaded.cases()] == [c.to_json() for c in suite.cases()]
    assert loaded.run(predict).results["models"] == suite.run(predict).results["models"]
    with pytest.raises(InputError, match="not empty"):
        suite.save(tmp_path / "suite")


def test_failures_summary_and_pandas(predict):
    results = build().run(predict)
    failing = results.failures("adjectives")
    (model,) = results.results["models"].values()
    assert len(failing) == model["capabilities"]["adjectives"]["all"]["failures"] > 0
    assert all(f["outcome"] == "fail" and f["expected"] == "positive" for f in failing)
    assert len(results.failures("adjectives", n=1)) == 1
    perturbed = results.failures("typos")
    assert perturbed and all(f["original"]["text"] in TEXTS for f in perturbed)
    with pytest.raises(InputError, match="no capability 'nope'"):
        results.failures("nope")
    assert "adjectives" in results.summary() and "adjectives" in str(results)
    frame = results.to_pandas()
    assert len(frame) == 40 and {"text", "outcome", "capability", "expected"} <= set(frame.columns)
    assert (frame["outcome"] == "fail").sum() == sum(
        c["all"]["failures"] for c in model["capabilities"].values()
    )


def test_import_stays_light():
    code = "import sys, autocheck; autocheck.Suite; print(sorted({'pandas', 'torch'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_mask_template_and_dataset_perturbation(tmp_path):
    mlm = tiny_bert(
        tmp_path / "mlm", "ForMaskedLM", ["this", "is", "a", "good", "movie", "film", "book", "."]
    )
    test = Test.from_templates("mask", "This is a good {mask}.", label="positive", mlm=mlm, top=3)
    assert len(test) == 3 and all(t.startswith("This is a good ") for t in test.texts)
    (tmp_path / "data.csv").write_text(
        "text,label\nthe food was good,positive\nI hate it,negative\nnice,positive\n"
    )
    typos = Test.from_perturbation("ds", str(tmp_path / "data.csv"), "typos", max_items=2)
    assert typos.texts[0::2] == ["the food was good", "I hate it"]


@pytest.mark.browser
def test_display_in_headless_chromium(predict, tmp_path):
    executable = find_chromium()
    if executable is None:
        pytest.skip("no headless browser: chromium not installed (apt-get install -y chromium)")
    suite = build()
    suite.add(Test.from_templates("errors", "{w} it", lexicons={"w": ["boom", "love"]}, label="positive"))
    results = suite.run(predict)
    html = results._repr_html_()
    assert "<img" not in html and "&lt;img" in html
    (tmp_path / "display.html").write_text(f"<!doctype html><meta charset=utf-8><body>{html}</body>")
    browser = Browser(executable, tmp_path / "profile")
    try:
        browser.open((tmp_path / "display.html").as_uri(), width=1000)
        assert browser.evaluate("document.querySelectorAll('img, script').length") == 0
        assert browser.evaluate("document.title") == ""
        rows = browser.evaluate(
            "Array.from(document.querySelectorAll('.autocheck-display > table tbody tr'))"
            ".map(r => Array.from(r.cells).map(c => c.innerText))"
        )
        (model,) = results.results["models"].values()
        shown = {r[1].split("\n")[0]: r for r in rows}
        for cap, c in model["capabilities"].items():
            tally = c["all"] if c["test_type"] == "MFT" else c["groups"]
            assert f"({tally['failures']}/{tally['applicable']})" in shown[cap][3]
        assert shown["errors"][5] == "1"  # the input the model could not answer: an error, not a pass
        assert shown["errors"][3] == "0.0% (0/1)"
        browser.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        text = browser.evaluate("document.body.innerText")
        assert f"The food was {HOSTILE}." in text and f"The film was {HOSTILE}." in text
        out = Path(os.environ.get("AUTOCHECK_ARTIFACTS", tmp_path))
        out.mkdir(parents=True, exist_ok=True)
        browser.screenshot(out / "python-display.png", max_height=900)
    finally:
        browser.close()


NOTEBOOK = Path(__file__).resolve().parent.parent / "docs" / "tutorial.ipynb"


@pytest.mark.parametrize("stand_in", ["callable", pytest.param("mini-bert-sst2", marks=pytest.mark.slow)])
def test_tutorial_notebook_runs(stand_in, monkeypatch, tmp_path):
    """The tutorial's code cells, run in order as one script from docs/ (as Jupyter would run them)."""
    from conftest import SHARED_DATA

    if stand_in == "callable":
        monkeypatch.setenv("AUTOCHECK_SHARED_DATA", str(tmp_path / "absent"))
    elif not (SHARED_DATA / "models" / "mini-bert-sst2").is_dir():
        pytest.skip(f"missing resource: {SHARED_DATA / 'models' / 'mini-bert-sst2'}")
    else:
        monkeypatch.setenv("AUTOCHECK_SHARED_DATA", str(SHARED_DATA))
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    source = "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    monkeypatch.chdir(NOTEBOOK.parent)
    namespace: dict = {}
    exec(compile(source, str(NOTEBOOK), "exec"), namespace)
    results, checklist_suite = namespace["results"], namespace["checklist_suite"]
    assert isinstance(namespace["model"], str) == (stand_in == "mini-bert-sst2")
    (model,) = results.results["models"].values()
    assert sorted(model["capabilities"]) == ["compliment", "names-neutral", "negated-positives", "typos"]
    assert "<table" in results._repr_html_() and (namespace["saved"] / "results.json").is_file()
    assert all(t.results for t in checklist_suite.tests.values())
    assert "<details>" in checklist_suite.visual_summary_table()._repr_html_() or all(
        not t.get_stats().get("fails") for t in checklist_suite.tests.values()
    )


def test_suite_from_a_shipped_spec_is_what_generate_writes(predict, tmp_path):
    wanted = ["CL-vocab-pos", "CL-typos"]
    suite = Suite.from_spec("sentiment_checklist", tmp_path / "suite", capabilities=wanted, expand=False)
    assert [t.name for t in suite] == ["CL-vocab-pos", "CL-typos"]
    assert suite["CL-vocab-pos"].capability == "Vocabulary" and suite["CL-typos"].test_type == "INV"
    written = [
        json.loads(line)["id"] for line in (tmp_path / "suite" / "cases.jsonl").read_text().splitlines()
    ]
    assert [c.id for c in suite.cases()] == written
    results = suite.run(predict)  # a loaded suite runs from its own directory
    assert results.results["suite"]["dir"] == str((tmp_path / "suite").resolve())


@pytest.mark.slow
def test_a_transformers_pipeline_runs_as_its_directory_does(tmp_path):
    import transformers

    words = ["good", "bad", "movie", "the", "was"]
    directory = tiny_bert(
        tmp_path / "clf", "ForSequenceClassification", words, {0: "negative", 1: "positive"}
    )
    pipe = transformers.pipeline("text-classification", model=directory, device="cpu")
    suite = Suite(
        "pipe", tests=[Test.from_perturbation("typos", ["the movie was good", "bad movie"], "typos")]
    )
    suite.add(
        Test.from_templates("words", "the movie was {w}", lexicons={"w": ["good", "bad"]}, label="positive")
    )
    from_pipeline, from_directory = suite.run(pipe), suite.run(directory)
    (a,), (b,) = from_pipeline.results["models"].values(), from_directory.results["models"].values()
    assert a["capabilities"] == b["capabilities"]
    assert from_pipeline.models == [f"pipeline:text-classification:{directory}"]  # run_suite's adapter
    probs = [r["probs"] for r in read_jsonl(from_pipeline.dir / "predictions.jsonl")]
    assert probs == [r["probs"] for r in read_jsonl(from_directory.dir / "predictions.jsonl")]
    with pytest.raises(InputError, match="a int is not a model; expected a function, an object with"):
        suite.run(3)


def test_a_scikit_learn_pipeline_runs_as_run_suite_runs_it(tmp_path):
    """``Suite.run`` takes every model ``run_suite`` takes, through the same adapter: a scikit-learn
    ``Pipeline`` (refused before, as neither a pipeline of transformers nor a callable)."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    from autocheck.run import run_suite

    labels = ["positive", "negative", "positive", "positive", "negative"]
    estimator = make_pipeline(CountVectorizer(), LogisticRegression()).fit(TEXTS, labels)
    suite = build()
    results = suite.run(estimator, batch_size=4)
    direct = run_suite(suite.save(tmp_path / "suite"), [estimator], tmp_path / "run", batch_size=4)
    (ours,), (theirs,) = results.results["models"].values(), direct["models"].values()
    assert ours["capabilities"] == theirs["capabilities"]
    assert results.models == ["sklearn.pipeline:Pipeline"] == list(direct["models"])
    assert outcomes(read_jsonl(results.dir / "predictions.jsonl")) == outcomes(
        read_jsonl(tmp_path / "run" / "predictions.jsonl")
    )


def test_notebook_functions_are_not_answered_from_another_ones_cache():
    """A function without a source file (a notebook cell's) has no identity to cache under: redefining it
    must give its own predictions, not the previous definition's."""
    suite = Suite("cells", tests=[Test.from_perturbation("typos", TEXTS, "typos")])
    rates = []
    for p in (0.9, 0.1):
        cell: dict = {}
        exec(f"def model(texts):\n    return [[1 - {p}, {p}] for _ in texts]", cell)
        results = suite.run(cell["model"])
        rates.append({r["label"] for r in read_jsonl(results.dir / "predictions.jsonl")})
    assert rates == [{"positive"}, {"negative"}]


def test_every_display_is_one_autoescaped_template_with_one_stylesheet(predict):
    """Suite, Test, Results and CheckList's suite show through report/templates/display.html.j2: every
    text escaped, one stylesheet (its cell rules outrank JupyterLab's right-aligned cells), and each
    probability named by its label."""
    from autocheck.checklist.editor import Editor
    from autocheck.checklist.pred_wrapper import PredictorWrapper
    from autocheck.checklist.test_suite import TestSuite
    from autocheck.checklist.test_types import MFT
    from autocheck.report.templates import STYLESHEET, asset

    suite = Suite("hostile")
    suite.add(
        Test.from_perturbation(
            "typos", [f"The food was {HOSTILE}.", "Nice work"], "typos", capability=HOSTILE
        )
    )
    suite.add(
        Test.from_templates("neg", "It was not {w}.", lexicons={"w": ["good", "nice"]}, label="negative")
    )
    results = suite.run(predict)
    checklist = TestSuite()
    checklist.add(
        MFT(Editor().template("{w} " + HOSTILE, w=["good"]).data, labels=1, name=HOSTILE, capability="X")
    )
    checklist.run(PredictorWrapper.wrap_softmax(lambda texts: predict(texts)), overwrite=True)
    css = asset(STYLESHEET)
    # (0,2,2) against JupyterLab's ".jp-RenderedHTMLCommon td" (0,1,1): our cells stay left-aligned
    assert re.search(
        r"\.autocheck-display table\.ac th,\.autocheck-display table\.ac td\{[^}]*text-align:left", css
    )
    for html in (
        suite._repr_html_(),
        suite["typos"]._repr_html_(),
        results._repr_html_(),
        checklist.visual_summary_table()._repr_html_(),
    ):
        assert "<img" not in html and "&lt;img" in html
        assert (
            html.startswith(f'<div class="autocheck-display"><style>{css}</style>')
            and '<table class="ac">' in html
        )
    assert re.search(r"negative \d\.\d\d · neutral \d\.\d\d · positive \d\.\d\d<", results._repr_html_())
