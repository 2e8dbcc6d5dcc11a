"""The bundled model's servers, shared by every noema process of one data directory.

Why shared: on a 2-core machine the TUI and a CLI command running at once would each start
llama.cpp, and two servers decoding side by side halve both (llama.cpp's threads spin on the
cores). So the first process that needs the model starts one server per (mode, context size)
through a small supervisor (`local_llm/supervisor.py`), and the others find it in the registry
directory and use it. Each user holds a lease (an `flock` the kernel releases however the
process ends); the supervisor stops the server when the last lease is gone, and the server
dies with its supervisor (`PR_SET_PDEATHSIG`). Nothing is left running after noema exits,
whether it quit, was interrupted, terminated or killed. (Where there is no PR_SET_PDEATHSIG,
macOS, only a kill -9 of the supervisor itself could leave its server behind; POSIX `flock`
is needed, so the `local` provider does not run on Windows.)

Why a supervisor rather than the first noema owning the server: the first process may be a
short CLI command while the TUI keeps using the server; a server owned by whoever started it
would die under the other. The supervisor belongs to no noema process and lives exactly as
long as some noema process holds a lease.

    server = SharedServer(registry_dir, "chat", ctx_size=4096)
    url = server.acquire()          # starts or joins; blocks until the server is healthy
    ...
    server.release()                # or let the process end
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypedDict

from local_llm.local_server import (
    LocalServer,
    LocalServerError,
    Mode,
    free_port,
)

SUPERVISOR = Path(__file__).with_name("supervisor.py")


class ServerInfo(TypedDict):
    """A running server as its supervisor registers it (`<key>.json`, local_llm.supervisor)."""

    pid: int
    """The supervisor's process."""
    server_pid: int
    port: int
    url: str


LOOPBACK_DOWN = (
    "the loopback interface (127.0.0.1) is down, so the bundled model's server cannot be "
    "reached: bring it up (`ip link set lo up`) or run noema where it is up"
)


def check_loopback(timeout_s: float = 1.0) -> None:
    """Raise `LocalServerError` at once when 127.0.0.1 cannot be listened on and reached
    (a network namespace such as `unshare -n` leaves `lo` down)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
            server.bind(("127.0.0.1", 0))
            server.listen(1)
            with socket.create_connection(server.getsockname(), timeout=timeout_s):
                pass
    except OSError as exc:
        raise LocalServerError(f"{LOOPBACK_DOWN} ({exc.strerror or exc})") from None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class SharedServer:
    """One llama-server (chat or embedding) of a registry directory, started or joined."""

    def __init__(
        self,
        registry: Path,
        mode: Mode = "chat",
        *,
        ctx_size: int = 4096,
        parallel: int = 1,
        startup_timeout_s: float = 120.0,
        model: Path | None = None,
        command: Callable[[int], list[str]] | None = None,
    ):
        """`command(port)` replaces the llama-server command line (tests run a stand-in)."""
        self.registry, self.mode = Path(registry), mode
        self._command_for = command
        self.ctx_size, self.parallel = ctx_size, parallel
        self.startup_timeout_s = startup_timeout_s
        self._model = model
        self.key = f"{mode}-{ctx_size}x{parallel}"
        self._lease: int | None = None
        self._info: ServerInfo | None = None
        self.joined = False
        """Whether the last `acquire()` joined a server another process had started."""
        self._supervisor: subprocess.Popen[bytes] | None = None
        """The supervisor this process started (its pid stays "alive" as a zombie otherwise)."""
        self._lock = threading.Lock()
        self.starting = False
        """Whether `acquire()` is starting or looking for the server right now."""

    @property
    def log_path(self) -> Path:
        return self.registry / f"{self.key}.log"

    @property
    def url(self) -> str | None:
        """The server's root URL while acquired (OpenAI-compatible API under `/v1`)."""
        return self._info["url"] if self._info else None

    def acquire(self) -> str:
        """The URL of a healthy server, starting one when none runs; blocks meanwhile."""
        with self._lock:
            if self._info is not None and self._alive(int(self._info["pid"])):
                return str(self._info["url"])
            check_loopback()
            self.registry.mkdir(parents=True, exist_ok=True)
            if self._lease is None:
                self._lease = self._take_lease()
            self.starting = True
            try:
                with self._start_lock():
                    running = self._running()
                    self.joined = running is not None
                    self._info = running or self._spawn()
            finally:
                self.starting = False
            return str(self._info["url"])

    def state(self) -> str:
        """`running on port N`, `starting`, or `stopped`, as far as this process knows."""
        info = self._info
        if info is not None and self._alive(int(info["pid"])):
            return f"running on port {info['port']}"
        return "starting" if self.starting else "stopped"

    def release(self) -> None:
        """Give up this process's lease (the supervisor stops the server when none is left)."""
        with self._lock:
            if self._lease is not None:
                os.close(self._lease)
                self._lease = None
            self._info = None

    # -- internals ------------------------------------------------------------------------

    def _alive(self, pid: int) -> bool:
        if self._supervisor is not None and self._supervisor.pid == pid:
            return self._supervisor.poll() is None
        return _pid_alive(pid)

    def _take_lease(self) -> int:
        """A locked lease file, renamed into the leases folder only once it is locked."""
        leases = self.registry / f"{self.key}.leases"
        leases.mkdir(exist_ok=True)
        name = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        tmp = self.registry / f".{name}.lease-tmp"
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.replace(tmp, leases / f"{name}.lease")
        return fd

    @contextlib.contextmanager
    def _start_lock(self) -> Iterator[None]:
        with open(self.registry / f"{self.key}.lock", "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield

    def _running(self) -> ServerInfo | None:
        """The registered server, when its supervisor lives and it answers."""
        try:
            info: ServerInfo = json.loads((self.registry / f"{self.key}.json").read_text())
        except (OSError, ValueError):
            return None
        probe = LocalServer(self.mode, port=int(info["port"]))
        if self._alive(int(info["pid"])) and probe.health() == 200:
            return info
        return None

    def _command(self, port: int) -> list[str]:
        if self._command_for is not None:
            return self._command_for(port)
        server = LocalServer(
            self.mode, ctx_size=self.ctx_size, parallel=self.parallel, port=port, model=self._model
        )
        return server.command()

    def _spawn(self) -> ServerInfo:
        port = free_port()
        error = self.registry / f"{self.key}.error"
        with contextlib.suppress(OSError):
            error.unlink()
        command = [
            sys.executable,
            "-I",
            str(SUPERVISOR),
            "--registry",
            str(self.registry),
            "--key",
            self.key,
            "--port",
            str(port),
            "--command",
            json.dumps(self._command(port)),
            "--startup-timeout",
            str(self.startup_timeout_s),
        ]
        with open(self.log_path, "ab") as log:
            supervisor = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,
            )
        self._supervisor = supervisor
        return self._wait_published(supervisor, error)

    def _wait_published(self, supervisor: subprocess.Popen[bytes], error: Path) -> ServerInfo:
        deadline = time.monotonic() + self.startup_timeout_s + 5
        while time.monotonic() < deadline:
            if supervisor.poll() is not None:
                reason = error.read_text() if error.exists() else f"exit {supervisor.returncode}"
                raise LocalServerError(
                    f"the bundled model's {self.mode} server did not start: {reason} "
                    f"(its log: {self.log_path})"
                )
            info = self._running()
            if info is not None and info["pid"] == supervisor.pid:
                return info
            time.sleep(0.1)
        supervisor.terminate()
        raise LocalServerError(
            f"the bundled model's {self.mode} server did not answer within "
            f"{self.startup_timeout_s:.0f} s (its log: {self.log_path})"
        )
