"""CheckList's ``TestSuite``: named tests run together, summarised, displayed, saved as JSON.

``save`` writes JSON (no pickle): a list of tests in the layout of CheckList's own JSON export (``name``,
``type``, ``capability``, ``description``, ``data``, ``labels``, ``meta``, ``agg_fn``) plus
``autocheck_expect``, the expectation's spec (``expect.Expect``). A test whose expectation is your own
function cannot be written as JSON; ``save`` says which. ``from_file`` reads that, and CheckList's released
suites: their JSON export through autocheck's importer (``sources.checklist``, which gives each test the
expectation CheckList's suite had), their pickles only with ``trust_pickle=True``.

``to_suite_dir`` writes the suite as an autocheck suite directory, so ``autocheck run``, ``report``,
``compare`` and ``export`` work on it with the same verdicts.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import numpy as np
from tqdm.auto import tqdm

from ..api.display import render_listing
from ..outputs import kind_of
from ..requirements import load_spec
from ..sources.checklist import DIR_EXPECTATIONS, guess_task, load_checklist, slug, test_cases
from ..store import InputError, atomic_write_text, environment
from ..suite import CASES, SuiteWriter
from .display import SuiteDisplay
from .expect import Expect
from .test_types import DIR, INV, MFT, AbstractTest, read_pred_file

TYPES = {"MFT": MFT, "INV": INV, "DIR": DIR}
CAPABILITY_ORDER = [
    "Vocabulary",
    "Taxonomy",
    "Robustness",
    "NER",
    "Fairness",
    "Temporal",
    "Negation",
    "Coref",
    "SRL",
    "Logic",
]


def _json_value(value: Any, where: str) -> Any:
    """numpy values and tuples as JSON; anything else that JSON cannot hold is an error naming ``where``."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray | list | tuple):
        return [_json_value(v, where) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_value(v, where) for k, v in value.items()}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise InputError(f"{where}: a {type(value).__name__} cannot be saved as JSON")


class TestSuite:
    __test__ = False  # not a pytest test class

    def __init__(self, format_example_fn: Any = None, print_fn: Any = None):
        self.tests: OrderedDict[str, AbstractTest] = OrderedDict()
        self.info: dict[str, dict[str, Any]] = {}
        self.format_example_fn = format_example_fn
        self.print_fn = print_fn
        self.test_ranges: dict[str, tuple[int, int]] = {}

    def __repr__(self) -> str:
        return f"TestSuite({len(self.tests)} tests: {', '.join(self.tests) or 'none'})"

    def add(
        self,
        test: AbstractTest,
        name: str | None = None,
        capability: str | None = None,
        description: str | None = None,
        format_example_fn: Any = None,
        print_fn: Any = None,
        overwrite: bool = False,
    ) -> None:
        name = name or test.name
        capability = capability or test.capability
        if name is None:
            raise InputError("If test does not have test.name, you must specify a name")
        if capability is None:
            raise InputError("If test does not have test.capability, you must specify a capability")
        if name in self.tests and not overwrite:
            raise InputError(
                f"There is already a test named {name} suite. Run with overwrite=True to overwrite"
            )
        test.name, test.capability = name, capability
        self.tests[name] = test
        self.info[name] = {"capability": capability, "type": type(test).__name__}
        if description or test.description:
            self.info[name]["description"] = description or test.description
        if format_example_fn:
            self.info[name]["format_example_fn"] = format_example_fn
        if print_fn:
            self.info[name]["print_fn"] = print_fn

    def remove(self, name: str) -> None:
        if name not in self.tests:
            raise InputError(f"{name} not in suite.")
        del self.tests[name]
        del self.info[name]

    # ------------------------------------------------------------------ running

    def run(self, predict_and_confidence_fn: Any, verbose: bool = True, **kwargs: Any) -> None:
        """Run every test (``AbstractTest.run``; ``overwrite``, ``n``, ``seed`` pass on)."""
        for test in tqdm(self.tests.values(), desc="tests", unit="test", disable=not verbose):
            test.run(predict_and_confidence_fn, verbose=False, **kwargs)

    def get_raw_examples(
        self,
        file_format: str | None = None,
        format_fn: Any = None,
        n: int | None = None,
        seed: int | None = None,
    ) -> list:
        self.test_ranges = {}
        examples: list = []
        for name, test in self.tests.items():
            found = test.to_raw_examples(file_format=file_format, format_fn=format_fn, n=n, seed=seed)
            self.test_ranges[name] = (len(examples), len(examples) + len(found))
            examples.extend(found)
        return examples

    def to_raw_file(
        self,
        path: str,
        file_format: str | None = None,
        format_fn: Any = None,
        header: str | None = None,
        n: int | None = None,
        seed: int | None = None,
    ) -> None:
        """Every example of every test on its own line; ``run_from_file`` reads the predictions back.
        ``file_format``: None (``str`` of each), ``jsonl``, ``tsv`` (pairs), ``qqp_test`` (pairs as QQP's
        test file: ``id``, ``question1``, ``question2``) or ``squad`` (``{"question", "passage"}`` examples as
        a SQuAD JSON file)."""
        if file_format == "squad":
            examples = self.get_raw_examples(format_fn=lambda x: x, n=n, seed=seed)
            squad = {"version": "fake", "data": [_squad_entry(i, x) for i, x in enumerate(examples)]}
            atomic_write_text(path, json.dumps(squad))
            return
        if file_format == "qqp_test":
            header = "id\tquestion1\tquestion2"
        lines = [header.strip("\n")] if header is not None else []
        examples = self.get_raw_examples(
            "tsv" if file_format == "qqp_test" else file_format, format_fn, n, seed
        )
        if file_format == "qqp_test":
            examples = [f"{i}\t{x}" for i, x in enumerate(examples)]
        atomic_write_text(path, "\n".join(lines + examples))

    def run_from_preds_confs(self, preds: Any, confs: Any, overwrite: bool = False) -> None:
        if not self.test_ranges:
            self.get_raw_examples()
        expected = max((end for _, end in self.test_ranges.values()), default=0)
        if len(preds) != expected:
            raise InputError(f"{expected} examples in the suite but {len(preds)} predictions")
        for name, test in self.tests.items():
            part = slice(*self.test_ranges[name])
            test.run_from_preds_confs(preds[part], confs[part], overwrite=overwrite)

    def run_from_file(
        self,
        path: str,
        file_format: str | None = None,
        format_fn: Any = None,
        ignore_header: bool = False,
        overwrite: bool = False,
    ) -> None:
        preds, confs = read_pred_file(path, file_format, format_fn, ignore_header)
        self.run_from_preds_confs(preds, confs, overwrite=overwrite)

    # ------------------------------------------------------------------ reading results

    def _ordered(self, types: Any = None, capabilities: Any = None) -> list[str]:
        def rank(cap: str) -> int:
            return CAPABILITY_ORDER.index(cap) if cap in CAPABILITY_ORDER else 100

        names = sorted(self.tests, key=lambda n: rank(self.info[n]["capability"]))  # stable: keeps add order
        return [
            n
            for n in names
            if (types is None or self.info[n]["type"] in types)
            and (capabilities is None or self.info[n]["capability"] in capabilities)
        ]

    def summary(self, types: Any = None, capabilities: Any = None, **kwargs: Any) -> None:
        """Print each test's stats and failing examples, by capability (``AbstractTest.summary``)."""
        current = None
        for name in self._ordered(types, capabilities):
            capability = self.info[name]["capability"]
            if capability != current:
                print(capability, end="\n\n")
                current = capability
            print(name)
            options = dict(kwargs)
            options.setdefault(
                "format_example_fn", self.info[name].get("format_example_fn", self.format_example_fn)
            )
            options.setdefault("print_fn", self.info[name].get("print_fn", self.print_fn))
            self.tests[name].summary(**options)
            print("\n")

    def visual_summary_table(
        self, types: Any = None, capabilities: Any = None, n_per_testcase: int = 3, max_examples: int = 5
    ) -> Any:
        """The results as a display: ``_repr_html_`` in a notebook (a table of tests with failure rates and
        intervals, failing examples under each), text in a terminal. CheckList's widget is not needed."""
        return SuiteDisplay(self, self._ordered(types, capabilities), n_per_testcase, max_examples)

    def visual_summary_by_test(self, testname: str) -> Any:
        """One test's display (``AbstractTest.visual_summary``) under its name in the suite."""
        if testname not in self.tests:
            raise InputError(f"There's no test named {testname} in the suite!")
        info = self.info[testname]
        return self.tests[testname].visual_summary(testname, info["capability"], info.get("description"))

    def _repr_html_(self) -> str:
        if self.tests and all(t.results for t in self.tests.values()):
            return self.visual_summary_table()._repr_html_()
        rows = [
            [self.info[n]["capability"], n, self.info[n]["type"], len(t.data)] for n, t in self.tests.items()
        ]
        return render_listing(
            "TestSuite (not run)", ["capability", "test", "type", "test cases"], rows, wide=1
        )

    # ------------------------------------------------------------------ files

    def to_json(self) -> list[dict[str, Any]]:
        out = []
        for name, test in self.tests.items():
            spec = getattr(test.expect, "spec", None)
            if spec is None:
                raise InputError(
                    f"test {name!r}: its expectation is a Python function, which JSON cannot hold; use an "
                    "Expect.eq/inv/monotonic expectation, or keep the suite in code"
                )
            if not isinstance(test.agg_fn, str):
                raise InputError(f"test {name!r}: agg_fn must be 'all' or 'all_except_first' to be saved")
            where = f"test {name!r}"
            out.append(
                {
                    "name": name,
                    "type": self.info[name]["type"],
                    "capability": self.info[name]["capability"],
                    "description": self.info[name].get("description", ""),
                    "data": _json_value(test.data, f"{where} data"),
                    "labels": _json_value(test.labels, f"{where} labels"),
                    "meta": _json_value(test.meta, f"{where} meta"),
                    "agg_fn": test.agg_fn,
                    "autocheck_expect": spec,
                }
            )
        return out

    def save(self, path: str | Path) -> None:
        """Write the suite as JSON (see the module docs); an existing file is not overwritten, and a folder
        that is not there is not made (as CheckList's ``save``: a mistyped path is an error)."""
        path = Path(path)
        if path.exists():
            raise InputError(f"{path} exists; choose a new file name (autocheck does not overwrite files)")
        if not path.parent.is_dir():
            raise InputError(f"{path}: folder {path.parent} does not exist")
        atomic_write_text(path, json.dumps(self.to_json(), ensure_ascii=False))

    @staticmethod
    def from_file(path: str | Path, trust_pickle: bool = False) -> TestSuite:
        """A suite ``save`` wrote, or CheckList's released suite (its JSON export; its pickle only with
        ``trust_pickle=True``, because loading a pickle runs code)."""
        tests = load_checklist(path, trust_pickle=trust_pickle)
        suite = TestSuite()
        released = [t for t in tests if "autocheck_expect" not in t]
        expectations = _released_expectations(released, str(path)) if released else {}
        for i, t in enumerate(tests):
            if t.get("type") not in TYPES:
                raise InputError(
                    f"{path}: test [{i}] field 'type' must be MFT, INV or DIR, got {t.get('type')!r}"
                )
            spec = t.get("autocheck_expect")
            expect = Expect.from_spec(spec) if spec else expectations[t["name"]]
            # an example of several texts (a QQP pair) is a tuple; a list holds a test case's examples
            if t["type"] == "MFT":
                data = [_example(d) for d in t["data"]]
            else:
                data = [[_example(x) for x in d] for d in t["data"]]
            kwargs: dict[str, Any] = {
                "meta": t.get("meta"),
                "name": t["name"],
                "capability": t.get("capability"),
                "description": t.get("description") or None,
            }
            if t.get("agg_fn") in ("all", "all_except_first"):
                kwargs["agg_fn"] = t["agg_fn"]
            if t["type"] == "MFT":
                test = MFT(data, expect=expect, labels=t.get("labels"), **kwargs)
            else:
                test = TYPES[t["type"]](data, expect=expect, labels=t.get("labels"), **kwargs)
            suite.add(test)
        return suite

    def to_suite_dir(self, out_dir: str | Path, task: str | None = None) -> dict[str, int]:
        """Write the suite as an autocheck suite directory (``cases.jsonl`` and ``manifest.json``), with the
        same expectations, for ``autocheck run`` and the report. ``task``: a shipped task or spec file
        (default: the one the data shows, e.g. sentiment for texts)."""
        out = Path(out_dir)
        if (out / CASES).exists():
            raise InputError(f"{out}: already holds a suite; choose a new directory")
        tests = self.to_json()
        the_task = load_spec(None, task or guess_task(tests)).task
        described: dict[str, dict[str, Any]] = {}
        counts = {"tests": 0, "cases": 0}
        out.mkdir(parents=True, exist_ok=True)
        with SuiteWriter(out) as writer:
            for t in tests:
                cases = _cases_of(t, the_task, test_cases)
                writer.write_all(c.to_json() for c in cases)
                described[slug(t["name"])] = {
                    "name": t["name"],
                    "type": t["type"],
                    "lc": None,
                    "checklist_capability": t["capability"],
                    "cases": len(cases),
                }
                counts["tests"] += 1
                counts["cases"] += len(cases)
        writer.finish(
            {
                "source": "checklist",
                "task": the_task.to_json(),
                "tests": described,
                "counts": counts,
                "environment": environment(),
            },
        )
        return counts


def _squad_entry(i: int, example: Any) -> dict[str, Any]:
    if not isinstance(example, dict) or not {"question", "passage"} <= set(example):
        raise InputError(f"file_format 'squad': example {i} must be a dict with 'question' and 'passage'")
    qas = [{"question": example["question"], "id": str(i)}]
    return {"title": "", "paragraphs": [{"context": example["passage"], "qas": qas}]}


def _example(x: Any) -> Any:
    return x if isinstance(x, str) else tuple(x)


def _cases_of(test: dict[str, Any], task: Any, test_cases: Any) -> list:
    """A saved test's cases with the autocheck expectation its Expect spec stands for."""
    where = f"test {test['name']!r}"
    spec = test["autocheck_expect"]
    fn = spec["fn"]
    if test["type"] == "MFT":
        if fn == "eq" and spec.get("val") is not None:
            test = {**test, "labels": spec["val"]}
        elif fn == "allowed":
            cases = test_cases({**test, "labels": 0}, where, None, task)
            return [
                replace(c, expected=tuple(task.labels[k] for k in allowed), label="")
                for c, allowed in zip(cases, spec["per_example"])
            ]
        elif fn != "eq":
            raise InputError(f"{where}: expectation {fn!r} has no autocheck equivalent for an MFT test")
        return test_cases(test, where, None, task)
    if test["type"] == "INV":
        if fn != "inv" or abs(spec["tolerance"] - 0.1) > 1e-12:
            raise InputError(f"{where}: autocheck's INV is Expect.inv(0.1); this test has {spec}")
        return test_cases(test, where, None, task)
    expected = _dir_expected(spec, task, where)
    return [
        replace(c, test_type="DIR", expected=expected)
        for c in test_cases({**test, "type": "INV"}, where, None, task)
    ]


def _dir_expected(spec: dict[str, Any], task: Any, where: str) -> dict[str, Any]:
    fn = spec["fn"]
    if fn == "skip_original" and spec["expect"]["fn"] == "monotonic" and spec["expect"]["label"] is None:
        neutral = task.labels.index(task.binary.neutral) if task.binary else None
        if spec["label"] != neutral:
            raise InputError(
                f"{where}: autocheck skips originals predicted {task.binary and task.binary.neutral}"
            )
        spec = spec["expect"]
        fn = "monotonic"
    elif fn == "monotonic" and spec["label"] is None and task.binary is not None:
        raise InputError(
            f"{where}: autocheck's DIR with the original's label leaves out originals predicted "
            f"{task.binary.neutral}; give monotonic a label, or wrap it in Expect.skip_original"
        )
    direction = "up" if spec.get("increasing", True) else "down"
    tolerance = spec.get("tolerance", 0.0)
    if fn == "monotonic":
        label = None if spec["label"] is None else task.labels[spec["label"]]
        return {"label": label, "direction": direction, "tolerance": tolerance}
    if fn == "score_change":
        score = {"plus": task.labels[spec["plus"]], "minus": task.labels[spec["minus"]]}
        return {"score": score, "direction": direction, "tolerance": tolerance}
    raise InputError(f"{where}: expectation {fn!r} has no autocheck equivalent for a DIR test")


def _released_expectations(tests: list[dict[str, Any]], where: str) -> dict[str, Any]:
    """The expectation of each test of CheckList's released suite, from autocheck's importer (which knows
    what CheckList's own functions checked): MFT labels or allowed labels, INV at 0.1, DIR monotonic."""
    task = load_spec(None, guess_task(tests)).task
    out: dict[str, Any] = {}
    for i, test in enumerate(tests):
        name, kind = test.get("name", ""), test.get("type")
        if kind == "MFT":
            if not kind_of(task).expects_labels:
                out[name] = Expect.eq()
                continue
            cases = test_cases(test, f"{where}: test [{i}]", None, task)
            allowed = [
                [
                    task.labels.index(x)
                    for x in (c.expected if isinstance(c.expected, tuple) else (c.expected,))
                ]
                for c in cases
            ]
            labels = test.get("labels")
            single = all(len(a) == 1 for a in allowed)
            out[name] = Expect.eq() if single and labels is not None else Expect.allowed(allowed)
        elif kind == "INV":
            out[name] = Expect.inv(0.1)
        elif kind == "DIR":
            if name not in DIR_EXPECTATIONS or task.binary is None:
                raise InputError(f"{where}: test [{i}] {name!r}: no known expectation for this DIR test")
            e = cast(dict[str, Any], DIR_EXPECTATIONS[name])  # its table's values are JSON objects
            up = e["direction"] == "up"
            if e.get("score"):
                plus, minus = (task.labels.index(e["score"][k]) for k in ("plus", "minus"))
                out[name] = Expect.score_change(plus, minus, up, e["tolerance"])
            else:
                neutral = task.labels.index(task.binary.neutral)
                out[name] = Expect.skip_original(Expect.monotonic(None, up, e["tolerance"]), neutral)
    return out
