"""The layers stay clean: import-linter contracts, and no headless module pulls in textual."""

from __future__ import annotations

import json
import pkgutil
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
