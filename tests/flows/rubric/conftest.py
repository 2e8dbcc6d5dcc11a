"""A real temporary vault, a scripted model and the compiled rubric flow (the note and the
scripted evaluation: tests/flows/rubric/notes.py)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from core.context import FlowContext
from core.flows.rubric.graph import build_graph
from core.settings import Settings
from core.store import Store
from local_llm.testing import scripted_client
from tests.flows.rubric.notes import (  # noqa: F401 - kept for tests written before the move
    IDS,
    NOTE_PATH,
    NOTE_TEXT,
    REVISED_BODY,
    evaluation,
)
from vault.writer import VaultWriter


class RubricHarness:
    def __init__(self, tmp_path: Path, responses: Any, **settings: Any):
        tmp_path = Path(tempfile.mkdtemp(dir=tmp_path))
        self.root = tmp_path / "vault"
        (self.root / "notes").mkdir(parents=True)
        self.note = self.root / NOTE_PATH
        self.note.write_text(NOTE_TEXT, encoding="utf-8")
        data = tmp_path / "data"
        self.settings = Settings(
            data={"directory": data}, flows={"rubric": settings} if settings else {}
        )
        self.llm = scripted_client(responses)
        self.backend = self.llm.backend()
        writer = VaultWriter(self.root)
        vault = SimpleNamespace(root=self.root, layout=writer.layout, writer=writer)
        self.context = FlowContext(
            settings=self.settings, llm=self.llm, store=Store(":memory:"), vault=vault
        )
        self.app = build_graph().compile(checkpointer=InMemorySaver())
        self.config = {"configurable": {"thread_id": "r1"}}

    async def start(self, criteria: str = "default", note: str = NOTE_PATH) -> dict[str, Any]:
        return await self.app.ainvoke(
            {"note_path": note, "criteria": criteria}, self.config, context=self.context
        )

    async def resume(self, value: Any) -> dict[str, Any]:
        from langgraph.types import Command

        return await self.app.ainvoke(Command(resume=value), self.config, context=self.context)

    async def state(self) -> dict[str, Any]:
        return (await self.app.aget_state(self.config)).values

    async def pending(self) -> Any:
        interrupts = (await self.app.aget_state(self.config)).interrupts
        return interrupts[0].value if interrupts else None

    def model_calls(self) -> int:
        return len(self.backend.calls_of("complete"))


@pytest.fixture
def rubric(tmp_path: Path):
    return lambda responses, **settings: RubricHarness(tmp_path, responses, **settings)
