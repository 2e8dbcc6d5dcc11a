"""The evaluation harness fixture, over tests/evaluation/draft_graph.py's generate -> evaluate ->
publish graph."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from core.context import FlowContext
from core.settings import Settings
from core.store import Store
from local_llm.testing import scripted_client
from tests.evaluation.draft_graph import (  # noqa: F401 - kept for tests written before the move
    DEFAULT_IDS,
    DraftState,
    answer,
    build,
    options,
    uniform,
)


class Harness:
    """Runs a compiled test graph with a scripted model in its context."""

    def __init__(self, responses: Any, **backend_options: Any):
        self.llm = scripted_client(responses, **backend_options)
        self.backend = self.llm.backend()
        self.context = FlowContext(settings=Settings(), llm=self.llm, store=Store(":memory:"))
        self.config = {"configurable": {"thread_id": "t1"}}

    async def run(self, app, value: Any) -> dict[str, Any]:
        return await app.ainvoke(value, self.config, context=self.context)

    async def statuses(self, app, value: Any) -> list[str]:
        """The draft statuses written by each node update, in order."""
        seen = []
        async for chunk in app.astream(
            value, self.config, context=self.context, stream_mode="updates"
        ):
            for update in chunk.values():
                if isinstance(update, dict) and "draft_status" in update:
                    seen.append(update["draft_status"])
        return seen

    def model_calls(self) -> int:
        return len(self.backend.calls_of("complete"))


@pytest.fixture
def harness() -> Callable[..., Harness]:
    return Harness
