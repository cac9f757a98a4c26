"""The HTML outputs of the one template set (the report page, the comparison page, the notebook display)
laid out by a headless Chromium: nothing wider than the window, the comparison's verdict on the first
screen, and the display's cells left-aligned inside a JupyterLab output, whose own rules right-align
every cell. Screenshots go to $AUTOCHECK_ARTIFACTS (else the test's tmp folder)."""

from __future__ import annotations

import pytest
import test_compare
from browser import Browser, artifacts
from report_data import other, toy, write_suite

from autocheck.api import Results
from autocheck.report import write_html
from autocheck.report.compare import compare_runs, write_comparison_html
from autocheck.run import run_suite

pytestmark = pytest.mark.browser
gate_runs = test_compare.gate_runs  # the fixture: a base and a new run, one regression between them

# JupyterLab's rules for rendered HTML output (@jupyterlab/rendermime, style/base.css), the ones that
# reach a table: cells right-aligned and centred vertically, tables centred with a fixed layout.
JUPYTERLAB_CSS = """
.jp-RenderedHTMLCommon table{border-collapse:collapse;border-spacing:0;border:none;font-size:12px;
  table-layout:fixed;margin-left:auto;margin-bottom:1em;margin-right:auto}
.jp-RenderedHTMLCommon td,.jp-RenderedHTMLCommon th,.jp-RenderedHTMLCommon tr{text-align:right;
  vertical-align:middle;padding:.5em;line-height:normal;white-space:normal;max-width:none;border:none}
.jp-RenderedHTMLCommon tbody tr:nth-child(odd){background:#f5f5f5}
"""

# what sticks out past the window's right edge: elements, by tag, class and text
OVERFLOWING = """Array.from(document.querySelectorAll('body *'))
  .filter(e => e.getClientRects().length && e.getBoundingClientRect().right > innerWidth + 1
               && !e.closest('.wide'))
  .map(e => e.tagName + '.' + e.className + ': ' + e.textContent.slice(0, 40))"""


@pytest.fixture
def run_dir(tmp_path):
    run_suite(write_suite(tmp_path / "suite"), [toy(), other()], tmp_path / "run")
    return tmp_path / "run"


def _fits(browser: Browser) -> None:
    """Nothing wider than the window: the page does not scroll sideways, no element sticks out (a wide
    table scrolls inside its own .wide box)."""
    assert browser.evaluate(OVERFLOWING) == []
    assert browser.evaluate("document.documentElement.scrollWidth <= innerWidth")


def test_report_page_fits_a_narrow_window(browser, run_dir, tmp_path):
    page = write_html(run_dir, tmp_path / "report.html")
    for width in (1280, 700):
        browser.open(page.as_uri(), width=width)
        browser.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        _fits(browser)
        browser.screenshot(artifacts(tmp_path) / f"report-{width}.png", max_height=1600)


def test_compare_page_leads_with_a_visible_verdict(browser, gate_runs, tmp_path):
    result = compare_runs(*gate_runs)
    colours = {}
    for rules, name in (({"*": 5.0}, "failed"), ({"*": 60.0}, "passed")):
        page = write_comparison_html(result, tmp_path / f"{name}.html", rules=rules)
        browser.open(page.as_uri(), width=700)
        verdict = browser.evaluate(
            "(() => { const v = document.getElementById('gate').getBoundingClientRect();"
            " const t = document.querySelector('table').getBoundingClientRect();"
            " return [v.top, v.bottom, v.height, t.top, innerHeight]; })()"
        )
        top, bottom, height, table_top, screen = verdict
        assert height > 0 and bottom <= screen and bottom <= table_top  # on the first screen, first
        assert browser.evaluate("document.getElementById('gate').innerText").startswith(
            f"Regression gate: {name}"
        )
        colours[name] = browser.evaluate("getComputedStyle(document.getElementById('gate')).borderLeftColor")
        _fits(browser)
        browser.screenshot(artifacts(tmp_path) / f"compare-{name}.png", max_height=900)
    assert colours["failed"] != colours["passed"]  # red against green, not one style for both


def test_display_cells_left_aligned_inside_jupyterlab(browser, run_dir, tmp_path):
    display = Results.load(run_dir)._repr_html_()
    notebook = (
        f"<!doctype html><meta charset=utf-8><style>{JUPYTERLAB_CSS}</style>"
        f"<body><div class='jp-OutputArea-output jp-RenderedHTMLCommon' style='width:660px'>{display}</div>"
    )
    (tmp_path / "notebook.html").write_text(notebook, encoding="utf-8")
    browser.open((tmp_path / "notebook.html").as_uri(), width=700)
    browser.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    aligned = browser.evaluate(
        "Array.from(document.querySelectorAll('.autocheck-display td, .autocheck-display th'))"
        ".map(c => [c.classList.contains('num'), getComputedStyle(c).textAlign])"
    )
    assert aligned and all(align == ("right" if num else "left") for num, align in aligned)
    left = browser.evaluate(
        "Array.from(document.querySelectorAll('.autocheck-display table'))"
        ".map(t => t.getBoundingClientRect().left - t.parentElement.getBoundingClientRect().left)"
    )
    assert left and all(abs(x) < 1 for x in left)  # against the output's left edge, not centred
    _fits(browser)
    browser.screenshot(artifacts(tmp_path) / "display-jupyterlab.png", max_height=900)
