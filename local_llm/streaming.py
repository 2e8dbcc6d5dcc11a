"""Reading a streamed answer piece by piece: a stall or a broken connection cuts the answer."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Protocol, TypeVar

from local_llm.config import ModelConfig
from local_llm.errors import LLMError, StreamCutError, TransientModelError
from local_llm.retry import classify


class Configured(Protocol):
    """A call: what `next_piece` reads of it is its model config."""

    @property
    def config(self) -> ModelConfig: ...


Call = TypeVar("Call", bound=Configured)
Piece = TypeVar("Piece")


async def next_piece(
    call: Call,
    iterator: AsyncIterator[Piece],
    pieces: list[str],
    annotate: Callable[[LLMError, Call], LLMError],
) -> Piece | None:
    """The next streamed piece (text, or the backend's closing usage report). A server that stalls longer than the timeout, or whose
    connection breaks mid-answer, cuts the answer: `StreamCutError` with what arrived."""
    config = call.config
    try:
        async with asyncio.timeout(config.timeout_s):
            return await anext(iterator, None)
    except TimeoutError as exc:
        error: LLMError = StreamCutError(
            f"the answer from {config.model} stalled for {config.timeout_s:g} s "
            "(models.timeout_s) after it started",
            text="".join(pieces),
        )
        raise annotate(error, call) from exc
    except StreamCutError as exc:
        exc.text = exc.text or "".join(pieces)
        raise annotate(exc, call) from None
    except Exception as exc:
        typed = classify(exc)
        if not isinstance(typed, TransientModelError):
            raise
        error = StreamCutError(
            f"the answer from {config.model} was cut off: {typed}", text="".join(pieces)
        )
        raise annotate(error, call) from exc
