"""The package's shape: no import circle between its modules, and no private name imported across them.

Every import counts, those inside functions too: a deferred import still ties two modules together. Only a
package's metadata (``from autocheck import __version__``) is not a tie."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "autocheck"


def _module_name(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(package: Path) -> tuple[dict[str, set[str]], list[str]]:
    """Module -> the package's modules it imports; and ``module: from X import _name`` lines."""
    paths = {_module_name(path, package): path for path in package.rglob("*.py")}
    edges: dict[str, set[str]] = {name: set() for name in paths}
    private = []
    for name, path in paths.items():
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges[name].update(a.name for a in node.names if a.name in paths and a.name != name)
            elif isinstance(node, ast.ImportFrom):
                base = here[: len(here) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                for alias in node.names:
                    module = f"{target}.{alias.name}" if f"{target}.{alias.name}" in paths else target
                    if module not in paths or module == name:
                        continue
                    if alias.name.startswith("__") and alias.name.endswith("__"):
                        continue  # a package's metadata (``__version__``) ties no code together
                    edges[name].add(module)
                    if module == target and alias.name.startswith("_"):
                        private.append(f"{name}: from {target} import {alias.name}")
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
