"""The generator/evaluator loop with scripted models over a real indexed vault."""

from __future__ import annotations

from tests.flows.normalization.script import (
    avoid_block,
    calls,
    listed_names,
    propose,
    review_keys,
    weak_when,
)

ZDP = ("ZDP", "Zona de desarrollo próximo")
HABITO = ("Hábito", "Hábito atómico")


async def test_loop_accepts_validated_merges_remembers_weak_ones_and_converges(harness) -> None:
    h = harness(propose(ZDP, HABITO), weak_when("Hábito"))
    state = await h.stream()
    # iteration 1: both proposed, Hábito judged weak; iteration 2: nothing new -> trend [1, 0]
    assert state["new_unique_merges_trend"] == [1, 0] and state["iteration"] == 2
    assert len(calls(h, "generator")) == 2 and len(calls(h, "evaluator")) == 1
    assert review_keys(h, state["review_id"]) == [("Metacognición", "metacognicion"), ZDP]
    origins = {m["a_name"]: m["origin"] for m in state["all_merges"].values()}
    assert set(origins.values()) == {"code", "model"}
    # the deterministic variant never reached a model prompt as a proposal to judge
    assert "metacognicion" not in calls(h, "evaluator")[0].last_user
    # the weak merge is in the store and in the second generator prompt's avoid list
    weak = h.store.query("SELECT a_name, b_name, reason FROM normalization_weak_merges")
    assert [tuple(r) for r in weak] == [("Hábito", "Hábito atómico", "hierarchy")]
    assert "Hábito" in avoid_block(calls(h, "generator")[1].messages)
    assert "Hábito" not in avoid_block(calls(h, "generator")[0].messages)


async def test_weak_merges_are_never_accepted_again_across_runs(harness) -> None:
    first = harness(propose(HABITO), weak_when("Hábito"))
    await first.stream("a")
    again = harness(propose(HABITO, ZDP), weak_when())  # this evaluator would accept anything
    state = await again.stream("b")
    keys = {tuple(sorted((m["a_name"], m["b_name"]))) for m in state["all_merges"].values()}
    assert HABITO not in keys and ZDP in keys
    assert "Hábito" in avoid_block(calls(again, "generator")[0].messages)
    assert all("Hábito atómico" not in c.last_user for c in calls(again, "evaluator"))


async def test_a_user_rejection_is_weak_for_the_next_run(harness) -> None:
    from core.merges.reviews import ReviewsRepo

    first = harness(propose(ZDP), weak_when())
    state = await first.stream("a")
    repo = ReviewsRepo(first.store)
    key = next(m["key"] for m in state["all_merges"].values() if m["origin"] == "model")
    repo.set_item(state["review_id"], key, "rejected")
    again = harness(propose(ZDP), weak_when())
    state = await again.stream("b")
    assert key not in state["all_merges"] and "ZDP" in avoid_block(calls(again)[0].messages)


async def test_evaluator_failure_fails_closed(harness) -> None:
    h = harness(propose(ZDP, HABITO), "this is not JSON")
    state = await h.stream()
    assert [m["origin"] for m in state["all_merges"].values()] == ["code"]
    assert any("not accepted" in e["fallback"] for e in state["skipped"])
    assert state["new_unique_merges_trend"] == [0, 0]


async def test_progress_events_carry_the_stream_event_fields(harness) -> None:
    h = harness(propose(ZDP), weak_when())
    state = await h.stream()
    phases = [e["phase"] for e in h.events]
    assert phases[0] == "generation" and "validation" in phases and phases[-1] == "complete"
    validation = next(e for e in h.events if e["phase"] == "validation")
    assert validation["iteration"] == 1 and validation["merges_found"] == 1
    assert validation["total_merges"] == 2 and validation["weak_count"] == 0
    assert validation["latest_merges"][0]["a_name"] in ZDP and validation["agent_activity"]
    done = h.events[-1]
    assert done["requires_review"] and done["review_id"] == state["review_id"] == "run-1"


async def test_convergence_settings_bound_the_iterations(harness) -> None:
    counter = iter(range(1000))

    def always_new(messages, _schema):
        names = listed_names(messages)
        n = next(counter)
        pairs = [(names[i], names[(i + n + 1) % len(names)]) for i in range(len(names))]
        return {
            "merges": [{"concept_a": a, "concept_b": b, "reason": ""} for a, b in pairs if a != b]
        }

    h = harness(always_new, weak_when(), max_iterations=3, deterministic=False)
    state = await h.stream()
    assert state["iteration"] == 3 and len(state["new_unique_merges_trend"]) == 3


async def test_blocks_hold_similar_names_and_find_the_same_merges(harness) -> None:
    h = harness(propose(ZDP, ("Hábito atómico", "Hábito")), weak_when(), strategy="blocks")
    state = await h.stream()
    assert state["units"], "blocks mode groups similar names"
    for call in calls(h, "generator"):
        assert "Deep Work" not in listed_names(call.messages)  # no similar name: in no block
    keys = {tuple(sorted((m["a_name"], m["b_name"]))) for m in state["all_merges"].values()}
    assert ZDP in keys and HABITO in keys
