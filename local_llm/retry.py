"""Classifying backend exceptions and retrying the transient ones with backoff and jitter.

Classification is duck-typed (status codes and exception class names) so this module needs
neither litellm, httpx nor ollama: litellm exceptions carry `status_code`, ollama's
`ResponseError` too, httpx's `HTTPStatusError` has `response.status_code`, and transport
failures are recognised by their class names.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

from local_llm.errors import LLMError, ModelUnavailableError, TransientModelError

T = TypeVar("T")
log = logging.getLogger(__name__)

sleep = asyncio.sleep
"""The sleep used between retries (tests replace it)."""

_TRANSIENT_NAMES = frozenset(
    {
        "ConnectError",
        "ConnectTimeout",
        "ReadTimeout",
        "WriteTimeout",
        "PoolTimeout",
        "TimeoutException",
        "RemoteProtocolError",
        "ReadError",
        "APIConnectionError",
        "APITimeoutError",
        "Timeout",
        "ServiceUnavailableError",
        "InternalServerError",
        "RateLimitError",
        "BadGatewayError",
    }
)


def status_code_of(exc: BaseException) -> int | None:
    """The HTTP status an exception carries, if any."""
    for candidate in (exc, getattr(exc, "response", None)):
        code = getattr(candidate, "status_code", None)
        if isinstance(code, int):
            return code
    return None


def classify(exc: BaseException) -> BaseException:
    """Map a backend exception to a typed error; unknown non-HTTP errors pass through unchanged.

    Transient: connection refused/reset, timeouts, HTTP 408/429/5xx. HTTP 404 means the model
    is missing. Other HTTP errors (4xx) become plain `LLMError`; `ValueError` and other
    programming errors are returned as they are, so they are never retried blindly.
    """
    if isinstance(exc, LLMError):
        return exc
    code = status_code_of(exc)
    names = {cls.__name__ for cls in type(exc).__mro__}
    message = f"{type(exc).__name__}: {exc}"
    if code in (408, 429) or (code is not None and code >= 500):
        return TransientModelError(message, status_code=code)
    if code == 404:
        return ModelUnavailableError(message)
    if code is not None and code >= 400:
        return LLMError(message)
    if isinstance(exc, ConnectionError | TimeoutError) or names & _TRANSIENT_NAMES:
        return TransientModelError(message)
    return exc


def backoff_delay(attempt: int, base_s: float, rng: random.Random | None = None) -> float:
    """Exponential backoff with jitter: base * 2**attempt, scaled by a factor in [0.5, 1.0]."""
    factor = (rng or random).uniform(0.5, 1.0)
    return base_s * (2**attempt) * factor


async def with_transient_retry(
    call: Callable[[], Awaitable[T]],
    *,
    retries: int,
    backoff_s: float,
    what: str = "model call",
) -> T:
    """Await `call()`, retrying transient failures up to `retries` times; raise typed errors."""
    attempt = 0
    while True:
        try:
            return await call()
        except Exception as exc:  # noqa: BLE001 - classified below
            typed = classify(exc)
            if not isinstance(typed, TransientModelError) or attempt >= retries:
                if typed is exc:
                    raise
                raise typed from exc
            delay = backoff_delay(attempt, backoff_s)
            log.warning(
                "%s failed (%s); retry %d/%d in %.2fs", what, typed, attempt + 1, retries, delay
            )
            attempt += 1
            await sleep(delay)
