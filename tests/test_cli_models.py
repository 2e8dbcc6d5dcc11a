"""The CLI against real model servers (tests/servers), as a user meets them: doctor says what
is missing and how to fix it; failed runs say how to resume; keys are never taken from files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.servers.fixtures import FAKE_OPENAI_KEY
from tui.demo import sample_vault

REPO = Path(__file__).resolve().parents[1]


def noema(
    *args: str, env: dict[str, str] | None = None, stdin: str = ""
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tui", *args],
        cwd=REPO,
        env={**os.environ, **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    shutil.copytree(sample_vault(), root)
    return root


def settings_file(tmp_path: Path, vault: Path, models: str) -> Path:
    path = tmp_path / "settings.toml"
    path.write_text(
        f'[vault]\npath = "{vault}"\n[data]\ndirectory = "{tmp_path / "data"}"\n[models]\n{models}',
        encoding="utf-8",
    )
    return path


def marks(stdout: str) -> dict[str, str]:
    """Check name -> its whole line, for doctor's output."""
    return {line[2:20].strip(): line for line in stdout.splitlines() if line[:1] in "✓✗-"}


def test_doctor_with_ollama_up_but_the_model_not_pulled(tmp_path, vault, fake_ollama):
    models = f'model = "ollama_chat/qwen2.5:7b"\nbase_url = "{fake_ollama.url}"\n'
    result = noema("--settings", str(settings_file(tmp_path, vault, models)), "doctor")
    assert result.returncode == 1, result.stdout
    lines = marks(result.stdout)
    assert lines["model server"].startswith("✓") and "answers (2 models)" in lines["model server"]
    assert lines["model"].startswith("✗")
    assert "run `ollama pull qwen2.5:7b`" in lines["model"] and "llama3.2:latest" in lines["model"]
    assert lines["structured output"].startswith("-")
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("model", ["ollama_chat/llama3.2", "ollama/llama3.2"])
def test_doctor_passes_with_the_model_there(tmp_path, vault, fake_ollama, model):
    models = f'model = "{model}"\nbase_url = "{fake_ollama.url}"\n'
    result = noema("--settings", str(settings_file(tmp_path, vault, models)), "doctor")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = marks(result.stdout)
    assert lines["model"].startswith("✓") and lines["structured output"].startswith("✓")
    (chat,) = fake_ollama.requests("/api/chat")
    assert chat["json"]["options"]["num_ctx"] == 8192 + 1024


def test_doctor_with_a_key_the_provider_refuses(tmp_path, vault, fake_openai_keyed):
    models = (
        f'model = "openai/gpt-fake"\nbase_url = "{fake_openai_keyed.url}/v1"\n'
        'api_key_env = "NOEMA_TEST_KEY"\n'
    )
    path = settings_file(tmp_path, vault, models)
    result = noema("--settings", str(path), "doctor", env={"NOEMA_TEST_KEY": "sk-wrong-key-999"})
    assert result.returncode == 1, result.stdout
    lines = marks(result.stdout)
    assert lines["api key"].startswith("✓")  # set, but refused:
    assert lines["model server"].startswith("✗")
    assert "refused the API key from $NOEMA_TEST_KEY" in lines["model server"]
    assert lines["structured output"].startswith("-")
    assert "sk-wrong-key-999" not in result.stdout + result.stderr
    unset = noema("--settings", str(path), "doctor")
    assert unset.returncode == 1 and marks(unset.stdout)["api key"].startswith("✗")
    assert "export NOEMA_TEST_KEY=" in marks(unset.stdout)["api key"]
    good = noema("--settings", str(path), "doctor", env={"NOEMA_TEST_KEY": FAKE_OPENAI_KEY})
    assert good.returncode == 0, good.stdout


def test_doctor_fails_a_key_pasted_as_api_key_env(tmp_path, vault):
    models = 'api_key_env = "sk-proj-Zx81hdk29LMmq02pWn"\n'
    result = noema("--settings", str(settings_file(tmp_path, vault, models)), "doctor")
    assert result.returncode == 2
    assert result.stdout.startswith("✗ settings") and "api_key_env" in result.stdout
    assert "sk-proj-Zx81hdk29LMmq02pWn" not in result.stdout + result.stderr


def test_a_failed_extraction_says_how_to_resume_it(tmp_path, vault, fake_openai):
    fake_openai.fail(500, 1000)
    models = (
        f'model = "openai/gpt-fake"\nbase_url = "{fake_openai.url}/v1"\n'
        "transient_retries = 0\nretries = 0\n"
    )
    result = noema(
        "--settings",
        str(settings_file(tmp_path, vault, models)),
        "extract",
        "Pensar rápido, pensar despacio",
    )
    assert result.returncode == 1, result.stdout + result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("noema: extraction of 03 - Sources/Pensar rápido, pensar despacio.md")
    assert "failed (HTTP 500)" in last
    assert last.endswith(
        "run `noema extract '03 - Sources/Pensar rápido, pensar despacio.md'` again to resume it "
        "from the step that failed"
    )
    assert "(at " not in result.stderr and "Traceback" not in result.stderr


def test_a_failed_tutor_turn_exits_non_zero_with_the_resume_command(tmp_path, vault, fake_openai):
    fake_openai.fail(500, 1000)
    models = (
        f'model = "openai/gpt-fake"\nbase_url = "{fake_openai.url}/v1"\n'
        "transient_retries = 0\nretries = 0\n"
    )
    result = noema(
        "--settings", str(settings_file(tmp_path, vault, models)), "tutor", "--concept", "Deep Work"
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "[the turn failed:" in result.stdout and "failed (HTTP 500)" in result.stdout
    assert "continue with: noema tutor --resume " in result.stderr.strip().splitlines()[-1]


def _processes_using(folder: Path) -> list[int]:
    """Pids whose command line names `folder` (the supervisor and llama-server of a data dir)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().split(") ", 1)[1][0]
        except OSError:
            continue
        if str(folder) in args and state != "Z" and "pytest" not in args:
            found.append(int(entry.name))
    return found


@pytest.mark.e2e
def test_provider_local_starts_the_bundled_model_on_demand_and_nothing_outlives_noema(
    tmp_path, vault
):
    import json
    import signal
    import time

    from tests.fixtures.local_model import MODEL_DIR

    env = {"XDG_CACHE_HOME": str(MODEL_DIR.parents[1])}  # reuse the assembled GGUF
    models = 'provider = "local"\ncontext_budget = 3584\nmax_tokens = 512\ntimeout_s = 300\n'
    path = settings_file(tmp_path, vault, models)
    registry = tmp_path / "data" / "local-model"
    result = noema("--settings", str(path), "doctor", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = marks(result.stdout)
    assert "llama.cpp chat server with gemma-3-270m" in lines["model server"]
    assert "a valid answer in" in lines["structured output"]
    time.sleep(2)
    assert _processes_using(registry) == []  # stopped when doctor exited

    process = subprocess.Popen(
        [sys.executable, "-m", "tui", "--settings", str(path), "tutor", "--concept", "Deep Work"],
        cwd=REPO,
        env={**os.environ, **env},
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    info = registry / "chat-4096x1.json"
    deadline = time.monotonic() + 240
    while not info.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert info.exists(), "the tutor did not start the bundled model"
    server_pid = json.loads(info.read_text())["server_pid"]
    process.send_signal(signal.SIGKILL)  # no atexit, no finally: only the lease dies with it
    process.wait()
    deadline = time.monotonic() + 15
    while _processes_using(registry) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _processes_using(registry) == [], f"llama-server {server_pid} outlived noema"


def test_lesson_generate_with_embeddings_enabled_indexes_without_a_traceback(
    tmp_path, vault, fake_ollama
):
    """The demo's settings enable embeddings; the lesson command synced the index with the
    blocking call inside its event loop and died with a RuntimeError traceback."""
    models = (
        f'provider = "ollama"\nmodel = "llama3.2"\nbase_url = "{fake_ollama.url}"\n'
        "embeddings_enabled = true\ntransient_retries = 0\n"
        '[models.roles.embedding]\nmodel = "nomic-embed-text"\n'
    )
    result = noema(
        "--settings",
        str(settings_file(tmp_path, vault, models)),
        "lesson",
        "generate",
        "Deep Work",
        "--no-input",
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert fake_ollama.requests("/api/embed"), "the index was not synced with embeddings"
    assert fake_ollama.requests("/api/chat"), "no lesson was asked for"
