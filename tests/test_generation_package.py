"""The generation package's shape: `types` and `static` are leaves, and the engines import `types` (the batched
engine its `static` batch too), never each other."""

import ast
from pathlib import Path

import bg_demo.backend.generation as generation

PACKAGE = Path(generation.__file__).parent


def _imports(module: str) -> set[str]:
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {name for name in found if name.startswith("bg_demo.backend.generation")}


def _names(module: str, names) -> set[str]:
    return {f"bg_demo.backend.generation.{module}"} | {f"bg_demo.backend.generation.{module}.{name}" for name in names}


def test_types_is_a_leaf_and_the_engines_import_only_it():
    from bg_demo.backend.generation import static

    assert _imports("types") == set() and _imports("static") == set()
    assert _imports("beam") <= _names("types", dir(generation.types))
    assert _imports("engine") <= _names("types", dir(generation.types)) | _names("static", dir(static))
