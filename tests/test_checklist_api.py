"""autocheck.checklist: CheckList's documented examples, unchanged but for the import line, give the verdicts
autocheck's CLI gives on the same tests; suites save as JSON and load again; the display is safe HTML."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from browser import Browser, find_chromium
from conftest import require, tiny_bert

from autocheck.checklist.editor import Editor
from autocheck.checklist.expect import Expect
from autocheck.checklist.perturb import Perturb
from autocheck.checklist.pred_wrapper import PredictorWrapper
from autocheck.checklist.test_suite import TestSuite
from autocheck.checklist.test_types import DIR, INV, MFT
from autocheck.cli import main
from autocheck.models.callables import load_callable
from autocheck.sources.checklist import slug
from autocheck.store import InputError, read_jsonl

MODEL = '''
import numpy as np

POS = {"good", "great", "love", "nice", "excellent", "amazing", "happy"}
NEG = {"bad", "terrible", "hate", "awful", "boring", "sad"}


def predict(texts):
    """Three-way sentiment from word counts, nudged by the text's length so punctuation and typos matter."""
    out = []
    for text in texts:
        words = text.lower().replace(".", " ").replace("!", " ").replace(",", " ").split()
        s = sum(w in POS for w in words) - sum(w in NEG for w in words) + 0.8 * (len(text) % 5 - 2)
        pos, neg, neu = 1 / (1 + np.exp(-2 * s)), 1 / (1 + np.exp(2 * s)), 0.6 * np.exp(-s * s)
        z = pos + neg + neu
        out.append([neg / z, neu / z, pos / z])
    return np.array(out)
'''
VOCAB = ["this", "is", "a", "an", "good", "bad", "movie", "film", "book", "great", "the", "food", "."]
TEXTS = [
    "I love this movie.",
    "The food was terrible!",
    "What a great book",
    "This is not a good film.",
    "The service was boring, sad and bad.",
    "John was happy in Paris",
    "Nice work",
]


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "model.py"
    path.write_text(MODEL)
    return path


@pytest.fixture(scope="module")
def softmax(model_file):
    return load_callable(f"{model_file}:predict")


@pytest.fixture(scope="module")
def mlm_dir(tmp_path_factory):
    return tiny_bert(tmp_path_factory.mktemp("mlm"), "ForMaskedLM", VOCAB)


@pytest.fixture(scope="module")
def editor(mlm_dir):
    return Editor(model_name=mlm_dir)


def cli_results(suite, tmp_path, model_file):
    """Run ``suite`` with autocheck's CLI (``to_suite_dir`` then ``autocheck run``): results and rows."""
    suite.to_suite_dir(tmp_path / "suite")
    return cli_run(tmp_path, model_file)


def cli_run(tmp_path, model_file):
    """``autocheck run`` of the suite directory ``tmp_path/suite``: the capabilities' results and rows."""
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
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    (model,) = results["models"].values()
    return model["capabilities"], list(read_jsonl(tmp_path / "run" / "predictions.jsonl"))


def assert_same_as_cli(suite, capabilities, rows):
    """Each test's failures and applicable test cases, and which test cases fail, as the CLI counts them."""
    for name, test in suite.tests.items():
        c = capabilities[slug(name)]
        tally = c["all"] if c["test_type"] == "MFT" else c["groups"]
        stats = test.get_stats()
        assert stats.get("fails", 0) == tally["failures"], name
        assert stats.get("after_filtering", stats.testcases) == tally["applicable"], name
        failing = {int((r["seed"] or r["case"]).split(":")[1]) for r in rows
                   if r["capability"] == slug(name) and r["outcome"] == "fail"}  # fmt: skip
        assert failing == set(test.fail_idxs().tolist()), name


# ------------------------------------------------------------------------------------- Editor


def test_template_fills_names_and_professions_with_articles(editor):
    ret = editor.template("{first_name} is {a:profession}", meta=True, nsamples=20)
    assert len(ret.data) == 20 and len(set(ret.data)) == 20
    names, professions = set(editor.lexicons["first_name"]), set(editor.lexicons["profession"])
    for text, meta in zip(ret.data, ret.meta):
        first, article, job = re.fullmatch(r"(\S+) is (an?) (.+)", text).groups()
        assert first == meta["first_name"] in names and job == meta["profession"] in professions
        assert article == ("an" if job[0] in "aeiou" else "a") or job.startswith(("u", "h", "eu", "o"))
    again = Editor(model_name=editor.model_name).template("{first_name} is {a:profession}", nsamples=20)
    assert again.data == ret.data  # seeded


def test_template_keywords_labels_and_adding_results(editor):
    ret = editor.template("{x} is {y}.", x=["John", "Mary"], y=["good", "bad"], labels=2)
    assert ret.data == ["John is good.", "John is bad.", "Mary is good.", "Mary is bad."]
    assert ret.labels == [2, 2, 2, 2]
    ret += editor.template("I {v} it.", v=["like", "hate"], labels=[2, 0])
    assert ret.data[-2:] == ["I like it.", "I hate it."] and ret.labels[-2:] == [2, 0]
    pairs = editor.template(("{x} is here.", "Is {x} here?"), x=["Ann", "Bob"])
    assert pairs.data == [("Ann is here.", "Is Ann here?"), ("Bob is here.", "Is Bob here?")]
    editor.add_lexicon("thing", ["movie", "book"], overwrite=True)
    assert editor.template("a {thing}").data == ["a movie", "a book"]
    with pytest.raises(InputError, match="exists"):
        editor.add_lexicon("thing", ["x"])


def test_mask_suggestions_come_from_the_masked_lm(editor):
    words = editor.suggest("This is a good {mask}.")
    assert words and set(words) <= set(VOCAB) and words == editor.suggest("This is a good {mask}.")
    scored = editor.suggest("This is a good {mask}.", return_score=True)
    assert [w for w, _ in scored] == words and all(s > 0 for _, s in scored)
    filled = editor.template("This is a good {mask}.", top=3)
    assert len(filled.data) == 3 and all(t.startswith("This is a good ") for t in filled.data)
    assert [t[len("This is a good ") : -1] for t in filled.data] == words[:3]
    replaced = editor.suggest_replace("This is a good movie.", "movie", full_sentences=True, n=3)
    assert len(replaced) == 3 and all(r.startswith("This is a good ") and "movie" not in r for r in replaced)


# ------------------------------------------------------------------------------------ Perturb


def test_perturb_data_with_add_typos():
    ret = Perturb.perturb(TEXTS, Perturb.add_typos)
    assert len(ret.data) == len(TEXTS)
    for (original, typo), text in zip(ret.data, TEXTS):
        assert original == text and typo != text and sorted(typo) == sorted(text)
        diff = [i for i, (a, b) in enumerate(zip(text, typo)) if a != b]
        assert len(diff) == 2 and diff[1] == diff[0] + 1  # one swap of neighbours
    assert Perturb.perturb(TEXTS, Perturb.add_typos).data == ret.data  # the same text, the same typo
    assert Perturb.perturb(TEXTS, Perturb.add_typos, keep_original=False).data == [r[1:] for r in ret.data]
    assert len(Perturb.perturb(TEXTS, Perturb.add_typos, nsamples=3).data) == 3


def test_perturbation_functions_return_checklists_shapes():
    assert Perturb.contractions("I can't go, it's late") == ["I cannot go, it is late"]
    assert Perturb.expand_contractions("It's fine") == "It is fine"
    assert Perturb.contract("It is fine") == "It's fine"
    assert Perturb.add_negation("John is happy.") == "John is not happy."
    assert Perturb.remove_negation("John is not happy.") == "John is happy."
    assert Perturb.punctuation("Good movie!") == ["Good movie", "Good movie."]
    assert Perturb.strip_punctuation("Good movie!") == "Good movie"
    names = Perturb.change_names("John was happy in Paris", n=3)
    assert len(names) == 3 and all(n.endswith(" was happy in Paris") and "John" not in n for n in names)
    texts, meta = Perturb.change_location("John was happy in Paris", meta=True, n=2)
    assert all("Paris" not in t for t in texts)
    assert meta[0] == ("Paris", texts[0][len("John was happy in ") :])
    assert Perturb.change_names("the food was bad") is None
    ret = Perturb.perturb(TEXTS, Perturb.change_names, n=2, meta=True)
    assert ret.data[0][0] == "John was happy in Paris" and len(ret.data[0]) == 3 and ret.meta[0][0] is None


# ----------------------------------------------------------------------- tests, runs, the CLI


def test_wrap_softmax_and_wrap_predict(softmax):
    preds, confs = PredictorWrapper.wrap_softmax(softmax)(TEXTS)
    assert np.array_equal(preds, np.argmax(softmax(TEXTS), axis=1)) and confs.shape == (len(TEXTS), 3)
    preds, confs = PredictorWrapper.wrap_predict(lambda xs: [1] * len(xs))(TEXTS)
    assert preds == [1] * len(TEXTS) and np.array_equal(confs, np.ones(len(TEXTS)))


def build_suite(editor):
    suite = TestSuite()
    ret = editor.template(
        "The {thing} was {adj}.", thing=["food", "movie"], adj=["good", "great", "bad"], labels=2
    )
    suite.add(
        MFT(**ret, name="positive adjectives", capability="Vocabulary", description="all called positive")
    )
    suite.add(INV(**Perturb.perturb(TEXTS, Perturb.add_typos), name="typos", capability="Robustness"))
    suite.add(INV(**Perturb.perturb(TEXTS, Perturb.punctuation), name="punctuation", capability="Robustness"))
    suite.add(DIR(**Perturb.perturb(TEXTS, lambda x: x + " I love it!"),
                  expect=Expect.monotonic(label=2, increasing=True, tolerance=0.1),
                  name="add love", capability="Vocabulary"))  # fmt: skip
    suite.add(DIR(**Perturb.perturb(TEXTS, lambda x: x + " Awful."),
                  expect=Expect.monotonic(label=2, increasing=False, tolerance=0.1),
                  name="add awful", capability="Vocabulary"))  # fmt: skip
    return suite


def test_suite_results_equal_the_cli_on_the_same_tests(editor, softmax, model_file, tmp_path, capsys):
    suite = build_suite(editor)
    suite.run(PredictorWrapper.wrap_softmax(softmax), verbose=False)
    capabilities, rows = cli_results(suite, tmp_path, model_file)
    assert_same_as_cli(suite, capabilities, rows)
    stats = {name: t.get_stats() for name, t in suite.tests.items()}
    mft = suite.tests["positive adjectives"].data
    assert stats["positive adjectives"].fails == sum(np.argmax(softmax(mft), axis=1) != 2) == 3
    for name in ("punctuation", "add love", "add awful"):  # the model fails some, passes others
        assert 0 < stats[name].fails < stats[name].get("after_filtering", stats[name].testcases), name
    suite.summary()
    printed = capsys.readouterr().out
    assert "Fails (rate):    3 (50.0%)" in printed and "Example fails:" in printed


def test_saved_suite_reloads_and_gives_the_same_results(editor, softmax, tmp_path):
    suite = build_suite(editor)
    suite.save(tmp_path / "suite.json")
    saved = json.loads((tmp_path / "suite.json").read_text())
    assert [t["autocheck_expect"]["fn"] for t in saved] == ["eq", "inv", "inv", "monotonic", "monotonic"]
    loaded = TestSuite.from_file(tmp_path / "suite.json")
    predict = PredictorWrapper.wrap_softmax(softmax)
    for s in (suite, loaded):
        s.run(predict, verbose=False)
    assert list(loaded.tests) == list(suite.tests)
    for name, test in suite.tests.items():
        assert loaded.tests[name].get_stats() == test.get_stats()
        assert loaded.tests[name].data == test.data and loaded.info[name] == suite.info[name]
    with pytest.raises(InputError, match="exists"):
        suite.save(tmp_path / "suite.json")
    with pytest.raises(InputError, match=r"suite.json: folder .*no-such does not exist"):
        suite.save(tmp_path / "no-such" / "suite.json")  # as CheckList: no folder made for a mistyped path
    assert not (tmp_path / "no-such").exists()
    custom = TestSuite()
    custom.add(
        MFT(["a"], expect=Expect.single(lambda x, p, c, label, meta: p == 2), name="own", capability="c")
    )
    with pytest.raises(InputError, match="'own': its expectation is a Python function"):
        custom.save(tmp_path / "custom.json")
    # skip_original over an expectation of one's own (wrapped or a plain function) is no saveable spec either
    plain = Expect.skip_original(lambda self: [], 1)
    assert plain.spec is None
    skipping = TestSuite()
    own = Expect.single(lambda x, p, c, label, meta: p == 2)
    skipping.add(DIR([["a", "b"]], expect=Expect.skip_original(own, 1), name="skip", capability="c"))
    with pytest.raises(InputError, match="'skip': its expectation is a Python function"):
        skipping.save(tmp_path / "skipping.json")


def test_run_from_file_and_to_raw_file(editor, softmax, tmp_path):
    suite = build_suite(editor)
    suite.to_raw_file(str(tmp_path / "examples.txt"))
    lines = (tmp_path / "examples.txt").read_text().split("\n")
    assert len(lines) == sum(len(t.data) if isinstance(t.data[0], str) else sum(map(len, t.data))
                             for t in suite.tests.values())  # fmt: skip
    probs = softmax(lines)
    (tmp_path / "preds.txt").write_text(
        "\n".join(f"{int(np.argmax(p))} " + " ".join(map(str, p)) for p in probs)
    )
    suite.run_from_file(str(tmp_path / "preds.txt"), file_format="pred_and_softmax")
    direct = build_suite(editor)
    direct.run(PredictorWrapper.wrap_softmax(softmax), verbose=False)
    for name, test in suite.tests.items():
        assert test.get_stats() == direct.tests[name].get_stats()


def test_released_checklist_suite_loads_and_agrees_with_the_cli(shared_data, softmax, model_file, tmp_path):
    source = require(shared_data / "checklist" / "sentiment_suite.tests.json")
    tests = json.loads(source.read_text())
    for t in tests:  # the first 12 test cases of each of the 38 tests
        t["data"] = t["data"][:12]
        if isinstance(t.get("labels"), list):
            t["labels"] = t["labels"][:12]
    (tmp_path / "released.json").write_text(json.dumps(tests))
    suite = TestSuite.from_file(tmp_path / "released.json")
    assert len(suite.tests) == 38
    suite.run(PredictorWrapper.wrap_softmax(softmax), verbose=False)
    assert main(["checklist", str(tmp_path / "released.json"), "--out", str(tmp_path / "suite")]) == 0
    assert_same_as_cli(suite, *cli_run(tmp_path, model_file))
    assert sum(t.get_stats().get("fails", 0) for t in suite.tests.values()) > 0


def test_a_pickle_loads_only_when_trusted(tmp_path):
    import pickle

    (tmp_path / "suite.pkl").write_bytes(pickle.dumps({"not": "a suite"}))
    with pytest.raises(InputError, match="a pickle runs code"):
        TestSuite.from_file(tmp_path / "suite.pkl")


# ------------------------------------------------------------------------------------ display


@pytest.mark.browser
def test_visual_summary_renders_escaped_in_headless_chromium(softmax, tmp_path):
    executable = find_chromium()
    if executable is None:
        pytest.skip("no headless browser: chromium not installed (apt-get install -y chromium)")
    hostile = ['<img src=x onerror="document.title=1">bad', "<script>document.title=2</script> awful"]
    suite = TestSuite()
    wrong = [int(k + 1) % 3 for k in np.argmax(softmax(hostile + ["good"]), axis=1)]  # every one fails
    suite.add(MFT(hostile + ["good"], labels=wrong, name="<b>names</b>", capability="Vocabulary"))
    suite.add(INV(**Perturb.perturb(TEXTS, Perturb.add_typos), name="typos", capability="Robustness"))
    suite.run(PredictorWrapper.wrap_softmax(softmax), verbose=False)
    html = suite.visual_summary_table()._repr_html_()
    assert "<img" not in html and "<script>" not in html and "&lt;img" in html
    (tmp_path / "display.html").write_text(f"<!doctype html><meta charset=utf-8><body>{html}</body>")
    browser = Browser(executable, tmp_path / "profile")
    try:
        browser.open((tmp_path / "display.html").as_uri())
        assert browser.evaluate("document.querySelectorAll('img, script, b b').length") == 0
        assert browser.evaluate("document.title") == ""  # no handler ran
        rows = browser.evaluate(
            "Array.from(document.querySelectorAll('.autocheck-display > table tbody tr'))"
            ".map(r => Array.from(r.cells).map(c => c.innerText))"
        )
        stats = suite.tests["typos"].get_stats()
        assert rows[0][1] == "<b>names</b>" and rows[0][3] == "100.0% (3/3)"
        assert rows[1][3] == f"{stats.fail_rate:.1f}% ({stats.fails}/{stats.testcases})"
        browser.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        shown = browser.evaluate("document.querySelector('details table').innerText")
        assert hostile[0] in shown and hostile[1] in shown
    finally:
        browser.close()


def test_perturbations_take_spacy_docs():
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("en")
    docs = [nlp(t) for t in TEXTS]
    assert Perturb.perturb(docs, Perturb.add_typos).data == Perturb.perturb(TEXTS, Perturb.add_typos).data
    assert Perturb.add_negation(nlp("John is happy.")) == "John is not happy."


def test_expectation_helpers_follow_checklists_rules(softmax):
    """Own functions through single/pairwise, slices (None: not applicable) and combinations."""
    predict = PredictorWrapper.wrap_softmax(softmax)
    data = [[t, t + " Awful."] for t in TEXTS]
    never_negative = Expect.single(lambda x, pred, conf, label=None, meta=None: pred != 0)
    test = DIR(data, expect=never_negative, name="own", capability="c")
    test.run(predict, verbose=False)
    preds = [np.argmax(softmax(d), axis=1) for d in data]
    assert test.fail_idxs().tolist() == [
        i for i, p in enumerate(preds) if p[1] == 0
    ]  # the original is ignored
    sliced = Expect.slice_orig(Expect.inv(0.1), lambda orig_pred, orig_conf: orig_pred == 2)
    test.set_expect(sliced)
    assert test.filtered_idxs().tolist() == [i for i, p in enumerate(preds) if p[0] != 2]
    inv = DIR(data, expect=Expect.inv(0.1), name="inv", capability="c")
    inv.run(predict, verbose=False)
    test.set_expect(Expect.combine_and(sliced, never_negative))  # a sliced-out value takes the other's
    either = {i for i in inv.fail_idxs().tolist() if preds[i][0] == 2}
    either |= {i for i, p in enumerate(preds) if p[1] == 0}
    assert set(test.fail_idxs().tolist()) == either and not len(test.filtered_idxs())
    assert Expect.aggregate([np.array([True, None, -0.2]), np.array([None]), np.array([1.0])]).tolist() == [
        False, None, True,
    ]  # fmt: skip


@pytest.mark.slow
def test_synonyms_and_antonyms_fit_the_context(shared_data):
    editor = Editor(model_name=str(require(shared_data / "models" / "mini-bert-mlm")))
    assert editor.antonyms("My drink is hot.", "hot") == ["cold"]
    synonyms = editor.synonyms("This movie is good.", "good", n=5)
    assert synonyms and "good" not in synonyms
    with pytest.raises(InputError, match="does not occur"):
        editor.synonyms("This movie is good.", "bad")


def test_pairs_save_and_load_as_pairs(tmp_path):
    """QQP-style examples (two texts) stay examples, not test cases, through JSON."""

    def duplicate(pairs):
        return np.array([[0.2, 0.8] if a.lower() == b.lower() else [0.9, 0.1] for a, b in pairs])

    suite = TestSuite()
    suite.add(MFT([("How old?", "how old?"), ("Why?", "When?")], labels=[1, 1], name="same", capability="c"))
    suite.add(INV([[("A?", "a?"), ("A!", "a?")]], name="punct", capability="c"))
    suite.save(tmp_path / "pairs.json")
    loaded = TestSuite.from_file(tmp_path / "pairs.json")
    assert loaded.tests["same"].data == suite.tests["same"].data
    assert loaded.tests["punct"].data == [[("A?", "a?"), ("A!", "a?")]]
    for s in (suite, loaded):
        s.run(PredictorWrapper.wrap_softmax(duplicate), verbose=False)
        assert s.tests["same"].fail_idxs().tolist() == [1] and s.tests["punct"].fail_idxs().tolist() == [0]


def test_a_suite_not_run_shows_through_the_shared_display_template():
    """The "not run" TestSuite display is the displays' own template (one stylesheet, autoescaped), not
    HTML of its own."""
    from autocheck.checklist.test_suite import TestSuite
    from autocheck.checklist.test_types import MFT

    suite = TestSuite()
    suite.add(MFT(["a good film", "bad"], labels=1, name="names <b>", capability="Vocabulary"))
    html = suite._repr_html_()
    assert "TestSuite (not run)" in html and "The one stylesheet of every HTML output" in html
    assert "names &lt;b&gt;" in html and "names <b>" not in html
    assert '<td class="num">2</td>' in html
