"""Builds the model client from settings: per-role configs, traces into the store, call context.

Nodes never say who they are: the client asks `langgraph_call_context()`, which reads the flow,
node and run id from LangGraph's config of the task that is running.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Mapping
from typing import Any

from core.settings import Settings
from core.store import Store
from core.store.runs import now_iso
from local_llm import Backend, CallTrace, LLMClient, ModelConfig
from local_llm.backends.local_backend import EMBEDDING_MAX_CTX, LocalBackend
from local_llm.config import LOCAL_MODEL

STANDARD_ROLES = ("default", "judge", "judge_secondary", "embedding")


def role_config(settings: Settings, role: str) -> ModelConfig:
    """The resolved ModelConfig of one role; its API key is read from the environment only."""
    resolved = settings.role(role)
    models = settings.models
    key_env = resolved.api_key_env or ""
    provider = resolved.provider or models.provider
    config = ModelConfig(
        provider=provider,
        model=resolved.model or models.model,
        base_url=resolved.base_url,
        api_key=os.environ.get(key_env) if key_env else None,
        api_key_env=key_env,
        temperature=resolved.temperature
        if resolved.temperature is not None
        else models.temperature,
        context_budget=resolved.context_budget or models.context_budget,
        max_tokens=resolved.max_tokens or models.max_tokens,
        num_ctx=resolved.num_ctx,
        keep_alive=models.keep_alive or None,
        timeout_s=models.timeout_s,
        retries=models.retries,
        transient_retries=models.transient_retries,
        backoff_s=models.backoff_s,
    )
    return local_config(config, role) if provider == "local" else config


def local_config(config: ModelConfig, role: str) -> ModelConfig:
    """The bundled model for a role: its one model name, no server address (noema starts
    the server), and for `embedding` the embedding server's smaller context."""
    changes: dict[str, Any] = {"model": LOCAL_MODEL, "base_url": None, "api_key": None}
    if role == "embedding":
        budget = min(config.context_budget, EMBEDDING_MAX_CTX - 8)
        changes.update(context_budget=budget, num_ctx=min(config.context_window, EMBEDDING_MAX_CTX))
    return dataclasses.replace(config, **changes)


def local_backend(settings: Settings) -> LocalBackend:
    """The backend of `provider = "local"`: servers shared by the processes of this data dir."""
    return LocalBackend(settings.data_dir / "local-model", parallel=settings.models.local_slots)


def model_configs(settings: Settings) -> dict[str, ModelConfig]:
    """A ModelConfig for every standard role and every role named in settings."""
    roles = dict.fromkeys([*STANDARD_ROLES, *settings.models.roles])
    return {role: role_config(settings, role) for role in roles}


def langgraph_call_context() -> Mapping[str, str]:
    """Flow, node and run id of the LangGraph task making the call ({} outside a graph)."""
    if "langgraph.config" not in sys.modules:
        return {}  # no graph has run in this process (doctor, demo): no need to import it
    from langgraph.config import get_config

    try:
        config = get_config()
    except RuntimeError:
        return {}
    metadata: dict[str, Any] = config.get("metadata") or {}
    configurable: dict[str, Any] = config.get("configurable") or {}
    return {
        "flow": str(metadata.get("flow", "")),
        "node": str(metadata.get("langgraph_node", "")),
        "run_id": str(metadata.get("run_id") or configurable.get("thread_id") or ""),
    }


class TraceRecorder:
    """The trace sink: one row in `traces` per model request."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def __call__(self, trace: CallTrace) -> None:
        self.store.execute(
            "INSERT INTO traces (run_id, flow, node, role, model, kind, prompt_tokens,"
            " completion_tokens, latency_ms, outcome, detail, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                trace.run_id or None,
                trace.flow,
                trace.node,
                trace.role,
                trace.model,
                trace.kind,
                trace.prompt_tokens,
                trace.completion_tokens,
                round(trace.latency_ms, 3),
                trace.outcome,
                trace.detail[:2000],
                now_iso(),
            ),
        )


def build_client(
    settings: Settings, store: Store | None, backend: Backend | None = None
) -> LLMClient:
    """The one model client of the process."""
    return LLMClient(
        model_configs(settings),
        trace_sink=TraceRecorder(store) if store is not None else None,
        backend=backend,
        call_context=langgraph_call_context,
        backends={"local": local_backend(settings)},
    )
