"""Keeps one `llama-server` alive while some noema process uses it, and not a moment longer.

Run as a script with the standard library only (`python -I supervisor.py ...`, started by
`local_llm.shared_server`), detached from the terminal so Ctrl-C in one noema does not stop a
server another noema uses. Every client process holds an exclusive `flock` on a lease file
in `<key>.leases/`; the kernel drops that lock however the client ends (exit, Ctrl-C, SIGTERM,
kill -9). Twice a second the supervisor counts the leases still locked; when none is left it
stops the server and exits. `llama-server` gets `PR_SET_PDEATHSIG` (Linux), so killing the
supervisor itself still takes the server down: no orphan either way.

Files in the registry directory, for a key such as `chat-4096x1`:
- `<key>.json`: `{"pid", "server_pid", "port", "url"}`, written once the server is healthy.
- `<key>.lock`: clients hold it while they look for or start a server; the supervisor takes
  it before deciding to stop, so a client never picks a server that is about to go.
- `<key>.error`: why the server could not start (the client shows it).
- `<key>.log`: the server's output.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

POLL_S = 0.5
_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def die_with_parent() -> None:
    """In the child, before exec: SIGTERM when the supervisor dies (Linux only)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def live_leases(leases: Path) -> int:
    """Lease files whose owner still holds the lock; the others are removed."""
    live = 0
    for path in list(leases.glob("*.lease")) if leases.is_dir() else []:
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            live += 1
        else:
            with contextlib.suppress(OSError):
                path.unlink()
        finally:
            os.close(fd)
    return live


def health(url: str) -> int | None:
    try:
        with _NO_PROXY.open(f"{url}/health", timeout=2) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except (OSError, ValueError):
        return None


class Supervisor:
    def __init__(self, args: argparse.Namespace):
        self.registry = Path(args.registry)
        self.key = args.key
        self.port = args.port
        self.url = f"http://127.0.0.1:{self.port}"
        self.command = json.loads(args.command)
        self.startup_timeout_s = args.startup_timeout
        self.info = self.registry / f"{self.key}.json"
        self.error = self.registry / f"{self.key}.error"
        self.leases = self.registry / f"{self.key}.leases"
        self.lock = self.registry / f"{self.key}.lock"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> bool:
        log = open(self.registry / f"{self.key}.log", "ab")  # noqa: SIM115 - the child keeps it
        self.process = subprocess.Popen(
            self.command,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            preexec_fn=die_with_parent,  # noqa: PLW1509 - only prctl, no locks taken
        )
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return self.fail(f"llama-server exited with code {self.process.returncode}")
            if health(self.url) == 200:
                self.publish()
                return True
            time.sleep(0.2)
        return self.fail(f"llama-server did not answer within {self.startup_timeout_s:.0f} s")

    def publish(self) -> None:
        assert self.process is not None
        data = {
            "pid": os.getpid(),
            "server_pid": self.process.pid,
            "port": self.port,
            "url": self.url,
            "started": time.time(),
        }
        tmp = self.info.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, self.info)

    def fail(self, reason: str) -> bool:
        self.error.write_text(reason)
        self.stop()
        return False

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            if json.loads(self.info.read_text()).get("pid") == os.getpid():
                self.info.unlink()
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def unused(self) -> bool:
        """No client holds a lease (checked again under the start lock before giving up)."""
        if live_leases(self.leases):
            return False
        with open(self.lock, "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            if live_leases(self.leases):
                return False
            with contextlib.suppress(OSError):
                self.info.unlink()
        return True

    def watch(self) -> int:
        while True:
            time.sleep(POLL_S)
            if self.process is None or self.process.poll() is not None:
                code = None if self.process is None else self.process.returncode
                self.fail(f"llama-server stopped (exit code {code})")
                return 1
            if self.unused():
                self.stop()
                return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--registry", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--command", required=True, help="JSON list: the llama-server command")
    parser.add_argument("--startup-timeout", type=float, default=120.0)
    supervisor = Supervisor(parser.parse_args(argv))

    def on_signal(signum: int, _frame: object) -> None:
        supervisor.stop()
        sys.exit(128 + signum)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, on_signal)
    if not supervisor.start():
        return 1
    return supervisor.watch()


if __name__ == "__main__":
    sys.exit(main())
