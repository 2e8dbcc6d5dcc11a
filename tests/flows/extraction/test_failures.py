"""A model that fails never looks like a model that answered (issue 13 point 9, issue 16).

A step whose model does not answer (a server that died, a timeout) fails the run AT that step:
resuming redoes it and nothing before it. An answer that stays invalid after re-asks is
replaced by a fallback, and the review says so first, on the screen and in the terminal."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.events import Failed, Interrupted
from core.flows.extraction.graph import SPEC
from core.flows.extraction.report import report_text
from core.services import VaultHandle, open_services
from core.settings import Settings
from local_llm import TransientModelError
from local_llm.errors import ContextBudgetError
from local_llm.testing import ScriptedCall
from tests.flows.extraction.notes import EXISTING, SOURCE, SOURCE_TEXT
from tests.flows.extraction.script import (
    ConcurrencyBackend,
    FlowScript,
    beyond_pool,
    candidates,
    kind_of,
)
from vault.index import VaultIndex
from vault.layout import VaultLayout


def vault(tmp_path: Path) -> Settings:
    root = tmp_path / "vault"
    (root / "03 - Sources").mkdir(parents=True)
    (root / "08 - Ideas").mkdir()
    (root / SOURCE).write_text(SOURCE_TEXT, encoding="utf-8")
    (root / "08 - Ideas/Práctica de recuperación.md").write_text(EXISTING, encoding="utf-8")
    return Settings(
        vault={"path": root},
        data={"directory": tmp_path / "data"},
        flows={"extraction": {"language": "es"}},  # the notes are Spanish
        models={"transient_retries": 0, "retries": 1},
    )


class Outage:
    """The server is down for calls of one kind (script.kind_of) while `down` is true."""

    def __init__(self, kind: str) -> None:
        self.down, self.kind = True, kind

    def __call__(self, script: FlowScript):
        def answer(call: ScriptedCall):
            if self.down and kind_of(call) == self.kind:
                raise TransientModelError("Connection refused", status_code=None)
            return script(call)

        return answer


async def test_a_model_that_stops_answering_fails_the_run_at_that_step(tmp_path: Path) -> None:
    """Main turned the failed duplicate detections into warnings and reached the review."""
    script = FlowScript(candidates=candidates)
    outage = Outage("duplicate")
    backend = ConcurrencyBackend(outage(script))
    async with open_services(vault(tmp_path), {"extraction": SPEC}, backend=backend) as app:
        app.vault.index.sync_files()
        run = app.runtime.start("extraction", {"source": SOURCE}, target=SOURCE)
        events = await app.runtime.run_until_pause(run.id)
        assert isinstance(events[-1], Failed) and "Connection refused" in events[-1].error
        assert app.runtime.runs.get(run.id).status == "failed"
        assert script.count("candidates") == 1 and script.count("queries") == 0
        outage.down = False
        events = await app.runtime.run_until_pause(run.id)  # resume from the failed step
        assert isinstance(events[-1], Interrupted)
        assert script.count("candidates") == 1  # 1.1a was not asked again
        assert script.count("duplicate") == 2
        assert events[-1].payload["skipped"] == []


async def test_a_critique_the_model_does_not_answer_fails_the_run(tmp_path: Path) -> None:
    script = FlowScript(candidates=candidates)
    outage = Outage("critique")
    backend = ConcurrencyBackend(outage(script))
    async with open_services(vault(tmp_path), {"extraction": SPEC}, backend=backend) as app:
        app.vault.index.sync_files()
        run = app.runtime.start("extraction", {"source": SOURCE}, target=SOURCE)
        events = await app.runtime.run_until_pause(run.id)
        assert isinstance(events[-1], Failed)
        outage.down = False
        events = await app.runtime.run_until_pause(run.id)
        assert isinstance(events[-1], Interrupted)
        assert events[-1].payload["critique_log"][-1]["passed"] is True


async def test_an_answer_invalid_after_re_asks_is_replaced_and_said_first(harness) -> None:
    script = FlowScript(candidates=candidates, relations=lambda m, s: {"relations": "garbage"})
    h = harness(script)
    payload = (await h.start())["__interrupt__"][0].value
    skipped = payload["skipped"]
    assert [s["step"] for s in skipped] == ["1.1e", "1.1e"]
    assert all("gave no valid answer after 2 attempts" in s["why"] for s in skipped)
    assert all(s["fallback"] == "no relation proposed for it" for s in skipped)
    text = report_text(payload)
    head = text.split("New concepts")[0]
    assert "NOT DONE (2)" in head and "[1.1e] relations of 'Efecto del espaciado'" in head


class Embedder:
    """An embedding model: a vector per text from its letters, until it stops answering, or
    refuses (a text longer than its context)."""

    def __init__(self) -> None:
        self.failure: Exception | None = None

    async def __call__(self, texts: list[str]) -> list[list[float]]:
        if self.failure is not None:
            raise self.failure
        return [[text.lower().count(c) + 0.1 for c in "aeiourst"] for text in texts]


async def with_embeddings(h, embedder: Embedder) -> None:
    """The harness's vault, indexed with embeddings (so search asks the embedding model)."""
    index = VaultIndex(h.store, h.root, VaultLayout(), embed=embedder, embed_model="letters")
    assert (await index.sync_async()).embedded
    h.vault = VaultHandle(h.root, h.vault.layout, h.vault.writer, index, "letters")


async def test_an_embedding_model_that_stops_answering_fails_the_run_at_that_step(
    harness,
) -> None:
    """Search used to fall back to full text without a word when the embedding call failed:
    paraphrases never reached the duplicate judge, and the review looked whole."""
    h, embedder = harness(FlowScript(candidates=candidates)), Embedder()
    await with_embeddings(h, embedder)
    embedder.failure = TransientModelError("Connection refused", status_code=None)
    with pytest.raises(TransientModelError):
        await h.start()
    assert await h.payload() is None  # no review of a search that did not happen
    asked = h.script.count("candidates")
    embedder.failure = None
    await h.app.ainvoke(None, h.config, context=h.context)  # resume from the failed step
    payload = await h.payload()
    assert payload is not None and payload["skipped"] == []
    assert h.script.count("candidates") == asked  # 1.1a was not asked again


async def test_a_query_the_embedding_model_refuses_is_searched_by_text_and_said(harness) -> None:
    h, embedder = harness(FlowScript(candidates=candidates), **beyond_pool()), Embedder()
    await with_embeddings(h, embedder)
    embedder.failure = ContextBudgetError(
        flow="extraction", node="search", role="embedding", tokens=9000, budget=512
    )
    payload = (await h.start())["__interrupt__"][0].value
    steps = sorted({s["step"] for s in payload["skipped"]})
    assert steps == ["1.1b", "1.1d"]
    assert all(s["fallback"] == "full-text search only" for s in payload["skipped"])
    head = report_text(payload).split("New concepts")[0]
    assert "NOT DONE" in head and "embedding search for" in head
