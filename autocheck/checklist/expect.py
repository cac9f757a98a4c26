"""CheckList's ``Expect``: expectation functions over tests, test cases, single examples or pairs.

The value of an expectation for one example is a bool, a number or None: True or a number > 0 passes,
False or a number <= 0 fails (its distance from 0 says how badly), None does not apply and is not counted.
A test-level expectation takes the test and returns one array of such values per test case; ``aggregate``
folds each array into the test case's verdict (``'all'``, or ``'all_except_first'`` for perturbation tests,
whose first example is the original).

The built-in expectations (``eq``, ``inv``, ``monotonic`` and the ones a loaded suite needs) carry a
``spec``: a small JSON description, so a suite saves as JSON and loads again without pickle. An expectation
made from your own function (``single``, ``pairwise``, ``testcase``, ``test``) has none.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

_SEQUENCES = (list, np.ndarray)


def iter_with_optional(data: Any, preds: Any, confs: Any, labels: Any, meta: Any, idxs: Any = None) -> list:
    """(x, pred, conf, label, meta) per example; a single example (not a list) gives one tuple."""
    if not isinstance(data, _SEQUENCES):
        return [(data, preds, confs, labels, meta)]
    if isinstance(meta, _SEQUENCES):
        if len(meta) != len(data):
            raise ValueError("If meta is list, length must match data")
    else:
        meta = itertools.repeat(meta)
    if isinstance(labels, _SEQUENCES):
        if len(labels) != len(data):
            raise ValueError("If labels is list, length must match data")
    else:
        labels = itertools.repeat(labels)
    out = list(zip(data, preds, confs, labels, meta))
    return [out[i] for i in idxs] if idxs is not None else out


def _with_spec(fn: Callable, spec: dict[str, Any] | None) -> Callable:
    fn.spec = spec  # type: ignore[attr-defined]
    return fn


def _softmax(conf: Any) -> bool:
    return isinstance(conf, np.ndarray) and conf.ndim == 1


class Expect:
    """Expectation helpers (static methods), as CheckList's."""

    @staticmethod
    def test(fn: Callable) -> Callable:
        """``fn(data, preds, confs, labels, meta, run_idxs)`` over the whole test → a list of arrays."""

        def expect(self: Any) -> Any:
            return fn(
                self.data, self.results.preds, self.results.confs, self.labels, self.meta, self.run_idxs
            )

        return _with_spec(expect, None)

    @staticmethod
    def testcase(fn: Callable) -> Callable:
        """``fn(xs, preds, confs, labels=None, meta=None)`` over one test case → an array of values."""

        def expect(self: Any) -> list:
            zipped = iter_with_optional(
                self.data, self.results.preds, self.results.confs, self.labels, self.meta, self.run_idxs
            )
            return [fn(x, pred, confs, labels, meta) for x, pred, confs, labels, meta in zipped]

        return _with_spec(expect, None)

    @staticmethod
    def single(fn: Callable) -> Callable:
        """``fn(x, pred, conf, label=None, meta=None)`` over each example."""

        def expect_fn(xs: Any, preds: Any, confs: Any, label: Any = None, meta: Any = None) -> np.ndarray:
            return np.array(
                [fn(x, p, c, la, m) for x, p, c, la, m in iter_with_optional(xs, preds, confs, label, meta)]
            )

        return Expect.testcase(expect_fn)

    @staticmethod
    def pairwise(fn: Callable) -> Callable:
        """``fn(orig_pred, pred, orig_conf, conf, labels=None, meta=None)`` over each example of a test case
        against its first (the original)."""

        def expect_fn(xs: Any, preds: Any, confs: Any, labels: Any = None, meta: Any = None) -> np.ndarray:
            orig_pred, orig_conf = preds[0], confs[0]
            return np.array(
                [
                    fn(orig_pred, p, orig_conf, c, la, m)
                    for _, p, c, la, m in iter_with_optional(xs, preds, confs, labels, meta)
                ]
            )

        return Expect.testcase(expect_fn)

    @staticmethod
    def aggregate(data: list, agg_fn: Any = "all") -> np.ndarray:
        """Each test case's values folded into its verdict (True, False or None)."""
        out = np.empty(len(data), dtype=object)
        for i, x in enumerate(data):
            out[i] = Expect.aggregate_testcase(x, agg_fn)
        return out

    @staticmethod
    def aggregate_testcase(expect_results: Any, agg_fn: Any = "all") -> Any:
        if agg_fn == "all":
            agg_fn = Expect.all()
        elif agg_fn == "all_except_first":
            agg_fn = Expect.all(ignore_first=True)
        if expect_results is None:
            return None
        values = [x for x in np.atleast_1d(np.asarray(expect_results, dtype=object)) if x is not None]
        if not values:
            return None
        return agg_fn(np.array(values))

    @staticmethod
    def all(ignore_first: bool = False) -> Callable:
        def agg(results: np.ndarray) -> Any:
            if ignore_first:
                results = results[1:]
            return bool(np.all(results.astype(float) > 0))

        return agg

    @staticmethod
    def wrap_slice(expect_fn: Callable, slice_fn: Callable, agg_fn: Any = "all") -> Callable:
        """``expect_fn`` with the test cases ``slice_fn`` does not keep set to None (not applicable)."""

        def wrapped(*args: Any, **kwargs: Any) -> list:
            out = expect_fn(*args, **kwargs)
            kept = Expect.aggregate(slice_fn(*args, **kwargs), agg_fn)
            for i in np.where(kept != True)[0]:  # noqa: E712  (None and False both discard)
                out[i] = [None] * len(out[i]) if isinstance(out[i], _SEQUENCES) else None
            return out

        return _with_spec(wrapped, None)

    @staticmethod
    def slice_testcase(expect_fn: Callable, slice_fn: Callable, agg_fn: Any = "all") -> Callable:
        return Expect.wrap_slice(expect_fn, Expect.testcase(slice_fn), agg_fn)

    @staticmethod
    def slice_single(expect_fn: Callable, slice_fn: Callable, agg_fn: Any = "all") -> Callable:
        return Expect.wrap_slice(expect_fn, Expect.single(slice_fn), agg_fn)

    @staticmethod
    def slice_orig(expect_fn: Callable, slice_fn: Callable, agg_fn: Any = "all") -> Callable:
        """Keep the test cases whose original ``slice_fn(orig_pred, orig_conf)`` keeps."""
        return Expect.slice_pairwise(expect_fn, lambda orig, pred, *a, **k: slice_fn(orig, pred), agg_fn)

    @staticmethod
    def slice_pairwise(expect_fn: Callable, slice_fn: Callable, agg_fn: Any = "all_except_first") -> Callable:
        return Expect.wrap_slice(expect_fn, Expect.pairwise(slice_fn), agg_fn)

    @staticmethod
    def combine(
        expect_fn1: Callable, expect_fn2: Callable, combine_fn: Callable, ignore_none: bool = True
    ) -> Callable:
        """Two expectations example by example through ``combine_fn(x1, x2)``; with ``ignore_none`` a None
        on one side takes the other's value."""

        def combined(self: Any) -> list:
            out = []
            for list1, list2 in zip(expect_fn1(self), expect_fn2(self)):
                row = []
                for z1, z2 in zip(np.atleast_1d(list1), np.atleast_1d(list2)):
                    if ignore_none and (z1 is None or z2 is None):
                        row.append(z2 if z1 is None else z1)
                    else:
                        row.append(combine_fn(z1, z2))
                out.append(np.array(row, dtype=object))
            return out

        return _with_spec(combined, None)

    @staticmethod
    def combine_and(expect_fn1: Callable, expect_fn2: Callable) -> Callable:
        return Expect.combine(expect_fn1, expect_fn2, min)

    @staticmethod
    def combine_or(expect_fn1: Callable, expect_fn2: Callable) -> Callable:
        return Expect.combine(expect_fn1, expect_fn2, max)

    # ---------------------------------------------------------------- the built-in expectations

    @staticmethod
    def eq(val: Any = None) -> Callable:
        """The prediction equals ``val``, or the example's label when ``val`` is None."""

        def check(x: Any, pred: Any, conf: Any, label: Any = None, meta: Any = None) -> Any:
            gt = val if val is not None else label
            if pred == gt:
                return True
            score = conf[gt] if _softmax(conf) else -conf
            return -(1 - score)

        return _with_spec(Expect.single(check), {"fn": "eq", "val": _plain(val)})

    @staticmethod
    def inv(tolerance: float = 0) -> Callable:
        """The prediction does not change, or its original class's probability moves by at most
        ``tolerance``."""

        def check(
            orig_pred: Any, pred: Any, orig_conf: Any, conf: Any, labels: Any = None, meta: Any = None
        ) -> Any:
            if np.all(pred == orig_pred):
                return True
            if _softmax(orig_conf):
                moved = abs(conf[orig_pred] - orig_conf[orig_pred])
            else:
                moved = conf + orig_conf
            return True if moved <= tolerance else -moved

        return _with_spec(Expect.pairwise(check), {"fn": "inv", "tolerance": tolerance})

    @staticmethod
    def monotonic(label: Any = None, increasing: bool = True, tolerance: float = 0.0) -> Callable:
        """The probability of ``label`` (the original's prediction when None) does not fall (``increasing``)
        or rise by more than ``tolerance``; not applicable when the original is already at the limit."""

        def check(
            orig_pred: Any, pred: Any, orig_conf: Any, conf: Any, labels: Any = None, meta: Any = None
        ) -> Any:
            softmax = _softmax(orig_conf)
            if not softmax and label is not None:
                raise ValueError("Need prediction function to be softmax for monotonic if you specify label")
            k = orig_pred if label is None else label
            if softmax:
                before, diff = orig_conf[k], conf[k] - orig_conf[k]
            else:
                before = orig_conf
                diff = conf - orig_conf if pred == orig_pred else -(orig_conf + conf)
            if (increasing and before <= tolerance) or (not increasing and before >= 1 - tolerance):
                return None
            if increasing:
                return True if diff + tolerance >= 0 else diff + tolerance
            return True if diff - tolerance <= 0 else -(diff - tolerance)

        spec = {"fn": "monotonic", "label": _plain(label), "increasing": increasing, "tolerance": tolerance}
        return _with_spec(Expect.pairwise(check), spec)

    @staticmethod
    def allowed(per_example: list[list[Any]]) -> Callable:
        """Example ``i`` passes when its prediction is one of ``per_example[i]`` (CheckList's released suite
        writes "positive or neutral" tests this way, with its own functions)."""
        options = [set(o) for o in per_example]

        def expect(self: Any) -> list:
            idxs = self.run_idxs if self.run_idxs is not None else range(len(self.data))
            return [np.array([self.results.preds[i] in options[i]]) for i in idxs]

        return _with_spec(expect, {"fn": "allowed", "per_example": [sorted(map(_plain, o)) for o in options]})

    @staticmethod
    def score_change(plus: int, minus: int, increasing: bool = True, tolerance: float = 0.0) -> Callable:
        """conf[plus] − conf[minus] does not move against the direction by more than ``tolerance`` (the
        released sentiment suite's ``diff_up``/``diff_down`` for added phrases)."""

        def check(
            orig_pred: Any, pred: Any, orig_conf: Any, conf: Any, labels: Any = None, meta: Any = None
        ) -> Any:
            change = (conf[plus] - conf[minus]) - (orig_conf[plus] - orig_conf[minus])
            ok = change + tolerance >= 0 if increasing else change - tolerance <= 0
            return True if ok else -abs(change)

        spec = {
            "fn": "score_change",
            "plus": plus,
            "minus": minus,
            "increasing": increasing,
            "tolerance": tolerance,
        }
        return _with_spec(Expect.pairwise(check), spec)

    @staticmethod
    def skip_original(expect_fn: Callable, label: Any) -> Callable:
        """``expect_fn`` on the test cases whose original is not predicted ``label`` (the released suite
        leaves out originals predicted neutral from its monotonic tests)."""
        sliced = Expect.slice_orig(expect_fn, lambda orig_pred, orig_conf: orig_pred != label)
        inner = getattr(expect_fn, "spec", None)  # a function of your own has none: nor, then, has this
        spec = None if inner is None else {"fn": "skip_original", "label": _plain(label), "expect": inner}
        return _with_spec(sliced, spec)

    @staticmethod
    def from_spec(spec: dict[str, Any]) -> Callable:
        """The expectation a ``spec`` describes (what ``save`` wrote)."""
        fn = spec.get("fn")
        args = {k: v for k, v in spec.items() if k != "fn"}
        if fn == "skip_original":
            return Expect.skip_original(Expect.from_spec(args["expect"]), args["label"])
        makers: dict[str, Callable[..., Callable[..., Any]]] = {
            "eq": Expect.eq,
            "inv": Expect.inv,
            "monotonic": Expect.monotonic,
            "allowed": Expect.allowed,
            "score_change": Expect.score_change,
        }
        if fn not in makers:
            raise ValueError(f"unknown expectation {fn!r}; known: {', '.join(sorted(makers))}, skip_original")
        return makers[fn](**args)


def _plain(value: Any) -> Any:
    """numpy scalars as Python ones, so a spec is JSON."""
    return value.item() if isinstance(value, np.generic) else value
