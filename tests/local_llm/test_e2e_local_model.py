"""Against the real local model (llama.cpp + Gemma 3 270M): mechanics and validity, not wisdom."""

from __future__ import annotations

import statistics
import time

import pytest
from pydantic import BaseModel, Field

from local_llm import CallTrace, LLMClient, StructuredOutputError, bounded_schema

pytestmark = pytest.mark.e2e

QUOTES = {
    "q-attention": "Attention is the currency of learning.",
    "q-retrieval": "Retrieving a memory strengthens it more than re-reading.",
    "q-spacing": "Spacing practice over days beats cramming in one night.",
    "q-sleep": "Sleep consolidates what was learned during the day.",
}
TOPICS = ["memory", "practice schedules", "sleep", "focus", "testing yourself"]


class QuotePick(BaseModel):
    best_quote_id: str
    supporting_ids: list[str] = Field(default_factory=list)
    label: str


class Essay(BaseModel):
    text: str


def _prompt(topic: str) -> list[dict[str, str]]:
    quotes = "\n".join(f"[{qid}] {text}" for qid, text in QUOTES.items())
    return [
        {
            "role": "user",
            "content": f"Quotes:\n{quotes}\n\nWhich quote is most about {topic}? "
            "Answer in JSON with the quote id.",
        }
    ]


async def test_enum_bounded_structured_returns_only_allowed_ids(
    local_llm_client: LLMClient, capsys: pytest.CaptureFixture[str]
):
    traces: list[CallTrace] = []
    local_llm_client.trace_sink = traces.append
    ids = list(QUOTES)
    schema = bounded_schema(
        QuotePick,
        enums={"best_quote_id": ids, "supporting_ids": ids},
        max_items={"supporting_ids": 2},
        max_length={"label": 16},
    )
    latencies = []
    for topic in TOPICS:
        started = time.perf_counter()
        pick = await local_llm_client.structured(
            _prompt(topic), QuotePick, json_schema=schema, flow="e2e", node=topic
        )
        latencies.append(time.perf_counter() - started)
        assert pick.best_quote_id in QUOTES
        assert set(pick.supporting_ids) <= set(QUOTES) and len(pick.supporting_ids) <= 2
        assert len(pick.label) <= 16
    ok = [t for t in traces if t.outcome == "ok"]
    assert len(ok) == len(TOPICS)
    assert all(t.prompt_tokens > 0 and t.completion_tokens > 0 for t in ok)
    assert all(t.model == "openai/gemma3-270m" for t in traces)
    with capsys.disabled():
        print(
            f"\n[e2e] structured() latency over {len(latencies)} calls: "
            f"median {statistics.median(latencies):.2f}s, max {max(latencies):.2f}s, "
            f"per call {[round(x, 2) for x in latencies]}; requests incl. re-asks: {len(traces)}"
        )


async def test_overrunning_max_tokens_ends_in_structured_output_error(local_llm_client: LLMClient):
    traces: list[CallTrace] = []
    local_llm_client.trace_sink = traces.append
    messages = [
        {
            "role": "user",
            "content": "Write a very long essay, at least 2000 words, on how people learn.",
        }
    ]
    started = time.perf_counter()
    with pytest.raises(StructuredOutputError) as caught:
        await local_llm_client.structured(messages, Essay, max_tokens=8)
    elapsed = time.perf_counter() - started
    retries = local_llm_client.config("default").retries
    assert caught.value.attempts == retries + 1
    assert caught.value.raw_text  # what the model sent, kept for the caller
    assert all("cut off" in e for e in caught.value.errors)
    assert [t.outcome for t in traces] == ["invalid"] * (retries + 1)
    assert all(t.completion_tokens <= 8 for t in traces)
    assert elapsed < 60, f"took {elapsed:.1f}s"


async def test_stream_yields_text(local_llm_client: LLMClient):
    pieces = [
        piece
        async for piece in local_llm_client.stream(
            [{"role": "user", "content": "Say hello to a student."}], max_tokens=24
        )
    ]
    assert pieces and "".join(pieces).strip()


async def test_embed_returns_vectors_of_the_model_dimension(
    local_llm_client: LLMClient, local_embedding_server
):
    texts = ["spaced repetition", "Sleep consolidates memory.", "photosynthesis", "¿Qué es?"]
    vectors = await local_llm_client.embed(texts)
    assert len(vectors) == len(texts)
    sizes = {len(v) for v in vectors}
    assert len(sizes) == 1 and sizes.pop() > 0
    reported = local_embedding_server.embedding_dim()
    if reported is not None:
        assert len(vectors[0]) == reported
    assert vectors[0] != vectors[2]


async def test_connection_round_trips(local_llm_client: LLMClient, local_embedding_server):
    from local_llm.probe import embedding_round_trip, structured_round_trip

    assert await structured_round_trip(local_llm_client) < 120
    assert await embedding_round_trip(local_llm_client) == local_embedding_server.embedding_dim()


class Judged(BaseModel):
    reasoning: str
    confidence: float = Field(ge=0, le=1)
    related: list[str]


JUDGE_SYSTEM = (
    "You judge how well a quote is about a topic. Quotes:\n"
    + "\n".join(f"[{qid}] {text}" for qid, text in QUOTES.items())
    + "\nReason briefly, give your confidence between 0 and 1, and list related topics."
)


async def test_bounded_answers_come_back_valid_uncut_with_the_prefix_from_the_cache(
    local_llm_client: LLMClient,
):
    """A confidence in [0, 1] is a choice the grammar enforces (the bundled model answered
    `1e15` when only a JSON `maximum` bounded it); the call may write the longest answer its
    schema (fitted to max_tokens) allows; calls sharing their first message reuse its tokens from the server's cache."""
    from local_llm.grammar import WHITESPACE_TOKENS, answer_tokens, fitted_schema, grammar_schema

    traces: list[CallTrace] = []
    local_llm_client.trace_sink = traces.append
    schema = bounded_schema(
        Judged, max_length={"reasoning": 160, "related": 30}, max_items={"related": 3}
    )
    limit = 400  # the fixture's 128 is less than this model writes for such an answer
    for topic in TOPICS[:3]:
        messages = [
            {"role": "system", "content": JUDGE_SYSTEM},
            {"role": "user", "content": f"Topic: {topic}"},
        ]
        judged = await local_llm_client.structured(
            messages, Judged, json_schema=schema, max_tokens=limit
        )
        assert 0 <= judged.confidence <= 1 and len(judged.reasoning) <= 160
    assert [t.outcome for t in traces] == ["ok"] * 3, [t.detail for t in traces]
    assert not any(t.cut for t in traces)
    # the schema fits the limit as it is: sent unchanged but for the confidence's choices
    assert answer_tokens(grammar_schema(fitted_schema(schema, limit)), WHITESPACE_TOKENS) <= limit
    assert {t.max_tokens for t in traces} == {limit}
    assert traces[-1].cached_tokens and traces[-1].cached_tokens >= 0.5 * traces[-1].prompt_tokens
