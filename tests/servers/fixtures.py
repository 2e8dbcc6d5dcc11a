"""pytest fixtures for the fake model servers (registered in tests/conftest.py).

`fake_ollama` and `fake_openai` start one server process per test (scripts and logs never leak
between tests); `fake_openai_keyed` requires the API key `FAKE_OPENAI_KEY`; `fake_servers` starts several (paced
like real servers when asked) for the tests of a pool.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.servers.handle import FakeServer, Kind

FAKE_OPENAI_KEY = "sk-fake-test-key-0123456789"


@pytest.fixture
def fake_ollama() -> Iterator[FakeServer]:
    """An Ollama-compatible server with `llama3.2:latest` and `nomic-embed-text:latest`."""
    with FakeServer.start("ollama") as server:
        yield server


@pytest.fixture
def fake_openai() -> Iterator[FakeServer]:
    """An OpenAI-compatible server (models `gpt-fake`, `embed-fake`), no key required."""
    with FakeServer.start("openai") as server:
        yield server


@pytest.fixture
def fake_openai_keyed() -> Iterator[FakeServer]:
    """An OpenAI-compatible server that answers 401 without `Bearer FAKE_OPENAI_KEY`."""
    with FakeServer.start("openai", api_key=FAKE_OPENAI_KEY) as server:
        yield server


@pytest.fixture
def fake_servers() -> Iterator[Callable[..., list[FakeServer]]]:
    """`fake_servers(3, "openai", latency_ms=100, slots=1)`: that many server processes
    (stopped at the end of the test), e.g. the deployments of a pool."""
    started: list[FakeServer] = []

    def start(count: int, kind: Kind = "openai", **options: Any) -> list[FakeServer]:
        servers = [FakeServer.start(kind, **options) for _ in range(count)]
        started.extend(servers)
        return servers

    yield start
    for server in started:
        server.stop()
