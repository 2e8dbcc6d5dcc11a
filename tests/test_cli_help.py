"""Issue 12, the command line: every command says what it does in `--help`, help shows no raw
markup nor a required sub-command that is optional, and `noema runs` without a vault says so."""

from __future__ import annotations

import re

import pytest

from tests.test_cli import noema


def description(help_text: str) -> str:
    """The paragraph(s) between the usage lines and the first argument section."""
    body = help_text.split("\n\n", 1)[1]
    return re.split(r"^(?:positional arguments|options|[a-z ]+ commands):$", body, flags=re.M)[0]


@pytest.mark.parametrize("command", ["extract", "repair", "normalize", "review", "merges"])
def test_every_command_describes_itself(command: str):
    result = noema(command, "--help")
    assert result.returncode == 0
    assert len(description(result.stdout).split()) >= 8, result.stdout


def test_tutor_help_shows_its_sub_commands_as_optional():
    result = noema("tutor", "--help")
    assert result.returncode == 0
    usage = result.stdout.split("\n\n", 1)[0]
    assert "noema tutor [-h] [--concept NAME | --resume SESSION]" in usage
    assert not re.search(r"\] COMMAND", usage)  # argparse's "... COMMAND ..." reads as required
    assert "noema tutor sessions" in usage and "noema tutor logs SESSION" in usage


@pytest.mark.parametrize("command", ["doctor", "runs", "tutor", "lesson", "evaluate"])
def test_help_has_no_raw_markup(command: str):
    result = noema(command, "--help")
    assert result.returncode == 0 and "`" not in result.stdout


def test_runs_without_a_vault_says_the_vault_is_missing():
    result = noema("runs")  # isolated config: no settings file, no vault
    assert result.returncode == 1
    assert "no vault configured" in result.stderr and "noema demo" in result.stderr
    assert "no runs" not in result.stdout


def test_runs_shows_a_run_interrupted_by_quitting_as_interrupted(tmp_path):
    import shutil

    from tui.demo import sample_vault

    vault = tmp_path / "vault"
    shutil.copytree(sample_vault(), vault)
    from core.store import Store
    from core.store.runs import RunsRepo
    from tests.test_cli import write_settings
    from tests.tui.helpers import FIXED_RUNS, make_settings, seed_runs

    settings_file = write_settings(tmp_path / "s.toml", vault, tmp_path / "data")
    settings = make_settings(vault, tmp_path / "data")
    seed_runs(settings)
    store = Store(settings.store_path)
    try:
        run_id = FIXED_RUNS[0][0]
        RunsRepo(store).set_status(run_id, "running")
        RunsRepo(store).mark_interrupted(run_id)  # what the app does when it quits mid-run
    finally:
        store.close()
    result = noema("--settings", str(settings_file), "runs")
    assert result.returncode == 0
    line = next(row for row in result.stdout.splitlines() if row.startswith(run_id[:8]))
    assert "queued (interrupted)" in line
    assert "goes on from its last finished step" in result.stdout
