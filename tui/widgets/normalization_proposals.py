"""The proposals table (canonical <- variants, status, reason) and the definitions of the
selected merge side by side."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Unpack

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Static

from core.merges.clusters import default_canonical
from tui.text import clip
from tui.widgets.merge_clusters import ClusterTree
from tui.widgets.options import WidgetOptions

STATUS_STYLE = {"pending": "yellow", "accepted": "green", "rejected": "red"}
FIXED_COLUMNS = 4 + 8 + 10 + 2 * 6
"""Cells of the #, status and by columns, and the cell padding of the six columns."""


def text_widths(table_width: int) -> tuple[int, int]:
    """Widths of a title column (canonical, variants) and of the reason column, so that the
    row fits the table (the full texts are in the definitions below it)."""
    room = max(36, table_width - FIXED_COLUMNS - 2)
    title = max(10, room * 3 // 10)
    return title, max(12, room - 2 * title)


@dataclass(frozen=True)
class ProposalRow:
    """One merge of the review as the table shows it."""

    key: str
    status: str
    canonical_id: str
    canonical: str
    variants: str
    origin: str
    reason: str
    members: tuple[str, ...]
    left: str
    right: str


def with_merged_concepts(review: Any, concepts: dict[str, Any]) -> dict[str, Any]:
    """The index's concepts plus the review's concepts the index no longer has (their notes
    were archived by an apply), titled by the review, so that an applied review still reads
    by title with the same canonical (a concept present outranks an archived one)."""
    from core.merges.catalog import ConceptInfo

    known = dict(concepts)
    for item in review.items:
        for cid, name in ((item.a_id, item.a_name), (item.b_id, item.b_name)):
            if cid not in known:
                known[cid] = ConceptInfo(id=cid, title=name, summary=ARCHIVED)
    return known


ARCHIVED = "(merged: its note was archived)"


def build_rows(review: Any, clusters: list[Any], concepts: dict[str, Any]) -> list[ProposalRow]:
    """One row per merge, in the review's own order, whatever is decided (a decision never
    moves a row: the cursor stays on the merge it changed). A merge in a cluster shows the
    cluster's canonical; a rejected one, the canonical the pair alone would have."""
    cluster_of = {item.key: cluster for cluster in clusters for item in cluster.items}

    def title(cid: str) -> str:
        c = concepts.get(cid)
        return c.title if c is not None else "(unknown concept)"

    def definition(cid: str) -> str:
        c = concepts.get(cid)
        if c is None:
            return "(unknown concept)"
        return f"{c.title}\n\n{c.summary or c.short_summary or '(no definition)'}"

    rows: list[ProposalRow] = []
    for item in review.items:
        cluster = cluster_of.get(item.key)
        if cluster is not None:
            canonical_id, canonical = cluster.canonical_id, cluster.title(concepts)
            members = tuple(cluster.members)
        else:  # rejected: the pair's own canonical, so rejecting never flips the row
            members = (item.a_id, item.b_id)
            canonical_id = default_canonical(members, concepts)
            canonical = title(canonical_id)
        others = [cid for cid in (item.a_id, item.b_id) if cid != canonical_id]
        rows.append(
            ProposalRow(
                item.key,
                item.status,
                canonical_id,
                canonical,
                " = ".join(title(c) for c in others),
                item.origin,
                item.reason,
                members,
                definition(canonical_id),
                "\n\n".join(definition(c) for c in others),
            )
        )
    return rows


class ProposalsView(Vertical):
    """The table (or the clusters as trees: `toggle_view`) and the two definitions of the
    highlighted merge."""

    DEFAULT_CSS = """
    ProposalsView { height: 1fr; }
    ProposalsView DataTable { height: 1fr; }
    ProposalsView ClusterTree { display: none; }
    ProposalsView.clusters DataTable { display: none; }
    ProposalsView.clusters ClusterTree { display: block; }
    ProposalsView #definitions { height: 9; }
    ProposalsView .definition { width: 1fr; border: round $secondary; padding: 0 1; }
    """

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.rows: list[ProposalRow] = []

    def compose(self) -> ComposeResult:
        table: DataTable = DataTable(id="proposals", cursor_type="row", zebra_stripes=True)
        table.add_columns("#", "status", "canonical", "← variants", "by", "reason")
        yield table
        yield ClusterTree(id="clusters")
        with Horizontal(id="definitions"):
            yield Static("", id="def-canonical", classes="definition")
            yield Static("", id="def-variant", classes="definition")

    def show(self, rows: list[ProposalRow], same_review: bool = True) -> None:
        """Replace the rows, keeping the cursor on the merge it was on; a new review (a run
        just finished, another review opened) starts on its first merge."""
        table = self.query_one(DataTable)
        current = self.current() if same_review else None
        cursor = table.cursor_row if same_review else 0
        table.clear()
        self.rows = rows
        title, reason = text_widths(self.size.width)
        for n, row in enumerate(rows, start=1):
            table.add_row(
                str(n),
                Text(row.status, style=STATUS_STYLE.get(row.status, "")),
                clip(row.canonical, title),
                clip(row.variants, title),
                clip(row.origin, 8),
                clip(row.reason, reason),
                key=row.key,
            )
        keys = [row.key for row in rows]
        if current is not None and current.key in keys:
            table.move_cursor(row=keys.index(current.key), animate=False)
        elif rows:
            table.move_cursor(row=min(cursor, len(rows) - 1), animate=False)
        self.show_definitions()

    def on_resize(self) -> None:
        if self.rows:
            self.show(self.rows)

    def show_clusters(self, clusters: list[Any], review: Any, concepts: dict[str, Any]) -> None:
        """The same merges as trees: each cluster under its canonical, the rejected apart."""

        def title(cid: str) -> str:
            c = concepts.get(cid)
            return c.title if c is not None else "(unknown concept)"

        rejected = [item for item in review.items if item.status == "rejected"]
        self.query_one(ClusterTree).show(clusters, rejected, title, lambda c: c.title(concepts))

    @property
    def showing_clusters(self) -> bool:
        return self.has_class("clusters")

    def toggle_view(self) -> None:
        """Table <-> clusters; the highlighted merge stays highlighted."""
        current = self.current()
        key = current.key if current is not None else None
        self.toggle_class("clusters")
        tree, table = self.query_one(ClusterTree), self.query_one(DataTable)
        if self.showing_clusters:
            tree.move_to(key)
            tree.focus()
        else:
            keys = [row.key for row in self.rows]
            if key in keys:
                table.move_cursor(row=keys.index(key), animate=False)
            table.focus()
        self.show_definitions()

    def current(self) -> ProposalRow | None:
        if self.showing_clusters:
            key = self.query_one(ClusterTree).current_key()
            return next((row for row in self.rows if row.key == key), None)
        table = self.query_one(DataTable)
        if not self.rows or table.cursor_row < 0 or table.cursor_row >= len(self.rows):
            return None
        return self.rows[table.cursor_row]

    def show_definitions(self) -> None:
        """The highlighted merge in full: both definitions, and why it was proposed."""
        row = self.current()
        self.query_one("#def-canonical", Static).update(row.left if row else "")
        right = Text(row.right if row else "")
        if row is not None and row.reason:
            right.append(f"\n\nWhy ({row.origin}): ", style="bold").append(row.reason)
        self.query_one("#def-variant", Static).update(right)

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self.show_definitions()

    def on_tree_node_highlighted(self, _event: ClusterTree.NodeHighlighted) -> None:
        self.show_definitions()
