"""A small indexed vault of concept notes, a scripted model and the compiled normalization flow
(the vault and the scripts: tests/flows/normalization/script.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from core.context import FlowContext
from core.flows.normalization.graph import build_graph
from core.models import langgraph_call_context
from core.settings import Settings
from core.store import Store
from local_llm.testing import scripted_client
from tests.flows.normalization.script import (  # noqa: F401 - the helpers kept here for tests
    CONCEPTS,  # written before they moved (import them from tests.flows.normalization.script)
    avoid_block,
    by_node,
    is_generator,
    listed_names,
    propose,
    weak_when,
    write_vault,
)
from vault.index import VaultIndex
from vault.layout import VaultLayout
from vault.writer import VaultWriter


class Harness:
    """The flow over a real indexed vault with a scripted model."""

    def __init__(self, tmp_path: Path, generator: Any, evaluator: Any, **settings: Any) -> None:
        self.root = tmp_path / "vault"
        if not self.root.exists():
            write_vault(self.root, CONCEPTS)
        self.store = Store(tmp_path / "store.sqlite3")
        layout = VaultLayout()
        index = VaultIndex(self.store, self.root, layout)
        self.settings = Settings(
            data={"directory": tmp_path / "data"}, flows={"normalization": settings}
        )

        self.llm = scripted_client(
            answer=by_node(generator, evaluator), call_context=langgraph_call_context
        )
        self.backend = self.llm.backend()
        vault = SimpleNamespace(
            root=self.root, layout=layout, writer=VaultWriter(self.root), index=index
        )
        self.context = FlowContext(self.settings, self.llm, self.store, vault, run_id="run-1")
        self.app = build_graph().compile(checkpointer=InMemorySaver())

    async def run(self, thread: str = "t1", **input: Any) -> dict[str, Any]:
        config = {"configurable": {"thread_id": thread}}
        self.events: list[dict] = []
        async for mode, chunk in self.app.astream(
            input, config, context=self.context, stream_mode=["custom", "values"]
        ):
            if mode == "custom":
                self.events.append(chunk)
            else:
                state = chunk
        return state

    def calls(self, kind: str = "generator") -> list[Any]:
        calls = self.backend.calls_of("complete")
        return [c for c in calls if is_generator(c) == (kind == "generator")]

    def review_keys(self, review_id: str) -> list[tuple[str, str]]:
        rows = self.store.query(
            "SELECT a_name, b_name FROM normalization_review_items WHERE review_id=?", (review_id,)
        )
        return sorted(tuple(sorted((r[0], r[1]))) for r in rows)


@pytest.fixture
def harness(tmp_path: Path) -> Callable[..., Harness]:
    return lambda generator, evaluator, **settings: Harness(
        tmp_path, generator, evaluator, **settings
    )
