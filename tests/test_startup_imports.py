"""What `noema --help` and `noema doctor` import before they answer (issue 17: start-up).

Each runs in a fresh interpreter, as the console script would, and reports which heavy
packages ended up in `sys.modules`. Timings live in bench/startup.py; these counts are what
a regression would change first: one top-level import of the store or the tutor's state for a
tuple of names brought pydantic and asyncio into `--help`, one import of the evaluation
package brought LangGraph (over 1 s under load) into `doctor` for a line about the judges.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.servers.handle import FakeServer
from tui.demo import sample_vault

REPO = Path(__file__).resolve().parents[1]

HEAVY = ("pydantic", "langgraph", "langchain_core", "numpy", "litellm", "textual", "watchdog")

SCRIPT = r"""
import contextlib, io, json, sys
from tui.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    try:
        code = main(sys.argv[2:])
    except SystemExit as exc:  # argparse's --help exits
        code = exc.code
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(json.loads(sys.argv[1])))
print(json.dumps({"code": code, "heavy": heavy, "out": out.getvalue()}))
"""


def imported_by(*argv: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(HEAVY), *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_help_imports_none_of_the_heavy_packages():
    report = imported_by("--help")
    assert report["code"] == 0
    assert "tutor" in report["out"] and "runs" in report["out"]
    assert report["heavy"] == []


def test_subcommand_help_lists_its_choices_without_the_heavy_packages():
    runs = imported_by("runs", "--help")
    assert "awaiting_review" in runs["out"]
    logs = imported_by("tutor", "logs", "--help")
    assert "evaluator" in logs["out"]
    assert runs["heavy"] == [] and logs["heavy"] == []


def test_doctor_against_ollama_skips_langgraph_numpy_and_litellm(tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(sample_vault(), vault)
    with FakeServer.start("ollama") as ollama:
        settings = tmp_path / "settings.toml"
        settings.write_text(
            f'[vault]\npath = "{vault}"\n[data]\ndirectory = "{tmp_path / "data"}"\n'
            f'[models]\nprovider = "ollama"\nmodel = "llama3.2"\nbase_url = "{ollama.url}"\n',
            encoding="utf-8",
        )
        report = imported_by("--settings", str(settings), "doctor")
    assert report["code"] == 0, report["out"]
    assert "judges" in report["out"] and "structured output" in report["out"]
    # pydantic reads the settings; the ollama client needs it too
    assert report["heavy"] == ["pydantic"]
