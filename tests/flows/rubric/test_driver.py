"""The headless driver over the real services and runtime (SQLite checkpointer), scripted model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import frontmatter

from core.flows.rubric.driver import review_note
from core.flows.rubric.graph import SPEC
from core.services import open_services
from core.settings import Settings
from local_llm.testing import ScriptedBackend
from tests.flows.rubric.notes import NOTE_PATH, NOTE_TEXT, evaluation


def make_services(tmp_path: Path, responses: list[Any]):
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    (root / NOTE_PATH).write_text(NOTE_TEXT, encoding="utf-8")
    settings = Settings(vault={"path": root}, data={"directory": tmp_path / "data"})
    return open_services(settings, {"rubric": SPEC}, backend=ScriptedBackend(responses)), root


async def test_driver_runs_to_approval_and_reports_progress(tmp_path: Path) -> None:
    services, root = make_services(tmp_path, [evaluation(0.5), evaluation(0.8)])
    seen: list[dict[str, Any]] = []
    lines: list[str] = []

    async def decide(payload: dict[str, Any]) -> Any:
        seen.append(payload)
        if len(seen) == 1:
            return {"action": "edit", "content": "# Photosynthesis\n\nBetter.\n"}
        return "approve"

    async with services:
        outcome = await review_note(services, NOTE_PATH, "default", decide, lines.append)
        run = services.runtime.runs.get(outcome.run_id)
    assert outcome.status == "done" and outcome.state["outcome"] == "approved"
    assert run.status == "done" and [p["round"] for p in seen] == [1, 2]
    assert "asking the judge model..." in lines and "scored 0.80" in lines
    post = frontmatter.loads((root / NOTE_PATH).read_text(encoding="utf-8"))
    assert post["review_status"] == "approved" and post.content.strip().endswith("Better.")


async def test_driver_leaves_the_run_waiting_when_decide_returns_none(tmp_path: Path) -> None:
    services, _ = make_services(tmp_path, [evaluation(0.9)])

    async def later(payload: dict[str, Any]) -> Any:
        return None

    async with services:
        outcome = await review_note(services, NOTE_PATH, "default", later, lambda line: None)
        assert services.runtime.runs.get(outcome.run_id).status == "awaiting_review"
        pending = await services.runtime.pending_interrupt(outcome.run_id)
    assert outcome.status == "awaiting_review" and outcome.payload["type"] == "evaluation_review"
    assert pending is not None and pending.payload["evaluation"]["passed"] is True


async def test_a_failed_evaluation_is_a_failed_run_in_the_runs_table(tmp_path: Path) -> None:
    services, root = make_services(tmp_path, ["nonsense", "nonsense", "nonsense", "nonsense"])

    async def never(payload: dict[str, Any]) -> Any:
        raise AssertionError("no review is offered after a failed evaluation")

    async with services:
        outcome = await review_note(services, NOTE_PATH, "default", never, lambda line: None)
        run = services.runtime.runs.get(outcome.run_id)
    assert outcome.status == "done" and outcome.state["outcome"] == "failed"
    assert run.status == "failed" and "could not be understood" in (run.error or "")
    assert (root / NOTE_PATH).read_text(encoding="utf-8") == NOTE_TEXT
