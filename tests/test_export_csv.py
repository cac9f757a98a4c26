"""CSV export escapes cells that a spreadsheet would run as formulas, and reading the export back gives the
texts exactly as they were."""

from __future__ import annotations

import csv

from autocheck.export import export_suite, load_export
from autocheck.records import TestCase
from autocheck.store import JsonlWriter

TEXTS = [
    '=HYPERLINK("http://x","click")',
    "@SUM(A1:A9)",
    "+1 great",
    "-2 awful",
    "\tcmd",
    "\rcmd",
    "'=already quoted",
    "''+twice",
    "'tis a fine film",
    "a plain sentence = fine",
]


def test_csv_cells_are_escaped_against_formulas_and_read_back_unchanged(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    with JsonlWriter(suite / "cases.jsonl") as writer:
        for i, text in enumerate(TEXTS):
            writer.write(TestCase(f"s{i}", "LC1", "seed", text, "positive", "MFT", "positive").to_json())
    (suite / "manifest.json").write_text("{}")
    export_suite(suite, tmp_path / "out", format="csv", split=(1, 0, 0))

    with open(tmp_path / "out" / "train.csv", encoding="utf-8", newline="") as f:
        cells = [row["text"] for row in csv.DictReader(f)]
    assert len(cells) == len(TEXTS)
    for cell in cells:  # what a spreadsheet sees: no cell starts a formula
        assert cell[0] not in "=+-@\t\r", repr(cell)
    assert '\'=HYPERLINK("http://x","click")' in cells and "'tis a fine film" in cells
    assert "a plain sentence = fine" in cells

    _, splits = load_export(tmp_path / "out")
    assert sorted(row["text"] for row in splits["train"]) == sorted(TEXTS)
    assert {row["label"] for row in splits["train"]} == {1}
