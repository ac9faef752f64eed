"""No import cycle anywhere in bg_demo/: every import counts, those inside functions too (a lazy import hides a cycle,
it does not break it), and so do the packages an import runs first (`import bg_demo.backend.generation.types` runs
`bg_demo/backend/__init__.py` before it, unless the importer is inside that package)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "bg_demo"


def module_files(root: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its own name, for its `__init__.py`)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that `name` imports anywhere in its file (a name imported from a package is an edge to
    its submodule when it is one, else to the package)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    edges = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            edges.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: `from . import x`, `from ..pkg import y`
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                child = f"{base}.{alias.name}"
                edges.add(child if child in modules else base)
    edges = {edge for edge in edges if edge in modules}
    return {module for edge in edges for module in (edge, *_packages_run(name, edge, modules))} - {name}


def _packages_run(importer: str, imported: str, modules) -> list[str]:
    """The packages Python initialises before `imported`, but for those the importer is in (already running)."""
    parts = imported.split(".")
    enclosing = [".".join(parts[:i]) for i in range(1, len(parts))]
    return [package for package in enclosing if package in modules and not (importer + ".").startswith(package + ".")]


def graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    modules = module_files(root)
    return {name: imported(name, path, modules) for name, path in modules.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """For each knot of modules that import one another (a strongly connected component, Tarjan's), a shortest cycle
    through each of its modules (a path back to its start), each cycle once."""
    found: list[list[str]] = []
    for component in _components(edges):
        for start in sorted(component):
            cycle = _shortest_cycle(start, component, edges)
            if not any(set(cycle) == set(seen) and len(cycle) == len(seen) for seen in found):
                found.append(cycle)
    return found


def _components(edges: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while node not in component:
                component.add(stack.pop())
            if len(component) > 1:
                components.append(component)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return components


def _shortest_cycle(start: str, component: set[str], edges: dict[str, set[str]]) -> list[str]:
    """A shortest path from `start` back to itself inside its component (breadth first)."""
    came_from: dict[str, str | None] = {start: None}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(edges[node] & component):
                if target == start:
                    path = [node]
                    while came_from[path[-1]] is not None:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if target not in came_from:
                    came_from[target] = node
                    following.append(target)
        frontier = following
    raise AssertionError(f"{start} is in a component but on no cycle")


def _package(root: Path, files: dict[str, str]) -> Path:
    """A package `pkg` under `root` with these files (path inside it -> source)."""
    for name, source in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    return root / "pkg"


def test_the_graph_sees_every_kind_of_import(tmp_path):
    edges = graph(_package(tmp_path, {
        "__init__.py": "",
        "a.py": "def f():\n    from pkg import b\n",
        "b.py": "from .sub import c\n",
        "sub/__init__.py": "from pkg.sub.c import value\n",
        "sub/c.py": "import pkg.a\nvalue = 1\n",
    }))
    assert edges == {"pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.sub", "pkg.sub.c"}, "pkg.sub": {"pkg.sub.c"},
                     "pkg.sub.c": {"pkg.a"}}
    assert cycles(edges) == [["pkg.a", "pkg.b", "pkg.sub.c", "pkg.a"], ["pkg.sub", "pkg.sub.c", "pkg.a", "pkg.b", "pkg.sub"]]


def test_a_package_that_imports_a_module_which_imports_inside_the_package_is_a_cycle(tmp_path):
    edges = graph(_package(tmp_path, {
        "__init__.py": "from pkg import placement\n",
        "placement.py": "",
        "dispatch.py": "def f():\n    from pkg.backend.types import T\n",
        "backend/__init__.py": "from pkg.dispatch import f\n",
        "backend/types.py": "from pkg.backend import helpers\n",
        "backend/helpers.py": "",
    }))
    assert edges["pkg"] == {"pkg.placement"} and edges["pkg.placement"] == set()  # a child's parent runs first: no edge
    assert edges["pkg.backend.types"] == {"pkg.backend.helpers"}  # inside its own package
    assert cycles(edges) == [["pkg.backend", "pkg.dispatch", "pkg.backend"]]


def test_no_import_cycle_in_bg_demo():
    found = cycles(graph())
    assert not found, "import cycles in bg_demo/:\n" + "\n".join(" -> ".join(cycle) for cycle in found)
