"""`noema extract`, `noema review` and `noema repair` with a scripted model."""

from __future__ import annotations

import argparse
import re
import sqlite3
from contextlib import closing
from pathlib import Path

import frontmatter
import pytest

from tests.flows.extraction.notes import SOURCE
from tests.flows.extraction.script import ConcurrencyBackend, FlowScript, candidates, relations
from tests.flows.extraction.test_runtime import make_vault
from tui.commands import CommandError, extraction


def settings_file(tmp_path: Path, root: Path, data: Path) -> str:
    path = tmp_path / "settings.toml"
    path.write_text(f'[vault]\npath = "{root}"\n[data]\ndirectory = "{data}"\n', encoding="utf-8")
    return str(path)


def run_count(data: Path) -> int:
    with closing(sqlite3.connect(data / "noema.sqlite3")) as db:
        return db.execute("SELECT count(*) FROM runs").fetchone()[0]


def backend() -> ConcurrencyBackend:
    return ConcurrencyBackend(FlowScript(candidates=candidates, relations=relations))


def test_extract_review_approve_from_the_terminal(tmp_path: Path, capsys) -> None:
    root, data = make_vault(tmp_path)
    settings = settings_file(tmp_path, root, data)
    args = argparse.Namespace(settings=settings, note="Make It Stick")
    assert extraction.run_extract(args, backend()) == 0
    out, err = capsys.readouterr()
    assert "New concepts (2):" in out and "Efecto del espaciado" in out
    # every progress line names its step; the critique's rubric lines have none ("[] asking")
    assert "evaluating against" in err and not re.search(r"^\[\]", err, re.M), err
    run_id = out.rsplit("noema review ", 1)[1].split()[0]

    # without an action the report is printed again; an unknown drop is refused
    show = argparse.Namespace(
        settings=settings, run=run_id, approve=False, feedback=None, abort=False, drop=[]
    )
    assert extraction.run_review(show, backend()) == 0
    assert "New concepts (2):" in capsys.readouterr().out
    bad = argparse.Namespace(**{**vars(show), "drop": ["concept:zzzz"]})
    with pytest.raises(CommandError):
        extraction.run_review(bad, backend())

    approve = argparse.Namespace(**{**vars(show), "approve": True})
    assert extraction.run_review(approve, backend()) == 0
    assert "Files written" in capsys.readouterr().out
    assert frontmatter.loads((root / SOURCE).read_text(encoding="utf-8"))["processed_date"]
    assert (root / "08 - Ideas/Efecto del espaciado.md").exists()

    # extracting again: the source is processed, nothing runs and no run is recorded
    runs = run_count(data)
    assert extraction.run_extract(args, backend()) == 0
    assert "already processed" in capsys.readouterr().out
    assert run_count(data) == runs
    repair = argparse.Namespace(settings=settings)
    assert extraction.run_repair(repair) == 0
    assert "nothing to repair" in capsys.readouterr().out


def test_unknown_note_is_a_clear_error(tmp_path: Path) -> None:
    root, data = make_vault(tmp_path)
    args = argparse.Namespace(settings=settings_file(tmp_path, root, data), note="Nope")
    with pytest.raises(CommandError, match="no source note"):
        extraction.run_extract(args, backend())


def test_review_feedback_then_abort_from_the_terminal(tmp_path: Path, capsys) -> None:
    root, data = make_vault(tmp_path)
    settings = settings_file(tmp_path, root, data)
    before = {p: p.read_bytes() for p in root.rglob("*.md")}
    assert (
        extraction.run_extract(argparse.Namespace(settings=settings, note=SOURCE), backend()) == 0
    )
    run_id = capsys.readouterr().out.rsplit("noema review ", 1)[1].split()[0]
    base = dict(settings=settings, run=run_id, approve=False, feedback=None, abort=False, drop=[])
    feedback = argparse.Namespace(**{**base, "feedback": "Une los dos conceptos."})
    script = FlowScript(candidates=candidates, relations=relations)
    assert extraction.run_review(feedback, ConcurrencyBackend(script)) == 0
    assert script.count("feedback") == 1
    assert "Une los dos conceptos." in script.prompts["feedback"][0]
    out = capsys.readouterr().out
    assert "New concepts (2):" in out and f"noema review {run_id[:8]}" in out  # back to review
    assert extraction.run_review(argparse.Namespace(**{**base, "abort": True}), backend()) == 0
    capsys.readouterr()
    assert {p: p.read_bytes() for p in root.rglob("*.md")} == before
    with pytest.raises(CommandError, match="not awaiting review"):
        extraction.run_review(argparse.Namespace(**base), backend())


def test_a_processed_source_is_extracted_again_on_request(tmp_path: Path, capsys) -> None:
    """Issue 12: nothing could extract a processed source again."""
    root, data = make_vault(tmp_path)
    settings = settings_file(tmp_path, root, data)
    note = root / SOURCE
    note.write_text(
        note.read_text(encoding="utf-8").replace(
            "category: book\n", "category: book\nprocessed_date: 2024-05-01T10:00:00\n"
        ),
        encoding="utf-8",
    )
    plain = argparse.Namespace(settings=settings, note="Make It Stick", again=False)
    assert extraction.run_extract(plain, backend()) == 0
    assert "--again" in capsys.readouterr().out
    again = argparse.Namespace(settings=settings, note="Make It Stick", again=True)
    assert extraction.run_extract(again, backend()) == 0
    out = capsys.readouterr().out
    assert "New concepts (2):" in out
    run_id = out.rsplit("noema review ", 1)[1].split()[0]
    approve = argparse.Namespace(
        settings=settings, run=run_id, approve=True, feedback=None, abort=False, drop=[]
    )
    assert extraction.run_review(approve, backend()) == 0
    assert (root / "08 - Ideas/Efecto del espaciado.md").exists()


def test_review_refuses_what_the_review_does_not_offer(tmp_path: Path, capsys) -> None:
    """An empty review cannot be approved (it would mark the source processed with nothing
    written), and no feedback is taken once the rounds are used."""
    root, data = make_vault(tmp_path)
    settings = settings_file(tmp_path, root, data)
    args = argparse.Namespace(settings=settings, note=SOURCE)
    assert extraction.run_extract(args, ConcurrencyBackend(FlowScript())) == 0  # no concepts
    out = capsys.readouterr().out
    assert "--approve" not in out.rsplit("noema review ", 1)[1]
    run_id = out.rsplit("noema review ", 1)[1].split()[0]
    base = dict(settings=settings, run=run_id, approve=False, feedback=None, abort=False, drop=[])
    with pytest.raises(CommandError, match="nothing to commit"):
        extraction.run_review(argparse.Namespace(**{**base, "approve": True}), backend())
    assert "processed_date" not in (root / SOURCE).read_text(encoding="utf-8")
    limited = tmp_path / "limited.toml"
    limited.write_text(
        Path(settings).read_text(encoding="utf-8") + "[flows.extraction]\nmax_review_rounds = 1\n",
        encoding="utf-8",
    )
    one = {**base, "settings": str(limited)}
    feedback = argparse.Namespace(**{**one, "feedback": "añade algo"})
    assert extraction.run_review(feedback, ConcurrencyBackend(FlowScript())) == 0
    assert "approve what stands, or abort" in capsys.readouterr().out
    with pytest.raises(CommandError, match="no feedback rounds are left"):
        extraction.run_review(feedback, backend())


def test_ctrl_c_stops_the_run_and_extract_continues_it(tmp_path: Path, capsys) -> None:
    import signal
    import subprocess
    import sys

    root, data = make_vault(tmp_path)
    settings = settings_file(tmp_path, root, data)
    driver = Path(__file__).with_name("ctrl_c_driver.py")
    process = subprocess.Popen(
        [sys.executable, str(driver), settings, "Make It Stick", "60"],
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    for line in process.stderr:  # progress lines, then the first model call (a minute long)
        if line.startswith("MODEL CALL"):
            break
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    with closing(sqlite3.connect(data / "noema.sqlite3")) as db:
        run_id, status, error = db.execute("SELECT id, status, error FROM runs").fetchone()
    assert status == "cancelled" and "stopped by the user" in error
    assert f"stopped run {run_id[:8]} at its last checkpoint" in err
    assert "`noema extract '03 - Sources/Make It Stick.md'` continues it" in err
    # the same command again continues the same run to its review
    args = argparse.Namespace(settings=settings, note="Make It Stick")
    assert extraction.run_extract(args, backend()) == 0
    assert f"noema review {run_id[:8]}" in capsys.readouterr().out
    assert run_count(data) == 1


def concept_ids(report: str) -> list[str]:
    """The id prefixes the report prints after each new concept's title."""
    section = report.split("New concepts", 1)[1].split("Duplicates found", 1)[0]
    return re.findall(r"^  \* .*\[([0-9a-f]{8})\]$", section, flags=re.MULTILINE)


def test_approving_a_review_that_keeps_nothing_is_refused(tmp_path: Path, capsys) -> None:
    """Approving with every concept dropped would only mark the source processed (and nothing
    could extract it again): refused in one line, the run still waits, the source untouched."""
    root, data = make_vault(tmp_path)
    settings = settings_file(tmp_path, root, data)
    before = (root / SOURCE).read_text(encoding="utf-8")
    assert (
        extraction.run_extract(argparse.Namespace(settings=settings, note=SOURCE), backend()) == 0
    )
    out = capsys.readouterr().out
    run_id = out.rsplit("noema review ", 1)[1].split()[0]
    drops = [f"concept:{cid}" for cid in concept_ids(out)]
    assert len(drops) == 2
    approve = argparse.Namespace(
        settings=settings, run=run_id, approve=True, feedback=None, abort=False, drop=drops
    )
    with pytest.raises(CommandError, match="nothing to approve") as refused:
        extraction.run_review(approve, backend())
    assert "\n" not in str(refused.value) and "--abort" in str(refused.value)
    assert (root / SOURCE).read_text(encoding="utf-8") == before
    # one concept kept: approved
    kept = argparse.Namespace(**{**vars(approve), "drop": drops[:1]})
    assert extraction.run_review(kept, backend()) == 0
    assert frontmatter.loads((root / SOURCE).read_text(encoding="utf-8"))["processed_date"]


def test_a_command_on_the_bundled_model_says_what_its_results_are_worth(
    tmp_path: Path, capsys
) -> None:
    """Issue 12: results of Gemma 3 270M were printed as if they were work."""
    root, data = make_vault(tmp_path)
    settings = settings_file(tmp_path, root, data)
    args = argparse.Namespace(settings=settings, note="Make It Stick")
    assert extraction.run_extract(args, backend()) == 0
    assert "bundled model" not in capsys.readouterr().err  # a model of the user's own
    local = tmp_path / "local.toml"
    local.write_text(
        Path(settings).read_text(encoding="utf-8") + '[models]\nprovider = "local"\n',
        encoding="utf-8",
    )
    args = argparse.Namespace(settings=str(local), note="Make It Stick")
    assert extraction.run_extract(args, backend()) == 0  # the scripted model answers for it
    captured = capsys.readouterr()
    assert "the bundled model (Gemma 3 270M) answers here" in captured.err
    assert "for trying the mechanics, not for real use" in captured.err
    run_id = captured.out.rsplit("noema review ", 1)[1].split()[0]
    approve = argparse.Namespace(
        settings=str(local), run=run_id, approve=True, feedback=None, abort=False, drop=[]
    )
    assert extraction.run_review(approve, backend()) == 0
    assert "bundled model" not in capsys.readouterr().err  # approving calls no model
