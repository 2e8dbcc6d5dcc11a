"""The bundled model's servers are shared per data directory and never outlive noema.

Real processes throughout: client processes acquire a `SharedServer` whose command is a
stand-in for llama-server (`tests/servers/stand_in_llama.py`, an HTTP server answering
/health), so the lease / supervisor / PR_SET_PDEATHSIG mechanics run in seconds. The e2e test
at the end does the same with the real llama-server through the CLI.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from local_llm.local_server import LocalServerError
from local_llm.shared_server import SharedServer

REPO = Path(__file__).resolve().parents[2]
STAND_IN = REPO / "tests" / "servers" / "stand_in_llama.py"
KEY = "chat-64x1"
CLIENT = r"""
import sys
from pathlib import Path
from local_llm.shared_server import SharedServer
registry, stand_in, delay = sys.argv[1], sys.argv[2], sys.argv[3]
server = SharedServer(Path(registry), "chat", ctx_size=64, startup_timeout_s=30,
                      command=lambda port: [sys.executable, stand_in, "--port", str(port),
                                            "--delay", delay])
print(server.acquire(), flush=True)
sys.stdin.readline()  # hold the lease until told to go (or killed)
"""


class Client:
    """A process that acquired the shared server and holds its lease."""

    def __init__(self, registry: Path, delay: float = 0.0):
        self.process = subprocess.Popen(
            [sys.executable, "-c", CLIENT, str(registry), str(STAND_IN), str(delay)],
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()
        assert self.url.startswith("http://127.0.0.1:"), self.process.stderr.read()  # type: ignore[union-attr]

    def leave(self) -> None:
        """End normally (closing stdin lets the client script finish)."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=10)

    def signal(self, signum: int) -> None:
        self.process.send_signal(signum)
        self.process.wait(timeout=10)

    def cleanup(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def info(registry: Path) -> dict:
    return json.loads((registry / f"{KEY}.json").read_text())


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not reaped yet) is gone for our purpose
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def wait_gone(pid: int, timeout_s: float = 8.0) -> float:
    started = time.monotonic()
    while alive(pid):
        if time.monotonic() - started > timeout_s:
            raise AssertionError(f"process {pid} still alive after {timeout_s} s")
        time.sleep(0.05)
    return time.monotonic() - started


@pytest.fixture
def clients():
    made: list[Client] = []
    yield made
    for client in made:
        client.cleanup()


def test_two_processes_share_one_server_and_it_stops_with_the_last(tmp_path, clients):
    first = Client(tmp_path)
    clients.append(first)
    running = info(tmp_path)
    second = Client(tmp_path)
    clients.append(second)
    assert second.url == first.url and info(tmp_path) == running  # joined, not started again
    first.leave()
    time.sleep(1.5)  # three supervisor polls
    assert alive(running["server_pid"]), "the server stopped while a process still used it"
    second.leave()
    wait_gone(running["server_pid"])
    wait_gone(running["pid"])
    assert not (tmp_path / f"{KEY}.json").exists()


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_no_server_outlives_a_client_that_is_killed_or_interrupted(tmp_path, clients, signum):
    client = Client(tmp_path)
    clients.append(client)
    running = info(tmp_path)
    client.signal(signum)
    assert wait_gone(running["server_pid"]) < 5.0
    wait_gone(running["pid"])


def test_killing_the_supervisor_takes_the_server_down_and_the_next_use_restarts(tmp_path, clients):
    client = Client(tmp_path)
    clients.append(client)
    running = info(tmp_path)
    os.kill(running["pid"], signal.SIGKILL)
    assert wait_gone(running["server_pid"]) < 5.0  # PR_SET_PDEATHSIG
    again = Client(tmp_path)
    clients.append(again)
    assert info(tmp_path)["pid"] != running["pid"] and alive(info(tmp_path)["server_pid"])


def test_a_server_that_cannot_start_is_reported_with_its_exit_code(tmp_path):
    server = SharedServer(
        tmp_path,
        "chat",
        ctx_size=64,
        startup_timeout_s=30,
        command=lambda port: [sys.executable, str(STAND_IN), "--port", str(port), "--fail", "3"],
    )
    started = time.monotonic()
    with pytest.raises(LocalServerError) as caught:
        server.acquire()
    assert time.monotonic() - started < 10
    assert "exited with code 3" in str(caught.value) and f"{KEY}.log" in str(caught.value)
    server.release()


def test_a_loading_server_is_waited_for_then_joined(tmp_path, clients):
    client = Client(tmp_path, delay=1.0)  # /health answers 503 for a second
    clients.append(client)
    assert alive(info(tmp_path)["server_pid"])


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _unshare_works(), reason="no network namespaces here (unshare -rn)")
def test_loopback_down_is_detected_at_once_in_one_line(tmp_path):
    """`unshare -rn` leaves lo down: said at once, never a 120 s wait and a traceback."""
    script = (
        "from pathlib import Path; import sys\n"
        "from local_llm.shared_server import SharedServer\n"
        "from local_llm.local_server import LocalServerError\n"
        "try:\n"
        f"    SharedServer(Path({str(tmp_path)!r}), 'chat').acquire()\n"
        "except LocalServerError as exc:\n"
        "    print(exc); sys.exit(1)\n"
    )
    started = time.monotonic()
    result = subprocess.run(
        ["unshare", "-rn", sys.executable, "-c", script],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
    )
    assert result.returncode == 1 and time.monotonic() - started < 10
    assert "loopback interface (127.0.0.1) is down" in result.stdout
    assert "Traceback" not in result.stderr and len(result.stdout.strip().splitlines()) == 1


async def test_the_local_provider_starts_its_servers_on_first_use_and_lets_go_on_close(tmp_path):
    """provider = "local" through the client: the chat server starts with the first call,
    outside its timeout; the embedding server only when embeddings are asked for."""
    from local_llm import LLMClient, ModelConfig
    from local_llm.backends.local_backend import LocalBackend
    from local_llm.testing import ScriptedBackend

    inner = ScriptedBackend(['{"label": "a"}'])
    backend = LocalBackend(
        tmp_path,
        inner=lambda: inner,
        command=lambda mode, port: [
            sys.executable,
            str(STAND_IN),
            "--port",
            str(port),
            "--delay",
            "0.5",
        ],
    )
    config = ModelConfig(
        provider="local", model="gemma3-270m", context_budget=48, max_tokens=16, timeout_s=0.3
    )
    client = LLMClient({"default": config}, backends={"local": backend})
    from pydantic import BaseModel

    class Label(BaseModel):
        label: str

    assert (await client.structured([{"role": "user", "content": "x"}], Label)).label == "a"
    (call,) = inner.calls
    running = info(tmp_path)
    assert (
        call.config.base_url == f"{running['url']}/v1" and call.config.model == "openai/gemma3-270m"
    )
    assert not (tmp_path / "embedding-64x1.json").exists()  # no embedding server asked for
    client.close()
    wait_gone(running["server_pid"])
