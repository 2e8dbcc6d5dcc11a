"""Every workflow the runtime knows, and the services of the app built over them."""

from __future__ import annotations

from core.runtime import FlowSpec
from core.services import Services, open_services
from core.settings import Settings
from local_llm import Backend


def flows() -> dict[str, FlowSpec]:
    """Flow name -> spec. Each flow package's graph module exposes `SPEC`; add it here."""
    from core.flows.extraction.graph import SPEC as extraction
    from core.flows.lesson.graph import SPEC as lesson
    from core.flows.normalization.graph import SPEC as normalization
    from core.flows.rubric.graph import SPEC as rubric
    from core.flows.tutor.graph import SPEC as tutor

    specs: list[FlowSpec] = [extraction, normalization, lesson, rubric, tutor]
    return {spec.name: spec for spec in specs}


def open_app(settings: Settings, *, backend: Backend | None = None, warm: bool = True) -> Services:
    """The app's services with every registered flow (open with `async with`); `warm=False`
    when this process will not call a model."""
    return open_services(settings, flows(), backend=backend, warm=warm)
