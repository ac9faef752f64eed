"""The generation package's shape: `types` is a leaf, and its engines import it, never each other."""

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


def test_types_is_a_leaf_and_the_engines_import_only_it():
    assert _imports("types") == set()
    for module in ("engine", "beam"):
        assert _imports(module) <= {"bg_demo.backend.generation.types"} | {
            f"bg_demo.backend.generation.types.{name}" for name in dir(generation.types)}, module
