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
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

Entry = tuple[str, str, Callable[[], Any]]
"""(title, help, callback)."""
MAX_PER_KIND = 30


class Searchable(Provider):
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
        from tui.app import SCREENS
        from tui.keys import key_for

        app = self.app
        entries: list[Entry] = [
            (f"Open {title}", f"{title} screen (key {key_for(app.screen, f'app.screen.{name}')})",
             lambda n=name: app.action_open_screen(n))
            for name, (_key, title, _f) in SCREENS.items()
        ]  # fmt: skip
        entries.append(("Home", "Back to the home screen", app.action_home))
        entries.append(("Help", "The keys of this screen and the global ones", app.action_help))
        return entries


class ActionsProvider(Searchable):
    """Actions: normalization, indexing, extracting a source, resuming a session, pulling a
    model, evaluating a note, writing a lesson."""

    async def entries(self) -> list[Entry]:
        app = self.app
        entries: list[Entry] = [
            ("Start normalization", "look for concept notes that are the same idea",
             lambda: app.open_and(("normalization", "start"))),
            ("Index the vault", "sync the vault into the index (and embeddings)", app.index_vault),
            ("Pull a model", "download a model on the Ollama server (model screen)",
             lambda: app.open_and(("model", "focus_pull"))),
            ("Evaluate a note", "score a note against a rubric (rubric screen)",
             lambda: app.open_and(("rubric", "focus_note"))),
            ("Generate a lesson", "write a lesson from a concept (lessons screen)",
             lambda: app.open_and(("lesson", "focus_concept"))),
            ("Mastery over time", "every concept and subtopic practiced, charted; what is due",
             lambda: app.push_screen(progress_screen())),
        ]  # fmt: skip
        services = app.services
        if services is None:
            return entries
        sources, sessions = await asyncio.to_thread(self._read, services)
        for path, status in sources[:MAX_PER_KIND]:
            name = PurePosixPath(path).stem
            entries.append((f"Extract {name}", f"{status} source: {path}",
                            lambda p=path: app.open_and(("extraction", "extract_path", p))))  # fmt: skip
        for session in sessions[:MAX_PER_KIND]:
            entries.append((f"Resume session {session.title}",
                            f"tutoring, mastery {session.mastery:.0%}, {session.status}",
                            lambda s=session.id: app.open_session(s)))  # fmt: skip
        return entries

    @staticmethod
    def _read(services: Any) -> tuple[list[tuple[str, str]], list[Any]]:
        from core.flows.tutor.sessions import list_sessions
        from tui.widgets.extraction_sources import source_rows

        sources = [(path, status) for path, _title, status, _run in source_rows(services.store)
                   if status != "processed"]  # fmt: skip
        return sources, list_sessions(services.store, MAX_PER_KIND)


def progress_screen() -> Any:
    from tui.screens.progress import ProgressScreen

    return ProgressScreen()


class ConceptsProvider(Provider):
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
            yield Hit(score, matcher.highlight(title), partial(self.open, node.id),
                      help=(node.short_summary or node.path) + also)  # fmt: skip

    def open(self, concept_id: str) -> None:
        from tui.screens.concept_graph import ConceptGraphScreen

        self.app.push_screen(ConceptGraphScreen(concept_id))
