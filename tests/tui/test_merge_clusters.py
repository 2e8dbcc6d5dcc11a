"""Merge clusters as trees on the normalization screen: `v` toggles them, and the review's keys
(accept, reject, canonical) work on the highlighted node as on the table's row."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from core.flows.normalization.accumulate import make_merge
from core.merges.reviews import ReviewsRepo
from tests.tui import test_normalization_screen as normalization
from tests.tui.helpers import wait_for
from tui.app import NoemaApp
from tui.widgets.merge_clusters import ClusterTree
from tui.widgets.normalization_proposals import ProposalsView

SIZE = (130, 40)
CHAIN = [  # (a, b, reason, origin): written by hand; spacing ~ interleaving chains a cluster
    ("Zona de desarrollo próximo", "ZDP", "ZDP is its acronym", "code"),
    ("Repetición espaciada", "Aprendizaje espaciado", "both space study over time", "model"),
    ("Aprendizaje espaciado", "Práctica intercalada", "interleaving «is» spacing?", "model"),
    ("Metacognición", "metacognicion", "same title, accents folded", "code"),
]


def seed_chain(app: NoemaApp, review_id: str = "d" * 32) -> None:
    store = app._injected.store
    ids = {r[0]: r[1] for r in store.query("SELECT title, entity_id FROM concepts")}
    merges = [make_merge(ids[a], ids[b], a, b, why, by) for a, b, why, by in CHAIN]
    ReviewsRepo(store).create(review_id, review_id, merges, [4, 1, 0])


def outline(app: NoemaApp) -> list[str]:
    """The trees as indented plain lines (two spaces a level)."""
    lines, stack = [], [(n, 0) for n in app.screen.query_one(ClusterTree).root.children]
    while stack:
        node, depth = stack.pop(0)
        lines.append("  " * depth + str(node.label.plain).split("  ")[0])
        stack[:0] = [(child, depth + 1) for child in node.children]
    return lines


async def open_clusters(pilot, app: NoemaApp) -> ProposalsView:
    await wait_for(pilot, lambda: app.services is not None)
    await pilot.press("n")
    await wait_for(pilot, lambda: len(normalization.rows(app)) == len(CHAIN))
    await pilot.press("v")
    view = app.screen.query_one(ProposalsView)
    await wait_for(pilot, lambda: view.showing_clusters and outline(app) != [])
    return view


async def highlight(pilot, app: NoemaApp, title: str) -> None:
    tree = app.screen.query_one(ClusterTree)
    await pilot.press(*["up"] * tree.last_line)
    for _ in range(20):
        if tree.cursor_node is not None and str(tree.cursor_node.label.plain).startswith(title):
            return
        await pilot.press("down")
    raise AssertionError(f"no node {title!r}")


def status(app: NoemaApp, b_name: str) -> str:
    store = app.services.store
    return store.query_one(
        "SELECT status FROM normalization_review_items WHERE b_name = ?", (b_name,)
    )[0]


async def test_clusters_are_trees_and_the_review_keys_work_on_them(tmp_path: Path) -> None:
    app, _root = normalization.make_app(tmp_path)
    seed_chain(app)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_clusters(pilot, app)
        assert app.screen.focused is view.query_one(ClusterTree)
        assert outline(app) == [
            "★ Metacognición",
            "  metacognicion",
            "★ Repetición espaciada",
            "  Aprendizaje espaciado",
            "    Práctica intercalada",
            "★ Zona de desarrollo próximo",
            "  ZDP",
        ]
        await highlight(pilot, app, "Práctica intercalada")
        assert "interleaving «is» spacing?" in str(view.query_one("#def-variant").render())
        await pilot.press("r")  # the chain breaks: the merge goes to the rejected ones
        await wait_for(pilot, lambda: "✗ Rejected (1)" in outline(app))
        assert status(app, "Práctica intercalada") == "rejected"
        assert "    Práctica intercalada" not in outline(app)
        assert view.current().key == normalization.rows(app)[2].key  # the cursor followed it
        await pilot.press("a")  # taken back: accepted, under its parent again
        await wait_for(pilot, lambda: "    Práctica intercalada" in outline(app))
        assert status(app, "Práctica intercalada") == "accepted"
        await pilot.press("c")  # the next member becomes the cluster's canonical
        await wait_for(pilot, lambda: "★ Aprendizaje espaciado" in outline(app))
        # both now hang from it, in the review's order of their merges
        assert outline(app)[:3] == [
            "★ Aprendizaje espaciado",
            "  Repetición espaciada",
            "  Práctica intercalada",
        ]
        key = view.current().key
        await pilot.press("v")  # back to the table, on the same merge
        table = view.query_one(DataTable)
        await wait_for(pilot, lambda: table.display and app.screen.focused is table)
        assert view.current().key == key
