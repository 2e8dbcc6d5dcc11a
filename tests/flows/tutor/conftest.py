"""Services over a temporary vault with a scripted tutor model, and a driver for turns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.events import Done, Progress, RunEvent
from core.flows.tutor.graph import SPEC
from core.flows.tutor.session import session_values, start_session, turn
from core.flows.tutor.state import validate_state
from core.services import open_services
from core.settings import Settings
from local_llm.testing import ScriptedBackend
from tests.flows.tutor.scripted import TutorScript, lesson


class Tutor:
    """One session driven turn by turn; every state after a turn is schema-checked."""

    def __init__(self, tmp_path: Path, script: TutorScript, **tutor_settings: Any) -> None:
        self.vault = tmp_path / "vault"
        self.vault.mkdir(exist_ok=True)
        self.settings = Settings(
            vault={"path": self.vault},
            data={"directory": tmp_path / "data"},
            flows={"tutor": tutor_settings},
        )
        self.script = script
        self.backend = ScriptedBackend(script, stream_chunk=4)
        self.services = open_services(self.settings, {"tutor": SPEC}, backend=self.backend)
        self.session_id = ""

    async def __aenter__(self) -> Tutor:
        await self.services.__aenter__()
        self.session_id = start_session(self.services.runtime, lesson(), self.settings).id
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.services.__aexit__(*exc)

    async def turn(self, text: str | None = None) -> list[RunEvent]:
        events = [e async for e in turn(self.services.runtime, self.session_id, text)]
        assert isinstance(events[-1], Done), events[-1]
        validate_state(await self.values())
        return events

    async def values(self) -> dict[str, Any]:
        return await session_values(self.services.runtime, self.session_id)

    @staticmethod
    def tokens(events: list[RunEvent]) -> str:
        return "".join(
            e.data["token"] for e in events if isinstance(e, Progress) and "token" in e.data
        )


@pytest.fixture
def tutor(tmp_path: Path):
    return lambda script, **settings: Tutor(tmp_path, script, **settings)
