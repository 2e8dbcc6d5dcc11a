"""`noema lesson generate / review / savings` headless, with scripted models."""

from __future__ import annotations

import json
import shutil

from local_llm.testing import ScriptedBackend
from tests.flows.lesson.conftest import SAMPLE_VAULT, LessonScript
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
    backend = ScriptedBackend(script, models=("scripted",))
    script.backend = backend
    return root, settings, script, backend


def test_generate_then_savings(tmp_path, monkeypatch, capsys):
    root, settings, script, backend = setup(tmp_path, monkeypatch)
    parser = build_parser()
    args = parser.parse_args(["--settings", str(settings), "lesson", "generate",
                              "Práctica de recuperación"])  # fmt: skip
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
    lesson.write_text(f"---\nlanguage: es\n---\n# L\n\n## A\n\n{paragraphs[0]}\n\n## B\n\n"
                      f"{paragraphs[1]}\n", encoding="utf-8")  # fmt: skip
    args = build_parser().parse_args(["--settings", str(settings), "lesson", "review",
                                      "09 - Lessons/L.md"])  # fmt: skip
    answers = iter(["?", "x"])
    assert command.run(args, backend=backend, ask=lambda _p: next(answers)) == 0
    assert "escalated" in capsys.readouterr().out
    assert "status: rejected" in lesson.read_text(encoding="utf-8")
