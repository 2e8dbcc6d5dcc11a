"""Start a fake model server as a subprocess and drive it: `FakeServer.start("ollama")`.

with FakeServer.start("openai", api_key="sk-test") as server:
    server.answers("first answer", {"status": 429, "headers": {"retry-after": "1"}})
    ...  # point noema at server.url (Ollama) or server.url + "/v1" (OpenAI-compatible)
    assert server.requests("/v1/chat/completions")[0]["json"]["stop"]
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parents[2]
_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))
Kind = Literal["ollama", "openai"]


class FakeServer:
    """A running fake server process and its control API."""

    def __init__(self, kind: Kind, process: subprocess.Popen[str], port: int):
        self.kind, self.process, self.port = kind, process, port

    @classmethod
    def start(
        cls,
        kind: Kind,
        *,
        api_key: str | None = None,
        models: list[dict] | None = None,
        latency_ms: float = 0.0,
        slots: int = 0,
        responder: str | None = None,
        port: int = 0,
    ) -> FakeServer:
        """`latency_ms` and `slots` pace chat answers (see tests.servers.common); `responder`
        names one of tests.servers.responders; `port` 0 takes a free one."""
        command = [sys.executable, "-m", "tests.servers", kind, "--port", str(port)]
        if api_key:
            command += ["--api-key", api_key]
        if models is not None:
            command += ["--models", json.dumps(models)]
        if latency_ms or slots:
            command += ["--latency-ms", str(latency_ms), "--slots", str(slots)]
        if responder:
            command += ["--responder", responder]
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        }
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True
        )
        line = process.stdout.readline() if process.stdout else ""
        if not line.startswith("LISTENING "):
            process.kill()
            raise RuntimeError(f"fake {kind} server did not start: {line!r}")
        return cls(kind, process, int(line.split()[1]))

    @property
    def url(self) -> str:
        """The server's root (Ollama's base_url); OpenAI-compatible clients add `/v1`."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def _control(self, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url}/_fake/{path}",
            data=data,
            method="POST" if data is not None else "GET",
            headers={"Content-Type": "application/json"},
        )
        with _NO_PROXY.open(request, timeout=10) as response:
            return json.loads(response.read())

    def answers(self, *answers: str | dict) -> None:
        """Script the next chat answers (see `tests.servers.common.Answer`)."""
        self._control("answers", {"answers": list(answers)})

    def fail(self, status: int, count: int = 1, **options: Any) -> None:
        """The next `count` requests fail with `status` (`headers=`, `body=`, `paths=`)."""
        self._control("fail", {"status": status, "count": count, **options})

    def set_models(self, models: list[dict]) -> None:
        self._control("models", {"models": models})

    def reset(self) -> None:
        self._control("reset", {})

    def load(self) -> dict[str, int]:
        """Chats being answered now (`busy`), the most at once so far, and how many came."""
        return self._control("load")

    def kill(self) -> None:
        """Kill the process at once (SIGKILL), as a crashing server or a lost machine goes."""
        if self.alive:
            self.process.kill()
            self.process.wait()

    def requests(self, path: str | None = None) -> list[dict[str, Any]]:
        """Requests received so far (only those to `path` when given)."""
        found = self._control("requests")
        return [r for r in found if path is None or r["path"] == path]

    def stop(self) -> None:
        if self.alive:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout:
            self.process.stdout.close()

    def __enter__(self) -> FakeServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
