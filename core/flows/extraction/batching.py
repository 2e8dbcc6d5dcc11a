"""Batches of quotes sized to the model's context budget (call 1.1a on large sources)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from local_llm.errors import ContextBudgetError

Quote = Mapping[str, str]
MakeMessages = Callable[[Sequence[Quote]], list[dict[str, str]]]
Count = Callable[[list[dict[str, str]]], int]
MAX_QUOTE_CHARS = 4000
"""A single quote longer than this is cut in the prompt (a highlight is rarely a page)."""


def clip_quote(quote: Quote) -> dict[str, str]:
    text = quote["text"]
    return {
        "id": quote["id"],
        "text": text if len(text) <= MAX_QUOTE_CHARS else text[:MAX_QUOTE_CHARS] + "…",
    }


def plan_batches(
    quotes: Sequence[Quote], make: MakeMessages, count: Count, budget: int, max_quotes: int
) -> list[list[str]]:
    """Quote ids per call, in note order: each batch's prompt fits the budget and holds at
    most `max_quotes` quotes. Greedy: a quote that does not fit starts the next batch."""
    batches: list[list[str]] = []
    current: list[Quote] = []
    for quote in (clip_quote(q) for q in quotes):
        trial = [*current, quote]
        if current and (len(trial) > max_quotes or count(make(trial)) > budget):
            batches.append([q["id"] for q in current])
            trial = [quote]
        if count(make(trial)) > budget:
            raise ContextBudgetError(
                flow="extraction",
                node="load_source",
                role="default",
                tokens=count(make(trial)),
                budget=budget,
            )
        current = trial
    if current:
        batches.append([q["id"] for q in current])
    return batches
