"""The layers stay clean: import-linter contracts, and no headless module pulls in textual."""

from __future__ import annotations

import ast
import json
import pkgutil
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HEADLESS_PACKAGES = ("local_llm", "vault", "core")


def headless_modules() -> list[str]:
    names = []
    for package in HEADLESS_PACKAGES:
        names.append(package)
        for info in pkgutil.walk_packages(
            [str(REPO / package.replace(".", "/"))], prefix=f"{package}."
        ):
            names.append(info.name)
    return sorted(names)


def test_import_linter_contracts_hold() -> None:
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint, "import-linter is not installed (dev extra)"
    done = subprocess.run([lint], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_headless_modules_never_import_textual() -> None:
    modules = headless_modules()
    assert len(modules) > 10, modules
    code = (
        "import importlib, json, sys\n"
        f"mods = {modules!r}\n"
        "for m in mods: importlib.import_module(m)\n"
        "print(json.dumps(sorted(k for k in sys.modules if k == 'textual' or k.startswith('textual.')"
        " or k == 'tui' or k.startswith('tui.'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


@pytest.mark.parametrize("package", ["local_llm"])
def test_local_llm_imports_nothing_of_ours(package: str) -> None:
    code = (
        "import importlib, json, pkgutil, sys\n"
        f"import {package}\n"
        f"for info in pkgutil.walk_packages({package}.__path__, prefix='{package}.'):\n"
        "    importlib.import_module(info.name)\n"
        "ours = [k for k in sys.modules if k.split('.')[0] in ('core', 'vault', 'tui')]\n"
        "print(json.dumps(sorted(ours)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_core_below_flows_never_imports_flows() -> None:
    """core.flows sits above the rest of core (import-linter cannot express a nested layer)."""
    import grimp

    graph = grimp.build_graph("core")
    offenders = sorted(
        (importer, imported)
        for importer in graph.modules
        if not importer.startswith("core.flows")
        for imported in graph.find_modules_directly_imported_by(importer)
        if imported == "core.flows" or imported.startswith("core.flows.")
    )
    assert offenders == []


def tui_sources() -> list[Path]:
    return sorted((REPO / "tui").rglob("*.py"))


def test_only_the_entry_points_import_the_app() -> None:
    """Screens, widgets, the palette and the registry reach the app through the app they run
    in (`self.app`, typed as `NoemaApp` for the type checker only): importing `tui.app` from
    them at run time would make a cycle (the app opens the screens), as home's did."""
    import grimp

    graph = grimp.build_graph("tui", exclude_type_checking_imports=True)
    importers = graph.find_modules_that_directly_import("tui.app")
    assert importers == {"tui.cli", "tui.commands.demo"}
    assert graph.find_shortest_chain(importer="tui.screens.home", imported="tui.app") is None


def app_getattr_calls(source: str) -> list[int]:
    """Lines of `getattr(<...>.app, ...)` / `getattr(app, ...)`: the app read untyped."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr":
            target = node.args[0] if node.args else None
            if (isinstance(target, ast.Attribute) and target.attr == "app") or (
                isinstance(target, ast.Name) and target.id == "app"
            ):
                lines.append(node.lineno)
    return lines


def test_the_app_is_never_read_through_getattr() -> None:
    """Screens, widgets and modals use the typed `self.app` (tui.screens.base), never
    `getattr(self.app, "services", None)`: the type checker sees every attribute they use."""
    assert app_getattr_calls('x = getattr(self.app, "services", None)') == [1]  # it can fail
    assert app_getattr_calls("y = getattr(app, '_keymap', {})\nz = getattr(s, 'a')") == [1]
    offenders = {
        str(path.relative_to(REPO)): lines
        for path in tui_sources()
        if (lines := app_getattr_calls(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}


SQL = re.compile(
    r"\b(SELECT\s.+\sFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX)"
    r"|ALTER\s+TABLE|PRAGMA\s)",
    re.IGNORECASE | re.DOTALL,
)
EXECUTE = {"execute", "executemany", "executescript"}


def sql_in(source: str) -> list[int]:
    """Lines of SQL text (string literals, f-string parts) and execute calls in a module;
    docstrings, which may name a query, are not code."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        is_sql = isinstance(node, ast.Constant) and isinstance(node.value, str)
        is_call = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        if (is_sql and SQL.search(node.value)) or (is_call and node.func.attr in EXECUTE):
            lines.append(node.lineno)
    return sorted(set(lines) - docstring_lines(source))


def docstring_lines(source: str) -> set[int]:
    """Lines where a docstring starts (module, class, function)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(body[0].lineno)
    return found


def test_the_tui_executes_no_sql() -> None:
    """Queries live in core (core.overview, the runs repository...): a screen, widget or
    command asks core, and a schema change never has to hunt through the front end."""
    assert sql_in('rows = store.query("SELECT kind, COUNT(*) FROM notes GROUP BY kind")') == [1]
    assert sql_in('store.query_one(f"select count(*) from {table} where x")') == [1]
    assert sql_in("db.execute(statement)\nscreen.query_one('#runs')") == [1]
    assert sql_in('def f():\n    """Reads SELECT path FROM sources."""\n') == []
    offenders = {
        str(path.relative_to(REPO)): lines
        for path in tui_sources()
        if (lines := sql_in(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}
