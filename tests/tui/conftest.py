"""Fixtures: a copy of the sample vault, settings in tmp dirs, and apps over scripted services.

Helpers tests import (make_settings, seed_runs, settle, wait_for...) live in tests/tui/helpers.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.ingest import index_vault
from core.runtime import FlowSpec
from core.services import open_services
from core.settings import Settings
from local_llm.testing import ScriptedBackend
from tests.tui.helpers import (  # noqa: F401 - the helpers kept here for tests written before
    FIXED_RUNS,  # they moved (import them from tests.tui.helpers)
    AppFactory,
    make_settings,
    seed_runs,
    settle,
    wait_for,
)
from tui.app import NoemaApp
from tui.demo import sample_vault
from tui.registry import DEFAULT_REGISTRY, ScreenRegistry


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    shutil.copytree(sample_vault(), root)
    return root


@pytest.fixture
def settings(vault: Path, tmp_path: Path) -> Settings:
    return make_settings(vault, tmp_path / "data")


@pytest.fixture
def make_app(settings: Settings) -> AppFactory:
    """`make_app(backend=..., flows=..., watch=..., app_settings=..., registry=...)` -> a NoemaApp
    on scripted services."""

    def build(
        backend: ScriptedBackend | None = None,
        flows: dict[str, FlowSpec] | None = None,
        watch: bool = False,
        app_settings: Settings | None = None,
        registry: ScreenRegistry = DEFAULT_REGISTRY,
    ) -> NoemaApp:
        chosen = app_settings or settings
        backend = backend or ScriptedBackend([{"reply": "pong"}])
        services = open_services(chosen, flows or {}, backend=backend)
        index_vault(chosen, services.store)
        return NoemaApp(
            chosen, services=services, vault_label="sample-vault", watch=watch, registry=registry
        )

    return build
