"""The lesson flow against the real local model (llama.cpp + Gemma 3 270M): topic -> judged note.

The tiny model writes weak lessons; this asserts the mechanics: bounded plans and sections,
the free checks and the self-review run, at least one judge scores the lesson in code, and
the lesson note is written with its frontmatter (accepted at once, or after the escalation).
Kept short: two sections, small completion limits, no regeneration or targeted fix.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import frontmatter
import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from core.context import FlowContext
from core.evaluation import BUILTIN_DIR
from core.flows.lesson.graph import build_graph
from core.flows.lesson.traces import phase_traces, savings_report
from core.models import TraceRecorder, langgraph_call_context
from core.services import open_vault
from core.settings import Settings
from core.store import Store
from local_llm import LLMClient
from tests.flows.lesson.conftest import CONCEPT, SAMPLE_VAULT


def compact_lesson_rubric(folder: Path) -> None:
    """Two lesson criteria in the user's criteria folder, so the judge's answer stays short."""
    data = json.loads((BUILTIN_DIR / "lesson.json").read_text(encoding="utf-8"))
    data["criteria"] = [{**c, "weight": 0.5} for c in data["criteria"][2:4]]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "lesson.json").write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.e2e
async def test_lesson_from_topic_to_judged_note(local_llm_client: LLMClient, tmp_path: Path):
    root = tmp_path / "vault"
    shutil.copytree(SAMPLE_VAULT, root)
    settings = Settings(
        vault={"path": root}, data={"directory": tmp_path / "data"},
        models={"embeddings_enabled": False},
        flows={"lesson": {"section_count": 2, "generation_max_tokens": 240,
                          "section_max_chars": 500, "max_regenerations": 0,
                          "max_judge_fixes": 0, "min_section_words": 20,
                          "judge_timeout_s": 240}},
    )  # fmt: skip
    compact_lesson_rubric(settings.data_dir / "criteria")
    store = Store(settings.store_path)
    roles = {name: c.replace(max_tokens=700) for name, c in local_llm_client.roles.items()}
    llm = LLMClient(roles, trace_sink=TraceRecorder(store), call_context=langgraph_call_context)
    vault = open_vault(settings, store, None)
    vault.index.sync()
    context = FlowContext(settings, llm, store, vault, run_id="e2e")
    app = build_graph().compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "e2e"}, "recursion_limit": 60}

    out = await app.ainvoke({"mode": "generate", "concept": CONCEPT, "language": "en",
                             "objectives": [], "sections": 0}, config, context=context)  # fmt: skip
    if "__interrupt__" in out:  # the judges escalated the tiny model's lesson: accept it
        assert out["__interrupt__"][0].value["type"] == "lesson_review"
        out = await app.ainvoke(Command(resume={"action": "accept"}), config, context=context)
    state = (await app.aget_state(config)).values
    assert state["status"] == "accepted", state.get("errors")
    assert len(state["plan"]["sections"]) == 2
    cascade = state["cascade"]
    assert 1 <= len(cascade["votes"]) <= 3 and 0 <= cascade["score"] <= 1
    assert set(cascade["scores"]) == {"factual_accuracy", "clarity"}
    meta = frontmatter.loads((root / state["lesson_path"]).read_text(encoding="utf-8")).metadata
    assert meta["status"] == "accepted" and meta["language"] == "en"
    assert meta["self_review"]["decision"] in {"PASS", "PASS_WITH_FLAGS", "FIXED", "REGENERATE",
                                               "FLAG_TO_JUDGE"}  # fmt: skip
    assert meta["tokens"]["total"] > 0
    phases = {t["phase"] for t in phase_traces(store, "e2e")}
    assert {"planner", "expander", "smoother", "heuristics", "judge", "write"} <= phases
    report = savings_report(store, "e2e")
    assert report["judge_tokens"] > 0 and report["full_judge_tokens"] >= report["judge_tokens"]
    store.close()
