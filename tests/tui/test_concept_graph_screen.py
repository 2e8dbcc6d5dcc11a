"""The concept graph view: opened from the command palette, the normalization review and the
extraction review; `enter` follows a relation, `backspace` goes back, `escape` closes."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Tree

from core.concept_graph import Edge
from tests.tui import test_normalization_screen as normalization
from tests.tui.helpers import settle, wait_for
from tests.tui.test_extraction_screen import make_app as extraction_app
from tests.tui.test_extraction_screen import open_review
from tui.app import NoemaApp
from tui.screens.concept_graph import ConceptGraphScreen
from tui.widgets.extraction_review import ReviewTable

SIZE = (130, 40)


def centre(app: NoemaApp) -> str:
    screen = app.screen
    assert isinstance(screen, ConceptGraphScreen)
    return screen.shown.concept.title if screen.shown else ""


def leaves(app: NoemaApp) -> list[tuple[str, str, str]]:
    """(direction, type, title) of every relation in the tree, top to bottom."""
    found, stack = [], [app.screen.query_one(Tree).root]
    while stack:
        node = stack.pop(0)
        if isinstance(node.data, Edge):
            found.append((node.data.direction, node.data.type, node.data.other.title))
        stack[:0] = list(node.children)
    return found


async def cursor_to(pilot, app: NoemaApp, direction: str, title: str) -> None:
    """Move the tree's cursor down to a relation's leaf with the keyboard."""
    tree = app.screen.query_one(Tree)
    for _ in range(40):
        edge = tree.cursor_node.data if tree.cursor_node else None
        if isinstance(edge, Edge) and (edge.direction, edge.other.title) == (direction, title):
            return
        await pilot.press("down")
    raise AssertionError(f"no {direction} leaf {title!r}")


async def open_from_palette(pilot, app: NoemaApp, typed: str, title: str) -> None:
    await wait_for(pilot, lambda: app.services is not None)
    await pilot.press("ctrl+p")
    await pilot.press(*typed)
    await wait_for(
        pilot,
        lambda: (
            f"Concept graph: {title}"
            in str([str(o.prompt) for o in app.screen.query("CommandList").first()._options])
        ),
    )
    await pilot.press("enter")
    await wait_for(
        pilot, lambda: isinstance(app.screen, ConceptGraphScreen) and centre(app) == title
    )


async def test_palette_search_enter_follows_and_backspace_goes_back(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_from_palette(pilot, app, "practica de recu", "Práctica de recuperación")
        assert leaves(app) == [
            ("out", "SUPPORTS", "Repetición espaciada"),
            ("out", "RELATES_TO", "Metacognición"),
            ("in", "SUPPORTED_BY", "Repetición espaciada"),
            ("in", "RELATES_TO", "Metacognición"),
        ]
        screen = app.screen
        await cursor_to(pilot, app, "out", "Repetición espaciada")
        await pilot.press("enter")
        await wait_for(pilot, lambda: centre(app) == "Repetición espaciada")
        assert ("out", "SIMILAR_TO", "Aprendizaje espaciado") in leaves(app)
        assert "Práctica de recuperación › Repetición espaciada" in str(
            screen.query_one("#graph-path").render()
        )
        await cursor_to(pilot, app, "out", "Aprendizaje espaciado")
        await pilot.press("enter")
        await wait_for(pilot, lambda: centre(app) == "Aprendizaje espaciado")
        await pilot.press("backspace")
        await wait_for(pilot, lambda: centre(app) == "Repetición espaciada")
        # the cursor is back on the relation that was followed
        tree = screen.query_one(Tree)
        await wait_for(
            pilot,
            lambda: (
                isinstance(tree.cursor_node.data, Edge)
                and tree.cursor_node.data.other.title == "Aprendizaje espaciado"
            ),
        )
        await pilot.press("b")
        await wait_for(pilot, lambda: centre(app) == "Práctica de recuperación")
        await pilot.press("backspace")  # where it started: stays
        await settle(pilot, app)
        assert centre(app) == "Práctica de recuperación"
        await pilot.press("escape")
        assert not isinstance(app.screen, ConceptGraphScreen)


async def test_normalization_g_opens_the_graph_of_the_merge_canonical(tmp_path: Path) -> None:
    app, _root = normalization.make_app(tmp_path, seed_review=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        await pilot.press("n")
        await wait_for(pilot, lambda: len(normalization.rows(app)) == 3)
        canonical = normalization.rows(app)[0].canonical
        await pilot.press("g")
        await wait_for(
            pilot, lambda: isinstance(app.screen, ConceptGraphScreen) and centre(app) == canonical
        )
        await pilot.press("escape")
        assert len(normalization.rows(app)) == 3  # the review is where it was


async def test_extraction_g_shows_a_new_concept_with_its_proposed_relations(
    tmp_path: Path,
) -> None:
    app, _root, _script = extraction_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        review = await open_review(pilot, app)
        shown = review.review
        assert shown is not None
        new = shown.concepts[0]
        relation = next(r for r in shown.relations if r.source_id == new.id)
        assert review.query_one(ReviewTable).current_key() == f"concept|{new.id}"
        await pilot.press("g")
        await wait_for(
            pilot, lambda: isinstance(app.screen, ConceptGraphScreen) and centre(app) == new.title
        )
        [edge] = [e for e in app.screen.shown.edges() if e.other.id == relation.target_id]
        assert edge.proposed and edge.type == relation.type
        assert edge.other.title == relation.target_title
        await cursor_to(pilot, app, "out", relation.target_title)
        assert "proposed by the extraction under review" in str(
            app.screen.query_one("#graph-detail").render()
        )
        await pilot.press("enter")  # follows the proposed relation to its target
        await wait_for(pilot, lambda: centre(app) == relation.target_title)
        assert ("in", relation.type, new.title) in leaves(app)
