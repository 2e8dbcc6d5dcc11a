"""The screen registry: one entry per screen the app opens by name, with the screens that open
a run of its flow.

A workflow plugs into the TUI with one `ScreenEntry` in `DEFAULT_REGISTRY`:

    ScreenEntry("extraction", "x", "Extraction", "tui.screens.extraction:open_screen",
                review="tui.screens.extraction:review_screen")

- `open` (`factory(app) -> Screen`) is reachable from every screen with `key` (binding id
  `app.screen.<name>`), listed on home's screens line, the help screen and the command palette.
- `review`, `running`, `result` (`factory(app, run) -> Screen`) open a run of the flow named
  `name` with Enter in home's runs table when it awaits review, runs (the screen follows it live,
  replaying `app.run_log(run_id)`), or is done (what it made).
- `session` (same signature) is for flows whose runs are sessions to come back to (tutoring):
  Enter opens the run whatever its status (but cancelled), and autostart leaves them alone.

A factory is a callable or a `"module:attribute"` string imported on first use, so starting
the app imports no workflow screen. `NoemaApp(settings, registry=...)` takes another registry
(tests give one with a screen of their own instead of patching module globals).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypedDict, Unpack

if TYPE_CHECKING:
    from core.store.runs import RunRecord
    from tui.app import NoemaApp
    from tui.screens.base import NoemaScreen

ScreenFactory = Callable[["NoemaApp"], "NoemaScreen"] | str
"""`factory(app) -> NoemaScreen` (it records the name it was opened by), or "module:attribute"
naming one."""
RunScreenFactory = Callable[["NoemaApp", "RunRecord"], "NoemaScreen"] | str
"""`factory(app, run) -> Screen`, or "module:attribute" naming one."""


def resolve(factory: Callable[..., NoemaScreen] | str) -> Callable[..., NoemaScreen]:
    """A factory, importing it first when given as "module:attribute"."""
    if isinstance(factory, str):
        module, _, attr = factory.partition(":")
        found: Callable[..., NoemaScreen] = getattr(importlib.import_module(module), attr)
        return found
    return factory


@dataclass(frozen=True)
class ScreenEntry:
    """One screen opened by name, and (for a workflow) the screens that open its runs."""

    name: str
    """The screen's name; for a workflow, the flow's name (`RunRecord.flow`)."""
    key: str
    """The key that opens it from every screen (remappable: `app.screen.<name>`)."""
    title: str
    """How home, help and the palette name it."""
    open: ScreenFactory
    """`factory(app) -> Screen`: the screen as opened by its key."""
    review: RunScreenFactory | None = None
    """Opens a run awaiting review."""
    running: RunScreenFactory | None = None
    """Opens a running run, following it live."""
    result: RunScreenFactory | None = None
    """Opens a done run: what it made."""
    session: RunScreenFactory | None = None
    """Opens a run whatever its status (but cancelled): a session to come back to."""

    def run_factory(self, run: RunRecord) -> RunScreenFactory | None:
        """The factory that opens this run as it stands, or None."""
        if self.session is not None and run.status != "cancelled":
            return self.session
        by_status = {"awaiting_review": self.review, "running": self.running, "done": self.result}
        return by_status.get(run.status)


class EntryChanges(TypedDict, total=False):
    """The fields of a `ScreenEntry` a copy may change (`ScreenRegistry.with_entry`)."""

    key: str
    title: str
    open: ScreenFactory
    review: RunScreenFactory | None
    running: RunScreenFactory | None
    result: RunScreenFactory | None
    session: RunScreenFactory | None


class ScreenRegistry:
    """The app's screens by name, in the order home, help and the palette list them."""

    def __init__(self, entries: Iterable[ScreenEntry]) -> None:
        self.entries: dict[str, ScreenEntry] = {entry.name: entry for entry in entries}

    def __iter__(self) -> Iterator[ScreenEntry]:
        return iter(self.entries.values())

    def __getitem__(self, name: str) -> ScreenEntry:
        return self.entries[name]

    def get(self, name: str) -> ScreenEntry | None:
        return self.entries.get(name)

    def with_entry(self, name: str, **changes: Unpack[EntryChanges]) -> ScreenRegistry:
        """A copy where the entry `name` has these fields changed (tests plug a screen in)."""
        return ScreenRegistry(
            replace(entry, **changes) if entry.name == name else entry for entry in self
        )

    def only(self, *names: str) -> ScreenRegistry:
        """A copy holding only these entries."""
        return ScreenRegistry(entry for entry in self if entry.name in names)

    def is_session(self, flow: str) -> bool:
        """Whether the flow's runs are sessions (left to their screen, never autostarted)."""
        entry = self.entries.get(flow)
        return entry is not None and entry.session is not None

    def run_factory(self, run: RunRecord) -> RunScreenFactory | None:
        """The factory that opens this run as it stands, or None (no screen for it)."""
        entry = self.entries.get(run.flow)
        return entry.run_factory(run) if entry is not None else None

    def has_review(self, flow: str) -> bool:
        entry = self.entries.get(flow)
        return entry is not None and entry.review is not None


DEFAULT_REGISTRY = ScreenRegistry(
    [
        ScreenEntry("model", "m", "Model", "tui.screens.model:ModelScreen"),
        ScreenEntry(
            "rubric",
            "e",
            "Rubric",
            "tui.screens.rubric:open_screen",
            review="tui.screens.rubric:review_screen",
            running="tui.screens.rubric:review_screen",
        ),
        ScreenEntry(
            "tutor",
            "t",
            "Tutor",
            "tui.screens.tutor:open_screen",
            session="tui.screens.tutor:session_screen",
        ),
        ScreenEntry(
            "normalization",
            "n",
            "Normalize",
            "tui.screens.normalization:open_screen",
            review="tui.screens.normalization:review_screen",
            running="tui.screens.normalization:run_screen",
        ),
        ScreenEntry(
            "extraction",
            "x",
            "Extraction",
            "tui.screens.extraction:open_screen",
            review="tui.screens.extraction:review_screen",
            running="tui.screens.extraction:review_screen",
        ),
        ScreenEntry(
            "lesson",
            "l",
            "Lessons",
            "tui.screens.lesson:open_screen",
            review="tui.screens.lesson:review_screen",
            running="tui.screens.lesson:review_screen",
            result="tui.screens.lesson:review_screen",
        ),
        ScreenEntry("usage", "dollar_sign", "Usage", "tui.screens.usage:open_screen"),
    ]
)
"""noema's screens; a workflow adds one entry."""
