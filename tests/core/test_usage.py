"""Usage from the traces: calls, tokens, latency percentiles and hosted-model cost."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.store import Store
from core.usage import call_cost, daily_series, load_calls, summarize, total

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)

# (day, flow, node, role, model, kind, prompt, completion, latency_ms, outcome)
TRACES = [
    (
        "2026-03-10",
        "extraction",
        "extract",
        "default",
        "ollama_chat/qwen2.5:7b",
        "structured",
        1200,
        300,
        4000.0,
        "ok",
    ),
    (
        "2026-03-10",
        "extraction",
        "critique",
        "judge",
        "gpt-4o-mini",
        "structured",
        1000,
        500,
        900.0,
        "ok",
    ),
    (
        "2026-03-10",
        "extraction",
        "critique",
        "judge",
        "gpt-4o-mini",
        "structured",
        2000,
        0,
        30000.0,
        "error",
    ),
    (
        "2026-03-09",
        "tutor",
        "executor",
        "default",
        "ollama_chat/qwen2.5:7b",
        "stream",
        800,
        200,
        2000.0,
        "ok",
    ),
    (
        "2026-03-09",
        "tutor",
        "planner",
        "default",
        "ollama_chat/qwen2.5:7b",
        "structured",
        900,
        100,
        1000.0,
        "ok",
    ),
    ("2026-03-09", "", "", "embedding", "ollama/nomic-embed-text", "embed", 50, 0, 100.0, "ok"),
    (
        "2026-03-07",
        "lesson",
        "judge",
        "judge",
        "openai/gpt-4o-mini",
        "structured",
        4000,
        1000,
        3000.0,
        "invalid",
    ),
    ("2026-03-09", "tutor", "", "default", "ollama_chat/qwen2.5:7b", "failure", 0, 0, 0.0, "error"),
    (
        "2025-12-01",
        "extraction",
        "extract",
        "default",
        "ollama_chat/qwen2.5:7b",
        "structured",
        10,
        10,
        10.0,
        "ok",
    ),
]


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    for day, flow, node, role, model, kind, prompt, completion, ms, outcome in TRACES:
        store.execute(
            "INSERT INTO traces (run_id, flow, node, role, model, kind, prompt_tokens,"
            " completion_tokens, latency_ms, outcome, detail, created_at)"
            " VALUES ('r', ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?)",
            (
                flow,
                node,
                role,
                model,
                kind,
                prompt,
                completion,
                ms,
                outcome,
                f"{day}T08:00:00+00:00",
            ),
        )
    yield store
    store.close()


def test_calls_in_the_window_without_failure_records(store) -> None:
    calls = load_calls(store, days=30, now=NOW)
    assert len(calls) == 7  # the December call is older; the failure record is no call
    assert len(load_calls(store, days=None)) == 8


def test_by_flow_tokens_latency_and_failures(store) -> None:
    by_flow = {u.key: u for u in summarize(load_calls(store, 30, NOW), "flow")}
    assert list(by_flow) == ["extraction", "tutor", "(no flow)", "lesson"]
    extraction = by_flow["extraction"]
    assert (extraction.calls, extraction.failed) == (3, 1)
    assert (extraction.prompt_tokens, extraction.completion_tokens) == (4200, 800)
    assert extraction.median_ms == 4000.0 and extraction.p95_ms == 30000.0
    tutor = by_flow["tutor"]
    assert tutor.median_ms == 1500.0 and tutor.p95_ms == 2000.0


def test_cost_only_for_models_the_price_map_knows(store) -> None:
    # gpt-4o-mini: $0.15 per million prompt tokens, $0.60 per million completion tokens
    by_model = {u.key: u for u in summarize(load_calls(store, 30, NOW), "model")}
    assert by_model["gpt-4o-mini"].cost == pytest.approx(3000 * 0.15e-6 + 500 * 0.60e-6)
    assert by_model["openai/gpt-4o-mini"].cost == pytest.approx(4000 * 0.15e-6 + 1000 * 0.60e-6)
    assert by_model["ollama_chat/qwen2.5:7b"].cost is None
    assert call_cost("openai/gemma-3-270m", 1000, 1000) is None  # a local server's name
    assert total(load_calls(store, 30, NOW)).cost == pytest.approx(7000 * 0.15e-6 + 1500 * 0.60e-6)


def test_days_in_order_and_a_series_with_empty_days(store) -> None:
    calls = load_calls(store, 30, NOW)
    assert [u.key for u in summarize(calls, "day")] == ["2026-03-07", "2026-03-09", "2026-03-10"]
    series = daily_series(calls, 5, NOW)
    assert [(u.key, u.calls) for u in series] == [
        ("2026-03-06", 0),
        ("2026-03-07", 1),
        ("2026-03-08", 0),
        ("2026-03-09", 3),
        ("2026-03-10", 3),
    ]
