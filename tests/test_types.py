"""The type checker runs with the test command: mypy with the pydantic plugin, strict for
local_llm, vault and core (core.flows included), its default for tui (pyproject.toml
[tool.mypy]). A type error anywhere fails the suite, as a broken layer does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_mypy(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    command = [sys.executable, "-m", "mypy", "--no-error-summary", "--no-color-output"]
    return subprocess.run(
        [*command, "--config-file", str(REPO / "pyproject.toml"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_mypy_finds_no_error() -> None:
    done = run_mypy()  # the files and levels of pyproject.toml
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert done.returncode == 0 and not errors, "\n".join(errors[:40]) or done.stderr


def test_the_levels_reach_every_layer(tmp_path: Path) -> None:
    """Strict for core.flows (an untyped function is an error), mypy's default for tui."""
    for package in ("core/flows", "tui/screens"):
        (tmp_path / package).mkdir(parents=True)
        (tmp_path / package.split("/")[0] / "__init__.py").write_text("")
        (tmp_path / package / "__init__.py").write_text("")
        (tmp_path / package / "probe.py").write_text("def untyped(x):\n    return x\n")
    done = run_mypy("core/flows/probe.py", "tui/screens/probe.py", cwd=tmp_path)
    assert "core/flows/probe.py:1: error: Function is missing a type annotation" in done.stdout
    assert "tui/screens/probe.py" not in done.stdout, done.stdout
