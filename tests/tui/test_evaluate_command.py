"""`noema evaluate` and `noema criteria` (headless), with a scripted model."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import frontmatter
import pytest

from core.evaluation import BUILTIN_DIR
from local_llm.testing import ScriptedBackend
from tests.flows.rubric.notes import NOTE_PATH, NOTE_TEXT, REVISED_BODY, evaluation
from tui.commands import CommandError
from tui.commands import evaluate as command


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--settings")
    command.register(parser.add_subparsers())
    return parser.parse_args(list(argv))


@pytest.fixture
def vault(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    (root / NOTE_PATH).write_text(NOTE_TEXT, encoding="utf-8")
    settings = tmp_path / "settings.toml"
    settings.write_text(
        f'[vault]\npath = "{root}"\n\n[data]\ndirectory = "{tmp_path / "data"}"\n', encoding="utf-8"
    )
    return root, settings


def answers(*values: str):
    queue = list(values)
    return lambda prompt: queue.pop(0)


def test_criteria_validate_all_and_a_broken_file(tmp_path: Path, capsys) -> None:
    args = parse("criteria", "validate")
    shipped = len(list(BUILTIN_DIR.glob("*.json")))
    assert shipped >= 8 and args.func(args) == 0
    assert f"{shipped} criteria file(s) valid" in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"id": "bad", "name": "B", "version": "1", "criteria": []}))
    args = parse("criteria", "validate", str(bad))
    assert args.func(args) == 1
    assert f"{bad}: criteria: List should have at least 1 item" in capsys.readouterr().out
    with pytest.raises(CommandError):
        args = parse("criteria", "validate", str(tmp_path / "missing.json"))
        args.func(args)


def test_evaluate_approve_flag(vault, capsys) -> None:
    root, settings = vault
    args = parse("--settings", str(settings), "evaluate", NOTE_PATH, "--approve")
    assert command.run(args, backend=ScriptedBackend([evaluation(0.9)])) == 0
    out = capsys.readouterr().out
    assert out.startswith("PASSED  overall 0.90") and "marked approved" in out
    assert frontmatter.loads((root / NOTE_PATH).read_text())["review_status"] == "approved"


def test_evaluate_interactive_revise_accept_approve(vault, capsys) -> None:
    root, settings = vault
    backend = ScriptedBackend(
        [evaluation(0.4), {"body": REVISED_BODY, "summary": "example"}, evaluation(0.9)]
    )
    args = parse("--settings", str(settings), "evaluate", str(root / NOTE_PATH))
    code = command.run(args, backend=backend, ask=answers("x", "r", "add an example", "y", "a"))
    assert code == 0
    out = capsys.readouterr().out
    assert "+For example, a maple leaf." in out and "round 2 of 5" in out
    post = frontmatter.loads((root / NOTE_PATH).read_text())
    assert post["review_status"] == "approved" and "maple" in post.content


def test_evaluate_later_leaves_the_run_waiting(vault, capsys) -> None:
    _, settings = vault
    args = parse("--settings", str(settings), "evaluate", NOTE_PATH, "--no-input")
    assert command.run(args, backend=ScriptedBackend([evaluation(0.6)])) == 0
    assert "awaits your review" in capsys.readouterr().out


def test_evaluate_failure_and_outside_note(vault, tmp_path: Path) -> None:
    _, settings = vault
    args = parse("--settings", str(settings), "evaluate", "notes/Missing.md", "--approve")
    with pytest.raises(CommandError, match="no note notes/Missing.md in the vault"):
        command.run(args, backend=ScriptedBackend([]))
    outside = tmp_path / "elsewhere.md"
    outside.write_text("x")
    args = parse("--settings", str(settings), "evaluate", str(outside))
    with pytest.raises(CommandError, match="not inside the vault"):
        command.run(args, backend=ScriptedBackend([]))


def test_a_typo_is_refused_before_any_run_exists(vault, tmp_path: Path) -> None:
    """Issue 12: `noema evaluate nope.md` left a failed run behind."""
    _, settings = vault
    args = parse("--settings", str(settings), "evaluate", "notes/Photosinthesis.md")
    with pytest.raises(CommandError, match="did you mean notes/Photosynthesis.md"):
        command.run(args, backend=ScriptedBackend([]))
    args = parse("--settings", str(settings), "evaluate", NOTE_PATH, "--criteria", "reserch")
    with pytest.raises(CommandError, match="no criteria 'reserch'; available: .*research"):
        command.run(args, backend=ScriptedBackend([]))
    store = tmp_path / "data" / "noema.sqlite3"
    if store.exists():
        import sqlite3
        from contextlib import closing

        with closing(sqlite3.connect(store)) as db:
            assert db.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
