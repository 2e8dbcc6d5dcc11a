"""Figures of a stretch of work from its model requests' traces (for bench/local_model.py).

`Collector` sits between the model client and its trace sink and keeps every `CallTrace`
under the label of the workflow that was running; `figures_of(traces, wall_s)` sums them:
requests, invalid answers, re-asks, answers cut at the limit, prompt tokens sent, evaluated
and served from the server's cache, tokens generated, and the time at least one request was
in flight (overlapping requests count once), so that wall - model time is noema's own time.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from local_llm import CallTrace, LLMClient


class Collector:
    """Keeps the traces of a client by label, and hands them on to its original sink."""

    def __init__(self) -> None:
        self.label = ""
        self._traces: list[tuple[str, CallTrace]] = []
        self._sink: Any = None

    def attach(self, llm: LLMClient) -> None:
        self._sink = llm.trace_sink
        llm.trace_sink = self

    def __call__(self, trace: CallTrace) -> None:
        self._traces.append((self.label, trace))
        if self._sink is not None:
            self._sink(trace)

    @contextlib.contextmanager
    def labelled(self, label: str) -> Iterator[None]:
        previous, self.label = self.label, label
        try:
            yield
        finally:
            self.label = previous

    def traces(self, label: str) -> list[CallTrace]:
        return [trace for name, trace in self._traces if name == label]


def busy_seconds(traces: list[CallTrace]) -> float:
    """Seconds during which at least one request was in flight (the union of intervals)."""
    spans = sorted((t.started, t.started + t.latency_ms / 1000) for t in traces if t.started)
    total, end = 0.0, float("-inf")
    for start, stop in spans:
        if stop <= end:
            continue
        total += stop - max(start, end)
        end = stop
    return total


def figures_of(traces: list[CallTrace], wall_s: float) -> dict[str, Any]:
    """The figures of one workflow (or of all of them) from its traces."""
    requests = [t for t in traces if t.kind in ("structured", "stream")]
    answered = [t for t in requests if t.outcome in ("ok", "invalid")]
    prompt = sum(t.prompt_tokens for t in answered)
    cached = sum(t.cached_tokens or 0 for t in answered)
    model_s = busy_seconds(traces)
    own_s = max(0.0, wall_s - model_s)
    structured = [t for t in answered if t.kind == "structured"]
    invalid = sum(1 for t in structured if t.outcome == "invalid")
    return {
        "wall_s": round(wall_s, 2),
        "calls": len(requests),
        "structured_calls": len(structured),
        "stream_calls": len(requests) - len(structured),
        "embedding_requests": sum(1 for t in traces if t.kind == "embed"),
        "invalid": invalid,
        "invalid_pct": round(100 * invalid / len(structured), 1) if structured else 0.0,
        "reasks": sum(1 for t in requests if t.attempt > 1),
        "errors": sum(1 for t in requests if t.outcome in ("error", "budget")),
        "cut": sum(1 for t in answered if t.cut),
        "prompt_tokens": prompt,
        "cached_tokens": cached,
        "evaluated_tokens": prompt - cached,
        "cached_pct": round(100 * cached / prompt, 1) if prompt else 0.0,
        "generated_tokens": sum(t.completion_tokens for t in answered),
        "model_s": round(model_s, 2),
        "server_prompt_s": round(sum(t.prompt_ms or 0.0 for t in answered) / 1000, 2),
        "server_generation_s": round(sum(t.generation_ms or 0.0 for t in answered) / 1000, 2),
        "own_s": round(own_s, 3),
        "own_pct": round(100 * own_s / wall_s, 2) if wall_s else 0.0,
        "nodes": _per_node(answered),
    }


def _per_node(traces: list[CallTrace]) -> dict[str, dict[str, Any]]:
    nodes: dict[str, dict[str, Any]] = {}
    for t in traces:
        entry = nodes.setdefault(
            t.node or "?",
            {
                "calls": 0,
                "invalid": 0,
                "cut": 0,
                "prompt": 0,
                "cached": 0,
                "generated": 0,
                "max_generated": 0,
                "max_tokens": 0,
                "unbounded_schema": 0,
                "problems": [],
            },
        )
        entry["calls"] += 1
        entry["invalid"] += t.outcome == "invalid"
        entry["cut"] += t.cut
        entry["prompt"] += t.prompt_tokens
        entry["cached"] += t.cached_tokens or 0
        entry["generated"] += t.completion_tokens
        entry["max_generated"] = max(entry["max_generated"], t.completion_tokens)
        entry["max_tokens"] = max(entry["max_tokens"], t.max_tokens)
        bound = getattr(t, "answer_bound", None)  # absent from a baseline's traces
        entry["unbounded_schema"] += t.kind == "structured" and bound is None
        problem = t.detail.replace("\n", " ")[:200]
        if (
            t.outcome == "invalid"
            and problem not in entry["problems"]
            and len(entry["problems"]) < 3
        ):
            entry["problems"].append(problem)
    return nodes
