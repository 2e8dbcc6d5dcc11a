"""One harness for the flow tests: a flow over a real temporary vault and store, opened by
`core.services.open_services` with a scripted model that is told which call it answers.

    h = FlowHarness(tmp_path, "rubric", backend=ScriptedBackend(answer=script),
                    vault=write_notes, make_input=lambda note: {"note_path": note})
    state = await h.start("notes/a.md")      # the compiled graph, an in-memory checkpointer
    await h.resume({"action": "accept"})      # Command(resume=...) on the same thread
    run_id, events = await h.run(mode="generate")   # or through the runtime, as front ends do

The scripted backend answers each call knowing its node and the name of its answer's schema
(`local_llm.testing.ScriptedCall`, filled from `local_llm.calls`), never by reading the prompt.
Each flow's own vault, script and inputs live beside its tests (tests/flows/<flow>/).
"""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import frontmatter
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from core.context import FlowContext
from core.events import RunEvent
from core.flows.registry import flows
from core.services import Services, open_services
from core.settings import Settings
from core.vault_handle import VaultHandle
from local_llm import LLMClient
from local_llm.testing import ScriptedBackend

SCRIPTED_MODELS = {
    "model": "scripted",
    "retries": 2,
    "transient_retries": 2,
    "backoff_s": 0.0,
    "embeddings_enabled": False,
}
"""The model settings of a scripted run: quick re-asks, no backoff, no embeddings (the index
searches by text unless a test gives it an embedder)."""


class FlowHarness:
    """A flow's graph and its runtime over one temporary vault and store (`open_services`).

    `start`/`resume`/`state()`/`payload` drive the compiled graph directly (exceptions reach
    the test); `run`/`resume_run`/`state(run_id)` go through the runtime like a front end.
    `shared`: harnesses made on the same `base` share one vault and store (runs that follow
    each other)."""

    def __init__(
        self,
        base: Path,
        flow: str,
        *,
        backend: ScriptedBackend,
        vault: Callable[[Path], object] | None = None,
        make_input: Callable[..., dict[str, Any]] = dict,
        script: object = None,
        run_id: str | None = None,
        shared: bool = False,
        **settings: Any,
    ) -> None:
        if not shared:  # several harnesses in one test, each with its own vault and store
            base = Path(tempfile.mkdtemp(dir=base))
        self.root = base / "vault"
        if vault is not None and not self.root.exists():  # `shared`: the vault of the first
            vault(self.root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.flow, self.spec, self.script = flow, flows()[flow], script
        self.backend, self.make_input = backend, make_input
        settings.setdefault("models", SCRIPTED_MODELS)
        self.settings = Settings(
            vault={"path": self.root, **settings.pop("vault", {})},
            data={"directory": base / "data"},
            **settings,
        )
        self.services: Services = open_services(
            self.settings, {flow: self.spec}, backend=backend, warm=False
        )
        self.vault.index.sync_files()
        self.app = self.spec.build_graph().compile(checkpointer=InMemorySaver())
        self.run_id = run_id or uuid.uuid4().hex
        self.config: dict[str, Any] = {
            "configurable": {"thread_id": self.run_id},
            "max_concurrency": self.spec.max_concurrency(self.settings),
            "recursion_limit": self.spec.recursion_limit(self.settings),
        }
        self.events: list[object] = []
        """What the last `stream` wrote to LangGraph's custom stream (progress)."""

    # -- the parts -------------------------------------------------------------------------

    @property
    def store(self) -> Any:
        return self.services.store

    @property
    def llm(self) -> LLMClient:
        return self.services.llm

    @property
    def vault(self) -> VaultHandle:
        assert self.services.vault is not None
        return self.services.vault

    @vault.setter
    def vault(self, handle: VaultHandle) -> None:
        self.services.vault = handle

    @property
    def index(self) -> Any:
        return self.vault.index

    @property
    def context(self) -> FlowContext:
        """The run's context, as the runtime builds it (one vault handle per harness)."""
        return self.services.context(self.run_id)

    # -- the graph, directly ---------------------------------------------------------------

    async def start(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Run the graph from `make_input(*args, **kwargs)` to its first pause or its end."""
        state = self.make_input(*args, **kwargs)
        return await self.app.ainvoke(state, self.config, context=self.context)

    async def resume(self, value: object) -> dict[str, Any]:
        """Answer the pending interrupt and run to the next pause or the end."""
        return await self.app.ainvoke(Command(resume=value), self.config, context=self.context)

    async def stream(self, thread: str = "t1", **state: Any) -> dict[str, Any]:
        """Run the graph on `thread` collecting its custom events (`events`); the last state."""
        config = {**self.config, "configurable": {"thread_id": thread}}
        self.events, last = [], {}
        modes = ["custom", "values"]
        async for mode, chunk in self.app.astream(
            state, config, context=self.context, stream_mode=modes
        ):
            if mode == "custom":
                self.events.append(chunk)
            else:
                last = chunk
        return last

    async def payload(self) -> Any:
        """The pending interrupt's payload (plain data), or None."""
        interrupts = (await self.app.aget_state(self.config)).interrupts
        return interrupts[0].value if interrupts else None

    def fresh_run(self) -> None:
        """Later `start`s begin a new thread."""
        self.run_id = uuid.uuid4().hex
        self.config["configurable"]["thread_id"] = self.run_id

    # -- the runtime, as front ends drive it -----------------------------------------------

    async def __aenter__(self) -> FlowHarness:
        await self.services.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.services.__aexit__(*exc)

    async def run(self, **data: Any) -> tuple[str, list[RunEvent]]:
        """Start a run of the flow through the runtime; its id and events to the first pause."""
        run = self.services.runtime.start(self.flow, self.make_input(**data))
        return run.id, await self.services.runtime.run_until_pause(run.id)

    async def resume_run(self, run_id: str, value: object) -> list[RunEvent]:
        return await self.services.runtime.run_until_pause(run_id, value, resume=True)

    async def state(self, run_id: str | None = None) -> dict[str, Any]:
        """A run's state: the runtime's run `run_id`, or the graph's own run."""
        if run_id is None:
            return dict((await self.app.aget_state(self.config)).values)
        graph = self.services.runtime.graph(self.flow)
        snapshot = await graph.aget_state({"configurable": {"thread_id": run_id}})
        return dict(snapshot.values)

    # -- what a test looks at --------------------------------------------------------------

    def path(self, rel: str) -> Path:
        return self.root / rel

    def read(self, rel: str) -> str:
        return (self.root / rel).read_text(encoding="utf-8")

    def frontmatter(self, rel: str) -> tuple[dict[str, Any], str]:
        """A note's metadata and body."""
        post = frontmatter.loads(self.read(rel))
        return dict(post.metadata), post.content

    def model_calls(self) -> int:
        """How many completions the model was asked for."""
        return len(self.backend.calls_of("complete"))

    def models_asked(self, prefix: str = "") -> list[str]:
        """The model each completion went to, in order (those whose name starts with `prefix`)."""
        calls = self.backend.calls_of("complete")
        models = [c.config.model for c in calls if c.config is not None]
        return [m for m in models if m.startswith(prefix)]
