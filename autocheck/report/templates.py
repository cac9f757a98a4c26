"""The HTML template set: Jinja2 templates in ``report/templates/``, autoescaped (a dataset's text can
never become markup), with the stylesheet and the pages' script beside them.

``render(name, **context)`` fills one, with the one stylesheet of them all (``autocheck.css``) as ``css``:
the notebook displays (``api.display``, ``checklist.display``) use ``display.html.j2``; the report page
``report.html.j2`` and the comparison page ``compare.html.j2``, both built on ``page.html.j2`` (the
document, the stylesheet and the filter-and-sort script, ``page.js``).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import jinja2

from .summary import pct


@cache
def _environment() -> Any:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("autocheck.report", "templates"),
        autoescape=True,  # every template, whatever its name: all of them are HTML
        undefined=jinja2.StrictUndefined,  # a misspelt name is an error, never an empty cell
        keep_trailing_newline=False,
    )
    environment.globals["pct"] = pct  # a rate as the tables write it
    return environment


@cache
def asset(name: str) -> str:
    """A file of the template set as text (the stylesheet, the pages' script)."""
    return (resources.files("autocheck.report") / "templates" / name).read_text(encoding="utf-8")


STYLESHEET = "autocheck.css"


def render(name: str, **context: Any) -> str:
    """The template ``name`` filled with ``context`` (the stylesheet as ``css``)."""
    return str(_environment().get_template(name).render(css=asset(STYLESHEET), **context))
