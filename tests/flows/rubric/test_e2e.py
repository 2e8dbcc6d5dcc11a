"""The rubric flow against the real local model (llama.cpp + Gemma 3 270M): start -> approve.

The tiny model's judgement is weak; this asserts the mechanics: a valid bounded answer, a
score computed in code, the interrupt payload, and the approval written into the note.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import frontmatter
import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from core.context import FlowContext
from core.evaluation import BUILTIN_DIR
from core.flows.rubric.graph import build_graph
from core.settings import Settings
from core.store import Store
from local_llm import LLMClient
from vault.writer import VaultWriter

NOTE = """---
tags: [biology]
---
# Photosynthesis

Photosynthesis is how plants turn light, water and carbon dioxide into sugar and oxygen.
It happens in the chloroplasts of leaf cells.
"""


def compact_rubric(folder: Path) -> None:
    """Two criteria of the default rubric, so the tiny model's answer stays short."""
    data = json.loads((BUILTIN_DIR / "default.json").read_text(encoding="utf-8"))
    data["id"] = "compact"
    data["criteria"] = [
        {**data["criteria"][0], "weight": 0.5, "is_critical": False},
        {**data["criteria"][2], "weight": 0.5},
    ]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "compact.json").write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.e2e
async def test_rubric_flow_with_the_local_model_through_approve(
    local_llm_client: LLMClient, tmp_path: Path
) -> None:
    roles = {
        name: config.replace(max_tokens=1024) for name, config in local_llm_client.roles.items()
    }
    llm = LLMClient(roles)
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    note = root / "notes" / "Photosynthesis.md"
    note.write_text(NOTE, encoding="utf-8")
    settings = Settings(data={"directory": tmp_path / "data"})
    compact_rubric(settings.data_dir / "criteria")
    writer = VaultWriter(root)
    vault = SimpleNamespace(root=root, layout=writer.layout, writer=writer)
    context = FlowContext(settings=settings, llm=llm, store=Store(":memory:"), vault=vault)
    app = build_graph().compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "e2e"}}

    out = await app.ainvoke(
        {"note_path": "notes/Photosynthesis.md", "criteria": "compact"}, config, context=context
    )
    state = (await app.aget_state(config)).values
    assert state["rubric_status"] == "awaiting_review", state.get("errors")
    payload = out["__interrupt__"][0].value
    assert (
        payload["type"] == "evaluation_review" and payload["note_path"] == "notes/Photosynthesis.md"
    )
    evaluation = payload["evaluation"]
    assert set(evaluation["scores"]) == {"accuracy", "clarity"}
    assert all(0 <= s <= 1 for s in evaluation["scores"].values())
    expected = sum(evaluation["scores"].values()) / 2
    assert abs(evaluation["overall_score"] - expected) < 1e-9
    assert evaluation["passed"] == (
        evaluation["overall_score"] >= 0.7 and not evaluation["failed_critical"]
    )

    await app.ainvoke(Command(resume={"action": "approve"}), config, context=context)
    state = (await app.aget_state(config)).values
    assert state["outcome"] == "approved"
    post = frontmatter.loads(note.read_text(encoding="utf-8"))
    assert post["review_status"] == "approved" and post["tags"] == ["biology"]
    assert post["review_criteria"] == "compact@1.0"
    assert post.content == frontmatter.loads(NOTE).content
