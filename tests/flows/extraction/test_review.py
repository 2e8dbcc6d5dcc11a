"""Critique loop (1.2/1.3) and the human review (2.1-2.3) with a scripted model."""

from __future__ import annotations

import os

from tests.flows.extraction.notes import SOURCE
from tests.flows.extraction.script import (
    FlowScript,
    candidates,
    concept,
    critique,
    empty_revision,
    enum_of,
    retitle,
)


def relate_first(messages, schema):
    target = enum_of(schema, "relations", "[]", "target")[0]
    return {
        "relations": [
            {"target": target, "type": "RELATES_TO", "explanation": "x", "confidence": 0.6}
        ],
        "notes": "",
    }


async def test_failing_critique_refines_until_it_passes(harness) -> None:
    scores = iter([0.2, 0.95])

    def refine(messages, schema):
        labels = enum_of(schema, "edit_concepts", "[]", "concept")
        return empty_revision(
            changes="título más preciso",
            edit_concepts=[
                {
                    "concept": labels[0],
                    "title": "Espaciado de la práctica",
                    "short_summary": "",
                    "summary": "",
                    "concept_text": "",
                    "analysis": "",
                }
            ],
        )

    script = FlowScript(
        candidates=candidates, critique=lambda m, s: critique(next(scores)), refine=refine
    )
    h = harness(script)
    payload = (await h.start())["__interrupt__"][0].value
    log = payload["critique_log"]
    assert [e["passed"] for e in log] == [False, True]
    assert script.count("refine") == 1
    assert payload["concepts"][0]["title"] == "Espaciado de la práctica"
    assert "título más preciso" in payload["notes"]
    # the refinement prompt carried the critique's suggestion
    assert "dividir conceptos" in "\n".join(m["content"] for m in script.messages["refine"][0])


async def test_the_refinement_continues_the_critiques_prompt(harness) -> None:
    """The refinement is the critique's next turn: the judge's messages byte for byte, then
    what it found, then the request for changes, so the server's prompt cache serves the
    whole critique prompt again (a prompt of its own shared 10 tokens with it)."""
    scores = iter([0.2, 0.95])
    script = FlowScript(
        candidates=candidates, critique=lambda m, s: critique(next(scores)), refine=retitle
    )
    h = harness(script)
    await h.start()
    judged, refined = script.messages["critique"][0], script.messages["refine"][0]
    assert refined[: len(judged)] == judged
    found, request = refined[len(judged) :]
    assert found["role"] == "assistant" and "dividir conceptos" in found["content"]
    assert request["role"] == "user" and "CHANGES" in request["content"]


async def test_a_critique_too_long_to_continue_gets_a_refinement_prompt_of_its_own(
    harness,
) -> None:
    """When the critique's prompt and the request do not fit the default role's budget (the
    judge's is larger), the refinement is asked on its own: it still gets done."""
    scores = iter([0.2, 0.95])
    script = FlowScript(
        candidates=candidates, critique=lambda m, s: critique(next(scores)), refine=retitle
    )
    h = harness(script, context_budget=1800, roles={"judge": {"context_budget": 8192}})
    payload = (await h.start())["__interrupt__"][0].value
    assert script.count("refine") == 1
    refined = script.messages["refine"][0]
    assert [m["role"] for m in refined] == ["system", "user"]
    assert "dividir conceptos" in refined[-1]["content"]
    assert payload["concepts"][0]["title"].startswith("Espaciado, versión")


async def test_the_self_critique_answers_in_compact_form(harness) -> None:
    """An automatic judge's answer is read by code and the refinement: a short rationale, at
    most one issue per criterion and one remark per list (the rubric review keeps its full
    answer: tests/evaluation)."""
    script = FlowScript(candidates=candidates)
    await harness(script).start()
    schema = script.calls["critique"][0]
    criterion = next(iter(schema["properties"]["criteria"]["properties"].values()))
    assert criterion["properties"]["rationale"]["maxLength"] <= 40
    assert criterion["properties"]["issues"]["maxItems"] == 1
    assert schema["properties"]["strengths"]["maxItems"] == 1
    # where an issue is: an id the prompt shows, not restated text
    where = criterion["properties"]["issues"]["items"]["properties"]["where"]["enum"]
    prompt = script.prompts["critique"][0]
    assert "" in where and "n1" in where and all(f"[{i}]" in prompt for i in where if i)


async def test_critique_loop_is_bounded_by_settings(harness) -> None:
    scores = iter([0.1, 0.2, 0.3])  # better each round, never passing
    script = FlowScript(
        candidates=candidates, critique=lambda m, s: critique(next(scores)), refine=retitle
    )
    h = harness(script, flows={"max_critique_iterations": 2})
    payload = (await h.start())["__interrupt__"][0].value
    assert script.count("critique") == 3 and script.count("refine") == 2
    assert [e["passed"] for e in payload["critique_log"]] == [False, False, False]


async def test_a_refinement_that_improves_nothing_ends_the_loop(harness) -> None:
    """The critique after a refinement fails the same criteria with no higher score: a
    further refinement would start from as bad a place, so the review comes next (one
    critique and one refinement fewer than the settings allow, and their passes)."""
    scores = iter([0.3, 0.25, 0.9])
    script = FlowScript(
        candidates=candidates, critique=lambda m, s: critique(next(scores)), refine=retitle
    )
    h = harness(script, flows={"max_critique_iterations": 3})
    payload = (await h.start())["__interrupt__"][0].value
    assert script.count("critique") == 2 and script.count("refine") == 1
    log = payload["critique_log"]
    assert [e["passed"] for e in log] == [False, False]
    assert log[-1]["stalled"] and "no better" in log[-1]["summary"]


async def test_a_refinement_that_changes_nothing_ends_the_loop(harness) -> None:
    """The critique of an unchanged extraction would be the same call again (same prompt,
    same verdict): the run goes on to the review instead. A note alone is no change."""
    script = FlowScript(
        candidates=candidates,
        critique=lambda m, s: critique(0.1),
        refine=lambda m, s: empty_revision(changes="nada que cambiar"),
    )
    h = harness(script, flows={"max_critique_iterations": 3})
    payload = (await h.start())["__interrupt__"][0].value
    assert payload["type"] == "extraction_review"
    assert script.count("critique") == 1 and script.count("refine") == 1
    assert [e["passed"] for e in payload["critique_log"]] == [False]


async def test_the_rounds_of_critique_and_refinement_share_their_quotes_as_prompt_start(
    harness,
) -> None:
    """What every round sends again (the quotes) comes before what changes (the extraction,
    code's findings, the instructions), so the server's prompt cache serves it again."""
    titles = iter(["Espaciado de la práctica", "Espaciado entre sesiones"])

    def refine(messages, schema):
        label = enum_of(schema, "edit_concepts", "[]", "concept")[0]
        edit = {"concept": label, "title": next(titles), "short_summary": "", "summary": ""}
        return empty_revision(edit_concepts=[edit | {"concept_text": "", "analysis": ""}])

    scores = iter([0.1, 0.2, 0.3])  # better each round: the loop goes on
    script = FlowScript(
        candidates=candidates, critique=lambda m, s: critique(next(scores)), refine=refine
    )
    h = harness(script, flows={"max_critique_iterations": 2})
    await h.start()
    quotes = [q["text"] for q in (await h.state())["quotes"]]
    for kind in ("critique", "refine"):
        first, second = ("\n".join(m["content"] for m in c) for c in script.messages[kind][:2])
        assert first != second
        shared = os.path.commonprefix([first, second])
        assert all(text in shared for text in quotes), kind


async def test_concept_in_the_wrong_language_is_caught_by_code(harness) -> None:
    def english(messages, schema):
        ids = enum_of(schema, "concepts", "[]", "quote_ids")
        text = "The practice of spacing out study sessions is what makes the memory of it last."
        return {
            "concepts": [
                concept(
                    "Spacing effect", [ids[1]], text=text, short="It is the spacing of the practice"
                )
            ],
            "notes": "",
        }

    script = FlowScript(candidates=english, critique=lambda m, s: critique(0.95))
    h = harness(script, flows={"max_critique_iterations": 1})
    payload = (await h.start())["__interrupt__"][0].value
    first = payload["critique_log"][0]
    assert any(
        i["criterion"] == "language" and i["severity"] == "high" for i in first["code_issues"]
    )
    assert first["passed"] is False  # the judge said 0.95, code overrides
    assert script.count("refine") == 1


async def test_drops_feedback_and_approve(harness) -> None:
    def feedback(messages, schema):
        new = enum_of(schema, "add_relations", "[]", "source")
        every = enum_of(schema, "add_relations", "[]", "target")
        other = next(label for label in every if label != new[0])
        return empty_revision(
            interpretation="relacionar los conceptos",
            unresolved="no sé dividir",
            add_relations=[{"source": new[0], "type": "SIMILAR_TO", "target": other}],
        )

    script = FlowScript(candidates=candidates, feedback=feedback)
    h = harness(script, existing=False)
    payload = (await h.start())["__interrupt__"][0].value
    assert payload["relations"] == []
    out = await h.resume({"action": "feedback", "feedback": "Relaciona los dos conceptos."})
    payload = out["__interrupt__"][0].value
    assert payload["round"] == 1 and len(payload["relations"]) == 1
    assert payload["relations"][0]["inverse_type"] == "SIMILAR_TO"
    assert any("no sé dividir" in w for w in payload["warnings"])
    assert "Relaciona los dos conceptos." in script.prompts["feedback"][0]
    # drop one concept (its relation goes with it) and one attribution, no model call
    calls = len(h.backend.calls)
    gone = payload["concepts"][0]
    out = await h.resume({"action": "drop", "drops": [{"kind": "concept", "id": gone["id"]}]})
    payload = out["__interrupt__"][0].value
    assert [c["title"] for c in payload["concepts"]] == ["Práctica intercalada"]
    assert payload["relations"] == [] and len(h.backend.calls) == calls
    done = await h.resume({"action": "approve"})
    assert done["outcome"] == "committed"
    assert not (h.root / "08 - Ideas" / f"{gone['title']}.md").exists()
    assert (h.root / "08 - Ideas/Práctica intercalada.md").exists()


async def test_dropping_an_attribution_and_a_relation(harness) -> None:
    h = harness(FlowScript(candidates=candidates, relations=relate_first), existing=False)
    payload = (await h.start())["__interrupt__"][0].value
    first = payload["concepts"][0]
    relation = payload["relations"][0]["id"]
    out = await h.resume(
        {
            "action": "drop",
            "drops": [
                {"kind": "relation", "id": relation},
                {
                    "kind": "attribution",
                    "concept_id": first["id"],
                    "quote_id": first["quote_ids"][0],
                },
            ],
        }
    )
    payload = out["__interrupt__"][0].value
    assert payload["relations"] == []
    kept = next(c for c in payload["concepts"] if c["id"] == first["id"])
    assert kept["quote_ids"] == first["quote_ids"][1:]
    assert first["quote_ids"][0] in [q["id"] for q in payload["unattributed"]]


async def test_abort_writes_nothing(harness) -> None:
    h = harness(FlowScript(candidates=candidates))
    before = h.read(SOURCE)
    await h.start()
    done = await h.resume("abort")
    assert done["outcome"] == "aborted"
    assert h.read(SOURCE) == before
    assert h.store.query_one("SELECT COUNT(*) FROM extraction_commits")[0] == 0


async def test_round_limit_warns_then_offers_commit_or_abort(harness) -> None:
    """Spec 4.4 (issue 16): the review warns before the last feedback round; once the rounds
    are used, feedback is refused (the run is NOT aborted) and approving commits what stands."""
    script = FlowScript(candidates=candidates)
    h = harness(script, flows={"max_review_rounds": 2})
    first = (await h.start())["__interrupt__"][0].value
    assert first["round_notice"] == "" and "feedback" in first["actions"]
    last = (await h.resume({"action": "feedback", "feedback": "más"}))["__interrupt__"][0].value
    assert "last feedback round" in last["round_notice"] and "feedback" in last["actions"]
    used = (await h.resume({"action": "feedback", "feedback": "más aún"}))["__interrupt__"][0].value
    assert used["rounds_left"] == 0 and used["actions"] == ["approve", "drop", "abort"]
    assert "approve what stands" in used["round_notice"]
    again = await h.resume({"action": "feedback", "feedback": "otra vez"})
    refused = again["__interrupt__"][0].value
    assert "No feedback rounds are left" in refused["notice"]
    assert script.count("feedback") == 2  # the refused round asked no model
    done = await h.resume("approve")
    assert done["outcome"] == "committed"
    assert "processed_date" in h.read(SOURCE)


async def test_invalid_answer_returns_to_the_review(harness) -> None:
    h = harness(FlowScript(candidates=candidates))
    await h.start()
    out = await h.resume({"action": "maybe"})
    assert out["__interrupt__"][0].value["type"] == "extraction_review"
    assert (await h.state())["decision"]["action"] == "invalid"
