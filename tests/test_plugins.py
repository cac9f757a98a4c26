"""Extension points: a third-party package adds parts through entry points, without editing autocheck.

The plug-in in ``fixtures/plugin`` is installed with pip into a folder put on the path of the processes
that use it, as an installed package would be."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require
from test_pipeline import small_dataset  # noqa: F401

REPO = Path(__file__).resolve().parents[1]
PLUGIN = Path(__file__).parent / "fixtures" / "plugin"


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("site")
    build = tmp_path_factory.mktemp("build")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index"]
        + ["--target", str(site), str(PLUGIN)],
        check=True,
        cwd=build,  # pip's build folder, not the fixture's
    )
    return site


def _env(site: Path, **extra: str) -> dict[str, str]:
    path = os.pathsep.join([str(site), str(REPO), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, **extra}


def _python(site: Path, code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], env=_env(site), capture_output=True, text=True)


def _autocheck(site: Path, *argv: str) -> subprocess.CompletedProcess:
    """The command line, in a process that has the plug-in installed."""
    return subprocess.run(
        [sys.executable, "-m", "autocheck", *argv], env=_env(site), capture_output=True, text=True
    )


def _cases(suite: Path) -> list[dict]:
    return [json.loads(line) for line in (suite / "cases.jsonl").read_text().splitlines()]


def test_plugin_parts_are_listed_without_importing_the_plugin(plugin_site):
    done = _python(
        plugin_site,
        "import sys\n"
        "from autocheck.execute import EXECUTORS\n"
        "from autocheck.expand.validate import CHECKS\n"
        "from autocheck.models import MODELS\n"
        "from autocheck.author.perturb import PERTURBATIONS\n"
        "from autocheck.sources.datasets import DATASETS\n"
        "from autocheck.sources.lexicon import LEXICONS\n"
        "loaded = 'autocheck_demo_plugin' in sys.modules\n"
        "print(EXECUTORS.names(), CHECKS.names(), 'constant' in MODELS, loaded)\n"
        "print('shout' in PERTURBATIONS, DATASETS.names(), LEXICONS.names())",
    )
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()[:2]
    checks = (
        "['broken', 'context', 'doubled', 'duplicate', 'no_ly_adverbs', 'polarity', 'pos', 'requirement']"
    )
    assert first == f"['local', 'logged', 'ray'] {checks} True False"
    datasets = "['conll', 'csv', 'hatexplain', 'hf', 'jsonl', 'lines', 'sst', 'tsv']"
    assert second == f"True {datasets} ['opinion', 'sentiwordnet', 'tiny', 'vader']"


def test_run_uses_a_plugins_model_form(plugin_site, tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    rows = [
        {"id": f"c{i}", "capability": "LC1", "kind": "seed", "text": f"film {i}", "expected": label,
         "test_type": "MFT", "label": label}
        for i, label in enumerate(["positive", "positive", "negative"])
    ]  # fmt: skip
    (suite / "cases.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    done = _autocheck(
        plugin_site, "run", str(suite), "--model", "constant:positive", "--out", str(tmp_path / "run")
    )
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    tally = results["models"]["constant:positive"]["capabilities"]["LC1"]["all"]
    assert (tally["failures"], tally["applicable"]) == (1, 3)


def test_run_compares_answers_of_a_plugins_output_kind(plugin_site, tmp_path):
    """A task whose output is the plug-in's ``count`` kind: its model form's answers are read, compared
    (MFT, INV, DIR), written and exported by the kind, without a line of autocheck knowing it."""
    suite = tmp_path / "suite"
    suite.mkdir()
    task = {"task": "word_count", "inputs": ["text"], "output": "count"}
    (suite / "manifest.json").write_text(json.dumps({"task": task}))
    rows = [
        ("s1", "seed", None, "a b c", "MFT", 3),  # pass
        ("s2", "seed", None, "a b", "MFT", 3),  # fail
        ("e1", "expansion", "s2", "a big b", "INV", None),  # fail: 3 words against 2
        ("e2", "expansion", "s1", "a b c d", "DIR", {"direction": "up"}),  # pass
        ("e3", "expansion", "s1", "a b", "DIR", {"direction": "up"}),  # fail
    ]
    cases = [
        {"id": i, "capability": "C", "kind": kind, "seed_id": seed, "text": text, "test_type": test_type,
         "expected": expected}
        for i, kind, seed, text, test_type, expected in rows
    ]  # fmt: skip
    (suite / "cases.jsonl").write_text("".join(json.dumps(row) + "\n" for row in cases))
    done = _autocheck(plugin_site, "run", str(suite), "--model", "words:", "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr
    found = [json.loads(line) for line in (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()]
    assert [(r["case"], r["count"], r["outcome"]) for r in found] == [
        ("s1", 3, "pass"), ("s2", 2, "fail"), ("e1", 3, "fail"), ("e2", 4, "pass"), ("e3", 2, "fail")
    ]  # fmt: skip
    done = _autocheck(
        plugin_site, "export", str(suite), "--split", "1:0:0", "--out", str(tmp_path / "export")
    )
    assert done.returncode == 0, done.stderr
    exported = [json.loads(line) for line in (tmp_path / "export" / "train.jsonl").read_text().splitlines()]
    assert sorted((r["text"], r["count"]) for r in exported) == [("a b", 3), ("a b c", 3)]
    answers = tmp_path / "answers.txt"
    answers.write_text("3\n")
    done = _autocheck(
        plugin_site, "run", str(suite), "--model", f"file:{answers}", "--out", str(tmp_path / "r2")
    )
    assert done.returncode == 2
    assert "reads label or span or entities answers; the word_count task's output is 'count'" in done.stderr


def test_a_plugins_task_is_found_by_name_and_every_part_is_listed(plugin_site, tmp_path):
    """``--task formality`` finds the plug-in's spec (templates, and its own perturbation for INV), the suite
    runs, and ``autocheck plugins`` lists the plug-in's parts beside autocheck's, each with its origin."""
    suite, run = tmp_path / "suite", tmp_path / "run"
    done = _autocheck(plugin_site, "seeds", "--task", "formality", "--seed", "0", "--out", str(suite))
    assert done.returncode == 0, done.stderr
    cases = _cases(suite)
    assert {c["capability"] for c in cases} == {"F-register", "F-shout"}
    assert "DEAR COLLEAGUES, PLEASE FIND THE REPORT ATTACHED." in {c["text"] for c in cases}
    done = _autocheck(plugin_site, "run", str(suite), "--model", "constant:formal", "--out", str(run))
    assert done.returncode == 0, done.stderr
    tallies = json.loads((run / "results.json").read_text())["models"]["constant:formal"]["capabilities"]
    assert tallies["F-register"]["all"]["failures"] == 3  # the three informal greetings
    assert tallies["F-shout"]["all"]["failures"] == 0
    done = _autocheck(plugin_site, "plugins")
    assert done.returncode == 0, done.stderr
    listed = {tuple(cell.strip() for cell in line.split("│")[1:4]) for line in done.stdout.splitlines()}
    plugin_parts = [("task", "formality"), ("output kind", "count"), ("model form", "constant")]
    for kind, name in plugin_parts + [("case source", "lines")]:
        assert (kind, name, "autocheck-demo-plugin") in listed
    assert ("task", "nli", "autocheck") in listed and ("output kind", "span", "autocheck") in listed
    assert ("case source", "templates", "autocheck") in listed


def test_a_plugins_case_source_feeds_generate_and_run(plugin_site, tmp_path):
    """A spec names the plug-in's ``lines`` source with its options; generate writes its cases (and their
    perturbations, the source chained with ``perturb``), run tallies them; a wrong option is a clear error."""
    (tmp_path / "greetings.txt").write_text("hey, see you later!\n\nyo, what's up?\n")
    lines = {"name": "lines", "options": {"path": str(tmp_path / "greetings.txt"), "label": "informal"}}
    capability = {"capability": "Vocabulary", "description": "Greetings from a file", "source": lines}
    spec = {
        "task": "formality",
        "inputs": ["text"],
        "labels": ["formal", "informal"],
        "capabilities": [
            {**capability, "id": "F-lines", "test_type": "MFT"},
            {**capability, "id": "F-lines-shout", "test_type": "INV", "perturb": {"name": "shout"}},
        ],
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    suite, run = tmp_path / "suite", tmp_path / "run"
    generate = ["generate", "--requirements", str(tmp_path / "spec.json"), "--seed", "0"]
    done = _autocheck(plugin_site, *generate, "--out", str(suite))
    assert done.returncode == 0, done.stderr
    cases = [(c["capability"], c["kind"], c["text"]) for c in _cases(suite)]
    assert cases == [
        ("F-lines", "seed", "hey, see you later!"),
        ("F-lines", "seed", "yo, what's up?"),
        ("F-lines-shout", "seed", "hey, see you later!"),
        ("F-lines-shout", "perturbation", "HEY, SEE YOU LATER!"),
        ("F-lines-shout", "seed", "yo, what's up?"),
        ("F-lines-shout", "perturbation", "YO, WHAT'S UP?"),
    ]
    done = _autocheck(plugin_site, "run", str(suite), "--model", "constant:formal", "--out", str(run))
    assert done.returncode == 0, done.stderr
    tallies = json.loads((run / "results.json").read_text())["models"]["constant:formal"]["capabilities"]
    assert tallies["F-lines"]["all"]["failures"] == 2 and tallies["F-lines-shout"]["all"]["failures"] == 0
    lines["options"]["colour"] = "red"
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    done = _autocheck(plugin_site, *generate, "--out", str(tmp_path / "bad"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert (
        "capability F-lines: case source 'lines' has no option 'colour'; its options: path, label"
        in done.stderr
    )


def test_perturb_uses_a_plugins_perturbation(plugin_site, tmp_path):
    dataset = tmp_path / "texts.csv"
    dataset.write_text("text\nThe film was fine.\nA slow start.\n")
    done = _autocheck(
        plugin_site, "perturb", str(dataset), "--perturbation", "shout", "--out", str(tmp_path / "suite")
    )
    assert done.returncode == 0, done.stderr
    shouted = [row["text"] for row in _cases(tmp_path / "suite") if row["kind"] == "perturbation"]
    assert shouted == ["THE FILM WAS FINE.", "A SLOW START."]


def test_perturb_reads_a_plugins_dataset_and_a_lexicon_loads_by_name(plugin_site, tmp_path):
    texts = tmp_path / "texts.txt"
    texts.write_text("The film was fine.\n\nA slow start.\n")
    done = _autocheck(
        plugin_site, "perturb", f"lines:{texts}", "--perturbation", "shout", "--out", str(tmp_path / "suite")
    )
    assert done.returncode == 0, done.stderr
    seeds = [row["text"] for row in _cases(tmp_path / "suite") if row["kind"] == "seed"]
    assert seeds == ["The film was fine.", "A slow start."]
    done = _python(
        plugin_site,
        "from autocheck.sources.lexicon import load_lexicon\n"
        "tiny = load_lexicon('tiny')\n"
        "print(tiny.polarity('good', None), tiny.polarity('awful', None), tiny.is_neutral('film', None))",
    )
    assert done.stdout.split() == ["positive", "negative", "True"], done.stderr


def test_a_broken_plugin_part_is_an_error_naming_the_package(plugin_site):
    done = _python(
        plugin_site,
        "from autocheck.expand.validate import CHECKS\n"
        "from autocheck.store import InputError\n"
        "try:\n    CHECKS.get('broken')\nexcept InputError as e:\n    print(e)",
    )
    assert done.stdout.startswith("plug-in autocheck-demo-plugin: the validation check 'broken' (")
    assert "AttributeError" in done.stdout


def test_an_unknown_part_lists_the_known_ones(plugin_site, tmp_path):
    done = _autocheck(
        plugin_site, "generate", "--dataset", "x.csv", "--check", "nope", "--out", str(tmp_path / "out")
    )
    assert done.returncode == 2
    assert (
        "no validation check named 'nope' (known: broken, context, doubled, duplicate, no_ly" in done.stderr
    )
    assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()


@pytest.mark.shared_data
@pytest.mark.slow
def test_generate_uses_a_plugins_check_and_executor(plugin_site, shared_data, small_dataset, tmp_path):  # noqa: F811
    models = shared_data / "models"
    argv = [sys.executable, "-m", "autocheck", "--offline", "generate", "--dataset", str(small_dataset)]
    argv += ["--lexicon", "opinion", "--capability", "LC2", "--capability", "LC9", "--max-seeds", "3"]
    argv += ["--parser", str(require(models / "benepar_ptbsample_charlstm"))]
    argv += ["--mlm", str(require(models / "mini-bert-mlm")), "--chunk-size", "2", "--seed", "1"]
    log = tmp_path / "executor.log"
    env = _env(plugin_site, AUTOCHECK_DEMO_LOG=str(log), AUTOCHECK_CACHE="off")
    for name, extra in {"plain": [], "checked": ["--check", "no_ly_adverbs"]}.items():
        done = subprocess.run(argv + extra + ["--out", str(tmp_path / name)], env=env, capture_output=True)
        assert done.returncode == 0, done.stderr
    done = subprocess.run(
        argv + ["--check", "no_ly_adverbs", "--executor", "logged", "--out", str(tmp_path / "plugin")],
        env=env,
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr

    def expansions(name: str) -> list[dict]:
        rows = [json.loads(line) for line in (tmp_path / name / "cases.jsonl").read_text().splitlines()]
        return [row for row in rows if row["kind"] == "expansion"]

    inserted = lambda name: [i["word"] for row in expansions(name) for i in row["provenance"]["inserted"]]  # noqa: E731
    assert any(word.endswith("ly") for word in inserted("plain"))  # the stand-in LM proposes -ly words
    assert inserted("checked") and not any(word.endswith("ly") for word in inserted("checked"))
    manifest = json.loads((tmp_path / "checked" / "manifest.json").read_text())
    assert manifest["rejected"]["fill: no_ly_adverbs"] > 0
    assert manifest["settings"]["checks"] == ["no_ly_adverbs"]
    # the plug-in's executor computed the units and changed nothing
    assert log.read_text().count("unit of") > 1
    for name in ("cases.jsonl", "manifest.json"):
        assert (tmp_path / "plugin" / name).read_bytes() == (tmp_path / "checked" / name).read_bytes()


def test_a_task_in_a_plugins_language_runs_templates_and_perturbations(plugin_site, tmp_path):
    """The plug-in's Esperanto profile: its lexicons and word rules fill the ``sento`` task's templates (one
    article, plurals in -j), its tokenizer, tagger and word rule ``past`` make the plug-in's perturbation;
    the suite runs and is reported. The Editor and a template function the language lacks use it too."""
    suite, run = tmp_path / "suite", tmp_path / "run"
    done = _autocheck(plugin_site, "seeds", "--task", "sento", "--seed", "0", "--out", str(suite))
    assert done.returncode == 0, done.stderr
    texts = {c["text"] for c in _cases(suite)}
    assert {"La filmo estas bona.", "La libroj estas tedaj.", "La filmo estis bona."} <= texts
    manifest = json.loads((suite / "manifest.json").read_text())
    assert manifest["task"]["language"] == "eo"
    done = _autocheck(plugin_site, "run", str(suite), "--model", "constant:positive", "--out", str(run))
    assert done.returncode == 0, done.stderr
    tallies = json.loads((run / "results.json").read_text())["models"]["constant:positive"]["capabilities"]
    counts = {c: (t["all"]["failures"], t["all"]["applicable"]) for c, t in tallies.items()}
    assert counts == {"E-vocabulary": (6, 12), "E-tense": (0, 6)}  # the six negative reviews fail
    done = _autocheck(plugin_site, "report", str(run))
    assert done.returncode == 0 and "E-vocabulary" in done.stdout, done.stderr
    done = _python(
        plugin_site,
        "from autocheck.checklist.editor import Editor\n"
        "from autocheck.requirements import load_spec\n"
        "from autocheck.store import InputError\n"
        "print(sorted(Editor(language='eo').lexicons))\n"
        "spec = {'task': 't', 'inputs': ['text'], 'labels': ['a', 'b'], 'language': 'eo', 'capabilities': [\n"
        "    {'id': 'C', 'capability': 'V', 'description': 'x', 'test_type': 'MFT',\n"
        "     'templates': [{'id': 't', 'text': '{comparative:pos_adj}', 'label': 'a'}]}]}\n"
        "try:\n    load_spec('s.json', data=spec)\nexcept InputError as e:\n    print(e)",
    )
    editor, error = done.stdout.splitlines()
    assert editor == "['neg_adj', 'pos_adj', 'thing']", done.stderr
    assert error.endswith("the language profile 'eo' has no word rule 'comparative'")
