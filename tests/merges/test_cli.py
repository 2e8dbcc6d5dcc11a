"""`noema normalize` and `noema merges` end to end over a copy of the demo vault (scripted model)."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import pytest

from local_llm import TransientModelError
from local_llm.testing import ScriptedBackend
from tests.flows.normalization.script import by_node, is_generator, propose, weak_when
from tests.merges.merge_vault import SAMPLE, snapshot
from tui.cli import main
from tui.commands import CommandError
from tui.commands.normalization import run_apply, run_normalize


@pytest.fixture
def configured(tmp_path: Path) -> tuple[Path, Path]:
    vault = tmp_path / "vault"
    shutil.copytree(SAMPLE, vault)
    settings = tmp_path / "settings.toml"
    settings.write_text(
        f'[vault]\npath = "{vault}"\n\n[data]\ndirectory = "{tmp_path / "data"}"\n',
        encoding="utf-8",
    )
    return vault, settings


def test_normalize_then_apply_then_undo(configured, capsys) -> None:
    vault, settings = configured
    files = snapshot(vault)
    generator = propose(("ZDP", "Zona de desarrollo próximo"))
    evaluator = weak_when()
    backend = ScriptedBackend(answer=by_node(generator, evaluator))
    args = argparse.Namespace(settings=str(settings), strategy=None)
    assert run_normalize(args, backend=backend) == 0
    out = capsys.readouterr().out
    assert "ZDP = Zona de desarrollo próximo" in out or "Zona de desarrollo próximo = ZDP" in out
    assert "Hábito atómico" in out and "metacognicion" in out  # found by code
    review = out.strip().splitlines()[-1].split()[1].rstrip(":")

    assert main(["--settings", str(settings), "merges", "list"]) == 0
    assert "3 merges (3 pending" in capsys.readouterr().out
    assert main(["--settings", str(settings), "merges", "reject", review, "1"]) == 0
    apply = argparse.Namespace(
        settings=str(settings), review=review, all=True, yes=False, dry_run=False, resume=False
    )
    assert run_apply(apply, ask=lambda _prompt: "n") == 0
    assert snapshot(vault) == files and "nothing written" in capsys.readouterr().out
    assert run_apply(apply, ask=lambda _prompt: "y") == 0
    assert "applied" in capsys.readouterr().out and snapshot(vault) != files
    assert not (vault / "08 - Ideas" / "ZDP.md").exists()
    assert main(["--settings", str(settings), "merges", "show", review]) == 0
    assert "[rejected]" in capsys.readouterr().out
    assert main(["--settings", str(settings), "merges", "undo", review]) == 0
    assert snapshot(vault) == files


def test_unknown_review_is_a_clear_error(configured) -> None:
    _, settings = configured
    args = argparse.Namespace(
        settings=str(settings), review="nope", all=False, yes=True, dry_run=False, resume=False
    )
    with pytest.raises(CommandError, match="no review nope"):
        run_apply(args)


def test_choose_and_rename_the_canonical_from_the_terminal(configured, capsys) -> None:
    """The TUI's `c` (other canonical) and `t` (rename) as `noema merges canonical` (issue 16)."""
    vault, settings = configured
    generator = propose(("ZDP", "Zona de desarrollo próximo"))
    evaluator = weak_when()
    backend = ScriptedBackend(answer=by_node(generator, evaluator))
    assert run_normalize(argparse.Namespace(settings=str(settings), strategy=None), backend) == 0
    review = capsys.readouterr().out.strip().splitlines()[-1].split()[1].rstrip(":")
    cli = ["--settings", str(settings), "merges"]
    assert main([*cli, "show", review]) == 0
    shown = capsys.readouterr().out
    zdp = next(line for line in shown.splitlines() if "ZDP" in line and "<-" in line)
    number = zdp.split(".")[0].strip().removeprefix("C")
    assert main([*cli, "canonical", review, number, "zdp", "--title", "ZDP (zona)"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"C{number}. ZDP (zona) <- ") and "Zona de desarrollo próximo" in line
    assert main([*cli, "canonical", review, number, "Nadie"]) == 1
    assert "no single member 'Nadie'" in capsys.readouterr().err
    assert main([*cli, "canonical", review, "99", "--title", "x"]) == 1
    assert "no cluster C99" in capsys.readouterr().err
    assert main([*cli, "apply", review, "--all", "--yes"]) == 0
    capsys.readouterr()
    assert (vault / "08 - Ideas" / "ZDP (zona).md").exists()
    assert not (vault / "08 - Ideas" / "Zona de desarrollo próximo.md").exists()


def test_normalize_says_partial_or_failed_and_resumes(configured, capsys) -> None:
    """Issue 16: the CLI printed the failures as warnings and exited 0 like a whole run."""
    _vault, settings = configured
    text = settings.read_text(encoding="utf-8") + "[models]\ntransient_retries = 0\nretries = 1\n"
    settings.write_text(text, encoding="utf-8")
    generator = propose(("ZDP", "Zona de desarrollo próximo"))
    garbage = ScriptedBackend(answer=by_node(generator, {"x": 1}))
    args = argparse.Namespace(settings=str(settings), strategy=None)
    assert run_normalize(args, backend=garbage) == 3
    captured = capsys.readouterr()
    assert captured.out.startswith("Partial:") and "not done: [validation]" in captured.err

    down = {"on": True}

    def flaky(call):
        if is_generator(call):
            return generator(call.messages, call.json_schema)
        if down["on"]:
            raise TransientModelError("Connection refused")
        return weak_when()(call.messages, call.json_schema)

    with pytest.raises(CommandError, match="resume it with: noema normalize --resume") as failed:
        run_normalize(args, backend=ScriptedBackend(answer=flaky))
    run = str(failed.value).rsplit("--resume ", 1)[1].strip()
    down["on"] = False
    resume = argparse.Namespace(settings=str(settings), strategy=None, resume=run)
    assert run_normalize(resume, backend=ScriptedBackend(answer=flaky)) == 0
    out = capsys.readouterr().out
    assert "ZDP" in out and "Zona de desarrollo próximo" in out


def test_a_stopped_normalization_resumes_and_a_finished_one_is_refused(
    configured, tmp_path, capsys
) -> None:
    """Ctrl-C records a run `cancelled` and names `noema normalize --resume RUN`: that command
    must take it (it took failed runs only), and refuse a run that has nothing left to do."""
    import sqlite3
    from contextlib import closing

    _vault, settings = configured
    settings.write_text(
        settings.read_text(encoding="utf-8") + "[models]\ntransient_retries = 0\nretries = 1\n",
        encoding="utf-8",
    )
    generator = propose(("ZDP", "Zona de desarrollo próximo"))

    def down(call):
        if is_generator(call):
            return generator(call.messages, call.json_schema)
        raise TransientModelError("Connection refused")

    args = argparse.Namespace(settings=str(settings), strategy=None)
    with pytest.raises(CommandError) as failed:
        run_normalize(args, backend=ScriptedBackend(answer=down))
    run = str(failed.value).rsplit("--resume ", 1)[1].strip()
    with closing(sqlite3.connect(tmp_path / "data" / "noema.sqlite3")) as db, db:
        db.execute("UPDATE runs SET status='cancelled' WHERE id LIKE ?", (run + "%",))
    resume = argparse.Namespace(settings=str(settings), strategy=None, resume=run)
    answers = ScriptedBackend(answer=by_node(generator, weak_when()))
    assert run_normalize(resume, backend=answers) == 0
    assert "ZDP" in capsys.readouterr().out
    with pytest.raises(CommandError, match="only a failed or stopped normalization run"):
        run_normalize(resume, backend=answers)
