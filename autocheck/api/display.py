"""How results show themselves in a notebook (``_repr_html_``) and a terminal (``__str__``).

One table of capabilities (or CheckList tests): group, name, test type, failure rate over the applicable
test cases with its 95% Wilson interval and the counts behind it, errors; under it, per capability with
failures, a ``<details>`` element holding its failing examples (the input, what the model said, why it
fails). Plain HTML and CSS scoped to the display, no script and no widget, so it renders the same in
Jupyter, JupyterLab, VS Code and Colab: the template ``report/templates/display.html.j2`` (autoescaped)
and its stylesheet ``display.css``, whose rules outrank the notebooks' own table rules. The pieces taken
from the report (``report.html.case_html``, ``prediction_html``) escape their own text.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from ..report.summary import pct
from ..report.templates import render
from ..stats import wilson


def escape(text: object) -> str:
    return html.escape(str(text), quote=True)


@dataclass
class Example:
    """One failing example, as HTML pieces (already escaped by whoever made them)."""

    input_html: str
    prediction_html: str
    why: str = ""  # plain text
    original_html: str = ""  # the original of a perturbation (INV/DIR), with its prediction


@dataclass
class Row:
    """One capability or test."""

    name: str
    test_type: str
    failures: int
    applicable: int
    group: str = ""
    description: str = ""
    errors: int = 0
    examples: list[Example] = field(default_factory=list)
    shown_of: int = 0  # how many failing test cases there are in all (examples may show fewer)

    @property
    def rate(self) -> float | None:
        return self.failures / self.applicable if self.applicable else None


def _shade(rate: float | None) -> str:
    return "" if rate is None else "hi" if rate >= 0.5 else "mid" if rate >= 0.2 else "lo"


def interval_text(row: Row) -> str:
    ci = wilson(row.failures, row.applicable)
    return "–" if ci is None else f"{100 * ci[0]:.1f}–{100 * ci[1]:.1f}%"


def rate_text(row: Row) -> str:
    return f"{pct(row.rate)} ({row.failures}/{row.applicable})"


def render_html(title: str, rows: list[Row], note: str = "") -> str:
    """The display: the capability table, then the failing examples of each capability in <details>."""
    shown = [
        {
            **vars(row),
            "shade": _shade(row.rate),
            "rate_text": rate_text(row),
            "interval_text": interval_text(row),
        }
        for row in rows
    ]
    return render("display.html.j2", kind="results", title=title, note=note, rows=shown)


def render_listing(title: str, headers: list[str], rows: list[list[Any]], wide: int, more: str = "") -> str:
    """A plain table of a suite's tests or a test's cases: numbers right-aligned, column ``wide`` (the
    texts) given the room."""
    context = {"title": title, "note": "", "headers": headers, "rows": rows, "wide": wide, "more": more}
    return render("display.html.j2", kind="listing", **context)


def render_text(title: str, rows: list[Row], width: int = 100) -> str:
    """The same table as text, for a terminal."""
    name_width = max([len(r.name) for r in rows] + [4])
    name_width = min(name_width, width - 50)
    lines = [title, f"{'test':<{name_width}}  type  {'failure rate':>22}  {'95% interval':>13}  errors"]
    for row in rows:
        name = row.name if len(row.name) <= name_width else row.name[: name_width - 1] + "…"
        lines.append(
            f"{name:<{name_width}}  {row.test_type:<4}  {rate_text(row):>22}  "
            f"{interval_text(row):>13}  {row.errors:>6}"
        )
    return "\n".join(lines)
