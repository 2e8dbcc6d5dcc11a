"""A real temporary vault, its index in a real store, a scripted model, the compiled flow (the
notes it starts from: tests/flows/extraction/notes.py)."""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from core.context import FlowContext
from core.flows.extraction.graph import build_graph
from core.settings import Settings
from core.store import Store
from core.vault_handle import VaultHandle
from local_llm import LLMClient, ModelConfig
from tests.flows.extraction.notes import (  # noqa: F401 - EXISTING_ID, quote_source: for tests
    EXISTING,  # written before the notes moved (import them from tests.flows.extraction.notes)
    EXISTING_ID,
    SOURCE,
    SOURCE_TEXT,
    quote_source,
)
from tests.flows.extraction.script import ConcurrencyBackend, FlowScript
from vault.index import VaultIndex
from vault.layout import VaultLayout
from vault.writer import VaultWriter


class Harness:
    """One vault + store + compiled graph; `start`, `resume`, `state`, `payload`."""

    def __init__(self, base: Path, script: FlowScript, *, existing: bool = True,
                 sources: dict[str, str] | None = None, flows: dict | None = None,
                 latency_s: float = 0.0, context_budget: int = 8192, max_tokens: int = 4096) -> None:  # fmt: skip
        base = Path(tempfile.mkdtemp(dir=base))
        self.root = base / "vault"
        for rel, text in (sources or {SOURCE: SOURCE_TEXT}).items():
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.root / rel).write_text(text, encoding="utf-8")
        (self.root / "08 - Ideas").mkdir(parents=True, exist_ok=True)
        if existing:
            (self.root / "08 - Ideas/Práctica de recuperación.md").write_text(
                EXISTING, encoding="utf-8"
            )
        self.settings = Settings(
            vault={"path": self.root}, data={"directory": base / "data"},
            # the scripted concepts and the existing note are Spanish: so are the new notes
            flows={"extraction": {"language": "es", **(flows or {})}},
        )  # fmt: skip
        self.store = Store(base / "data" / "store.sqlite3")
        layout = VaultLayout()
        self.index = VaultIndex(self.store, self.root, layout)
        self.index.sync_files()
        self.vault = VaultHandle(self.root, layout, VaultWriter(self.root, layout), self.index)
        self.script = script
        self.backend = ConcurrencyBackend(script, latency_s=latency_s)
        config = ModelConfig(model="scripted", retries=1, transient_retries=0, backoff_s=0.0,
                             context_budget=context_budget, max_tokens=max_tokens)  # fmt: skip
        self.llm = LLMClient(
            {"default": config, "judge": config, "embedding": config}, backend=self.backend
        )
        self.run_id = uuid.uuid4().hex
        self.app = build_graph().compile(checkpointer=InMemorySaver())
        self.config = {
            "configurable": {"thread_id": self.run_id},
            "max_concurrency": self.settings.flows.extraction.concurrency,
            "recursion_limit": 200,
        }

    @property
    def context(self) -> FlowContext:
        return FlowContext(self.settings, self.llm, self.store, self.vault, self.run_id)

    async def start(self, source: str = SOURCE) -> dict[str, Any]:
        return await self.app.ainvoke({"source": source}, self.config, context=self.context)

    async def resume(self, value: Any) -> dict[str, Any]:
        return await self.app.ainvoke(Command(resume=value), self.config, context=self.context)

    async def state(self) -> dict[str, Any]:
        return (await self.app.aget_state(self.config)).values

    async def payload(self) -> Any:
        interrupts = (await self.app.aget_state(self.config)).interrupts
        return interrupts[0].value if interrupts else None

    def read(self, rel: str) -> str:
        return (self.root / rel).read_text(encoding="utf-8")

    def fresh_run(self) -> None:
        self.run_id = uuid.uuid4().hex
        self.config["configurable"]["thread_id"] = self.run_id


@pytest.fixture
def harness(tmp_path: Path):
    return lambda script=None, **kw: Harness(tmp_path, script or FlowScript(), **kw)
