"""pytest fixtures for the fake model servers (registered in tests/conftest.py).

`fake_ollama` and `fake_openai` start one server process per test (scripts and logs never leak
between tests); `fake_openai_keyed` requires the API key `FAKE_OPENAI_KEY`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.servers.handle import FakeServer

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
