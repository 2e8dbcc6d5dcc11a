"""Reading litellm's answers: the one place their fields are looked up.

litellm types its responses loosely (objects or plain dicts, depending on the provider and on
streaming), so they enter as `object` and leave here as the values noema reads: the answer's
text and finish reason, its token usage and timings, embedding vectors.
"""

from __future__ import annotations

from typing import TypedDict


class Usage(TypedDict):
    """Token accounting of a response (`Completion`'s usage fields); None when not reported."""

    prompt_tokens: int | None
    completion_tokens: int | None
    cached_tokens: int | None
    prompt_ms: float | None
    generation_ms: float | None


def field(row: object, key: str, default: object = None) -> object:
    """`row[key]` of a dict, `row.key` of an object (litellm gives both), else `default`."""
    return row.get(key, default) if isinstance(row, dict) else getattr(row, key, default)


def text_or_none(value: object) -> str | None:
    """`value` when it is a string, else None."""
    return value if isinstance(value, str) else None


def int_or_none(value: object) -> int | None:
    """`value` when it is an integer, else None."""
    return value if isinstance(value, int) else None


def piece_of(chunk: object) -> tuple[str, str | None] | None:
    """The text and finish reason of a stream chunk; None for a chunk without choices (the
    usage chunk at the end)."""
    choice = first_choice(chunk)
    if choice is None:
        return None
    content = field(field(choice, "delta"), "content")
    return text_or_none(content) or "", text_or_none(field(choice, "finish_reason"))


def first_choice(response: object) -> object:
    """The first choice of a response or a stream chunk (None when it has none)."""
    choices = field(response, "choices")
    return choices[0] if isinstance(choices, list | tuple) and choices else None


def answer_of(response: object) -> tuple[str, str | None]:
    """The text of a (non-streamed) answer and its finish reason."""
    choice = first_choice(response)
    content = field(field(choice, "message"), "content")
    return text_or_none(content) or "", text_or_none(field(choice, "finish_reason"))


def usage_of(response: object) -> Usage:
    """Token accounting of a response: prompt and completion tokens, prompt tokens served
    from the server's cache, and the server's time on the prompt and on the answer (llama.cpp's
    `timings`, which litellm passes through), each None when the server does not report it."""
    usage = field(response, "usage")
    details = field(usage, "prompt_tokens_details") if usage is not None else None
    cached = field(details, "cached_tokens") if details is not None else None
    timings = field(response, "timings")
    timed: dict[str, float | None] = {"prompt_ms": None, "generation_ms": None}
    if isinstance(timings, dict):
        for key, name in (("prompt_ms", "prompt_ms"), ("predicted_ms", "generation_ms")):
            if isinstance(timings.get(key), int | float):
                timed[name] = float(timings[key])
        if cached is None and isinstance(timings.get("cache_n"), int):
            cached = timings["cache_n"]
    return {
        "prompt_tokens": int_or_none(field(usage, "prompt_tokens")) if usage is not None else None,
        "completion_tokens": int_or_none(field(usage, "completion_tokens"))
        if usage is not None
        else None,
        "cached_tokens": cached if isinstance(cached, int) else None,
        "prompt_ms": timed["prompt_ms"],
        "generation_ms": timed["generation_ms"],
    }


def vectors_of(response: object) -> list[list[float]]:
    """The embedding vectors of a response, in the order of its inputs (`index`)."""
    data = field(response, "data")
    rows = sorted(data if isinstance(data, list | tuple) else [], key=_index)
    return [_vector(field(row, "embedding")) for row in rows]


def _index(row: object) -> int:
    return int_or_none(field(row, "index", 0)) or 0


def _vector(embedding: object) -> list[float]:
    if not isinstance(embedding, list | tuple):
        raise TypeError(f"an embedding is a list of numbers, got {type(embedding).__name__}")
    return list(embedding)
