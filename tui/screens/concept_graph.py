"""The concept graph around a note: a concept's relations as a tree, by direction (what its own
note says, what other notes say about it) and by type. `enter` on a related concept follows
the relation (the tree re-roots there), `backspace` goes back along the way, `escape` closes.

Opened from the extraction review (the highlighted item's concept, with the review's proposed
relations laid over the vault's), the normalization review (the highlighted merge's concepts)
and the command palette (a concept found by name).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Footer, Header, Static, Tree
from textual.widgets.tree import TreeNode

from core.concept_graph import ConceptNode, Edge, Neighbourhood, ProposedRelation
from tui.keys import hints
from tui.messages import ServicesReady
from tui.screens.base import NoemaScreen

if TYPE_CHECKING:
    from core.flows.extraction.state import ExtractionReview

HEADINGS = {"out": "→ its note says", "in": "← other notes say"}


def edge_label(edge: Edge) -> Text:
    """`Memoria a largo plazo  · summary`, proposed in yellow, a missing note in red."""
    node = edge.other
    if not node.in_vault and not edge.proposed:
        return Text(node.title, style="red")
    text = Text(node.title, style="bold" if node.in_vault else "")
    if edge.proposed:
        text.append("  proposed", style="yellow")
    if node.short_summary:
        text.append(f"  · {node.short_summary}", style="dim")
    return text


def sentence(centre: ConceptNode, edge: Edge) -> str:
    """The relation as the note that holds it says it: `A SUPPORTS B`."""
    if edge.direction == "out":
        return f"{centre.title} {edge.type} {edge.other.title}"
    return f"{edge.other.title} {edge.type} {centre.title}"


def node_detail(centre: ConceptNode, edge: Edge | None) -> Text:
    """The highlighted concept in full (the centre when a heading is highlighted)."""
    node = edge.other if edge is not None else centre
    text = Text(node.title + "\n", style="bold")
    if edge is not None:
        text.append(sentence(centre, edge) + "\n", style="italic")
        if edge.proposed:
            text.append("proposed by the extraction under review", style="yellow")
            text.append(f": {edge.note}\n" if edge.note else "\n")
    if node.short_summary:
        text.append(node.short_summary + "\n")
    if node.aliases:
        text.append("aka ", style="dim").append(", ".join(node.aliases) + "\n")
    where = node.path or ("not in the vault yet" if edge and edge.proposed else "no note")
    return text.append(where, style="dim")


class ConceptGraphScreen(NoemaScreen):
    """One concept's relations as a navigable tree."""

    DEFAULT_CSS = """
    ConceptGraphScreen #graph-path { height: auto; padding: 0 1; color: $text-muted; }
    ConceptGraphScreen #graph-body { height: 1fr; }
    ConceptGraphScreen #graph-tree { width: 3fr; }
    ConceptGraphScreen #graph-detail { width: 2fr; min-width: 30; border: round $secondary;
                                       padding: 0 1; }
    """
    BINDINGS = [
        Binding("backspace,b", "back_concept", "Back", id="concept_graph.back"),
        Binding("escape", "back", "Close", id="concept_graph.close"),
    ]
    HELP_KEYS = [
        ("enter", "on a related concept: follow the relation (the tree centres on it)"),
        ("↑ ↓", "move; enter or space on a heading folds it"),
    ]

    def __init__(
        self,
        concept_id: str,
        proposed: Iterable[ProposedRelation] = (),
        titles: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.concept_id = concept_id
        self.proposed = list(proposed)
        self.titles = dict(titles or {})
        self.trail: list[tuple[str, str]] = []
        """(id, title) of the concepts followed to get here (backspace returns along it)."""
        self.shown: Neighbourhood | None = None
        self.came_back_from = ""
        """After going back: the concept left, whose edge the cursor lands on."""

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield Static("", id="graph-path")
        with Horizontal(id="graph-body"):
            yield Tree("…", id="graph-tree")
            yield Static("", id="graph-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Concept graph"
        self.query_one(Tree).focus()
        if self.app.services is not None:
            self.load(self.concept_id)

    def on_services_ready(self, _message: ServicesReady) -> None:
        self.load(self.concept_id)

    @work(exclusive=True, group="concept-graph", exit_on_error=False)
    async def load(self, concept_id: str) -> None:
        from core.concept_graph import neighbourhood

        store = self.require_services().store
        around = await asyncio.to_thread(
            neighbourhood, store, concept_id, self.proposed, self.titles
        )
        self.concept_id = concept_id
        self.show(around)

    def show(self, around: Neighbourhood) -> None:
        self.shown = around
        tree: Tree[Edge | None] = self.query_one(Tree)
        tree.clear()
        tree.root.set_label(Text(around.concept.title, style="bold"))
        tree.root.data = None
        for direction, groups in (("out", around.outgoing), ("in", around.incoming)):
            count = sum(len(edges) for edges in groups.values())
            heading = tree.root.add(
                Text.assemble((HEADINGS[direction], "bold"), f"  ({count})"), expand=True
            )
            if not groups:
                heading.add_leaf(Text("none", style="dim"))
            for rel_type, edges in groups.items():
                group = heading.add(Text(rel_type, style="cyan"), expand=True)
                for edge in edges:
                    group.add_leaf(edge_label(edge), data=edge)
        tree.root.expand()
        # the new lines exist after the next refresh: the cursor goes there then
        tree.call_after_refresh(
            tree.move_cursor, self.leaf_of(tree, self.came_back_from) or tree.root
        )
        self.came_back_from = ""
        self.show_path()
        self.show_detail(None)

    def show_path(self) -> None:
        names = [title for _id, title in self.trail]
        names.append(self.shown.concept.title if self.shown else "")
        back = hints(self, ("concept_graph.back", "back")) if self.trail else ""
        keys = "enter on a concept: follow" + (f" · {back}" if back else "")
        self.query_one("#graph-path", Static).update(
            Text.assemble((" › ".join(names), "bold"), f"   ({keys})")
        )

    def show_detail(self, edge: Edge | None) -> None:
        if self.shown is not None:
            self.query_one("#graph-detail", Static).update(node_detail(self.shown.concept, edge))

    @on(Tree.NodeHighlighted, "#graph-tree")
    def _highlighted(self, event: Tree.NodeHighlighted) -> None:
        self.show_detail(event.node.data if isinstance(event.node.data, Edge) else None)

    @on(Tree.NodeSelected, "#graph-tree")
    def _selected(self, event: Tree.NodeSelected) -> None:
        edge = event.node.data
        if isinstance(edge, Edge):
            self.follow(edge)

    def follow(self, edge: Edge) -> None:
        """Centre the tree on the other end of a relation (its note, or a proposed concept)."""
        if not edge.other.in_vault and not edge.proposed:
            self.notify(f"{edge.other.title}: no note in the vault has this id", severity="warning")
            return
        title = self.shown.concept.title if self.shown is not None else self.concept_id[:8]
        self.trail.append((self.concept_id, title))
        self.load(edge.other.id)

    def action_back_concept(self) -> None:
        """Back to the concept this one was reached from."""
        if not self.trail:
            self.notify("this is where you started (escape closes the graph)")
            return
        self.came_back_from = self.concept_id
        self.load(self.trail.pop()[0])

    @staticmethod
    def leaf_of(tree: Tree, concept_id: str) -> TreeNode | None:
        """The first leaf whose relation leads to `concept_id`."""
        stack = list(tree.root.children)
        while concept_id and stack:
            node = stack.pop(0)
            if isinstance(node.data, Edge) and node.data.other.id == concept_id:
                return node
            stack.extend(node.children)
        return None

    def current_edge(self) -> Edge | None:
        node: TreeNode | None = self.query_one(Tree).cursor_node
        return node.data if node is not None and isinstance(node.data, Edge) else None


def from_extraction(review: ExtractionReview, key: str) -> ConceptGraphScreen | None:
    """The graph of the extraction review's highlighted item (row key `kind|id...`), with the
    review's relations laid over the vault's; None for an item without a concept."""
    kind, _, rest = key.partition("|")
    if kind == "relation":
        found = next((r for r in review.relations if r.id == rest), None)
        concept_id = found.source_id if found else ""
    else:  # concept|ID, duplicate|CONCEPT_ID, attribution|CONCEPT_ID|QUOTE
        concept_id = rest.partition("|")[0]
    if not concept_id:
        return None
    relations = review.relations
    proposed = [
        ProposedRelation(r.source_id, r.type, r.target_id, r.explanation) for r in relations
    ]
    titles = {c.id: c.title for c in review.concepts}
    titles |= {r.source_id: r.source_title for r in relations}
    titles |= {r.target_id: r.target_title for r in relations}
    return ConceptGraphScreen(concept_id, proposed, titles)
