"""The flow through the app's runtime (SQLite checkpointer, typed events) with a scripted model."""

from __future__ import annotations

from pathlib import Path

from core.events import Done, Progress
from core.flows.registry import open_app
from core.merges.reviews import ReviewsRepo
from core.settings import Settings
from local_llm.testing import ScriptedBackend
from tests.flows.normalization.script import (
    CONCEPTS,
    by_node,
    propose,
    weak_when,
    write_vault,
)


async def test_runtime_streams_progress_and_stores_the_review(tmp_path: Path) -> None:
    write_vault(tmp_path / "vault", CONCEPTS)
    generator, evaluator = propose(("ZDP", "Zona de desarrollo próximo")), weak_when()
    backend = ScriptedBackend(answer=by_node(generator, evaluator))
    settings = Settings(vault={"path": tmp_path / "vault"}, data={"directory": tmp_path / "data"})
    async with open_app(settings, backend=backend) as services:
        run = services.runtime.start("normalization", {})
        events = await services.runtime.run_until_pause(run.id)
        assert isinstance(events[-1], Done), events[-1]
        progress = [e.data for e in events if isinstance(e, Progress)]
        assert progress[-1]["phase"] == "complete" and progress[-1]["review_id"] == run.id
        review = ReviewsRepo(services.store).get(run.id[:8])
        assert review.counts() == {"pending": 2, "accepted": 0, "rejected": 0}
        assert services.runtime.runs.get(run.id).status == "done"
