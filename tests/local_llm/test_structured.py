"""structured(): validation, re-asks with the error, typed failure, traces."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from local_llm import (
    CallTrace,
    Completion,
    LLMClient,
    ModelConfig,
    StructuredOutputError,
    bounded_schema,
)
from local_llm.testing import ScriptedBackend, scripted_client

MESSAGES = [{"role": "system", "content": "Pick quotes."}, {"role": "user", "content": "Go."}]


class Pick(BaseModel):
    quote_ids: list[str] = Field(min_length=1)
    reason: str


def _client(responses, traces=None, retries=2):
    config = ModelConfig(model="scripted", retries=retries, backoff_s=0.0)
    backend = ScriptedBackend(responses)
    sink = traces.append if traces is not None else None
    return LLMClient({"default": config}, backend=backend, trace_sink=sink), backend


async def test_valid_answer_first_time():
    client, backend = _client([{"quote_ids": ["q1"], "reason": "fits"}])
    answer = await client.structured(MESSAGES, Pick)
    assert answer == Pick(quote_ids=["q1"], reason="fits")
    assert len(backend.calls) == 1
    sent = backend.calls[0].json_schema
    assert sent["additionalProperties"] is False and sent["required"] == ["quote_ids", "reason"]


async def test_invalid_json_is_reasked_with_the_error():
    client, backend = _client(["{not json", Pick(quote_ids=["q2"], reason="ok")])
    answer = await client.structured(MESSAGES, Pick)
    assert answer.quote_ids == ["q2"]
    second = backend.calls[1].messages
    assert second[: len(MESSAGES)] == MESSAGES
    assert second[-2] == {"role": "assistant", "content": "{not json"}
    assert "not valid JSON" in second[-1]["content"]


async def test_schema_violation_is_reasked():
    client, backend = _client(
        [{"quote_ids": [], "reason": "x"}, {"quote_ids": ["q1"], "reason": "y"}]
    )
    answer = await client.structured(MESSAGES, Pick)
    assert answer.reason == "y"
    assert "quote_ids" in backend.calls[1].last_user


async def test_id_outside_the_enum_is_reasked():
    schema = bounded_schema(Pick, enums={"quote_ids": ["q1", "q2"]})
    client, backend = _client(
        [{"quote_ids": ["q9"], "reason": "made up"}, {"quote_ids": ["q2"], "reason": "real"}]
    )
    answer = await client.structured(MESSAGES, Pick, json_schema=schema)
    assert answer.quote_ids == ["q2"]
    sent = backend.calls[0].json_schema["properties"]["quote_ids"]
    assert sent["items"] == schema["properties"]["quote_ids"]["items"]
    assert "'q9' is not one of" in backend.calls[1].last_user


async def test_truncated_answer_is_reasked_even_if_it_parses():
    truncated = Completion('{"quote_ids": ["q1"], "reason": "a"}', finish_reason="length")
    client, backend = _client([truncated, {"quote_ids": ["q1"], "reason": "b"}])
    answer = await client.structured(MESSAGES, Pick)
    assert answer.reason == "b"
    assert "cut off at the token limit" in backend.calls[1].last_user


async def test_fenced_json_is_accepted():
    client, _ = _client(['```json\n{"quote_ids": ["q1"], "reason": "r"}\n```'])
    assert (await client.structured(MESSAGES, Pick)).quote_ids == ["q1"]


async def test_structured_output_error_after_retries_carries_raw_text():
    traces: list[CallTrace] = []
    client, backend = _client(["nope 1", "nope 2", "nope 3", "unused"], traces, retries=2)
    with pytest.raises(StructuredOutputError) as caught:
        await client.structured(MESSAGES, Pick)
    error = caught.value
    assert error.raw_text == "nope 3"
    assert error.attempts == 3 and len(error.errors) == 3
    assert backend.remaining == 1
    assert [t.outcome for t in traces] == ["invalid", "invalid", "invalid"]
    assert [t.attempt for t in traces] == [1, 2, 3]


async def test_reask_keeps_only_the_latest_failed_answer():
    client, backend = _client(["bad one", "bad two", {"quote_ids": ["q1"], "reason": "r"}])
    await client.structured(MESSAGES, Pick)
    third = backend.calls[2].messages
    assert len(third) == len(MESSAGES) + 2
    assert third[-2]["content"] == "bad two"


async def test_traces_carry_tokens_outcome_and_caller():
    traces: list[CallTrace] = []
    client, _ = _client(
        [
            Completion(
                '{"quote_ids": ["q1"], "reason": "r"}', prompt_tokens=111, completion_tokens=22
            )
        ],
        traces,
    )
    await client.structured(MESSAGES, Pick, flow="extraction", node="select_quotes")
    (trace,) = traces
    assert (trace.flow, trace.node, trace.role, trace.model) == (
        "extraction",
        "select_quotes",
        "default",
        "scripted",
    )
    assert (trace.kind, trace.outcome) == ("structured", "ok")
    assert (trace.prompt_tokens, trace.completion_tokens) == (111, 22)
    assert trace.latency_ms >= 0


async def test_traces_fall_back_to_counted_tokens_and_measure_latency():
    traces: list[CallTrace] = []
    client = scripted_client([{"quote_ids": ["q1"], "reason": "r"}], trace_sink=traces.append)
    client.backend().latency_s = 0.05
    await client.structured(MESSAGES, Pick)
    (trace,) = traces
    assert trace.prompt_tokens == client.count_tokens(MESSAGES)
    assert trace.completion_tokens > 0
    assert trace.latency_ms >= 45


async def test_call_context_fills_flow_node_and_run_id():
    traces: list[CallTrace] = []
    context = {"flow": "tutor", "node": "plan", "run_id": "run-7"}
    client = LLMClient(
        {"default": ModelConfig(model="m")},
        backend=ScriptedBackend([{"quote_ids": ["a"], "reason": "b"}]),
        trace_sink=traces.append,
        call_context=lambda: context,
    )
    await client.structured(MESSAGES, Pick)
    assert (traces[0].flow, traces[0].node, traces[0].run_id) == ("tutor", "plan", "run-7")


async def test_a_failing_trace_sink_does_not_break_the_call():
    def sink(trace: CallTrace) -> None:
        raise RuntimeError("store is down")

    client = LLMClient(
        {"default": ModelConfig(model="m")},
        backend=ScriptedBackend([{"quote_ids": ["a"], "reason": "b"}]),
        trace_sink=sink,
    )
    assert (await client.structured(MESSAGES, Pick)).reason == "b"


async def test_roles_fall_back_to_default_and_overrides_apply():
    client = scripted_client([{"quote_ids": ["a"], "reason": "b"}], roles=("default",))
    await client.structured(MESSAGES, Pick, role="judge", max_tokens=17, timeout_s=3.0)
    config = client.backend().calls[0].config
    assert (config.max_tokens, config.timeout_s) == (17, 3.0)


async def test_callable_script_answers_from_the_prompt():
    def answer(messages, schema):
        return {"quote_ids": schema["properties"]["quote_ids"]["items"]["enum"][:1], "reason": "x"}

    schema = bounded_schema(Pick, enums={"quote_ids": ["qa", "qb"]})
    client = scripted_client(answer)
    assert (await client.structured(MESSAGES, Pick, json_schema=schema)).quote_ids == ["qa"]


async def test_scripted_backend_reports_running_out():
    client = scripted_client([])
    with pytest.raises(AssertionError, match="ran out of responses"):
        await client.structured(MESSAGES, Pick)


async def test_scripted_backend_accounts_tokens_per_call_and_in_total():
    client = scripted_client(["bad", {"quote_ids": ["q1"], "reason": "r"}])
    await client.structured(MESSAGES, Pick)
    backend = client.backend()
    first, second = backend.calls
    assert first.completion.prompt_tokens == client.count_tokens(MESSAGES)
    assert second.completion.prompt_tokens == client.count_tokens(second.messages)
    assert backend.usage == {
        "prompt_tokens": first.completion.prompt_tokens + second.completion.prompt_tokens,
        "completion_tokens": first.completion.completion_tokens
        + second.completion.completion_tokens,
    }
