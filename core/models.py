"""Builds the model client from settings: per-role configs, traces into the store, call context.

Nodes never say who they are: the client asks `langgraph_call_context()`, which reads the flow,
node and run id from LangGraph's config of the task that is running.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Mapping

from core.settings import Settings
from core.settings.sections import DeploymentSettings
from core.store import Store
from core.store.runs import now_iso
from local_llm import ActivitySink, Backend, CallTrace, LLMClient, ModelConfig
from local_llm.backends.local_backend import EMBEDDING_MAX_CTX, LocalBackend
from local_llm.config import LOCAL_MODEL
from local_llm.deployments import Deployment, PoolPolicy

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
        deployments=deployments(settings, role),
        pool=pool_policy(settings),
    )
    return local_config(config, role) if provider == "local" else config


def pool_policy(settings: Settings) -> PoolPolicy:
    """How pools spread their requests ([models.pool])."""
    pool = settings.models.pool
    return PoolPolicy(
        routing=pool.routing,
        allowed_fails=pool.allowed_fails,
        cooldown_s=pool.cooldown_s,
        affinity=pool.affinity,
    )


def deployments(
    settings: Settings, role: str, seen: frozenset[str] = frozenset()
) -> tuple[Deployment, ...]:
    """A role's pool: its deployments (or the [models] ones), then those of its fallback
    roles at higher orders. A role with fallbacks but no deployments is a pool of its one
    model plus them; a role with neither has no pool (). Keys come from the environment."""
    resolved = settings.role(role)
    provider = resolved.provider or settings.models.provider
    own = tuple(
        _deployment(provider, d.model, d.base_url, d.api_key_env, d.max_parallel, d.order, d.name)
        for d in _servers(settings, role)
    )
    fallbacks = [r for r in resolved.fallback_roles or [] if r != role and r not in seen]
    if not fallbacks:
        return own
    pool = own or (_role_model(settings, role),)
    for name in fallbacks:
        theirs = deployments(settings, name, seen | {role}) or (_role_model(settings, name),)
        above = max(d.order for d in pool)
        pool += tuple(dataclasses.replace(d, order=above + d.order) for d in theirs)
    return pool


def _servers(settings: Settings, role: str) -> list[DeploymentSettings]:
    """The deployments a role sets, or else those of [models], unless the role names a model
    of its own (other servers of another model are not its pool)."""
    override = settings.models.roles.get(role) or settings.models.roles.get("default")
    if override is not None and override.deployments is not None:
        return list(override.deployments)
    if override is not None and (override.model or override.base_url or override.provider):
        return []
    return list(settings.models.deployments)


def _role_model(settings: Settings, role: str) -> Deployment:
    """A role's one model as a deployment (for a pool it joins as a fallback)."""
    resolved = settings.role(role)
    return _deployment(
        resolved.provider or settings.models.provider,
        resolved.model or settings.models.model,
        resolved.base_url,
        resolved.api_key_env or "",
    )


def _deployment(
    provider: str,
    model: str,
    base_url: str | None,
    key_env: str = "",
    max_parallel: int = 1,
    order: int = 1,
    name: str = "",
) -> Deployment:
    if provider == "ollama" and not model.startswith(("ollama_chat/", "ollama/")):
        model = f"ollama_chat/{model}"  # a pool reaches Ollama through litellm
    return Deployment(
        model=model,
        base_url=base_url,
        max_parallel=max_parallel,
        order=order,
        name=name,
        api_key=os.environ.get(key_env) if key_env else None,
        api_key_env=key_env,
    )


def local_config(config: ModelConfig, role: str) -> ModelConfig:
    """The bundled model for a role: its one model name, no server address (noema starts
    the server), and for `embedding` the embedding server's smaller context."""
    local = dataclasses.replace(config, model=LOCAL_MODEL, base_url=None, api_key=None)
    if role != "embedding":
        return local
    return dataclasses.replace(
        local,
        context_budget=min(config.context_budget, EMBEDDING_MAX_CTX - 8),
        num_ctx=min(config.context_window, EMBEDDING_MAX_CTX),
    )


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
    metadata: dict[str, object] = config.get("metadata") or {}
    configurable: dict[str, object] = config.get("configurable") or {}
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
            " completion_tokens, latency_ms, outcome, detail, created_at, deployment)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                trace.deployment,
            ),
        )


def build_client(
    settings: Settings,
    store: Store | None,
    backend: Backend | None = None,
    activity: ActivitySink | None = None,
) -> LLMClient:
    """The one model client of the process; `activity` hears of each request as it runs
    (`core.activity.ModelActivity`, for front ends)."""
    return LLMClient(
        model_configs(settings),
        trace_sink=TraceRecorder(store) if store is not None else None,
        backend=backend,
        call_context=langgraph_call_context,
        backends={"local": local_backend(settings)},
        activity=activity,
    )


def uses_bundled_model(settings: Settings, role: str = "default") -> bool:
    """Whether a role is served by the bundled Gemma 3 270M (provider `local`, or the local
    server's model name): a mechanics model, whose results screens must not present as work."""
    resolved = settings.role(role)
    provider = str(resolved.provider or settings.models.provider)
    model = str(resolved.model or settings.models.model)
    return provider == "local" or model.rsplit("/", 1)[-1] == LOCAL_MODEL
