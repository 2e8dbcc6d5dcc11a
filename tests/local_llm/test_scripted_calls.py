"""The scripted model is told which call it answers (local_llm.calls): each call records the
flow, node, role and schema name the client reports, and `answer=` scripts answer by them."""

from __future__ import annotations

from pydantic import BaseModel

from local_llm import LLMClient, ModelConfig
from local_llm.calls import CallIdentity, current_call, making
from local_llm.testing import ScriptedBackend, ScriptedCall


class Verdict(BaseModel):
    label: str


class Plan(BaseModel):
    steps: list[str]


def client(backend: ScriptedBackend, context: dict[str, str]) -> LLMClient:
    config = ModelConfig(model="scripted", retries=0, transient_retries=0, backoff_s=0.0)
    return LLMClient(
        {"default": config, "judge": config, "embedding": config},
        backend=backend,
        call_context=lambda: context,
    )


async def test_each_call_records_who_asked_and_the_script_answers_by_node():
    def answer(call: ScriptedCall) -> object:
        if call.node == "planner":
            return {"steps": ["repasar 📚", "practicar"]}
        return {"label": f"{call.flow}/{call.node} as {call.role}"}

    backend = ScriptedBackend(answer=answer)
    context = {"flow": "lesson", "node": "planner", "run_id": "r1"}
    llm = client(backend, context)
    plan = await llm.structured([{"role": "user", "content": "judge this"}], Plan)
    context["node"] = "judge_primary"  # same prompt text: the node decides
    verdict = await llm.structured(
        [{"role": "user", "content": "judge this"}], Verdict, role="judge"
    )
    assert plan.steps == ["repasar 📚", "practicar"]
    assert verdict.label == "lesson/judge_primary as judge"
    first, second = backend.calls
    expected = ("lesson", "planner", "default", "Plan")
    assert (first.flow, first.node, first.role, first.schema_name) == expected
    assert (second.node, second.role, second.schema_name) == ("judge_primary", "judge", "Verdict")


async def test_explicit_node_wins_and_streams_and_embeddings_are_named_too():
    backend = ScriptedBackend(["una respuesta"])
    llm = client(backend, {"flow": "tutor", "node": "executor"})
    pieces = [piece async for piece in llm.stream([{"role": "user", "content": "hola"}])]
    await llm.embed(["recuperación"], node="index")
    assert "".join(pieces) == "una respuesta"
    stream, embed = backend.calls
    assert (stream.kind, stream.flow, stream.node) == ("stream", "tutor", "executor")
    assert (embed.kind, embed.node, embed.role) == ("embed", "index", "embedding")


def test_no_identity_outside_a_call():
    assert current_call() is None
    with making(CallIdentity("f", "n", "default", "structured")):
        assert current_call() == CallIdentity("f", "n", "default", "structured")
        assert ScriptedCall("complete").node == "n"
    assert current_call() is None
    assert ScriptedCall("complete").node == ""
