"""Find a concept note by typing: the matches follow the text as it is typed, over thousands
of concepts.

The titles are loaded once; each search runs in a thread worker after a short pause in the
typing (a newer search cancels an older one), so a key press never waits for a search. Titles
that contain the words typed come first (the shorter, the closer), then fuzzy matches
(rapidfuzz) that catch typos and missing accents.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Unpack

from rapidfuzz import fuzz, process
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from core.curriculum import ConceptRef
from tui.widgets.options import WidgetOptions

DEBOUNCE_S = 0.12
"""The pause in typing after which the matches are searched."""
SHOWN = 30
FUZZY_CUTOFF = 60


def folded(text: str) -> str:
    """Lower case without accents: 'Práctica' matches 'practica'."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def matching(query: str, concepts: list[ConceptRef], keys: list[str], limit: int = SHOWN):
    """The concepts that match `query` best, at most `limit` (`keys`: their folded titles)."""
    words = folded(query).split()
    if not words:
        return concepts[:limit]
    found = [n for n, key in enumerate(keys) if all(w in key for w in words)]
    found.sort(key=lambda n: (not keys[n].startswith(words[0]), len(keys[n]), keys[n]))
    picked = found[:limit]
    if len(picked) < limit:  # typos and word order: fuzzy matches after the exact ones
        seen = set(picked)
        fuzzy = process.extract(
            " ".join(words), keys, scorer=fuzz.WRatio, score_cutoff=FUZZY_CUTOFF, limit=limit * 2
        )
        picked += [n for _, _, n in fuzzy if n not in seen][: limit - len(picked)]
    return [concepts[n] for n in picked]


class ConceptSearch(Vertical):
    """A search field and its matches; enter (in either) or a click chooses a concept."""

    DEFAULT_CSS = """
    ConceptSearch { height: auto; }
    ConceptSearch OptionList { height: auto; max-height: 8; }
    ConceptSearch .hidden { display: none; }
    """

    class Chosen(Message):
        def __init__(self, concept: ConceptRef) -> None:
            super().__init__()
            self.concept = concept

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.concepts: list[ConceptRef] = []
        self._keys: list[str] = []
        self.matches: list[ConceptRef] = []
        self.matched = ""
        """The text `matches` were found for."""
        self._timer: Any = None

    def compose(self) -> ComposeResult:
        yield Input(placeholder="type to find a concept note", id="concept-query")
        yield OptionList(id="concept-matches", classes="hidden")

    def load(self, concepts: list[ConceptRef]) -> None:
        self.concepts = list(concepts)
        self._keys = [folded(c.title) for c in self.concepts]
        box = self.query_one("#concept-query", Input)
        box.placeholder = f"type to find one of {len(self.concepts):,} concept notes"
        if box.value:
            self.search(box.value)

    @on(Input.Changed, "#concept-query")
    def _typed(self, event: Input.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(DEBOUNCE_S, lambda: self.search(event.value))

    @work(exclusive=True, thread=True, group="concept-search", exit_on_error=False)
    def search(self, query: str) -> None:
        found = matching(query, self.concepts, self._keys) if query.strip() else []
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.show_matches, query, found)

    def show_matches(self, query: str, found: list[ConceptRef]) -> None:
        if query != self.query_one("#concept-query", Input).value:
            return  # typed on since: a newer search comes
        self.matches, self.matched = found, query
        options = self.query_one("#concept-matches", OptionList)
        options.clear_options()
        options.add_options([Option(c.title, id=c.id) for c in found])
        options.set_class(not found, "hidden")
        if found:
            options.highlighted = 0

    @on(Input.Submitted, "#concept-query")
    def _submitted(self) -> None:
        options = self.query_one("#concept-matches", OptionList)
        index = options.highlighted if options.highlighted is not None else 0
        if self.matches:
            self.post_message(self.Chosen(self.matches[index]))
        else:
            self.app.notify("no concept matches what you typed", severity="warning")

    @on(OptionList.OptionSelected, "#concept-matches")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.post_message(self.Chosen(self.matches[event.option_index]))

    def on_key(self, event: Any) -> None:
        """Down from the field moves into the matches (up from their top goes back)."""
        options = self.query_one("#concept-matches", OptionList)
        if event.key == "down" and self.query_one("#concept-query").has_focus and self.matches:
            options.focus()
            event.stop()
        elif event.key == "up" and options.has_focus and options.highlighted == 0:
            self.query_one("#concept-query").focus()
            event.stop()
