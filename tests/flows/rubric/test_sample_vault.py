"""The sample vault's draft essay evaluates against the rubric its frontmatter names."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from core.context import FlowContext
from core.evaluation import load_criteria
from core.flows.rubric.graph import build_graph
from core.settings import Settings
from core.store import Store
from local_llm.testing import scripted_client
from vault.writer import VaultWriter

SAMPLE = Path(__file__).resolve().parents[3] / "tui" / "sample_vault"
DRAFT = "00 - Inbox/Borrador - Por qué olvidamos lo que estudiamos.md"


async def test_draft_essay_uses_its_own_rubric_and_can_be_revised(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    shutil.copytree(SAMPLE, root)
    ids = load_criteria("ensayo-divulgativo").criteria.ids
    low = {
        "criteria": {cid: {"rationale": "falta", "issues": [], "score": 0.4} for cid in ids},
        "strengths": [],
        "weaknesses": ["sin conclusión"],
        "suggestions": ["añadir un ejemplo concreto y una conclusión"],
        "feedback": "incompleto",
    }
    llm = scripted_client(
        [low, {"body": "# Por qué olvidamos\n\nTexto revisado.\n", "summary": "conclusión"}]
    )
    writer = VaultWriter(root)
    vault = SimpleNamespace(root=root, layout=writer.layout, writer=writer)
    settings = Settings(vault={"path": root}, data={"directory": tmp_path / "data"})
    context = FlowContext(settings=settings, llm=llm, store=Store(":memory:"), vault=vault)
    app = build_graph().compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "sample"}}
    await app.ainvoke({"note_path": DRAFT}, config, context=context)
    state = (await app.aget_state(config)).values
    assert state["criteria"] == "ensayo-divulgativo"
    assert (
        state["evaluation"]["criteria_id"] == "ensayo-divulgativo"
        and not state["evaluation"]["passed"]
    )
    assert "[[Práctica de recuperación]]" in llm.backend().calls_of("complete")[0].last_user
    await app.ainvoke(Command(resume={"action": "revise"}), config, context=context)
    payload = (await app.aget_state(config)).interrupts[0].value
    assert payload["type"] == "revision_review" and "+Texto revisado." in payload["diff"]
    assert "añadir un ejemplo concreto" in llm.backend().calls_of("complete")[1].last_user
