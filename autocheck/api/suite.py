"""autocheck in Python: ``Test`` (one capability's cases), ``Suite`` (tests, saved and loaded as the suite
directory the CLI writes) and ``Results`` (a run, saved as the results directory the CLI writes).

Everything is built from the library's own stages: templates and perturbations go through
``generate.seed_cases`` and ``author.perturbed`` exactly as ``autocheck generate`` takes them from a spec
file, and ``Suite.run`` is ``run.run_suite``; so ``autocheck run``, ``report``, ``compare`` and ``export``
read what these objects save, and give the same numbers.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..author.perturb import check_options
from ..author.perturbed import perturbed_cases
from ..config import DEFAULT_MLM, GenerateConfig
from ..expect import check_expected
from ..generate import generate, seed_cases
from ..languages import language
from ..models import load_model
from ..models.callables import python_model
from ..records import PERTURBATION, SEED, TestCase, as_inputs, display
from ..report.html import case_html, collect_failures, prediction_html, why
from ..report.summary import (
    capability_info,
    format_table,
    headline,
    load_results,
    model_capabilities,
    short_name,
)
from ..requirements import Capability, Part, load_spec
from ..run import read_predictions, run_suite
from ..sources.datasets import load_examples
from ..store import InputError, atomic_write_json, environment
from ..suite import CASES, iter_cases, read_manifest, suite_task, write_suite
from ..tasks import Task
from . import display as D

PREDICTIONS, RESULTS = "predictions.jsonl", "results.json"


def _task(task: str | Task) -> Task:
    if isinstance(task, Task):
        return task
    return load_spec(None, task).task


def _new_dir(path: str | Path, what: str) -> Path:
    """A directory to write into: new, or empty; never one that holds something (nothing is overwritten)."""
    path = Path(path)
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise InputError(f"{path}: exists and is not empty; choose a new directory for the {what}")
    path.mkdir(parents=True, exist_ok=True)
    return path


# ------------------------------------------------------------------------------------------------ Test


@dataclass
class Test:
    """One capability: its cases and what the report says about it (group, description, test type)."""

    __test__ = False  # not a pytest test class

    name: str
    test_type: str
    cases: list[TestCase]
    capability: str = ""  # the group: Vocabulary, Negation, Robustness, ...
    description: str = ""
    details: dict[str, Any] = field(default_factory=dict)  # perturbation, direction, expected (manifest)

    @classmethod
    def from_templates(
        cls,
        name: str,
        templates: str | Mapping[str, Any] | Sequence[str | Mapping[str, Any]],
        *,
        label: Any = None,
        test_type: str = "MFT",
        lexicons: Mapping[str, Any] | None = None,
        where: Sequence[str] = (),
        nsamples: int | None = None,
        perturb: str | None = None,
        options: Mapping[str, Any] | None = None,
        direction: Mapping[str, Any] | None = None,
        capability: str = "Custom",
        description: str = "",
        task: str = "sentiment",
        seed: int = 0,
        mlm: str = DEFAULT_MLM,
        top: int | None = None,
    ) -> Test:
        """Cases written from templates: ``"{first_name} is {a:profession}."`` (or several; a dict per
        template for several input fields, or its own ``label``/``where``), placeholders filled from
        ``lexicons`` (lists of words, or ``{"from": name or file}``) and autocheck's shipped lexicons,
        ``{mask}`` by the masked LM ``mlm`` (its ``top`` words), ``where`` conditions on the fillings,
        ``nsamples`` a seeded sample. MFT tests expect ``label`` (a label or a list of allowed ones); INV/DIR
        tests apply ``perturb`` (a perturbation name and its ``options``) with DIR's ``direction``. The same
        spec as a capability of a spec file (``requirements/schema.json``)."""
        items = [templates] if isinstance(templates, str | Mapping) else list(templates)
        written = []
        for i, t in enumerate(items):
            entry: dict[str, Any] = {"text": t} if isinstance(t, str) else dict(t)
            entry.setdefault("id", f"t{i + 1}")
            if test_type == "MFT" and label is not None:
                entry.setdefault("label", list(label) if isinstance(label, list | tuple) else label)
            if where:
                entry.setdefault("where", list(where))
            written.append(entry)
        spec: dict[str, Any] = {
            "id": name,
            "capability": capability,
            "description": description or name,
            "test_type": test_type,
            "templates": written,
        }
        if lexicons:
            spec["lexicons"] = {
                k: (list(v) if isinstance(v, list | tuple) else v) for k, v in lexicons.items()
            }
        if nsamples is not None:
            spec["nsamples"] = nsamples
        if perturb is not None:
            spec["perturb"] = {"name": perturb, **({"options": dict(options)} if options else {})}
        if direction is not None:
            spec["direction"] = dict(direction)
        if top is not None:
            spec["mask"] = {"top": top}
        return cls._from_spec({"task": task, "capabilities": [spec]}, name, seed=seed, mlm=mlm)[0]

    @classmethod
    def _from_spec(cls, spec: dict[str, Any], where: str, **config: Any) -> list[Test]:
        settings = GenerateConfig(dataset=config.pop("dataset", None), spec=spec, expand=False, **config)
        _, capabilities, _, _, _, stream = seed_cases(settings)
        cases: dict[str, list[TestCase]] = {c.id: [] for c in capabilities}
        for case in stream:
            cases[case.capability].append(case)
        return [
            cls(c.id, c.test_type, cases[c.id], c.capability, c.description, _details(c.spec))
            for c in capabilities
        ]

    @classmethod
    def from_perturbation(
        cls,
        name: str,
        data: Iterable[str | Mapping[str, str]] | str,
        perturbation: str,
        *,
        test_type: str = "INV",
        direction: Mapping[str, Any] | None = None,
        capability: str = "Robustness",
        description: str = "",
        task: str = "sentiment",
        seed: int = 0,
        max_items: int | None = None,
        text_column: str | None = None,
        **options: Any,
    ) -> Test:
        """An INV (or DIR, with ``direction``) test: every item of ``data`` (texts, dicts of the task's
        input fields, or a dataset: a file or a Hugging Face id, read by ``sources.datasets``) with its
        versions made by the perturbation ``perturbation`` (``author.perturb``: ``typos``,
        ``change_names``, ``add_negation``, ... with their ``options``). Items it does not change are left
        out, as in CheckList."""
        the_task = _task(task)
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
            raise InputError(f"Test.from_perturbation: name {name!r}: letters, digits, '_', '.' and '-' only")
        if test_type not in ("INV", "DIR"):
            raise InputError(f"Test.from_perturbation: test_type must be INV or DIR, not {test_type!r}")
        expected = dict(direction) if direction is not None else None
        why = check_expected(the_task, test_type, expected)
        if why is not None:
            raise InputError(f"Test.from_perturbation {name!r}: direction: {why}, got {direction!r}")
        check_options(perturbation, options, the_task.inputs, f"Test.from_perturbation {name!r}")
        if isinstance(data, str | Path):
            rows: Iterable[Any] = (
                (e.inputs, e.label)
                for e in load_examples(
                    str(data), labelled=False, inputs=the_task.inputs, text_column=text_column
                )
            )
        else:
            rows = ((item, "") for item in data)
        sources = []
        for i, (item, label) in enumerate(rows):
            if max_items is not None and i >= max_items:
                break
            inputs = as_inputs(item)
            if set(inputs) != set(the_task.inputs):
                raise InputError(
                    f"Test.from_perturbation {name!r}: item [{i}] has fields {sorted(inputs)}; the "
                    f"{the_task.name} task's are {list(the_task.inputs)}"
                )
            sources.append(
                TestCase(
                    f"{name}:{i}",
                    name,
                    SEED,
                    inputs,
                    expected,
                    test_type,
                    label if isinstance(label, str) else "",
                )
            )
        spec = {"perturb": {"name": perturbation, "options": options}}
        cap = Capability(
            id=name,
            capability=capability,
            description=description or name,
            test_type=test_type,
            search=(),
            transform=None,
            expected=(),
            spec=spec,
            perturb=Part(perturbation, dict(options)),
            direction=expected,
        )
        cases = list(perturbed_cases(cap, sources, seed, language(the_task.language)))
        return cls(
            name,
            test_type,
            cases,
            capability,
            description or name,
            _details(cap.spec | {"direction": expected}),
        )

    # -------------------------------------------------------------- reading

    def __len__(self) -> int:
        return len(self.cases)

    def __iter__(self) -> Iterator[TestCase]:
        return iter(self.cases)

    @property
    def texts(self) -> list[str]:
        return [display(c.inputs) for c in self.cases]

    def __repr__(self) -> str:
        seeds = sum(c.kind == SEED for c in self.cases)
        derived = len(self.cases) - seeds
        more = f", {derived} perturbed" if derived else ""
        return f"Test({self.name!r}, {self.test_type}, {seeds} cases{more})"

    def _repr_html_(self, limit: int = 10) -> str:
        def expected(value: Any) -> str:
            return (
                " or ".join(value) if isinstance(value, list | tuple) else "" if value is None else str(value)
            )

        rows = [[c.kind, display(c.inputs), expected(c.expected)] for c in self.cases[:limit]]
        more = f"first {limit} of {len(self.cases)}" if len(self.cases) > limit else ""
        return D.render_listing(repr(self), ["kind", "input", "expected"], rows, 1, more)


def _details(spec: Mapping[str, Any]) -> dict[str, Any]:
    """What a suite manifest records of a capability beyond its name and type (the report shows it)."""
    return {k: spec[k] for k in ("perturb", "direction", "expected") if spec.get(k) is not None}


# ----------------------------------------------------------------------------------------------- Suite


class Suite:
    """Tests for one task, run together. ``Suite.load(dir)`` reads a suite directory (``autocheck
    generate``'s, or one ``save`` wrote); ``Suite.from_spec`` generates one from a spec file."""

    def __init__(self, name: str = "suite", task: str | Task = "sentiment", tests: Iterable[Test] = ()):
        self.name = name
        self.task = _task(task)
        self.tests: dict[str, Test] = {}
        self.dir: Path | None = None  # where it was saved or loaded from (unchanged since)
        self.manifest: dict[str, Any] = {}
        for test in tests:
            self.add(test)

    def add(self, test: Test) -> Suite:
        if test.name in self.tests:
            raise InputError(f"suite {self.name!r} already has a test named {test.name!r}")
        for case in test.cases[:1]:
            if set(case.inputs) != set(self.task.inputs):
                raise InputError(
                    f"test {test.name!r}: input fields {sorted(case.inputs)}; the suite's task "
                    f"{self.task.name} has {list(self.task.inputs)}"
                )
        self.tests[test.name] = test
        self.dir = None
        return self

    def __len__(self) -> int:
        return len(self.tests)

    def __iter__(self) -> Iterator[Test]:
        return iter(self.tests.values())

    def __getitem__(self, name: str) -> Test:
        return self.tests[name]

    def cases(self) -> Iterator[TestCase]:
        for test in self.tests.values():
            yield from test.cases

    # -------------------------------------------------------------- files

    def save(self, directory: str | Path) -> Path:
        """Write the suite directory (``cases.jsonl``, ``manifest.json``) that ``autocheck run`` reads,
        into a new or empty ``directory``."""
        out = _new_dir(directory, "suite")
        manifest = {
            **{k: v for k, v in self.manifest.items() if k not in ("capabilities", "counts", "files")},
            "source": self.manifest.get("source", "python"),
            "name": self.name,
            "task": self.task.to_json(),
            "capabilities": {
                t.name: {
                    "capability": t.capability,
                    "description": t.description,
                    "test_type": t.test_type,
                    **t.details,
                }
                for t in self
            },
            "counts": {t.name: {"cases": len(t)} for t in self},
            "environment": environment(),
        }
        write_suite(out, self.cases(), manifest)
        self.dir = out
        return out

    @classmethod
    def load(cls, directory: str | Path) -> Suite:
        """A suite directory, its tests in the order of their first case."""
        directory = Path(directory)
        if not (directory / CASES).is_file():
            raise InputError(f"{directory}: not a suite directory (no {CASES})")
        task = suite_task(directory)
        manifest = read_manifest(directory)
        described = manifest.get("capabilities") or {}
        tests: dict[str, list[TestCase]] = {}
        for case in iter_cases(directory / CASES, task):
            tests.setdefault(case.capability, []).append(case)
        suite = cls(str(manifest.get("name") or directory.name), task)
        for name, cases in tests.items():
            info = dict(described.get(name) or {})
            test_type = info.pop("test_type", None) or cases[0].test_type
            group, description = info.pop("capability", ""), info.pop("description", "")
            suite.add(Test(name, test_type, cases, str(group), str(description), info))
        suite.manifest = manifest
        suite.dir = directory
        return suite

    @classmethod
    def from_spec(
        cls, spec: str | Path, directory: str | Path, *, dataset: str | None = None, **config: Any
    ) -> Suite:
        """Generate the suite of a spec file (or a shipped spec's name) into ``directory``, as
        ``autocheck generate`` does (``config``: ``config.GenerateConfig``'s settings, e.g.
        ``capabilities``, ``max_seeds``, ``expand``), and load it."""
        generate(GenerateConfig(dataset=dataset, requirements=str(spec), **config), directory)
        return cls.load(directory)

    # -------------------------------------------------------------- running

    def run(
        self,
        model: Any,
        *more: Any,
        out: str | Path | None = None,
        batch_size: int | None = None,
        name: str | None = None,
    ) -> Results:
        """Run every case against ``model`` (and ``more`` models): any form ``run.run_suite`` and
        ``autocheck run --model`` take, through the same batched adapters: a spec (a Hugging Face id or
        directory, ``module:function``, a URL, ``file:PATH``), a loaded ``models.Model``, a ``transformers``
        text-classification pipeline, an estimator with ``predict_proba`` and ``classes_`` (a scikit-learn
        ``Pipeline``), or a Python callable answering a batch of texts with class probabilities (its
        ``labels`` attribute names the classes). ``out``: a new
        or empty results directory, with the suite in ``out/suite`` when it was never saved (default: a
        temporary one, removed with the ``Results``; ``Results.save`` keeps it)."""
        models = [self._model(m, name if i == 0 else None) for i, m in enumerate((model, *more))]
        tmp = None
        if out is not None:
            run_dir = _new_dir(out, "results")
            suite_dir = self.dir or self.save(run_dir / "suite")  # an unsaved suite is kept with its results
        else:
            tmp = tempfile.TemporaryDirectory(prefix="autocheck-")
            run_dir = Path(tmp.name) / "results"
            if self.dir is not None:
                suite_dir = self.dir
            else:
                suite_dir = self.save(Path(tmp.name) / "suite")
                self.dir = None  # a temporary copy: the suite itself stays unsaved
        results = run_suite(suite_dir, models, run_dir, batch_size=batch_size, task=self.task)
        return Results(results, run_dir, _keep=tmp)

    def _model(self, model: Any, name: str | None) -> Any:
        """The adapter ``run_suite`` and ``autocheck run`` use for the same model (batched; a pipeline is
        asked a batch at a time, an estimator's ``predict_proba`` a batch at a time); a function keeps
        its own name in the results unless ``name`` gives one."""
        if isinstance(model, str | Path):
            return load_model(str(model), self.task)
        return python_model(model, self.task, name=name or getattr(model, "__name__", None))

    # -------------------------------------------------------------- display

    def __repr__(self) -> str:
        return f"Suite({self.name!r}, task {self.task.name}, {len(self)} tests, {sum(map(len, self))} cases)"

    def _repr_html_(self) -> str:
        rows = [[t.capability, t.name, t.test_type, len(t), t.texts[0] if t.cases else ""] for t in self]
        return D.render_listing(repr(self), ["capability", "test", "type", "cases", "first case"], rows, 4)


# --------------------------------------------------------------------------------------------- Results


class Results:
    """A run of a suite: ``results`` is ``results.json`` as a dict; ``dir`` holds it with
    ``predictions.jsonl``. ``Results.load(dir)`` reads a results directory ``autocheck run`` wrote."""

    def __init__(self, results: dict[str, Any], directory: str | Path, *, _keep: Any = None):
        self.results = results
        self.dir = Path(directory)
        self._keep = _keep  # the temporary directory the run lives in, removed with this object

    @classmethod
    def load(cls, directory: str | Path) -> Results:
        return cls(load_results(directory), directory)

    @property
    def models(self) -> list[str]:
        return list(self.results["models"])

    def _model(self, model: str | None) -> str:
        if model is None:
            return self.models[0]
        if model not in self.results["models"]:
            raise InputError(f"no results for model {model!r}; models: {', '.join(self.models)}")
        return model

    def summary(self, width: int = 100) -> str:
        """The failure-rate table ``autocheck run`` and ``autocheck report`` print."""
        return format_table(self.results, width=width)

    def failures(
        self, capability: str | None = None, n: int | None = None, model: str | None = None
    ) -> list[dict]:
        """The failing (and unanswered) cases of ``capability`` (all when None) for ``model`` (the first
        when None), at most ``n``: prediction rows with the case's ``inputs``, ``expected`` and, for a
        perturbation, its ``original`` text."""
        model = self._model(model)
        chosen, _ = collect_failures(self.dir, self.results, None)
        out = []
        for (m, cap), rows in chosen.items():
            if m != model or (capability is not None and cap != capability):
                continue
            for row in rows:
                case = row.pop("case_record") or {}
                seed = row.pop("seed_record") or {}
                row.pop("seed_row", None)
                fields = self.results["task"]["inputs"]
                row["inputs"] = {f: case.get(f) for f in fields}
                row["expected"] = case.get("expected")
                if seed:
                    row["original"] = {f: seed.get(f) for f in fields}
                out.append(row)
        if (
            capability is not None
            and not out
            and capability not in self.results["models"][model]["capabilities"]
        ):
            raise InputError(f"no capability {capability!r} in these results")
        return out[:n] if n is not None else out

    def to_pandas(self) -> Any:
        """Every prediction row (``predictions.jsonl``) with the case's input fields, as a DataFrame."""
        import pandas as pd

        suite_dir = Path(self.results["suite"]["dir"])
        fields = self.results["task"]["inputs"]
        cases = {c.id: c.to_json() for c in iter_cases(suite_dir / CASES)}
        rows = []
        for row in read_predictions(self.dir / PREDICTIONS):
            case = cases.get(row["case"], {})
            rows.append(
                {
                    **{f: case.get(f) for f in fields},
                    "expected": case.get("expected"),
                    "test_type": case.get("test_type"),
                    **row,
                }
            )
        return pd.DataFrame(rows)

    def save(self, directory: str | Path) -> Path:
        """Write the results directory ``autocheck report``/``compare``/``export`` read into a new or empty
        ``directory``; a suite that lived in a temporary directory is saved beside it (``suite/``)."""
        out = _new_dir(directory, "results")
        results = dict(self.results)
        suite_dir = Path(results["suite"]["dir"])
        if self._keep is not None and Path(self._keep.name) in suite_dir.parents:
            shutil.copytree(suite_dir, out / "suite")
            results["suite"] = {**results["suite"], "dir": str((out / "suite").resolve())}
        shutil.copyfile(self.dir / PREDICTIONS, out / PREDICTIONS)
        atomic_write_json(out / RESULTS, results)
        return out

    # -------------------------------------------------------------- display

    def rows(self, model: str | None = None, max_examples: int = 5) -> list[D.Row]:
        """The display's rows for ``model``: one per capability, with up to ``max_examples`` failing cases."""
        name = self._model(model)
        chosen, totals = collect_failures(self.dir, self.results, max_examples)
        fields = list(self.results["task"]["inputs"])
        labels = list(self.results["task"].get("labels") or ())  # the order of every row's probabilities
        out = []
        for cap, c in model_capabilities(self.results, self.results["models"][name]):
            info, tally = capability_info(self.results, cap), headline(c)
            row = D.Row(
                info["name"],
                info["test_type"] or c["test_type"],
                tally["failures"],
                tally["applicable"],
                info["group"],
                info["description"],
                c["all"].get("errors", 0),
                shown_of=totals.get((name, cap), 0),
            )
            for r in chosen.get((name, cap), []):
                case = r.get("case_record") or {}
                original = ""
                if r.get("seed_record") and case.get("kind") == PERTURBATION:
                    seed_said = prediction_html(r.get("seed_row"), labels=labels)
                    original = f"{case_html(r['seed_record'], fields)} → {seed_said}"
                row.examples.append(
                    D.Example(case_html(case, fields), prediction_html(r, labels=labels), why(case), original)
                )
            out.append(row)
        return out

    def __str__(self) -> str:
        return "\n\n".join(D.render_text(f"Model: {short_name(m)}", self.rows(m, 0)) for m in self.models)

    def __repr__(self) -> str:
        return f"Results({', '.join(self.models)}; {self.results['suite']['cases']} cases)\n{self}"

    def _repr_html_(self) -> str:
        return "".join(
            D.render_html(
                f"Model: {short_name(m)}",
                self.rows(m),
                "failure rate over applicable cases (MFT) or seed "
                "groups (INV/DIR); click a capability below for its failing cases",
            )
            for m in self.models
        )


__all__ = ["Results", "Suite", "Test"]
