"""Duplicate detection (1.1b) of several candidates in one call, and the specification's
design (one call per candidate) as a setting, with a scripted model."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from core.flows.extraction.duplicates import groups, prompt_of
from core.flows.extraction.prompts import VERDICT_TOKENS
from local_llm.tokens import count_messages
from tests.flows.extraction.script import FlowScript, candidates, concept, enum_of
from vault.search import Hit


def three_candidates(messages, schema):
    """Three candidates that share words with the existing note (search finds it for each)."""
    ids = enum_of(schema, "concepts", "[]", "quote_ids")
    return {
        "concepts": [
            concept("Práctica espaciada del repaso", [ids[0]]),
            concept("Práctica intercalada de problemas", [ids[1]]),
            concept("Práctica 😴 del sueño — 睡眠", [ids[2]]),
        ],
        "notes": "",
    }


async def test_the_candidates_duplicate_checks_are_one_call(harness) -> None:
    script = FlowScript(candidates=three_candidates)
    payload = (await harness(script).start())["__interrupt__"][0].value
    assert len(script.merged) == 1
    listed = script.merged[0][-1]["content"].split("Candidates:")[1]
    for title in ("espaciada", "intercalada", "睡眠"):
        assert title in listed
    assert script.count("duplicate") == 3  # a verdict for each candidate
    assert len(payload["concepts"]) == 3


async def test_the_specifications_design_asks_one_call_per_candidate(harness) -> None:
    script = FlowScript(candidates=three_candidates)
    h = harness(script, flows={"duplicate_checks": "per_candidate"})
    payload = (await h.start())["__interrupt__"][0].value
    assert script.merged == []
    assert script.count("duplicate") == 3
    assert len(payload["concepts"]) == 3


async def test_a_candidate_the_merged_answer_leaves_out_is_asked_alone(harness) -> None:
    """A small model may give two verdicts for one candidate and none for another: the first
    verdict stands, the one left out gets a call of its own."""
    script = FlowScript(candidates=three_candidates)

    def repeated_first(call: Any) -> Any:
        answer = script(call)
        if call.schema_name == "DuplicatesAnswer":
            first = answer["verdicts"][0]
            answer["verdicts"] = [first, first, answer["verdicts"][2]]
        return answer

    h = harness(script)
    h.backend.answer = repeated_first
    payload = (await h.start())["__interrupt__"][0].value
    alone = script.messages["duplicate"]
    assert len(script.merged) == 1 and len(alone) == 1
    assert "intercalada" in alone[0][-1]["content"]
    assert len(payload["concepts"]) == 3


class BudgetLLM:
    """What `groups` asks of the client: a budget, a token count, the answer limit."""

    def __init__(self, budget: int, max_tokens: int = 4096) -> None:
        self._budget, self._max_tokens = budget, max_tokens

    def budget(self, role: str = "default") -> int:
        return self._budget

    def count_tokens(self, messages, role: str = "default") -> int:
        return count_messages(messages)

    def config(self, role: str = "default") -> SimpleNamespace:
        return SimpleNamespace(max_tokens=self._max_tokens)


def asks(n: int) -> list[tuple[dict[str, Any], list[Hit]]]:
    """`n` candidates, each with search hits of its own (two) and one hit they all share."""
    shared = Hit("shared", "Práctica de recuperación", "p.md", "Recordar fortalece", "", [], 1.0)
    return [
        (
            {"key": f"k{i}", "title": f"Idea {i} — ¿qué? 🧠", "quote_ids": ["q"], "concept": "x"},
            [
                shared,
                *(
                    Hit(f"h{i}{j}", f"Existente {i}.{j}", "e.md", "texto " * 20, "", [], 0.5)
                    for j in range(2)
                ),
            ],
        )
        for i in range(n)
    ]


def test_candidates_that_do_not_fit_one_prompt_take_several_calls() -> None:
    """A merged call's prompt fits the budget: room for about two candidates' listings makes
    two calls of five candidates; a candidate alone always gets its call; order is kept."""
    five = asks(5)
    one, _ = prompt_of(five[:2])
    runtime = SimpleNamespace(context=SimpleNamespace(llm=BudgetLLM(count_messages(one) + 5)))
    grouped = groups(runtime, five)
    assert [len(g) for g in grouped] == [2, 2, 1]
    assert [c["key"] for g in grouped for c, _ in g] == [f"k{i}" for i in range(5)]
    assert [
        len(g) for g in groups(SimpleNamespace(context=SimpleNamespace(llm=BudgetLLM(10))), five)
    ] == [1] * 5


def test_the_verdicts_of_a_merged_call_fit_its_answer() -> None:
    """As many candidates as their worst-case verdicts fit `max_tokens` (then another call)."""
    llm = BudgetLLM(100_000, max_tokens=60 + 2 * VERDICT_TOKENS)
    assert [len(g) for g in groups(SimpleNamespace(context=SimpleNamespace(llm=llm)), asks(5))] == [
        2,
        2,
        1,
    ]


def test_the_existing_concepts_are_listed_once_and_first() -> None:
    messages, labels = prompt_of(asks(3))
    user = messages[-1]["content"]
    assert user.count("Práctica de recuperación") == 1
    assert len(labels) == 1 + 3 * 2
    assert user.index("Existing concepts:") < user.index("Candidates:")


async def test_a_merged_call_answers_every_candidate_once_by_its_label(harness) -> None:
    """Exactly one verdict per candidate, candidates and matches bounded to the labels shown
    (the grammar keeps a small model to them)."""
    script = FlowScript(candidates=candidates)
    await harness(script).start()
    (schema,) = script.merged_schemas
    verdicts = schema["properties"]["verdicts"]
    assert verdicts["minItems"] == verdicts["maxItems"] == 2
    item = verdicts["items"]["properties"]
    assert item["candidate"]["enum"] == ["c1", "c2"]
    assert item["match"]["enum"][0] == "none" and len(item["match"]["enum"]) >= 2
    assert item["reasoning"]["maxLength"] <= 100
