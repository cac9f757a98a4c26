"""A CheckList suite's results in autocheck's display (``api.display``): one row per test, failing examples
under each, instead of CheckList's widget."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..api.display import Example, Row, escape, render_html, render_text

WHY = {
    "MFT": "expectation not met",
    "INV": "prediction changed from the original's",
    "DIR": "prediction moved against the expected direction",
}


def _prediction(pred: Any, conf: Any) -> str:
    if isinstance(conf, np.ndarray) and conf.ndim == 1:
        probs = " / ".join(f"{c:.2f}" for c in conf)
        return f"<span class='fail'>{escape(pred)}</span><br><span class='muted'>{escape(probs)}</span>"
    return f"<span class='fail'>{escape(pred)}</span>"


def row_of(name: str, info: dict[str, Any], test: Any, n_per_testcase: int, max_examples: int) -> Row:
    stats = test.get_stats()
    applicable = stats.get("after_filtering", stats.get("testcases_run", stats.testcases))
    fails = test.fail_idxs()
    row = Row(
        name=name,
        test_type=info["type"],
        failures=len(fails),
        applicable=applicable,
        group=info["capability"],
        description=info.get("description", ""),
        shown_of=len(fails),
    )
    for f in fails[:max_examples]:
        i = int(f if test.run_idxs is None else test.run_idxs[f])
        examples = test.failing_examples(i, n_per_testcase)
        original = ""
        if test.print_first and isinstance(test.data[i], list) and examples:
            x, pred, conf, *_ = examples[0]
            original = f"{escape(x)} → {_prediction(pred, conf)}"
            examples = examples[1:]
        for x, pred, conf, label, _meta, _value in examples:
            why = WHY.get(info["type"], "") if label is None or info["type"] != "MFT" else f"expected {label}"
            row.examples.append(Example(escape(x), _prediction(pred, conf), why, original))
    return row


class SuiteDisplay:
    """What ``TestSuite.visual_summary_table`` returns: HTML in a notebook, a table in a terminal."""

    def __init__(self, suite: Any, names: list[str], n_per_testcase: int = 3, max_examples: int = 5):
        for name in names:
            suite.tests[name]._check_results()
        self.rows = [row_of(n, suite.info[n], suite.tests[n], n_per_testcase, max_examples) for n in names]

    def _repr_html_(self) -> str:
        return render_html("CheckList suite", self.rows, "failure rate over applicable test cases")

    def __str__(self) -> str:
        return render_text("CheckList suite", self.rows)

    __repr__ = __str__
