"""The lesson runtime over a copy of the sample vault with `LessonScript` as the model."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from core.flows.lesson.graph import SPEC
from core.services import open_services
from core.settings import Settings
from local_llm.testing import ScriptedBackend
from tests.flows.lesson.script import CONCEPT, SAMPLE_VAULT, LessonScript


class LessonHarness:
    def __init__(self, tmp_path: Path, **lesson: Any) -> None:
        self.root = tmp_path / "vault"
        shutil.copytree(SAMPLE_VAULT, self.root)
        self.script = LessonScript()
        self.backend = ScriptedBackend(answer=self.script)
        roles = {"judge": {"model": "judge-a"}, "judge_secondary": {"model": "judge-b"},
                 "judge_tiebreak": {"model": "judge-c"}}  # fmt: skip
        lesson = {"section_count": 2, "tiebreak_role": "judge_tiebreak", **lesson}
        self.settings = Settings(
            vault={"path": self.root}, data={"directory": tmp_path / "data"},
            models={"model": "writer", "roles": roles, "embeddings_enabled": False},
            flows={"lesson": lesson},
        )  # fmt: skip
        self.services = open_services(self.settings, {"lesson": SPEC}, backend=self.backend)

    async def __aenter__(self) -> LessonHarness:
        await self.services.__aenter__()
        self.services.vault.index.sync()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.services.__aexit__(*exc)

    async def run(self, **data: Any) -> tuple[str, list[Any]]:
        data.setdefault("mode", "generate")
        if data["mode"] == "generate":
            data.setdefault("concept", CONCEPT)
        run = self.services.runtime.start("lesson", data)
        return run.id, await self.services.runtime.run_until_pause(run.id)

    async def resume(self, run_id: str, value: Any) -> list[Any]:
        return await self.services.runtime.run_until_pause(run_id, value, resume=True)

    async def state(self, run_id: str) -> dict[str, Any]:
        graph = self.services.runtime.graph("lesson")
        snapshot = await graph.aget_state({"configurable": {"thread_id": run_id}})
        return dict(snapshot.values)

    def note(self, path: str) -> tuple[dict[str, Any], str]:
        import frontmatter

        post = frontmatter.loads((self.root / path).read_text(encoding="utf-8"))
        return dict(post.metadata), post.content

    def judge_models(self) -> list[str]:
        return [c.config.model for c in self.backend.calls if c.config.model.startswith("judge")]

    def phases(self, run_id: str) -> list[tuple[str, str]]:
        rows = self.services.store.query(
            "SELECT phase, status FROM lesson_traces WHERE run_id = ? ORDER BY id", (run_id,)
        )
        return [(r[0], r[1]) for r in rows]
