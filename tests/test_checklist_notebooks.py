"""experiments/checklist_notebooks.py: the import rewriting and the cell-by-cell report, on a tiny notebook
written here (not CheckList's)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "experiments"))

from checklist_notebooks import rewrite, run_notebook, table  # noqa: E402


def test_rewrite_changes_only_imports_the_editor_s_model_and_magics():
    cell = (
        "%load_ext autoreload\n"
        "import checklist\n"
        "import checklist.editor\n"
        "from checklist.perturb import Perturb\n"
        "from checklist import expect\n"
        "editor = checklist.editor.Editor()\n"
        "other = Editor(model_name='roberta-base')\n"
        "nlp = spacy.load('en_core_web_sm')\n"
        "x = 'import checklist'\n"
        "cat /tmp/raw.txt | head -n 5\n"
        "head = cat(x)\n"
    )
    assert rewrite(cell, mlm="/m", spacy="sm2").splitlines() == [
        "# %load_ext autoreload",
        "from autocheck import checklist",
        "from autocheck import checklist; import autocheck.checklist.editor",
        "from autocheck.checklist.perturb import Perturb",
        "from autocheck.checklist import expect",
        "editor = checklist.editor.Editor(model_name='/m', )",
        "other = Editor(model_name='roberta-base')",
        "nlp = spacy.load('sm2')",
        "x = 'import checklist'",
        "# cat /tmp/raw.txt | head -n 5",
        "head = cat(x)",
    ]


def code(source, *outputs):
    return {"cell_type": "code", "source": source, "outputs": list(outputs), "metadata": {}}


def test_each_cell_is_run_in_one_namespace_and_reported_by_kind(tmp_path):
    value = {"output_type": "execute_result", "data": {"text/plain": "['a']"}}
    text = {"output_type": "stream", "name": "stdout", "text": ["3\n"]}
    notebook = {
        "cells": [
            code(
                "from checklist.perturb import Perturb\nfrom checklist.test_suite import TestSuite\n"
                "x = Perturb.strip_punctuation('Hi there.')"
            ),
            {"cell_type": "markdown", "source": "prose"},
            code("x", value),  # the last expression is the cell's result
            code("print(len(x))", text),
            code("display(x)", {"output_type": "display_data", "data": {"text/html": "<p>"}}),
            code("x", text),  # a value where the notebook printed: ran, another kind of result
            code("import mltests\nwrapper = mltests.Wrapper()"),  # the author's module
            code("wrapper.predict(x)"),  # needs what the cell before it needed
            code("def read():\n    return mltests.load()"),  # runs: the name is looked up when called
            code("read()"),  # and then needs it
            code("n = int('x')\nwrapper.predict(n)"),  # an error before it touches the missing: an error
            code(
                "class T:\n    def run(self, f):\n        self.done = f(1)\n"
                "    def summary(self):\n        self.done\nt = T()"
            ),
            code("t.run(wrapper)"),  # needs what wrapper needs, and leaves t unrun
            code("t.summary()"),  # so an error of t is put down to that resource
            code("m = int('y')\nt.summary()"),  # but not an error before t is used
            code("t = T()"),  # made anew, t lacks nothing
            code("t.summary()"),  # so its error is an error
            code("open('/home/someone/data.csv')"),
            code("x = TestSuite.from_file('/home/someone/suite.pkl')"),  # autocheck's error names the file
            code("x.tests"),  # x, as the cell before left it: needs that file, whatever x was before
            code("1 / 0"),
            code("# only a comment"),
        ]
    }
    path = tmp_path / "tiny.ipynb"
    path.write_text(json.dumps(notebook))
    report = run_notebook(path, mlm=None, spacy=None, timeout=30)
    assert (report.cells, report.ran, report.same) == (20, 8, 7)
    assert report.resources == ["module mltests"] * 5 + [
        "file /home/someone/data.csv",
        "file /home/someone/suite.pkl",
        "file /home/someone/suite.pkl",
    ]
    assert report.errors == [
        "cell 10: ValueError: invalid literal for int() with base 10: 'x'",
        "cell 14: ValueError: invalid literal for int() with base 10: 'y'",
        "cell 16: AttributeError: 'T' object has no attribute 'done'",
        "cell 20: ZeroDivisionError: division by zero",
    ]
    assert report.lines[1] == "  cell 2: ran (value; notebook: value)"
    assert report.lines[3] == "  cell 4: ran (display; notebook: display)"
    assert report.lines[4] == "  cell 5: ran (value; notebook: text)"
    row = table([report]).splitlines()[-1]
    assert row == (
        "| tiny | 20 | 8 | 7 | 8 (file /home/someone/data.csv; file /home/someone/suite.pkl; module mltests) "
        f"| 4 (cell 10: ValueError: invalid literal for int() with base 10: 'x') | {report.cpu_s:.1f} |"
    )
    assert 0 < report.cpu_s < 60
