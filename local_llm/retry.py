"""Classifying backend exceptions and retrying the transient ones with backoff and jitter.

Classification is duck-typed (status codes, exception class names, well-known phrases) so this
module needs neither litellm, httpx nor ollama: litellm exceptions carry `status_code`,
ollama's `ResponseError` too, httpx's `HTTPStatusError` has `response.status_code`, and
transport failures are recognised by their class names.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import random
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TypeVar

from local_llm.errors import (
    AuthenticationError,
    ContextWindowError,
    LLMError,
    ModelTimeoutError,
    ModelUnavailableError,
    ModelUnreachableError,
    RateLimitError,
    ServerError,
    TransientModelError,
)

T = TypeVar("T")
log = logging.getLogger(__name__)

sleep = asyncio.sleep
"""The sleep used between retries (tests replace it)."""

MAX_RETRY_AFTER_S = 60.0
"""A 429 asking to wait longer than this is not waited for: the call fails and says so."""

_TIMEOUT_NAMES = frozenset(
    {
        "ConnectTimeout",
        "ReadTimeout",
        "WriteTimeout",
        "PoolTimeout",
        "TimeoutException",
        "APITimeoutError",
        "Timeout",
    }
)
_UNREACHABLE_NAMES = frozenset(
    {
        "ConnectError",
        "RemoteProtocolError",
        "ReadError",
        "APIConnectionError",
        "ServerDisconnectedError",
        "ClientConnectorError",
        "ClientOSError",
    }
)
_SERVER_NAMES = frozenset({"ServiceUnavailableError", "InternalServerError", "BadGatewayError"})
_CONTEXT_PHRASES = (
    "context length",
    "context_length",
    "context window",
    "maximum context",
    "exceeds the available context",
    "exceed_context_size",
    "too many tokens",
    "prompt is too long",
    "input length",
)
_CONNECTION_PHRASES = (
    "connection error",
    "connection refused",
    "cannot connect",
    "all connection attempts failed",
    "connecterror",
    "server disconnected",
    "connection reset",
)
_NOT_FOUND_PHRASES = ("not found", "does not exist", "no such model", "model_not_found")
_NETWORK_ERRNOS = frozenset(
    {
        errno.ECONNREFUSED,
        errno.ECONNRESET,
        errno.ECONNABORTED,
        errno.ENETUNREACH,
        errno.EHOSTUNREACH,
        errno.EADDRNOTAVAIL,
        errno.ENETDOWN,
        errno.EPIPE,
    }
)


def status_code_of(exc: BaseException) -> int | None:
    """The HTTP status an exception carries, if any."""
    for candidate in (exc, getattr(exc, "response", None)):
        code = getattr(candidate, "status_code", None)
        if isinstance(code, int):
            return code
    return None


def retry_after_of(exc: BaseException) -> float | None:
    """Seconds a 429 asks to wait (`Retry-After` header), when the error carries headers."""
    for headers in (
        getattr(getattr(exc, "response", None), "headers", None),
        getattr(exc, "litellm_response_headers", None),
        getattr(exc, "headers", None),
    ):
        value = _header(headers, "retry-after")
        if value is not None:
            try:
                return max(0.0, float(value))
            except ValueError:
                return None
    return None


def _header(headers: object, name: str) -> str | None:
    if not isinstance(headers, Mapping | Iterable):
        return None
    try:
        for key, value in dict(headers).items():
            if str(key).lower() == name:
                return str(value)
    except (TypeError, ValueError):
        return None
    return None


def classify(exc: BaseException) -> BaseException:
    """Map a backend exception to a typed error; unknown non-HTTP errors pass through unchanged.

    Transient: connection refused/reset, timeouts, HTTP 408/429/5xx. HTTP 404 means the model
    is missing; 401/403 a refused key; a 400 about the context length a prompt too large for
    the server. Other HTTP errors (4xx) become plain `LLMError`; `ValueError` and other
    programming errors are returned as they are, so they are never retried blindly.
    """
    if isinstance(exc, LLMError):
        return exc
    code = status_code_of(exc)
    names = {cls.__name__ for cls in type(exc).__mro__}
    text = str(exc)
    message = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    lowered = text.lower()
    if code == 429 or "RateLimitError" in names:
        return RateLimitError(message, retry_after_s=retry_after_of(exc))
    if code in (401, 403) or "AuthenticationError" in names or "PermissionDeniedError" in names:
        return AuthenticationError(message)
    if "ContextWindowExceededError" in names or (
        code in (400, 413, 500) and any(p in lowered for p in _CONTEXT_PHRASES)
    ):
        return ContextWindowError(message)
    if code in (None, 500) and any(p in lowered for p in _CONNECTION_PHRASES):
        return ModelUnreachableError(message)  # litellm reports a refused connection as a 500
    if code == 408 or (code is None and names & _TIMEOUT_NAMES):
        return ModelTimeoutError(message, status_code=code)
    if (code is not None and code >= 500) or names & _SERVER_NAMES:
        return ServerError(message, status_code=code)
    if code == 404 or "NotFoundError" in names:
        return ModelUnavailableError(message)
    if code == 400 and any(p in lowered for p in _NOT_FOUND_PHRASES) and "model" in lowered:
        return ModelUnavailableError(message)
    if code is not None and code >= 400:
        return LLMError(message)
    if isinstance(exc, TimeoutError):
        return ModelTimeoutError(message)
    network = isinstance(exc, OSError) and (
        isinstance(exc, ConnectionError) or exc.errno in _NETWORK_ERRNOS or "gaierror" in names
    )
    if network or names & _UNREACHABLE_NAMES:
        return ModelUnreachableError(message)
    return exc


_RETRY_REASONS = {
    "unreachable": "the server does not answer",
    "timeout": "no answer within the timeout",
    "rate_limit": "rate limited (HTTP 429)",
    "stream_cut": "the answer was cut off",
    "pool_unavailable": "every server of the pool is failing",
}


def retry_reason(typed: BaseException) -> str:
    """A transient failure in a few words for the retry line a person reads.

    The backend's own text (litellm's `Cannot connect to host ... ssl:<ssl.SSLContext object
    at 0x...>`) stays out of it: the final error and the run's traces carry it."""
    reason = getattr(typed, "reason", "")
    if reason == "server_error":
        code = getattr(typed, "status_code", None)
        return f"the server failed (HTTP {code})" if code else "the server failed"
    return _RETRY_REASONS.get(reason, type(typed).__name__)


def backoff_delay(attempt: int, base_s: float, rng: random.Random | None = None) -> float:
    """Exponential backoff with jitter: base * 2**attempt, scaled by a factor in [0.5, 1.0]."""
    factor = rng.uniform(0.5, 1.0) if rng is not None else random.uniform(0.5, 1.0)
    return float(base_s * (2**attempt) * factor)


def _delay(typed: BaseException, attempt: int, backoff_s: float) -> float | None:
    """How long to wait before the next attempt; None when a 429 asks for too long."""
    if isinstance(typed, RateLimitError) and typed.retry_after_s is not None:
        wait = float(typed.retry_after_s)
        return wait if wait <= MAX_RETRY_AFTER_S else None
    return backoff_delay(attempt, backoff_s)


async def with_transient_retry(
    call: Callable[[], Awaitable[T]],
    *,
    retries: int,
    backoff_s: float,
    what: str = "model call",
) -> T:
    """Await `call()`, retrying transient failures up to `retries` times; raise typed errors.

    The typed error raised at the end carries `attempts` (how many requests were made)."""
    attempt = 0
    while True:
        try:
            return await call()
        except Exception as exc:  # noqa: BLE001 - classified below
            typed = classify(exc)
            transient = isinstance(typed, TransientModelError)
            delay = _delay(typed, attempt, backoff_s) if transient else None
            if delay is None or attempt >= retries:
                if isinstance(typed, LLMError):
                    typed.attempts = typed.attempts or attempt + 1
                if typed is exc:
                    raise
                raise typed from exc
            log.warning(
                "%s failed (%s); retry %d/%d in %.2fs",
                what,
                retry_reason(typed),
                attempt + 1,
                retries,
                delay,
            )
            log.debug("%s failed: %s", what, typed)
            attempt += 1
            await sleep(delay)
