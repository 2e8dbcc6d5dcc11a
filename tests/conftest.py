"""Test-wide guards: no network beyond loopback, isolated config and data directories."""

from __future__ import annotations

import ipaddress
import os
import socket

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_TELEMETRY", "False")

pytest_plugins = ["tests.fixtures.local_model", "tests.fixtures.postgres", "tests.servers.fixtures"]

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


class NetworkBlocked(RuntimeError):
    """A test tried to reach something other than this machine."""


def _is_local(address: object) -> bool:
    if isinstance(address, str):  # AF_UNIX path
        return True
    if isinstance(address, tuple) and address:
        host = str(address[0])
        if host in ("localhost", ""):
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False
    return False


def _guarded_connect(self: socket.socket, address: object) -> None:
    if not _is_local(address):
        raise NetworkBlocked(f"network access to {address!r} is forbidden in tests")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    if not _is_local(address):
        raise NetworkBlocked(f"network access to {address!r} is forbidden in tests")
    return _real_connect_ex(self, address)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Each test sees empty XDG config and data dirs and no NOEMA_ environment."""
    base = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(base / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(base / "data"))
    monkeypatch.setenv("HOME", str(base / "home"))
    for key in list(os.environ):
        if key.startswith("NOEMA_"):
            monkeypatch.delenv(key)
    return base
