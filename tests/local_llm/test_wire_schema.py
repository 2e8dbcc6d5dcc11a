"""The schema a structured call sends is worked out once per schema and token limit."""

from __future__ import annotations

from pydantic import BaseModel, Field

from local_llm import LLMClient, ModelConfig, bounded_schema, gbnf, grammar
from local_llm.grammar import fitted_schema, grammar_schema, limit_tokens, wire_schema
from local_llm.testing import ScriptedBackend

MESSAGES = [{"role": "system", "content": "Grade the answer."}, {"role": "user", "content": "Go."}]


class Verdict(BaseModel):
    score: float = Field(ge=0, le=1)
    feedback: str = Field(max_length=240)
    ideas: list[str] = Field(max_length=4)


def counted(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = grammar.fitted_schema

    def counting(schema, limit):
        calls.append(limit)
        return real(schema, limit)

    monkeypatch.setattr(grammar, "fitted_schema", counting)
    return calls


async def test_the_same_schema_is_fitted_once_for_every_call(monkeypatch):
    calls = counted(monkeypatch)
    schema = bounded_schema(Verdict, max_length={"ideas": 80})
    answer = {"score": 0.5, "feedback": "Close: name the cause.", "ideas": ["la caída 🍎"]}
    config = ModelConfig(model="scripted", max_tokens=300, retries=0, backoff_s=0.0)
    backend = ScriptedBackend([answer] * 3)
    client = LLMClient({"default": config}, backend=backend)
    for _ in range(3):
        await client.structured(MESSAGES, Verdict, json_schema=schema)
    assert len(calls) == 1
    sent = [call.json_schema for call in backend.calls]
    assert sent[0] == sent[1] == sent[2] == grammar_schema(fitted_schema(schema, 300))
    assert backend.calls[0].config.max_tokens == max(limit_tokens(sent[0]), 300)


def test_another_limit_or_schema_is_worked_out_again(monkeypatch):
    calls = counted(monkeypatch)
    schema = bounded_schema(Verdict, max_length={"ideas": 80})
    first = wire_schema(schema, 200)
    assert wire_schema(schema, 200) is first
    wire_schema(schema, 90)
    other = {**schema, "properties": {**schema["properties"], "feedback": {"type": "string"}}}
    wire_schema(other, 200)
    assert calls == [200, 90, 200]
    assert first.answer_bound == limit_tokens(grammar_schema(schema))
    assert first.bound == limit_tokens(grammar_schema(fitted_schema(schema, 200)))


def test_a_grammar_is_built_once_and_keeps_the_property_order():
    schema = {
        "type": "object",
        "properties": {"zeta": {"type": "string", "maxLength": 5}, "alpha": {"type": "integer"}},
        "required": ["zeta", "alpha"],
        "additionalProperties": False,
    }
    text = gbnf.json_grammar(schema)
    assert text is not None and gbnf.json_grammar(dict(schema)) is text
    assert text.index("zeta") < text.index("alpha")
