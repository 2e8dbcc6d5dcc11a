"""A model that fails never looks like a model that answered (issue 13 point 9, issue 16).

A step whose model does not answer (a server that died, a timeout) fails the run AT that step:
resuming redoes it and nothing before it. An answer that stays invalid after re-asks is
replaced by a fallback, and the review says so first, on the screen and in the terminal."""

from __future__ import annotations

from pathlib import Path

from core.events import Failed, Interrupted
from core.flows.extraction.graph import SPEC
from core.flows.extraction.report import report_text
from core.services import open_services
from core.settings import Settings
from local_llm import TransientModelError
from tests.flows.extraction.conftest import EXISTING, SOURCE, SOURCE_TEXT
from tests.flows.extraction.script import ConcurrencyBackend, FlowScript, candidates


def vault(tmp_path: Path) -> Settings:
    root = tmp_path / "vault"
    (root / "03 - Sources").mkdir(parents=True)
    (root / "08 - Ideas").mkdir()
    (root / SOURCE).write_text(SOURCE_TEXT, encoding="utf-8")
    (root / "08 - Ideas/Práctica de recuperación.md").write_text(EXISTING, encoding="utf-8")
    return Settings(vault={"path": root}, data={"directory": tmp_path / "data"},
                    flows={"extraction": {"language": "es"}},  # the notes are Spanish
                    models={"transient_retries": 0, "retries": 1})  # fmt: skip


class Outage:
    """The server is down for calls of one kind while `down` is true."""

    def __init__(self, kind_marker: str) -> None:
        self.down, self.marker = True, kind_marker

    def __call__(self, script: FlowScript):
        def answer(messages, schema):
            if self.down and self.marker in str((schema or {}).get("properties", {})):
                raise TransientModelError("Connection refused", status_code=None)
            return script(messages, schema)

        return answer


async def test_a_model_that_stops_answering_fails_the_run_at_that_step(tmp_path: Path) -> None:
    """Main turned the failed duplicate detections into warnings and reached the review."""
    script = FlowScript(candidates=candidates)
    outage = Outage("match")
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
    outage = Outage("criteria")
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
