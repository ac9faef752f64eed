"""Which tests the GPU check runs (a pytest plugin: `python -m pytest -p bench.device_tests tests`, as
bench/device_check.py runs it): the tests marked `parity`, plus CHOSEN_MODULES (BG_DEMO_CHECK_TESTS=all: every test),
less what cannot run on the GPU machine, which has no gradio, gradio_client, playwright, ray or ruff: a module that
imports a missing module at its top is not collected (so none fails to collect), and a test whose body or fixtures
import one, or that KNOWN_OUT names, is deselected. With BG_DEMO_CHECK_REPORT=PATH it writes there the counts, the
failures, and what was left out and why.
"""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

CHOSEN_MODULES = ("test_engine.py", "test_long_attention.py", "test_explain.py",  # batching, 512/1,024 tokens, captum
                  "test_finetune.py")  # training in the GPU's dtypes: PEFT, float32 layers over float16 ones
KNOWN_OUT = {  # node id prefix: why it cannot run in the device check, where its imports do not show it
    "tests/test_attention.py::test_real_bert_heads_lean_on_cls_and_sep": "needs MiniLM's trained weights (80 MiB, "
    "over the size limit): the check's stand-in package has its config and vocabulary and random weights",
    "tests/test_config_models.py::test_importing_the_app_loads_no_model": "imports the app (gradio) in a subprocess",
    "tests/test_cluster.py::test_an_unreachable_tier_names_its_address": "runs the app (gradio) in a subprocess",
    "tests/test_lint.py::": "runs ruff, a dev tool the image lacks (linting needs no GPU)",
}


_importable: dict[str, str | None] = {}
_left_out: dict[str, str] = {}


def _missing_module(name: str) -> str | None:
    """None when `name` imports here, else the module that is missing (or the error)."""
    if name not in _importable:
        import importlib

        try:
            importlib.import_module(name)
            _importable[name] = None
        except ImportError as exc:
            _importable[name] = getattr(exc, "name", None) or str(exc)
        except Exception as exc:  # noqa: BLE001 - a module that fails to import cannot be collected either
            _importable[name] = f"{type(exc).__name__}: {exc}"
    return _importable[name]


def _needs(nodes) -> str | None:
    """The first missing module among the absolute imports in `nodes`, as 'gradio (via bg_demo.ui)'. For
    `from a import b`, a and a.b when b is a module."""
    for node in nodes:
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        else:
            continue
        for name in names:
            missing = _missing_module(name)
            if missing == name and name != names[0] and isinstance(node, ast.ImportFrom):
                continue  # `from a import b`: b is a name in a, not a module
            if missing:
                return missing if name == missing or name.startswith(missing + ".") else f"{missing} (via {name})"
    return None


def pytest_ignore_collect(collection_path, config):
    if collection_path.suffix == ".py" and collection_path.name.startswith("test_"):
        source = collection_path.read_text(encoding="utf-8")
        needs = _needs(ast.parse(source).body)  # its top-level imports
        if needs:
            marked = source.count("@pytest.mark.parity")
            _left_out[collection_path.name] = f"imports {needs} at module level" + \
                (f" ({marked} tests marked parity lost with it)" if marked else "")
            return True
    return None


_function_cache: dict = {}


def _function_needs(function) -> str | None:
    """The missing module a test or fixture function imports in its body, if any."""
    import inspect
    import textwrap

    if function not in _function_cache:
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
            _function_cache[function] = _needs(n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)))
        except (OSError, TypeError, SyntaxError):
            _function_cache[function] = None
    return _function_cache[function]


def _why_not(item) -> str | None:
    for prefix, why in KNOWN_OUT.items():
        if item.nodeid.startswith(prefix):
            return why
    needs = _function_needs(getattr(item, "function", None))
    if needs:
        return f"imports {needs}"
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    for name in getattr(item, "fixturenames", ()):
        for definition in definitions.get(name, ()):
            needs = _function_needs(getattr(definition, "func", None))
            if needs:
                return f"its fixture {name} imports {needs}"
    return None


_deselected: dict[str, str] = {}  # test (parameters aside): why it cannot run here
_unchosen = [0]  # tests outside the choice (BG_DEMO_CHECK_TESTS=parity)


def pytest_collection_modifyitems(session, config, items):
    every = os.environ.get("BG_DEMO_CHECK_TESTS") == "all"
    keep, dropped, unchosen = [], [], 0
    for item in items:
        chosen = every or item.get_closest_marker("parity") is not None or item.path.name in CHOSEN_MODULES
        why = _why_not(item) if chosen else None
        if chosen and not why:
            keep.append(item)
            continue
        dropped.append(item)
        if why:
            _deselected[item.nodeid.split("[")[0]] = why
        else:
            unchosen += 1
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep
    _unchosen[0] = unchosen


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("BG_DEMO_CHECK_REPORT")
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if not path or reporter is None:
        return
    stats = reporter.stats
    counts = {key: len(stats.get(key, [])) for key in ("passed", "failed", "error", "skipped", "xfailed", "xpassed",
                                                      "deselected")}
    report = dict(exit_status=int(exitstatus), counts=counts, modules_left_out=dict(sorted(_left_out.items())),
                  tests_left_out=dict(sorted(_deselected.items())),
                  not_chosen=_unchosen[0],
                  failed=[r.nodeid for r in stats.get("failed", []) + stats.get("error", [])],
                  skipped={r.nodeid: str(r.longrepr[-1]) if isinstance(r.longrepr, tuple) else str(r.longrepr)
                           for r in stats.get("skipped", [])})
    Path(path).write_text(json.dumps(report, indent=2) + "\n")
