"""CheckList's test types: ``MFT``, ``INV`` and ``DIR`` with ``run``, ``summary``, ``get_stats``,
``to_raw_file``, ``run_from_file`` and ``run_from_preds_confs``, as CheckList 0.0.11 has them.

A test holds ``data``: one example per test case (MFT), or per test case a list whose first example is the
original and the rest its perturbations (INV, DIR). ``run`` flattens the examples, asks the prediction
function for ``(preds, confs)`` once, puts them back per test case, and applies the expectation
(``expect.Expect``). A sample (``n``, ``seed``) is drawn with a seeded ``numpy`` generator, never the
global one, so a seed always gives the same sample (CheckList's own samples differ).
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import numpy as np

from .display import SuiteDisplay
from .editor import Munch
from .expect import Expect, iter_with_optional

FILE_FORMATS = ("pred_only", "binary_conf", "softmax", "pred_and_conf", "pred_and_softmax")


def _label_value(text: str) -> Any:
    return int(text) if text.isdigit() else text


def read_pred_file(
    path: str, file_format: str | None = None, format_fn: Any = None, ignore_header: bool = False
) -> tuple[list, list]:
    """Predictions and confidences from a file, one line per example (``file_format`` or ``format_fn``)."""
    readers = {
        "pred_only": lambda line: (_label_value(line), 1),
        "binary_conf": lambda line: (int(float(line) > 0.5), np.array([1 - float(line), float(line)])),
        "softmax": lambda line: (
            int(np.argmax(c := np.array([float(x) for x in line.split()]))),
            c,
        ),
        "pred_and_conf": lambda line: (_label_value(line.split()[0]), float(line.split()[1])),
        "pred_and_softmax": lambda line: (
            _label_value(line.split()[0]),
            np.array([float(x) for x in line.split()[1:]]),
        ),
    }
    if format_fn is None:
        if file_format not in readers:
            raise ValueError(
                f"file_format {file_format!r} not supported; use one of {', '.join(FILE_FORMATS)}"
            )
        format_fn = readers[file_format]
    preds, confs = [], []
    with open(path, encoding="utf-8") as f:
        if ignore_header:
            f.readline()
        for line in f:
            pred, conf = format_fn(line.rstrip("\n"))
            preds.append(pred)
            confs.append(conf)
    return preds, confs


class AbstractTest:
    def __init__(
        self,
        data: list,
        expect: Any,
        labels: Any = None,
        meta: Any = None,
        agg_fn: Any = "all",
        templates: Any = None,
        print_first: bool | None = None,
        name: str | None = None,
        capability: str | None = None,
        description: str | None = None,
    ):
        self.data = data
        self.expect = expect
        self.labels = labels
        self.meta = meta
        self.agg_fn = agg_fn
        self.templates = templates
        self.print_first = print_first
        self.run_idxs: Any = None
        self.result_indexes: list[int] = []
        self.name = name
        self.capability = capability
        self.description = description
        self.results: Munch | None = None

    def __repr__(self) -> str:
        state = "not run" if not self.results else "run"
        return f"{type(self).__name__}({self.name or 'unnamed'!r}, {len(self.data)} test cases, {state})"

    # ------------------------------------------------------------------ running

    def example_list_and_indices(self, n: int | None = None, seed: int | None = None) -> tuple[list, list]:
        """The examples to predict, flattened, and the test case of each."""
        self.run_idxs = None
        idxs = list(range(len(self.data)))
        if n is not None:
            rng = np.random.default_rng(seed)
            idxs = [int(i) for i in rng.choice(idxs, min(n, len(idxs)), replace=False)]
            self.run_idxs = idxs
        if self.data and isinstance(self.data[0], list | np.ndarray):
            pairs = [(i, y) for i in idxs for y in self.data[i]]
            indexes, examples = [p[0] for p in pairs], [p[1] for p in pairs]
        else:
            examples, indexes = [self.data[i] for i in idxs], idxs
        self.result_indexes = indexes
        return examples, indexes

    def update_results_from_preds(self, preds: Any, confs: Any) -> None:
        assert self.results is not None
        if len(preds) != len(self.result_indexes) or len(confs) != len(self.result_indexes):
            raise ValueError(
                f"{self.name}: {len(self.result_indexes)} examples but {len(preds)} predictions and "
                f"{len(confs)} confidences"
            )
        if self.data and isinstance(self.data[0], list):
            grouped_p: list[list] = [[] for _ in self.data]
            grouped_c: list[list] = [[] for _ in self.data]
            for i, p, c in zip(self.result_indexes, preds, confs):
                grouped_p[i].append(p)
                grouped_c[i].append(c)
            self.results.preds = [np.array(p) for p in grouped_p]
            self.results.confs = [np.array(c) for c in grouped_c]
        else:
            self.results.preds = [None] * len(self.data)
            self.results.confs = [None] * len(self.data)
            for i, p, c in zip(self.result_indexes, preds, confs):
                self.results.preds[i] = p
                self.results.confs[i] = c

    def _check_results(self) -> Munch:
        if not self.results:
            raise RuntimeError("No results. Run run() first")
        return self.results

    def _check_create_results(self, overwrite: bool, check_only: bool = False) -> None:
        if self.results and not overwrite:
            raise RuntimeError("Results exist. To overwrite, set overwrite=True")
        if not check_only:
            self.results = Munch()

    def set_expect(self, expect: Any) -> None:
        self.expect = expect
        self.update_expect()

    def update_expect(self) -> None:
        self._check_results()
        assert self.results is not None
        self.results.expect_results = self.expect(self)
        self.results.passed = Expect.aggregate(self.results.expect_results, self.agg_fn)

    def run_from_preds_confs(self, preds: Any, confs: Any, overwrite: bool = False) -> None:
        self._check_create_results(overwrite)
        self.update_results_from_preds(list(preds), list(confs))
        self.update_expect()

    def run_from_file(
        self,
        path: str,
        file_format: str | None = None,
        format_fn: Any = None,
        ignore_header: bool = False,
        overwrite: bool = False,
    ) -> None:
        self._check_create_results(overwrite, check_only=True)
        if not self.result_indexes:
            self.example_list_and_indices()
        preds, confs = read_pred_file(path, file_format, format_fn, ignore_header)
        self.run_from_preds_confs(preds, confs, overwrite=overwrite)

    def run(
        self,
        predict_and_confidence_fn: Any,
        overwrite: bool = False,
        verbose: bool = True,
        n: int | None = None,
        seed: int | None = None,
    ) -> None:
        """Predict every example with ``predict_and_confidence_fn(examples) -> (preds, confs)`` (see
        ``pred_wrapper``) and apply the expectation."""
        self._check_create_results(overwrite, check_only=True)
        examples, _ = self.example_list_and_indices(n, seed=seed)
        if verbose:
            print(f"Predicting {len(examples)} examples")
        preds, confs = predict_and_confidence_fn(examples)
        self.run_from_preds_confs(preds, confs, overwrite=overwrite)

    # ------------------------------------------------------------------ raw files

    def to_raw_examples(
        self,
        file_format: str | None = None,
        format_fn: Any = None,
        n: int | None = None,
        seed: int | None = None,
    ) -> list[str]:
        if file_format == "jsonl":
            format_fn = json.dumps
        elif file_format == "tsv":  # a pair of texts (QQP) on one line
            format_fn = "\t".join
        elif format_fn is None:
            format_fn = lambda x: str(x).replace("\n", " ")  # noqa: E731
        examples, _ = self.example_list_and_indices(n, seed=seed)
        return [format_fn(x) for x in examples]

    def to_raw_file(
        self,
        path: str,
        file_format: str | None = None,
        format_fn: Any = None,
        header: str | None = None,
        n: int | None = None,
        seed: int | None = None,
    ) -> None:
        """Every example on its own line (for predicting elsewhere; read back with ``run_from_file``)."""
        lines = ([header.strip("\n")] if header is not None else []) + self.to_raw_examples(
            file_format, format_fn, n, seed
        )
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))

    # ------------------------------------------------------------------ reading results

    def fail_idxs(self) -> np.ndarray:
        results = self._check_results()
        return np.array([i for i, p in enumerate(results.passed) if p is not None and not p], dtype=int)

    def filtered_idxs(self) -> np.ndarray:
        results = self._check_results()
        return np.array([i for i, p in enumerate(results.passed) if p is None], dtype=int)

    def get_stats(self) -> Munch:
        """``testcases``; ``testcases_run`` for a sample; ``after_filtering`` (and its rate, %) when some
        test cases did not apply; ``fails`` and ``fail_rate`` (%, over the applicable ones)."""
        self._check_results()
        n = len(self.data)
        n_run = len(self.run_idxs) if self.run_idxs is not None else n
        fails, filtered = len(self.fail_idxs()), len(self.filtered_idxs())
        applicable = n_run - filtered
        stats = Munch(testcases=n)
        if n_run != n:
            stats.testcases_run = n_run
        if filtered:
            stats.after_filtering = applicable
            stats.after_filtering_rate = 100 * applicable / n_run
        if applicable:
            stats.fails = fails
            stats.fail_rate = 100 * fails / applicable
        return stats

    def print_stats(self) -> None:
        stats = self.get_stats()
        print(f"Test cases:      {stats.testcases}")
        if "testcases_run" in stats:
            print(f"Test cases run:  {stats.testcases_run}")
        if "after_filtering" in stats:
            print(f"After filtering: {stats.after_filtering} ({stats.after_filtering_rate:.1f}%)")
        if "fails" in stats:
            print(f"Fails (rate):    {stats.fails} ({stats.fail_rate:.1f}%)")

    def label_meta(self, i: int) -> tuple[Any, Any]:
        label = self.labels[i] if isinstance(self.labels, list | np.ndarray) else self.labels
        meta = self.meta[i] if isinstance(self.meta, list | np.ndarray) else self.meta
        return label, meta

    def failing_examples(self, i: int, nsamples: int = 3) -> list[tuple]:
        """The examples of test case ``i`` (a data index) that fail, worst first (the original first for
        a perturbation test): (x, pred, conf, label, meta, value)."""
        assert self.results is not None
        label, meta = self.label_meta(i)
        position = i if self.run_idxs is None else list(self.run_idxs).index(i)
        values = np.atleast_1d(np.asarray(self.results.expect_results[position], dtype=object))
        rows = iter_with_optional(self.data[i], self.results.preds[i], self.results.confs[i], label, meta)
        scored = [(float(v), k) for k, v in enumerate(values) if v is not None and float(v) <= 0]
        chosen = [k for _, k in sorted(scored)][:nsamples]
        if self.print_first and isinstance(self.data[i], list):
            chosen = [0] + [k for k in chosen if k != 0][: nsamples - 1]
        return [(*rows[k], values[k] if k < len(values) else None) for k in chosen]

    def summary(
        self, n: int = 3, print_fn: Any = None, format_example_fn: Any = None, n_per_testcase: int = 3
    ) -> None:
        """Print the stats and up to ``n`` failing test cases (the first ones, so the output is stable)."""
        self.print_stats()
        if not n:
            return
        format_example_fn = format_example_fn or _default_format_example
        fails = self.fail_idxs()
        if not len(fails):
            return
        results = self._check_results()
        print()
        print("Example fails:")
        for f in fails[:n]:
            i = int(f if self.run_idxs is None else self.run_idxs[f])
            if print_fn is not None:
                label, meta = self.label_meta(i)
                print_fn(
                    self.data[i],
                    results.preds[i],
                    results.confs[i],
                    results.expect_results[f],
                    label,
                    meta,
                    format_example_fn,
                    nsamples=n_per_testcase,
                )
                continue
            for x, pred, conf, label, meta, _ in self.failing_examples(i, n_per_testcase):
                print(format_example_fn(x, pred, conf, label, meta))
            print("----")

    def visual_summary(
        self,
        name: str | None = None,
        capability: str | None = None,
        description: str | None = None,
        n_per_testcase: int = 3,
        max_examples: int = 5,
    ) -> Any:
        """This test's results as a display (HTML in a notebook, text in a terminal): its failure rate over
        the applicable test cases and its failing examples, as ``TestSuite.visual_summary_table`` shows a
        test. CheckList's widget is not needed."""
        name = name or self.name or type(self).__name__
        info = {
            "type": type(self).__name__,
            "capability": capability or self.capability or "",
            "description": description or self.description or "",
        }
        one = SimpleNamespace(tests={name: self}, info={name: info})
        return SuiteDisplay(one, [name], n_per_testcase, max_examples)


def _default_format_example(x: Any, pred: Any, conf: Any, *args: Any, **kwargs: Any) -> str:
    if isinstance(conf, np.ndarray) and conf.ndim == 1:
        if conf.shape[0] == 2:
            return f"{conf[1]:.1f} {x}"
        if conf.shape[0] <= 4:
            return " ".join(f"{c:.1f}" for c in conf) + f" {x}"
        return f"{pred} ({conf[pred]:.1f}) {x}"
    return f"{pred} {x}"


class MFT(AbstractTest):
    """Minimum functionality test: each example has an expected label (``labels``: one for all, or one
    per example) or an ``expect`` function."""

    def __init__(
        self,
        data,
        expect=None,
        labels=None,
        meta=None,
        agg_fn="all",
        templates=None,
        name=None,
        capability=None,
        description=None,
    ):
        if labels is None and expect is None:
            raise ValueError("Must specify either 'expect' or 'labels'")
        if labels is not None and expect is None:
            expect = Expect.eq()
        super().__init__(
            data,
            expect,
            labels=labels,
            meta=meta,
            agg_fn=agg_fn,
            templates=templates,
            print_first=False,
            name=name,
            capability=capability,
            description=description,
        )


class INV(AbstractTest):
    """Invariance test: each perturbation keeps the original's prediction (``Expect.inv(threshold)``)."""

    def __init__(
        self,
        data,
        expect=None,
        threshold=0.1,
        meta=None,
        agg_fn="all_except_first",
        templates=None,
        name=None,
        capability=None,
        description=None,
        labels=None,
    ):
        if expect is None:
            expect = Expect.inv(threshold)
        super().__init__(
            data,
            expect,
            labels=labels,
            meta=meta,
            agg_fn=agg_fn,
            templates=templates,
            print_first=True,
            name=name,
            capability=capability,
            description=description,
        )


class DIR(AbstractTest):
    """Directional expectation test: each perturbation moves the prediction as ``expect`` says."""

    def __init__(
        self,
        data,
        expect,
        meta=None,
        agg_fn="all_except_first",
        templates=None,
        name=None,
        capability=None,
        description=None,
        labels=None,
    ):
        super().__init__(
            data,
            expect,
            labels=labels,
            meta=meta,
            agg_fn=agg_fn,
            templates=templates,
            print_first=True,
            name=name,
            capability=capability,
            description=description,
        )
