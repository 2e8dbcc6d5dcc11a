"""The command palette's entries: every screen, and the actions people look for by name
(start normalization, index the vault, extract a source, resume a session, pull a model...).

An action entry opens the screen where the action happens and starts it there, so what follows
(progress, review) is where the user expects it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from core.flows.tutor.sessions import SessionRow
    from core.services import Services
    from tui.app import NoemaApp
    from tui.screens.progress import ProgressScreen

Entry = tuple[str, str, Callable[[], object]]
"""(title, help, callback)."""
MAX_PER_KIND = 30


class NoemaProvider(Provider):
    """A provider that reaches the app typed (as screens do: tui.screens.base)."""

    if TYPE_CHECKING:

        @property
        def app(self) -> NoemaApp: ...


class Searchable(NoemaProvider):
    """A provider whose entries are listed when the palette opens and matched when typing."""

    async def entries(self) -> list[Entry]:
        raise NotImplementedError

    async def discover(self) -> Hits:
        for title, help_text, callback in await self.entries():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in await self.entries():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)


class ScreensProvider(Searchable):
    """Every registered screen, home and help."""

    async def entries(self) -> list[Entry]:
        from tui.keys import key_for

        app = self.app
        entries: list[Entry] = []
        for screen in app.registry:
            key = key_for(app.screen, f"app.screen.{screen.name}")
            entries.append(
                (
                    f"Open {screen.title}",
                    f"{screen.title} screen (key {key})",
                    partial(app.action_open_screen, screen.name),
                )
            )
        entries.append(("Home", "Back to the home screen", app.action_home))
        entries.append(("Help", "The keys of this screen and the global ones", app.action_help))
        return entries


class ActionsProvider(Searchable):
    """Actions: normalization, indexing, extracting a source, resuming a session, pulling a
    model, evaluating a note, writing a lesson."""

    async def entries(self) -> list[Entry]:
        app = self.app
        entries: list[Entry] = [
            (
                "Start normalization",
                "look for concept notes that are the same idea",
                lambda: app.open_and(("normalization", "start")),
            ),
            ("Index the vault", "sync the vault into the index (and embeddings)", app.index_vault),
            (
                "Pull a model",
                "download a model on the Ollama server (model screen)",
                lambda: app.open_and(("model", "focus_pull")),
            ),
            (
                "Evaluate a note",
                "score a note against a rubric (rubric screen)",
                lambda: app.open_and(("rubric", "focus_note")),
            ),
            (
                "Generate a lesson",
                "write a lesson from a concept (lessons screen)",
                lambda: app.open_and(("lesson", "focus_concept")),
            ),
            (
                "Mastery over time",
                "every concept and subtopic practiced, charted; what is due",
                lambda: app.push_screen(progress_screen()),
            ),
        ]
        services = app.services
        if services is None:
            return entries
        sources, sessions = await asyncio.to_thread(self._read, services)
        for path, status in sources[:MAX_PER_KIND]:
            name = PurePosixPath(path).stem
            entries.append(
                (
                    f"Extract {name}",
                    f"{status} source: {path}",
                    partial(app.open_and, ("extraction", "extract_path", path)),
                )
            )
        for session in sessions[:MAX_PER_KIND]:
            entries.append(
                (
                    f"Resume session {session.title}",
                    f"tutoring, mastery {session.mastery:.0%}, {session.status}",
                    partial(app.open_session, session.id),
                )
            )
        return entries

    @staticmethod
    def _read(services: Services) -> tuple[list[tuple[str, str]], list[SessionRow]]:
        from core.flows.tutor.sessions import list_sessions
        from core.overview import source_statuses

        sources = [
            (path, status)
            for path, _title, status, _run in source_statuses(services.store)
            if status != "processed"
        ]
        return sources, list_sessions(services.store, MAX_PER_KIND)


def progress_screen() -> ProgressScreen:
    from tui.screens.progress import ProgressScreen

    return ProgressScreen()


class ConceptsProvider(NoemaProvider):
    """Concepts found by name (title or alias, accents aside): each opens its graph."""

    async def search(self, query: str) -> Hits:
        from core.concept_graph import find_concepts

        services = self.app.services
        if services is None or len(query.strip()) < 2:
            return
        found = await asyncio.to_thread(find_concepts, services.store, query, MAX_PER_KIND)
        matcher = self.matcher(query)
        for rank, node in enumerate(found):
            title = f"Concept graph: {node.title}"
            score = matcher.match(title) or 0.5 / (rank + 1)  # an alias or accents matched
            also = f" (aka {', '.join(node.aliases)})" if node.aliases else ""
            yield Hit(
                score,
                matcher.highlight(title),
                partial(self.open, node.id),
                help=(node.short_summary or node.path) + also,
            )

    def open(self, concept_id: str) -> None:
        from tui.screens.concept_graph import ConceptGraphScreen

        self.app.push_screen(ConceptGraphScreen(concept_id))
