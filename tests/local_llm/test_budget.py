"""Prompts are counted before sending; over budget is an error naming the caller."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from local_llm import CallTrace, ContextBudgetError, LLMClient, ModelConfig
from local_llm.testing import ScriptedBackend
from local_llm.tokens import count_messages, count_text


class Answer(BaseModel):
    text: str


def _client(budget: int, traces: list[CallTrace], responses=()):
    config = ModelConfig(model="m", context_budget=budget)
    backend = ScriptedBackend(list(responses))
    roles = {"default": config, "embedding": config}
    return LLMClient(roles, backend=backend, trace_sink=traces.append), backend


def test_counting_is_conservative_and_grows_with_text():
    assert count_text("") == 0
    assert count_text("abc") == 1
    assert count_text("ñ" * 3) == 2  # 6 UTF-8 bytes
    short = count_messages([{"role": "user", "content": "hi"}])
    long = count_messages([{"role": "user", "content": "hi " * 400}])
    assert long > short + 300
    # English prose averages ~4 chars per real token; the estimate must not undercount it
    prose = "The quick brown fox jumps over the lazy dog. " * 50
    assert count_text(prose) >= len(prose) / 4


async def test_over_budget_raises_before_sending_and_names_the_caller():
    traces: list[CallTrace] = []
    client, backend = _client(300, traces, [{"text": "never"}])
    messages = [{"role": "user", "content": "x" * 3000}]
    with pytest.raises(ContextBudgetError) as caught:
        await client.structured(messages, Answer, role="judge", flow="lessons", node="review")
    error = caught.value
    assert (error.flow, error.node, error.role, error.budget) == ("lessons", "review", "judge", 300)
    assert error.tokens == client.count_tokens(messages) > 300
    assert "lessons/review" in str(error) and "'judge'" in str(error)
    assert backend.calls == []
    assert [t.outcome for t in traces] == ["budget"]


async def test_prompt_exactly_at_budget_is_sent():
    traces: list[CallTrace] = []
    messages = [{"role": "user", "content": "y" * 600}]
    client, backend = _client(count_messages(messages), traces, [{"text": "ok"}])
    assert (await client.structured(messages, Answer)).text == "ok"
    assert len(backend.calls) == 1


async def test_a_growing_reask_is_checked_against_the_budget_too():
    traces: list[CallTrace] = []
    messages = [{"role": "user", "content": "z" * 600}]
    budget = count_messages(messages) + 10
    client, backend = _client(budget, traces, ["w" * 600, {"text": "never"}])
    with pytest.raises(ContextBudgetError):
        await client.structured(messages, Answer)
    assert len(backend.calls) == 1
    assert [t.outcome for t in traces] == ["invalid", "budget"]


async def test_stream_and_embed_check_the_budget():
    traces: list[CallTrace] = []
    client, backend = _client(50, traces)
    with pytest.raises(ContextBudgetError):
        async for _ in client.stream([{"role": "user", "content": "s" * 500}], node="chat"):
            pass
    with pytest.raises(ContextBudgetError) as caught:
        await client.embed(["fine", "e" * 500], node="index")
    assert caught.value.role == "embedding" and caught.value.node == "index"
    assert backend.calls == []
