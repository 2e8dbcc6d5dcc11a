"""Health of a pool: which of a role's servers answer and have their model.

A pool can work while some of its servers are down (the Router sends their work to the
others), so the pool is usable when at least one first-order server answers with its model;
the check names every server that does not, with the fix. No model request is made.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from core.problems import explain, model_name
from local_llm import ModelConfig
from local_llm.catalog import list_server_models, same_model, server_kind
from local_llm.deployments import Deployment


@dataclass(frozen=True)
class ServerState:
    """One server of a pool: does it answer with its model, and if not, why."""

    deployment: Deployment
    ok: bool
    detail: str
    fix: str = ""


@dataclass(frozen=True)
class PoolState:
    """Every server of a pool, first-order ones first."""

    servers: tuple[ServerState, ...]

    @property
    def usable(self) -> bool:
        """At least one server of the first order answers with its model."""
        first = min(s.deployment.order for s in self.servers)
        return any(s.ok for s in self.servers if s.deployment.order == first)

    @property
    def summary(self) -> str:
        """`2 of 3 servers answer; gpu3:11434: cannot reach ... (fix)`."""
        good = sum(s.ok for s in self.servers)
        bad = [f"{s.deployment.label}: {s.detail}" for s in self.servers if not s.ok]
        head = f"{good} of {len(self.servers)} servers answer with their model"
        return "; ".join([head, *bad])

    @property
    def fix(self) -> str:
        return next((s.fix for s in self.servers if not s.ok and s.fix), "")


async def check_pool(config: ModelConfig, timeout_s: float = 3.0) -> PoolState:
    """List the models of every server of the pool at once."""
    states = await asyncio.gather(
        *(_check_server(config, d, timeout_s) for d in config.deployments)
    )
    return PoolState(tuple(states))


async def _check_server(
    config: ModelConfig, deployment: Deployment, timeout_s: float
) -> ServerState:
    target = config.for_deployment(deployment)
    name = model_name(target)
    if server_kind(target) == "hosted":
        return ServerState(deployment, True, f"{name}: hosted, not checked")
    try:
        models = await list_server_models(target, timeout_s=timeout_s, details=False)
    except Exception as exc:  # noqa: BLE001 - reported as this server's state
        if getattr(exc, "config", "missing") is None:
            exc.config = target  # type: ignore[attr-defined]
        problem = explain(exc)
        fix = problem.next_step.replace("models.base_url", "its entry in models.deployments")
        return ServerState(deployment, False, problem.summary, fix)
    if any(same_model(m.name, target.model) for m in models):
        return ServerState(deployment, True, f"{name} is there")
    fix = f"run `ollama pull {name}` on it" if target.is_ollama else "load the model on it"
    return ServerState(deployment, False, f"{name} is not on it", fix)
