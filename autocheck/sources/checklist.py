"""CheckList's released suites (sentiment, QQP, SQuAD) as autocheck suite directories of the right task, so
the same runner and report run them.

Source: a suite exported to JSON (per test ``name``, ``type``, ``capability``, ``data``, ``labels``, ...;
``sentiment_suite.tests.json`` is one). CheckList's own pickles (``sentiment_suite.pkl``, ``qqp_suite.pkl``,
``squad_suite.pkl`` or their ``.tar.gz``) are read only with ``trust_pickle=True``, because unpickling runs
code, and need ``dill`` and ``checklist`` installed.

The task is told (``task``) or read from the data: texts are sentiment, pairs with 0/1 labels QQP
(``question1``, ``question2``; 1 = duplicate), pairs with answer strings SQuAD (``context``, ``question``).
A label number is the index of the task's label (sentiment 0/1/2 = negative/neutral/positive).

How each test becomes cases (capability id = ``slug(test name)``, e.g. ``q-a-no``):

- MFT: one seed case per text (or pair). ``labels`` 0/1/2 → negative/neutral/positive (per test or per case);
  ``labels: null`` (the "not negative" tests: "simple negations: not negative", "... but it was not (should
  be neutral or positive)", "Hard: Negation of negative ...") → ("neutral", "positive"). In "Q & A: no",
  label 1 marks "Do I think X is <negative>? No", which CheckList checks with ``allow_for_neutral``
  (pred != negative) → ("neutral", "positive").
- INV / DIR: each data item ``[original, perturbations...]`` → a seed case (the original) and one
  perturbation case per perturbation with ``seed_id`` = the original's id; CheckList aggregates with
  ``all_except_first``, which is the runner's "groups" rate.
- DIR expectations, as CheckList wrote them (``Expect.monotonic(tolerance=0.1)`` with a ``pred != neutral``
  slice for the first three; its phrase tests' own ``diff_up``/``diff_down`` on P(positive) − P(negative)
  with tolerance 0.1):

  ============================  =================================================================
  intensifiers                  {"label": null (= original's prediction), "direction": "up"}
  reducers                      {"label": null, "direction": "down"}
  "used to" should reduce       {"label": null, "direction": "down"}
  add positive phrases          {"score": {"plus": "positive", "minus": "negative"}, "direction": "up"}
  add negative phrases          {"score": {"plus": "positive", "minus": "negative"}, "direction": "down"}
  ============================  =================================================================

  Fix: reading the phrase tests as "P(positive) must not fall" made a prediction that moved the right way
  into the neutral band of a binary model fail ("add positive phrases" with mini-bert-sst2: 79 of 250
  applicable groups failing instead of 18 of 500 under CheckList's measure).

``LC_MAP`` (ALiCT's ``Macros.LC_MAP``) links the paper's LC1–LC10 to CheckList tests.
"""

from __future__ import annotations

import logging
import re
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from ..outputs import kind_of
from ..records import PERTURBATION, SEED, TestCase
from ..requirements import default_task, load_spec
from ..resources import ResourceMissing
from ..store import InputError, environment, file_sha256, load_json
from ..suite import SuiteWriter
from ..tasks import Task

log = logging.getLogger(__name__)

# Paper LC → CheckList test name (ALiCT Macros.LC_MAP).
LC_MAP = {
    "LC1": "neutral words in context",
    "LC2": "Sentiment-laden words in context",
    "LC3": "used to, but now",
    "LC4": "simple negations: not negative",
    "LC5": "simple negations: not neutral is still neutral",
    "LC6": "simple negations: I thought x was negative, but it was not (should be neutral or positive)",
    "LC7": "Hard: Negation of positive with neutral stuff in the middle (should be negative)",
    "LC8": "my opinion is what matters",
    "LC9": "Q & A: yes",
    "LC10": "Q & A: no",
}

NOT_NEGATIVE = ("neutral", "positive")
DIR_TOLERANCE = 0.1
SENTIMENT_SCORE = {"plus": "positive", "minus": "negative"}
DIR_EXPECTATIONS: dict[str, dict[str, Any]] = {
    "intensifiers": {"label": None, "direction": "up", "tolerance": DIR_TOLERANCE},
    "reducers": {"label": None, "direction": "down", "tolerance": DIR_TOLERANCE},
    '"used to" should reduce': {"label": None, "direction": "down", "tolerance": DIR_TOLERANCE},
    "add positive phrases": {"score": SENTIMENT_SCORE, "direction": "up", "tolerance": DIR_TOLERANCE},
    "add negative phrases": {"score": SENTIMENT_SCORE, "direction": "down", "tolerance": DIR_TOLERANCE},
}
ALLOW_FOR_NEUTRAL = {"Q & A: no"}  # label 1 there means "not negative"


def slug(name: str) -> str:
    """Capability id of a CheckList test: lower case, runs of other characters → '-'."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def lc_of(name: str) -> str | None:
    return next((lc for lc, test in LC_MAP.items() if test == name), None)


def _mft_expected(test: dict[str, Any], label: Any, where: str, task: Task) -> str | tuple[str, ...]:
    if not kind_of(task).expects_labels:  # the answer(s)
        if isinstance(label, str) or (isinstance(label, list) and all(isinstance(a, str) for a in label)):
            return label if isinstance(label, str) else tuple(label)
        raise InputError(f"{where}: field 'labels' must be answer text(s), got {label!r}")
    if label is None and task.name == "sentiment":
        return NOT_NEGATIVE
    if not isinstance(label, int) or not 0 <= label < len(task.labels):
        raise InputError(
            f"{where}: field 'labels' must be 0..{len(task.labels) - 1} (or null), got {label!r}"
        )
    if label == 1 and test["name"] in ALLOW_FOR_NEUTRAL and task.name == "sentiment":
        return NOT_NEGATIVE
    return task.labels[label]


def _inputs(item: Any, task: Task, where: str) -> dict[str, str]:
    """A CheckList data item (a text, or a tuple/list of texts for pairs) as the task's input fields."""
    values = [item] if isinstance(item, str) else item
    if not (isinstance(values, list | tuple) and len(values) == len(task.inputs)):
        raise InputError(f"{where}: expected {len(task.inputs)} text(s) {list(task.inputs)}, got {item!r}")
    if not all(isinstance(v, str) for v in values):
        raise InputError(f"{where}: expected texts, got {item!r}")
    return dict(zip(task.inputs, values))


def guess_task(tests: list[dict[str, Any]]) -> str:
    """sentiment (texts), qqp (pairs labelled 0/1) or squad (pairs with answer strings)."""
    for test in tests:
        data = test.get("data") or []
        item = data[0] if data else None
        if test.get("type") in ("INV", "DIR") and isinstance(item, list) and item:
            item = item[0]
        if isinstance(item, str):
            return "sentiment"
        if isinstance(item, list | tuple) and len(item) == 2:
            labels = test.get("labels")
            first = labels[0] if isinstance(labels, list) and labels else labels
            if isinstance(first, str):
                return "squad"
            if test.get("type") == "MFT":
                return "qqp"
    return "sentiment"


def test_cases(
    test: dict[str, Any], where: str, max_items: int | None = None, task: Task | None = None
) -> list[TestCase]:
    """The cases of one CheckList test (see the module docstring for the mapping)."""
    task = task or default_task()
    for key in ("name", "type", "data"):
        if key not in test:
            raise InputError(f"{where}: missing field '{key}'")
    name, kind = test["name"], test["type"]
    capability = slug(name)
    data = test["data"][:max_items] if max_items is not None else test["data"]
    labels = test.get("labels")
    cases: list[TestCase] = []
    base = {"source": "checklist", "test": name}
    if kind == "MFT":
        for i, text in enumerate(data):
            label = labels[i] if isinstance(labels, list) else labels
            expected = _mft_expected(test, label, f"{where} data[{i}]", task)
            cases.append(
                TestCase(
                    id=f"{capability}:{i}",
                    capability=capability,
                    kind=SEED,
                    inputs=_inputs(text, task, f"{where} MFT data[{i}]"),
                    expected=expected,
                    test_type="MFT",
                    label=expected if isinstance(expected, str) and kind_of(task).expects_labels else "",
                    provenance={**base, "index": i},
                )
            )
        return cases
    if kind not in ("INV", "DIR"):
        raise InputError(f"{where}: field 'type' must be MFT, INV or DIR, got {kind!r}")
    if kind == "DIR" and (name not in DIR_EXPECTATIONS or task.name != "sentiment"):
        raise InputError(
            f"{where}: no known expectation for DIR test {name!r} (known: {list(DIR_EXPECTATIONS)})"
        )
    expectation = DIR_EXPECTATIONS[name] if kind == "DIR" else None
    for i, item in enumerate(data):
        if not (isinstance(item, list) and len(item) >= 2):
            raise InputError(f"{where}: {kind} data[{i}] must be a list [original, perturbation, ...]")
        seed_id = f"{capability}:{i}"
        for j, text in enumerate(item):
            cases.append(
                TestCase(
                    id=seed_id if j == 0 else f"{seed_id}.{j}",
                    capability=capability,
                    kind=SEED if j == 0 else PERTURBATION,
                    inputs=_inputs(text, task, f"{where} {kind} data[{i}][{j}]"),
                    expected=expectation,
                    test_type=kind,
                    label="",
                    seed_id=None if j == 0 else seed_id,
                    provenance={**base, "index": i, "position": j},
                )
            )
    return cases


def _load_pickle(path: Path) -> list[dict[str, Any]]:
    """CheckList's TestSuite pickle → the same dicts as the JSON export (runs the pickle's code)."""
    try:
        import dill  # noqa: F401  (the suite was written with dill)
        from checklist.test_suite import TestSuite
    except ImportError as e:
        raise ResourceMissing(
            f"loading {path} needs the 'dill' and 'checklist' packages ({e.name} is missing): "
            "pip install dill checklist, or use sentiment_suite.tests.json"
        ) from None
    with tempfile.TemporaryDirectory() as tmp:
        if tarfile.is_tarfile(path):
            with tarfile.open(path) as archive:
                member = next((m for m in archive.getmembers() if m.name.endswith(".pkl")), None)
                if member is None:
                    raise InputError(f"{path}: no .pkl file inside")
                archive.extract(member, tmp, filter="data")
                path = Path(tmp) / member.name
        suite = TestSuite.from_file(str(path))
    return [
        {
            "name": name,
            "type": type(test).__name__,
            "capability": test.capability,
            "data": test.data,
            "labels": test.labels,
        }
        for name, test in suite.tests.items()
    ]


def _binary_content(path: Path) -> str | None:
    """What a file that cannot be JSON text holds, by its first bytes: a pickle, an archive, binary data."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return None  # missing or unreadable: load_json says so
    if len(head) > 1 and head[0] == 0x80 and 2 <= head[1] <= 5:
        return f"content is a pickle (protocol {head[1]})"
    if head.startswith(b"\x1f\x8b"):
        return "content is a gzip archive"
    if head[257:262] == b"ustar":
        return "content is a tar archive"
    if b"\0" in head:
        return "content is binary, not JSON text"
    return None


def load_checklist(source: str | Path, *, trust_pickle: bool = False) -> list[dict[str, Any]]:
    """The tests of CheckList's suite from the JSON export, or from the pickle when trusted."""
    path = Path(source)
    if not path.is_file():  # before the pickle warning: a path that is not there is the first thing to say
        raise InputError(f"{path}: CheckList suite not found")
    binary = _binary_content(path)  # a pickle renamed to .json or .bin is still a pickle
    if path.name.endswith((".pkl", ".pickle", ".tar.gz", ".tgz")) or binary:
        if not trust_pickle:
            raise InputError.hint(
                f"{path}: {binary + ', and ' if binary else ''}a pickle runs code when loaded; pass "
                "{trust} only for a file you trust, or use the JSON export sentiment_suite.tests.json",
                trust="trust_pickle=True",
            )
        return _load_pickle(path)
    tests = load_json(path, "CheckList suite JSON")
    if not isinstance(tests, list):
        raise InputError(f"{path}: expected a JSON list of tests")
    return tests


def convert_checklist(
    source: str | Path,
    out_dir: str | Path,
    *,
    trust_pickle: bool = False,
    max_per_test: int | None = None,
    task: str | None = None,
) -> dict[str, int]:
    """Write CheckList's suite as a suite directory (``cases.jsonl`` + ``manifest.json``).

    ``max_per_test`` keeps the first N data items of each test (an INV/DIR item counts with its
    perturbations); ``task`` (a shipped task name or spec file) defaults to the one the data shows.
    Returns counts: tests, cases, seeds, perturbations.
    """
    source, out = Path(source), Path(out_dir)
    tests = load_checklist(source, trust_pickle=trust_pickle)
    the_task = load_spec(None, task or guess_task([t for t in tests if isinstance(t, dict)])).task
    counts = {"tests": 0, "cases": 0, "seeds": 0, "perturbations": 0}
    described: dict[str, dict[str, Any]] = {}
    out.mkdir(parents=True, exist_ok=True)
    with SuiteWriter(out) as writer:
        for t, test in enumerate(tests):
            where = f"{source}: test [{t}] {test.get('name', '?')!r}" if isinstance(test, dict) else ""
            if not isinstance(test, dict):
                raise InputError(f"{source}: test [{t}] is not an object")
            cases = test_cases(test, where, max_per_test, the_task)
            capability = slug(test["name"])
            if capability in described:
                raise InputError(f"{where}: capability id {capability!r} is already used by another test")
            described[capability] = {
                "name": test["name"],
                "type": test["type"],
                "checklist_capability": test.get("capability"),
                "lc": lc_of(test["name"]) if the_task.name == "sentiment" else None,
                "cases": len(cases),
            }
            writer.write_all(case.to_json() for case in cases)
            counts["tests"] += 1
            counts["cases"] += len(cases)
            counts["seeds"] += sum(case.kind == SEED for case in cases)
            counts["perturbations"] += sum(case.kind == PERTURBATION for case in cases)
    writer.finish(
        {
            "source": "checklist",
            "task": the_task.to_json(),
            "checklist": {"file": source.name, "sha256": file_sha256(source), "max_per_test": max_per_test},
            "tests": described,
            "lc_map": {lc: slug(name) for lc, name in LC_MAP.items()} if the_task.name == "sentiment" else {},
            "counts": counts,
            "environment": environment(),
        },
    )
    log.info("CheckList suite %s → %s: %s", source, out, counts)
    return counts
