"""The HTML template set: Jinja2 templates in ``report/templates/``, autoescaped (a dataset's text can
never become markup), with their stylesheets beside them.

``render(name, **context)`` fills one; the stylesheet named like the template (``display.css`` for
``display.html.j2``) is passed as ``css``. The notebook displays (``api.display``, ``checklist.display``)
use ``display.html.j2``.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any


@cache
def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("autocheck.report", "templates"),
        autoescape=True,  # every template, whatever its name: all of them are HTML
        undefined=jinja2.StrictUndefined,  # a misspelt name is an error, never an empty cell
        keep_trailing_newline=False,
    )


@cache
def stylesheet(name: str) -> str:
    return (resources.files("autocheck.report") / "templates" / name).read_text(encoding="utf-8")


def render(name: str, **context: Any) -> str:
    """The template ``name`` filled with ``context`` (its stylesheet as ``css``)."""
    css = stylesheet(name.split(".", 1)[0] + ".css")
    return str(_environment().get_template(name).render(css=css, **context))
