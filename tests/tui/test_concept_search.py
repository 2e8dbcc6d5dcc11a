"""Finding a concept note by typing: matching rules, and the field over 5,000 concepts."""

from __future__ import annotations

import random
import threading

from textual.app import App
from textual.widgets import Input, OptionList

from core.curriculum import ConceptRef
from tests.tui.helpers import wait_for
from tui.widgets import concept_search
from tui.widgets.concept_search import ConceptSearch, matching

TITLES = [
    "Práctica de recuperación",
    "Recuperación espaciada",
    "Efecto de generación",
    "Zona de desarrollo próximo",
    "Práctica intercalada",
    "Ley de Hick-Hyman",
    "Teorema de Bayes",
    "曖昧さ回避",
    "Café ☕ y memoria",
    "Repetición",
]


def refs(titles: list[str]) -> list[ConceptRef]:
    return [ConceptRef(f"id-{n}", t) for n, t in enumerate(titles)]


def found(query: str, titles: list[str] = TITLES, limit: int = 30) -> list[str]:
    concepts = refs(titles)
    keys = [concept_search.folded(c.title) for c in concepts]
    return [c.title for c in matching(query, concepts, keys, limit)]


def test_accents_and_case_do_not_matter() -> None:
    assert found("PRACTICA")[:2] == ["Práctica intercalada", "Práctica de recuperación"]


def test_every_word_typed_must_be_there_in_any_order() -> None:
    assert found("recuperación práctica")[0] == "Práctica de recuperación"


def test_titles_that_start_with_the_text_come_first_shorter_before_longer() -> None:
    assert found("rec")[:2] == ["Recuperación espaciada", "Práctica de recuperación"]


def test_a_typo_still_finds_the_concept() -> None:
    assert "Teorema de Bayes" in found("teorma bayes")


def test_other_scripts_and_emoji_are_found() -> None:
    assert found("曖昧")[0] == "曖昧さ回避" and found("café ☕")[0] == "Café ☕ y memoria"


def test_at_most_the_limit_and_nothing_typed_lists_the_first() -> None:
    assert len(found("a", limit=3)) == 3 and found("", limit=2) == TITLES[:2]


def generated_titles(count: int) -> list[str]:
    """Concept-like titles: two or three words from a mixed vocabulary, all distinct."""
    rng = random.Random(19)
    words = [
        "memoria",
        "atención",
        "práctica",
        "señal",
        "红色",
        "Σύνολο",
        "modelo",
        "teoría",
        "efecto",
        "aprendizaje",
        "olvido",
        "curva",
        "ruido",
        "sesgo",
        "control",
        "ÿ",
    ]
    titles: set[str] = set()
    while len(titles) < count:
        titles.add(" ".join(rng.sample(words, rng.choice((2, 3)))) + f" {len(titles)}")
    return sorted(titles)


class Host(App):
    def __init__(self) -> None:
        super().__init__()
        self.chosen: list[ConceptRef] = []

    def compose(self):
        yield ConceptSearch()

    def on_concept_search_chosen(self, message: ConceptSearch.Chosen) -> None:
        self.chosen.append(message.concept)


async def test_typing_over_5000_concepts_searches_off_the_loop_and_enter_chooses(
    monkeypatch,
) -> None:
    titles = [*generated_titles(5000), "Curva del olvido de Ebbinghaus"]
    threads: list[str] = []
    original = concept_search.matching

    def watched(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return original(*args, **kwargs)

    monkeypatch.setattr(concept_search, "matching", watched)
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        search = app.query_one(ConceptSearch)
        search.load(refs(titles))
        box = app.query_one("#concept-query", Input)
        box.focus()
        await pilot.press(*"curva olvido ebb")
        assert box.value == "curva olvido ebb"  # every key landed
        await wait_for(pilot, lambda: search.matched == "curva olvido ebb")
        assert len(threads) < len(box.value) // 2  # searched when typing pauses, not per key
        assert all(name != threading.main_thread().name for name in threads)
        assert search.matches[0].title == "Curva del olvido de Ebbinghaus"
        options = app.query_one(OptionList)
        assert not options.has_class("hidden") and options.option_count == len(search.matches)
        await pilot.press("enter")
        await pilot.pause()
        assert [c.title for c in app.chosen] == ["Curva del olvido de Ebbinghaus"]


async def test_down_moves_into_the_matches_and_enter_there_chooses_one() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        search = app.query_one(ConceptSearch)
        search.load(refs(TITLES))
        app.query_one("#concept-query", Input).focus()
        await pilot.press(*"practica")
        await wait_for(pilot, lambda: search.matched == "practica")
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        assert [c.title for c in app.chosen] == [search.matches[1].title]
        await pilot.press("up", "up")  # from the top of the matches back to the field
        assert app.query_one("#concept-query", Input).has_focus
