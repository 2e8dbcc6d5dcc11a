"""What the models were used for, from the traces: calls, prompt and completion tokens,
latency (median, p95) and, for hosted models, cost, grouped by flow, role, model or day.

Costs come from litellm's offline cost map (the JSON file the litellm package ships), read
without importing litellm (seconds) and without a network request; a model the map does not
price (Ollama, llama.cpp, the bundled model) costs nothing and shows no cost.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from core.store import Store

Grouping = Literal["flow", "role", "model", "day"]
GROUPINGS: tuple[Grouping, ...] = ("flow", "role", "model", "day")
MODEL_CALLS = ("structured", "stream", "embed")
"""Trace kinds that are model requests (failure records are not)."""
COST_MAP = "model_prices_and_context_window_backup.json"


@dataclass(frozen=True)
class Call:
    """One model request as the traces record it."""

    flow: str
    role: str
    model: str
    day: str
    """The UTC day (YYYY-MM-DD) it was made."""
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    ok: bool


@dataclass
class Usage:
    """The calls of one group (a flow, a role, a model or a day)."""

    key: str
    calls: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latencies: list[float] = field(default_factory=list, repr=False)
    cost: float | None = None
    """US dollars, for the calls to models the cost map prices (None: none priced)."""

    def add(self, call: Call) -> None:
        self.calls += 1
        self.failed += 0 if call.ok else 1
        self.prompt_tokens += call.prompt_tokens
        self.completion_tokens += call.completion_tokens
        self.latencies.append(call.latency_ms)
        price = call_cost(call.model, call.prompt_tokens, call.completion_tokens)
        if price is not None:
            self.cost = (self.cost or 0.0) + price

    @property
    def median_ms(self) -> float:
        return statistics.median(self.latencies) if self.latencies else 0.0

    @property
    def p95_ms(self) -> float:
        """The 95th percentile latency (nearest rank)."""
        if not self.latencies:
            return 0.0
        ordered = sorted(self.latencies)
        return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def load_calls(store: Store, days: int | None = 30, now: datetime | None = None) -> list[Call]:
    """The model requests of the last `days` days (all of them for None), oldest first."""
    since = ""
    if days is not None:
        since = ((now or datetime.now(UTC)) - timedelta(days=days)).isoformat()
    placeholders = ",".join("?" for _ in MODEL_CALLS)
    rows = store.query(
        "SELECT flow, role, model, created_at, prompt_tokens, completion_tokens, latency_ms,"
        f" outcome FROM traces WHERE kind IN ({placeholders}) AND created_at >= ?"
        " ORDER BY created_at",
        (*MODEL_CALLS, since),
    )
    return [
        Call(
            row[0] or "(no flow)",
            row[1] or "(no role)",
            row[2] or "(unknown)",
            row[3][:10],
            int(row[4]),
            int(row[5]),
            float(row[6]),
            row[7] == "ok",
        )
        for row in rows
    ]


def summarize(calls: Iterable[Call], by: Grouping) -> list[Usage]:
    """One `Usage` per group; days in date order, other groups by calls (most first)."""
    groups: dict[str, Usage] = defaultdict(lambda: Usage(""))
    for call in calls:
        key = getattr(call, by)
        usage = groups[key]
        usage.key = key
        usage.add(call)
    if by == "day":
        return [groups[key] for key in sorted(groups)]
    return sorted(groups.values(), key=lambda u: (-u.calls, u.key))


def total(calls: Iterable[Call]) -> Usage:
    """Every call in one `Usage`."""
    usage = Usage("total")
    for call in calls:
        usage.add(call)
    return usage


def daily_series(calls: list[Call], days: int, now: datetime | None = None) -> list[Usage]:
    """One `Usage` per day of the last `days` days, days without calls included (a chart's
    x axis)."""
    today = (now or datetime.now(UTC)).date()
    by_day = {u.key: u for u in summarize(calls, "day")}
    keys = [(today - timedelta(days=n)).isoformat() for n in range(days - 1, -1, -1)]
    return [by_day.get(key, Usage(key)) for key in keys]


@lru_cache(maxsize=1)
def cost_map() -> dict[str, dict[str, Any]]:
    """litellm's offline cost map (empty when litellm is not installed)."""
    spec = find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = Path(next(iter(spec.submodule_search_locations))) / COST_MAP
    try:
        costs: dict[str, dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
        return costs
    except (OSError, ValueError):
        return {}


def _price(model: str) -> tuple[float, float] | None:
    prices = cost_map()
    entry = prices.get(model)
    if entry is None and "/" in model:  # `openai/gpt-4o-mini`: the map says `gpt-4o-mini`
        provider, name = model.split("/", 1)
        candidate = prices.get(name)
        if candidate is not None and candidate.get("litellm_provider") == provider:
            entry = candidate
    if not entry:
        return None
    prompt, completion = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
    if prompt is None or completion is None or (prompt == 0 and completion == 0):
        return None
    return float(prompt), float(completion)


def call_cost(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """What one call cost in US dollars, for a model the cost map prices (else None)."""
    price = _price(model)
    if price is None:
        return None
    return prompt_tokens * price[0] + completion_tokens * price[1]
