"""Normalization against the real local model (llama.cpp + Gemma 3 270M) on the demo vault.

The tiny model's judgement is weak; this asserts the mechanics: the planted spelling variants
are found by code at no model cost, every model answer is valid against its bounded schema
(names from the list, ids from the batch), the convergence rule ends the loop, the review is
stored, and applying its merges then undoing them restores the vault byte for byte.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from core.context import FlowContext
from core.flows.normalization.graph import build_graph
from core.merges.reviews import ReviewsRepo
from core.merges.service import Merges
from core.settings import Settings
from core.store import Store
from local_llm import LLMClient
from tests.merges.merge_vault import SAMPLE, snapshot
from vault.index import VaultIndex
from vault.layout import VaultLayout
from vault.writer import VaultWriter


@pytest.mark.e2e
async def test_normalize_the_demo_vault_with_the_local_model(
    local_llm_client: LLMClient, tmp_path: Path
) -> None:
    roles = {n: c.replace(max_tokens=256) for n, c in local_llm_client.roles.items()}
    llm = LLMClient(roles)
    root = tmp_path / "vault"
    shutil.copytree(SAMPLE, root)
    store = Store(tmp_path / "store.sqlite3")
    layout = VaultLayout()
    index = VaultIndex(store, root, layout)
    vault = SimpleNamespace(root=root, layout=layout, writer=VaultWriter(root, layout), index=index)
    flows = {"max_iterations": 2, "max_merges_per_call": 3, "validation_batch": 3}
    settings = Settings(data={"directory": tmp_path / "data"}, flows={"normalization": flows})
    context = FlowContext(settings, llm, store, vault, run_id="e2e-normalize")
    app = build_graph().compile(checkpointer=InMemorySaver())

    events = []
    async for mode, chunk in app.astream(
        {},
        {"configurable": {"thread_id": "e2e"}},
        context=context,
        stream_mode=["custom", "values"],
    ):
        if mode == "custom":
            events.append(chunk)
        else:
            state = chunk

    assert 1 <= state["iteration"] <= 2
    assert len(state["new_unique_merges_trend"]) == state["iteration"]
    titles = {c["title"] for c in state["concepts"]}
    ids = {c["id"] for c in state["concepts"]}
    pairs = {frozenset((m["a_name"], m["b_name"])) for m in state["all_merges"].values()}
    assert frozenset(("Metacognición", "metacognicion")) in pairs
    assert frozenset(("Hábito atómico", "Hábitos atómicos")) in pairs
    for merge in state["all_merges"].values():
        assert merge["a_id"] in ids and merge["b_id"] in ids and merge["a_id"] != merge["b_id"]
    for weak in state["weak_merges"].values():
        assert weak["reason"] in ("hierarchy", "component", "different_meaning", "different_scope")
    assert {e["phase"] for e in events} >= {"generation", "complete"}
    assert events[-1]["review_id"] == "e2e-normalize" and len(titles) >= 10

    review = ReviewsRepo(store).get("e2e-normalize")
    assert len(review.items) == len(state["all_merges"])
    repo = ReviewsRepo(store)
    for item in review.items:  # apply only what code found: the model's picks are not wisdom
        repo.set_item(review.id, item.key, "accepted" if item.origin == "code" else "rejected")
    before = snapshot(root)
    merges = Merges(store, vault)
    merges.apply(merges.plan(review.id))
    assert not (root / "08 - Ideas" / "metacognicion.md").exists()
    merges.undo(review.id)
    assert snapshot(root) == before
