"""One mapping from a failure to a message a person can act on, for the CLI and the TUI alike.

A model error (`local_llm.errors`) says what kind of failure it is (`reason`) and which call
failed (`config`, `role`, `attempts`); `explain()` turns it into one line: what failed (naming
the model and its server), the limit that was hit, and the next step (`ollama pull llama3.2`,
`noema demo` for the bundled model, the setting to change). The raw text and the code location
never reach the user: `trace_detail()` keeps them for the run's trace.
"""

from __future__ import annotations

import contextlib
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING

from local_llm.config import LOCAL_MODEL, ModelConfig
from local_llm.errors import ContextBudgetError, LLMError
from local_llm.local_server import LocalServerError

if TYPE_CHECKING:
    from core.store import Store

DOCTOR = "`noema doctor` checks the model"


@dataclass(frozen=True)
class Problem:
    """A failure explained: `line` is what the user reads."""

    reason: str
    """The kind of failure (`unreachable`, `not_found`, `timeout`, ... or `error`)."""
    summary: str
    """What failed and the limit that was hit."""
    next_step: str
    """What to do about it (a command or a setting)."""
    detail: str
    """The raw error, for the trace only."""

    @property
    def line(self) -> str:
        return f"{self.summary}; {self.next_step}" if self.next_step else self.summary

    def __str__(self) -> str:
        return self.line


def describe_model(config: ModelConfig | None) -> str:
    """`llama3.2 at http://127.0.0.1:11434`, `the bundled model (Gemma 3 270M)`, `gpt-4o`,
    `qwen2.5:7b on 3 servers (gpu1:11434, gpu2:11434, gpu3:11434)`."""
    if config is None:
        return "the model"
    if getattr(config, "deployments", ()):
        from local_llm.deployments import describe_pool

        return f"{model_name(config)} on {describe_pool(config.deployments)}"
    if config.provider == "local" or config.model == LOCAL_MODEL:
        return "the bundled model (Gemma 3 270M)"
    name = (
        config.model.split("/", 1)[1]
        if config.model.startswith(("ollama", "openai/"))
        else config.model
    )
    return f"{name} at {config.base_url}" if config.base_url else name


def model_name(config: ModelConfig | None) -> str:
    """The model's name as its server knows it (`llama3.2` for `ollama_chat/llama3.2`)."""
    model = getattr(config, "model", "") or ""
    return model.split("/", 1)[1] if model.startswith(("ollama", "openai/")) else model


def _attempts(exc: LLMError) -> str:
    return f" after {exc.attempts} attempts" if exc.attempts > 1 else ""


Explained = tuple[str, str]
"""(what failed and the limit hit, the next step)."""


def _unreachable(exc: LLMError, config: ModelConfig | None, who: str) -> Explained:
    summary = f"cannot reach {who}{_attempts(exc)}"
    if getattr(config, "deployments", ()):
        return summary, f"start the servers or fix models.deployments; {DOCTOR}"
    if config is not None and config.is_ollama:
        step = (
            "start Ollama (`ollama serve`) or fix models.base_url; or run `noema demo` "
            "to try the bundled model"
        )
    elif config is not None and config.base_url:
        step = f"start the server at {config.base_url} or fix models.base_url; {DOCTOR}"
    else:
        step = f"check the network connection; {DOCTOR}"
    return summary, step


def _not_found(exc: LLMError, config: ModelConfig | None, who: str) -> Explained:
    name = model_name(config)
    if config is not None and config.is_ollama:
        return (
            f"the model {name} is not installed on the Ollama server at {config.base_url}",
            f"run `ollama pull {name}`, or choose an installed one (`noema doctor` lists them)",
        )
    at = f" at {config.base_url}" if config is not None and config.base_url else ""
    return (
        f"the model {name} was not found on the server{at}",
        "set models.model to one the server lists (`noema doctor` lists them)",
    )


def _auth(exc: LLMError, config: ModelConfig | None, who: str) -> Explained:
    env = getattr(config, "api_key_env", "") or ""
    if env and getattr(config, "api_key", None):
        return f"{who} refused the API key from ${env}", f"check the key in ${env}"
    if env:
        return (
            f"{who} needs an API key and ${env} is not set",
            f"export {env}=... (the key) before starting noema",
        )
    return (
        f"{who} needs an API key and none is configured",
        "put the key in an environment variable and name it with models.api_key_env",
    )


def _timeout(exc: LLMError, config: ModelConfig | None, who: str) -> Explained:
    limit = f"{config.timeout_s:g} s (models.timeout_s)" if config is not None else "its time"
    return (
        f"{who} gave no answer within {limit}{_attempts(exc)}",
        f"raise models.timeout_s or use a faster model; {DOCTOR}",
    )


def _rate_limit(exc: LLMError, config: ModelConfig | None, who: str) -> Explained:
    wait = getattr(exc, "retry_after_s", None)
    asked = f", asking to wait {wait:g} s" if wait else ""
    return (
        f"{who} is rate-limited (HTTP 429{asked}){_attempts(exc)}",
        "wait a minute and run the command again",
    )


def _server_error(exc: LLMError, config: ModelConfig | None, who: str) -> Explained:
    code = getattr(exc, "status_code", None) or "5xx"
    return (
        f"the server of {who} failed (HTTP {code}){_attempts(exc)}",
        f"check the server's log and try again; {DOCTOR}",
    )


def _context_window(exc: LLMError, config: ModelConfig | None, who: str) -> Explained:
    ctx = getattr(config, "context_window", "?")
    return (
        f"the prompt is larger than the context {who} runs with (num_ctx {ctx})",
        "lower models.context_budget, or raise models.num_ctx within what the model supports",
    )


def _context_budget(exc: LLMError, config: ModelConfig | None, who: str) -> Explained:
    if not isinstance(exc, ContextBudgetError):  # the reason without its figures
        return _other(exc, config, who)
    where = "/".join(part for part in (exc.flow, exc.node) if part) or "a step"
    return (
        f"{where}: a prompt of {exc.tokens} tokens exceeds the context budget of "
        f"{exc.budget} (models.context_budget)",
        "raise models.context_budget if the model's context allows it, or shorten the input",
    )


def _invalid_answer(exc: LLMError, config: ModelConfig | None, who: str) -> Explained:
    retries = getattr(config, "retries", None)
    limit = f" (models.retries = {retries})" if retries is not None else ""
    return (
        f"{who} gave no valid answer after {exc.attempts} attempts{limit}",
        "try again; a larger model answers more reliably",
    )


def _stream_cut(exc: LLMError, config: ModelConfig | None, who: str) -> Explained:
    return f"the answer from {who} was cut off before the server finished it", "try again"


def _pool_unavailable(exc: LLMError, config: ModelConfig | None, who: str) -> Explained:
    cooling = ", ".join(getattr(exc, "cooling", ()) or ()) or "every server"
    wait = f"{config.pool.cooldown_s:g} s" if config is not None else "a while"
    return (
        f"no server of {who} can answer: {cooling} failed and cool down for up to {wait} "
        "(models.pool.cooldown_s)",
        f"start the servers or fix models.deployments, then try again; {DOCTOR}",
    )


def _local_model(exc: LLMError, config: ModelConfig | None, who: str) -> Explained:
    return _first_line(exc), ""  # the message already says what to do


def _other(exc: LLMError, config: ModelConfig | None, who: str) -> Explained:
    return f"{who}: {_first_line(exc)}", DOCTOR


EXPLAIN = {
    "unreachable": _unreachable,
    "not_found": _not_found,
    "auth": _auth,
    "timeout": _timeout,
    "rate_limit": _rate_limit,
    "server_error": _server_error,
    "context_window": _context_window,
    "context_budget": _context_budget,
    "invalid_answer": _invalid_answer,
    "stream_cut": _stream_cut,
    "local_model": _local_model,
    "pool_unavailable": _pool_unavailable,
}
"""Model error `reason` -> (summary, next step). One entry per kind of failure."""


def _model_problem(exc: LLMError) -> Explained:
    explain_one = EXPLAIN.get(exc.reason, _other)
    who = describe_model(exc.config)
    if exc.deployment and exc.reason != "pool_unavailable":  # one server of a pool failed
        who = f"{model_name(exc.config)} on {exc.deployment} (a server of its pool)"
    return explain_one(exc, exc.config, who)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


def explain(exc: BaseException) -> Problem:
    """The user's message for any failure (model errors mapped by kind; others by type)."""
    detail = trace_detail(exc)
    if isinstance(exc, LLMError):
        summary, step = _model_problem(exc)
        return Problem(exc.reason, summary, step, detail)
    if isinstance(exc, LocalServerError):
        return Problem("local_model", _first_line(exc), "", detail)
    if isinstance(exc, TimeoutError):
        return Problem("timeout", "an operation timed out", "try again", detail)
    text = _first_line(exc)
    summary = text if text == type(exc).__name__ else f"{type(exc).__name__}: {text}"
    return Problem("error", summary, "", detail)


def user_message(exc: BaseException, next_step: str = "") -> str:
    """One line: `explain(exc)`, with a front end's own next step appended (a resume hint)."""
    line = explain(exc).line
    return f"{line}; {next_step}" if next_step else line


def trace_detail(exc: BaseException) -> str:
    """The raw error with where it was raised (and its causes): for traces, never the user."""
    parts: list[str] = []
    current: BaseException | None = exc
    while current is not None and len(parts) < 4:
        frames = traceback.extract_tb(current.__traceback__)
        where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
        parts.append(f"{type(current).__name__}: {current}{where}")
        current = current.__cause__ or current.__context__
    return " <- ".join(parts)[:4000]


def record_failure(store: Store, run_id: str, flow: str, exc: BaseException) -> None:
    """A `failure` row in the run's traces holding the raw error and where it was raised."""
    from core.store.runs import now_iso

    row = (
        run_id,
        flow,
        getattr(exc, "role", "") or "",
        getattr(getattr(exc, "config", None), "model", "") or "",
        trace_detail(exc),
        now_iso(),
    )
    # a trace must never hide the failure itself
    with contextlib.suppress(Exception):
        store.execute(
            "INSERT INTO traces (run_id, flow, node, role, model, kind, outcome, detail,"
            " created_at) VALUES (?, ?, '', ?, ?, 'failure', 'error', ?, ?)",
            row,
        )
