"""`noema lesson generate / review / savings` headless, with scripted models."""

from __future__ import annotations

import json
import shutil

from local_llm.testing import ScriptedBackend
from tests.flows.lesson.script import SAMPLE_VAULT, LessonScript
from tui.cli import build_parser
from tui.commands import lesson as command


def setup(tmp_path, monkeypatch):
    root = tmp_path / "vault"
    shutil.copytree(SAMPLE_VAULT, root)
    settings = tmp_path / "settings.toml"
    settings.write_text(
        f'[vault]\npath = "{root}"\n[data]\ndirectory = "{tmp_path / "data"}"\n'
        "[models]\nembeddings_enabled = false\n[flows.lesson]\nsection_count = 2\n"
        "max_regenerations = 0\nmax_judge_fixes = 0\n",
        encoding="utf-8",
    )
    script = LessonScript()
    script.scores = {"*": [0.9]}
    backend = ScriptedBackend(answer=script, models=("scripted",))
    return root, settings, script, backend


def test_generate_then_savings(tmp_path, monkeypatch, capsys):
    root, settings, script, backend = setup(tmp_path, monkeypatch)
    parser = build_parser()
    args = parser.parse_args(
        ["--settings", str(settings), "lesson", "generate", "Práctica de recuperación"]
    )
    assert command.run(args, backend=backend) == 0
    out = capsys.readouterr().out
    assert "09 - Lessons/" in out and ": accepted" in out
    sample = {p.name for p in (SAMPLE_VAULT / "09 - Lessons").glob("*.md")}
    written = [p for p in (root / "09 - Lessons").glob("*.md") if p.name not in sample]
    assert len(written) == 1
    args = parser.parse_args(["--settings", str(settings), "lesson", "savings", "--json"])
    assert args.func(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["total"]["lessons"] == 1 and report["lessons"][0]["status"] == "accepted"


def test_review_escalation_answered_at_the_terminal(tmp_path, monkeypatch, capsys):
    root, settings, script, backend = setup(tmp_path, monkeypatch)
    script.scores = {"*": [0.2]}
    lesson = root / "09 - Lessons" / "L.md"
    lesson.parent.mkdir(exist_ok=True)
    paragraphs = script.sections
    lesson.write_text(
        f"---\nlanguage: es\n---\n# L\n\n## A\n\n{paragraphs[0]}\n\n## B\n\n{paragraphs[1]}\n",
        encoding="utf-8",
    )
    args = build_parser().parse_args(
        ["--settings", str(settings), "lesson", "review", "09 - Lessons/L.md"]
    )
    answers = iter(["?", "x"])
    assert command.run(args, backend=backend, ask=lambda _p: next(answers)) == 0
    assert "escalated" in capsys.readouterr().out
    assert "status: rejected" in lesson.read_text(encoding="utf-8")


def escalating_review(tmp_path, monkeypatch):
    root, settings, script, backend = setup(tmp_path, monkeypatch)
    script.scores = {"*": [0.2]}
    lesson = root / "09 - Lessons" / "L.md"
    lesson.parent.mkdir(exist_ok=True)
    paragraphs = script.sections
    lesson.write_text(
        f"---\nlanguage: es\n---\n# L\n\n## A\n\n{paragraphs[0]}\n\n## B\n\n{paragraphs[1]}\n",
        encoding="utf-8",
    )
    args = ["--settings", str(settings), "lesson", "review", "09 - Lessons/L.md"]
    return lesson, backend, args


def test_edit_at_escalation_from_the_terminal(tmp_path, monkeypatch, capsys):
    """The TUI's edit at escalation, from the CLI: [e] opens $EDITOR (main offered no edit)."""
    lesson, backend, args = escalating_review(tmp_path, monkeypatch)
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nprintf '\\n\\nUn párrafo añadido por la persona.\\n' >> \"$1\"\n")
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.delenv("VISUAL", raising=False)
    answers = iter(["e", "l"])  # edit; the edited lesson escalates again: later
    parsed = build_parser().parse_args(args)
    assert command.run(parsed, backend=backend, ask=lambda _p: next(answers)) == 0
    out = capsys.readouterr().out
    assert out.count("The judges escalated") == 2 and "awaits your review" in out
    assert "Un párrafo añadido por la persona." in (backend.calls[-1].messages[-1]["content"])


def test_edit_and_reject_flags_answer_the_escalation(tmp_path, monkeypatch, capsys):
    lesson, backend, args = escalating_review(tmp_path, monkeypatch)
    edited = tmp_path / "edited.md"
    edited.write_text("## A\n\nTexto nuevo de la lección, escrito a mano.\n", encoding="utf-8")
    parsed = build_parser().parse_args([*args, "--edit", str(edited)])
    assert command.run(parsed, backend=backend) == 0
    assert "escalated again" in capsys.readouterr().out
    assert any("Texto nuevo de la lección" in str(c.messages) for c in backend.calls)
    missing = build_parser().parse_args([*args, "--edit", str(tmp_path / "nada.md")])
    try:
        command.run(missing, backend=backend)
    except command.CommandError as exc:
        assert "cannot read" in str(exc)
    else:
        raise AssertionError("a missing --edit file was accepted")
    rejected = build_parser().parse_args([*args, "--reject"])
    assert command.run(rejected, backend=backend) == 0
    assert "status: rejected" in lesson.read_text(encoding="utf-8")


def test_an_unknown_concept_is_refused_before_any_run(tmp_path, monkeypatch, capsys):
    import sqlite3
    from contextlib import closing

    _root, settings, _script, backend = setup(tmp_path, monkeypatch)
    args = build_parser().parse_args(["--settings", str(settings), "lesson", "generate", "Nope"])
    try:
        command.run(args, backend=backend)
    except command.CommandError as exc:
        assert "no concept note named 'Nope'" in str(exc)
    else:
        raise AssertionError("an unknown concept was accepted")
    with closing(sqlite3.connect(tmp_path / "data" / "noema.sqlite3")) as db:
        assert db.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
