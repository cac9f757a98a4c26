"""How results show themselves in a notebook (``_repr_html_``) and a terminal (``__str__``).

One table of capabilities (or CheckList tests): group, name, test type, failure rate over the applicable
test cases with its 95% Wilson interval and the counts behind it, errors; under it, per capability with
failures, a ``<details>`` element holding its failing examples (the input, what the model said, why it
fails). Plain HTML and CSS scoped to the display, no script and no widget, so it renders the same in
Jupyter, JupyterLab, VS Code and Colab. Every text from the data is HTML-escaped here; the pieces taken
from the report (``report.html.case_html``, ``prediction_html``) escape their own.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from ..report.summary import pct
from ..stats import wilson

CSS = """
.autocheck-display{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;font-size:13px;color:#222}
.autocheck-display table{border-collapse:collapse;margin:6px 0}
.autocheck-display th,.autocheck-display td{border:1px solid #ddd;padding:3px 8px;text-align:left}
.autocheck-display td{vertical-align:top}
.autocheck-display th{background:#f4f4f4}.autocheck-display td.num{text-align:right}
.autocheck-display td.hi{background:#fde2e1}.autocheck-display td.mid{background:#fff4d6}
.autocheck-display td.lo{background:#e6f4ea}.autocheck-display .muted{color:#777;font-size:12px}
.autocheck-display .fail{color:#b00020;font-weight:600}.autocheck-display details{margin:4px 0}
.autocheck-display summary{cursor:pointer}.autocheck-display mark{background:#ffe066}
.autocheck-display .ex{max-width:520px}
"""


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
    out = [f"<div class='autocheck-display'><style>{CSS}</style><b>{escape(title)}</b>"]
    if note:
        out.append(f"<div class='muted'>{escape(note)}</div>")
    out.append(
        "<table><thead><tr><th>capability</th><th>test</th><th>type</th><th>failure rate (failed/applicable)"
        "</th><th>95% interval</th><th>errors</th></tr></thead><tbody>"
    )
    for row in rows:
        name = escape(row.name) + (
            f"<div class='muted'>{escape(row.description)}</div>"
            if row.description and row.description != row.name
            else ""
        )
        out.append(
            f"<tr><td>{escape(row.group)}</td><td>{name}</td><td>{escape(row.test_type)}</td>"
            f"<td class='num {_shade(row.rate)}'>{escape(rate_text(row))}</td>"
            f"<td class='num'>{escape(interval_text(row))}</td><td class='num'>{row.errors}</td></tr>"
        )
    out.append("</tbody></table>")
    for row in rows:
        if not row.examples:
            continue
        more = row.shown_of or row.failures
        out.append(
            f"<details><summary>{escape(row.name)}: {len(row.examples)} of {more} failing test case(s)"
            "</summary><table><thead><tr><th>input</th><th>prediction</th><th>why</th></tr></thead><tbody>"
        )
        for ex in row.examples:
            original = f"<div class='muted'>original: {ex.original_html}</div>" if ex.original_html else ""
            out.append(
                f"<tr><td class='ex'>{ex.input_html}{original}</td><td>{ex.prediction_html}</td>"
                f"<td>{escape(ex.why)}</td></tr>"
            )
        out.append("</tbody></table></details>")
    out.append("</div>")
    return "".join(out)


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
