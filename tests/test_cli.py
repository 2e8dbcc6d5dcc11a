"""The `noema` command line: help, settings errors, runs, index, watch, doctor, demo."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from local_llm.local_server import free_port
from tests.tui.helpers import FIXED_RUNS, make_settings, seed_runs
from tui.cli import COMMAND_MODULES, main
from tui.demo import sample_vault

REPO = Path(__file__).resolve().parents[1]


def noema(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    """Run the CLI in a fresh interpreter, as the console script would."""
    return subprocess.run(
        [sys.executable, "-m", "tui", *args],
        cwd=REPO,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def write_settings(path: Path, vault: Path, data: Path, extra: str = "") -> Path:
    path.write_text(
        f'[vault]\npath = "{vault}"\nwatch_debounce_ms = 50\n[data]\ndirectory = "{data}"\n{extra}',
        encoding="utf-8",
    )
    return path


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    shutil.copytree(sample_vault(), root)
    return root


def test_help_lists_every_command_group():
    result = noema("--help")
    assert result.returncode == 0
    for command in ("demo", "doctor", "runs", "index", "watch"):
        assert command in result.stdout
    assert "--settings" in result.stdout
    assert len(COMMAND_MODULES) >= 4


@pytest.mark.parametrize(
    ("content", "key", "problem"),
    [
        ('[models]\ntemperature = "hot"\n', "models.temperature", "valid number"),
        ("[vault]\nwatch_polling = true\ncolour = 3\n", "vault.colour", "Extra inputs"),
        ("[models\nmodel = 1\n", "", "not valid TOML"),
    ],
)
def test_invalid_settings_file_is_one_message_and_exit_2(tmp_path, content, key, problem):
    bad = tmp_path / "bad settings.toml"
    bad.write_text(content, encoding="utf-8")
    result = noema("--settings", str(bad), "runs")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert str(bad) in result.stderr
    assert key in result.stderr and problem in result.stderr
    assert result.stdout == ""


def test_missing_settings_file_is_exit_2(tmp_path):
    result = noema("--settings", str(tmp_path / "nope.toml"), "doctor")
    assert result.returncode == 2
    assert "not found" in result.stdout + result.stderr


def test_runs_lists_and_filters(tmp_path, vault, capsys):
    settings_file = write_settings(tmp_path / "s.toml", vault, tmp_path / "data")
    seed_runs(make_settings(vault, tmp_path / "data"))
    assert main(["--settings", str(settings_file), "runs"]) == 0
    out = capsys.readouterr().out
    for run_id, flow, target, _status, _stamp in FIXED_RUNS:
        assert run_id[:8] in out and flow in out and target in out
    assert "awaiting_review" in out and "ValueError: bad rubric" in out
    assert main(["--settings", str(settings_file), "runs", "--status", "queued"]) == 0
    out = capsys.readouterr().out
    assert FIXED_RUNS[0][0][:8] in out and FIXED_RUNS[1][0][:8] not in out


def test_output_into_a_closed_pipe_ends_quietly(tmp_path, vault):
    """`noema runs | head -3` ended in a BrokenPipeError traceback: head had gone when the
    runs' errors were printed. Like cat, noema stops quietly when its reader goes."""
    settings_file = write_settings(tmp_path / "s.toml", vault, tmp_path / "data")
    seed_runs(make_settings(vault, tmp_path / "data"))
    process = subprocess.Popen(
        [sys.executable, "-m", "tui", "--settings", str(settings_file), "runs"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    process.stdout.close()  # the reader is gone before anything is written
    stderr = process.stderr.read()
    process.wait(timeout=60)
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
    assert process.returncode == 141


def test_index_shows_progress_and_summary(tmp_path, vault, capsys):
    settings_file = write_settings(tmp_path / "s.toml", vault, tmp_path / "data")
    assert main(["--settings", str(settings_file), "index"]) == 0
    captured = capsys.readouterr()
    notes = sum(1 for p in vault.rglob("*.md") if "Templates" not in p.parts)
    assert f"{notes}/{notes}" in captured.err  # the progress bar reached the end
    assert f"{notes} added" in captured.out
    (vault / "08 - Ideas" / "ZDP.md").write_text(
        "---\nentity_id: x\n---\nchanged\n", encoding="utf-8"
    )
    assert main(["--settings", str(settings_file), "index"]) == 0
    assert "1 changed" in capsys.readouterr().out


def test_index_without_a_vault_is_a_clear_error(capsys):
    assert main(["index"]) == 1
    assert "no vault configured" in capsys.readouterr().err


def test_watch_prints_events_and_queued_runs(tmp_path, vault):
    settings_file = write_settings(tmp_path / "s.toml", vault, tmp_path / "data")
    process = subprocess.Popen(
        [sys.executable, "-m", "tui", "--settings", str(settings_file), "watch"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert "Ctrl-C" in process.stderr.readline()  # the watcher is running
        time.sleep(0.5)
        (vault / "03 - Sources" / "New.md").write_text(
            "## Highlights\n\n> A quote.\n", encoding="utf-8"
        )
        time.sleep(2.0)
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "queued    extraction" in out and "Pensar rápido" in out  # caught up at start
    assert "created   03 - Sources/New.md" in out
    assert "for 03 - Sources/New.md" in out


def test_doctor_with_an_unreachable_model(tmp_path, vault):
    port = free_port()
    extra = f'[models]\nbase_url = "http://127.0.0.1:{port}"\ntransient_retries = 0\n'
    settings_file = write_settings(tmp_path / "s.toml", vault, tmp_path / "data", extra)
    result = noema("--settings", str(settings_file), "doctor")
    assert result.returncode == 1
    lines = [line for line in result.stdout.splitlines() if line and line[0] in "✓✗-"]
    names = [line[2:20].strip() for line in lines]
    assert names == [
        "settings",
        "vault",
        "data dir",
        "store",
        "model config",
        "model server",
        "model",
        "structured output",
        "embeddings",
        "judges",
    ]
    marks = dict(zip(names, (line[0] for line in lines), strict=True))
    assert marks["settings"] == marks["vault"] == marks["data dir"] == marks["store"] == "✓"
    assert marks["model server"] == "✗"
    assert marks["model"] == marks["structured output"] == "-"  # skipped, not a second error
    server_line = next(line for line in lines if line[2:].startswith("model server"))
    assert f"cannot reach llama3.2 at http://127.0.0.1:{port}" in server_line
    assert "`ollama serve`" in server_line and "`noema demo`" in server_line
    assert "Traceback" not in result.stderr and "ssl" not in result.stdout.lower()


def test_demo_refuses_a_non_empty_folder(tmp_path, capsys):
    target = tmp_path / "mine"
    target.mkdir()
    (target / "keep.md").write_text("mine", encoding="utf-8")
    assert main(["demo", "--no-tui", "--path", str(target)]) == 1
    assert "not empty" in capsys.readouterr().err
    assert [p.name for p in target.iterdir()] == ["keep.md"]


def test_demo_without_any_model_still_sets_up_the_vault(tmp_path, monkeypatch, capsys):
    import local_llm.local_server as local_server

    monkeypatch.setattr(local_server, "is_available", lambda: False)
    user = tmp_path / "user.toml"
    user.write_text(f'[models]\nbase_url = "http://127.0.0.1:{free_port()}"\n', encoding="utf-8")
    target = tmp_path / "demo"
    assert main(["--settings", str(user), "demo", "--no-tui", "--path", str(target)]) == 0
    out = capsys.readouterr().out
    assert "does not answer" in out and "noema[local]" in out
    assert "Indexed the vault:" in out
    written = tmp_path / "demo-data" / "settings.toml"
    assert f"noema --settings {written}" in out
    assert (target / "03 - Sources" / "Deep Work.md").is_file()
    from core.settings import load_settings

    reloaded = load_settings(written)
    assert reloaded.vault.path == target.resolve()
    assert reloaded.data_dir == (tmp_path / "demo-data").resolve()
    assert reloaded.models.base_url.startswith("http://127.0.0.1:")  # the user's model kept


@pytest.mark.e2e
def test_demo_starts_the_bundled_model_and_the_connection_test_answers(tmp_path):
    from tests.fixtures.local_model import MODEL_DIR

    user = tmp_path / "user.toml"
    user.write_text(f'[models]\nbase_url = "http://127.0.0.1:{free_port()}"\n', encoding="utf-8")
    target = tmp_path / "demo"
    env = {"XDG_CACHE_HOME": str(MODEL_DIR.parents[1])}  # reuse the assembled GGUF
    result = noema(
        "--settings", str(user), "demo", "--no-tui", "--path", str(target), env=env, timeout=600
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Using the bundled model" in result.stdout
    assert "✓ connection test: answered 'pong'" in result.stdout
    assert "Indexed the vault:" in result.stdout and "re-embedded" in result.stdout
    written = tmp_path / "demo-data" / "settings.toml"
    assert tomllib.loads(written.read_text(encoding="utf-8"))["models"]["provider"] == "local"
    assert f"Open it with: noema --settings {written}" in result.stdout
    # the settings work afterwards, the demo's servers gone: doctor starts the model again
    doctor = noema("--settings", str(written), "doctor", env=env, timeout=600)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "started in" in doctor.stdout and "a valid answer in" in doctor.stdout


def test_demo_a_second_time_reopens_the_same_vault(tmp_path, monkeypatch, capsys):
    import local_llm.local_server as local_server

    monkeypatch.setattr(local_server, "is_available", lambda: False)
    user = tmp_path / "user.toml"
    user.write_text(f'[models]\nbase_url = "http://127.0.0.1:{free_port()}"\n', encoding="utf-8")
    target = tmp_path / "demo"
    args = ["--settings", str(user), "demo", "--no-tui", "--path", str(target)]
    assert main(args) == 0
    note = target / "08 - Ideas" / "ZDP.md"
    note.write_text(note.read_text(encoding="utf-8") + "\nmy own line\n", encoding="utf-8")
    capsys.readouterr()
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Reopening the demo vault" in out and "1 changed" in out
    assert note.read_text(encoding="utf-8").endswith("my own line\n")  # nothing copied over it


def test_demo_settings_on_the_bundled_model_work_for_every_role_without_ports(tmp_path):
    """The demo's file says provider = "local": no port of a server that dies with the demo,
    every role on the bundled model, the embedding role on its smaller context."""
    from core.models import model_configs
    from core.settings import load_settings
    from tui.demo import LOCAL_MODELS, write_settings

    vault = tmp_path / "vault"
    vault.mkdir()
    written = write_settings(tmp_path / "s.toml", vault, tmp_path / "data", LOCAL_MODELS)
    text = written.read_text(encoding="utf-8")
    assert tomllib.loads(text)["models"]["provider"] == "local" and "127.0.0.1" not in text
    configs = model_configs(load_settings(written))
    assert set(configs) >= {"default", "judge", "judge_secondary", "embedding"}
    for name, config in configs.items():
        assert config.provider == "local" and config.model == "gemma3-270m", name
        assert config.base_url is None and config.api_key is None, name
    assert configs["default"].context_window == 4096
    assert configs["embedding"].context_window == 2048
