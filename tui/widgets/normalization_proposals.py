"""The proposals table (canonical <- variants, status, reason) and the definitions of the
selected merge side by side."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Static

STATUS_STYLE = {"pending": "yellow", "accepted": "green", "rejected": "red"}


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


def build_rows(review: Any, clusters: list[Any], concepts: dict[str, Any]) -> list[ProposalRow]:
    """Rows in cluster order; rejected items (in no cluster) come last."""
    rows: list[ProposalRow] = []
    placed: set[str] = set()

    def definition(cid: str) -> str:
        c = concepts.get(cid)
        return f"{c.title}\n\n{c.summary or c.short_summary or '(no definition)'}" if c else cid

    for cluster in clusters:
        title = cluster.title(concepts)
        for item in cluster.items:
            others = [cid for cid in (item.a_id, item.b_id) if cid != cluster.canonical_id]
            names = " = ".join(concepts[c].title for c in others if c in concepts)
            rows.append(ProposalRow(item.key, item.status, cluster.canonical_id, title, names,
                                    item.origin, item.reason, tuple(cluster.members),
                                    definition(cluster.canonical_id),
                                    "\n\n".join(definition(c) for c in others)))  # fmt: skip
            placed.add(item.key)
    for item in review.items:
        if item.key not in placed:
            rows.append(ProposalRow(item.key, item.status, item.a_id, item.a_name, item.b_name,
                                    item.origin, item.reason, (item.a_id, item.b_id),
                                    definition(item.a_id), definition(item.b_id)))  # fmt: skip
    return rows


class ProposalsView(Vertical):
    """The table and the two definitions of the highlighted row."""

    DEFAULT_CSS = """
    ProposalsView { height: 1fr; }
    ProposalsView DataTable { height: 1fr; }
    ProposalsView #definitions { height: 10; }
    ProposalsView .definition { width: 1fr; border: round $secondary; padding: 0 1; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rows: list[ProposalRow] = []

    def compose(self) -> ComposeResult:
        table: DataTable = DataTable(id="proposals", cursor_type="row", zebra_stripes=True)
        table.add_columns("#", "status", "canonical", "← variants", "by", "reason")
        yield table
        with Horizontal(id="definitions"):
            yield Static("", id="def-canonical", classes="definition")
            yield Static("", id="def-variant", classes="definition")

    def show(self, rows: list[ProposalRow]) -> None:
        """Replace the rows, keeping the cursor where it was."""
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear()
        self.rows = rows
        for n, row in enumerate(rows, start=1):
            table.add_row(
                str(n), Text(row.status, style=STATUS_STYLE.get(row.status, "")), row.canonical,
                row.variants, row.origin, row.reason[:60], key=row.key,
            )  # fmt: skip
        if rows:
            table.move_cursor(row=min(cursor, len(rows) - 1))
        self.show_definitions()

    def current(self) -> ProposalRow | None:
        table = self.query_one(DataTable)
        if not self.rows or table.cursor_row < 0 or table.cursor_row >= len(self.rows):
            return None
        return self.rows[table.cursor_row]

    def show_definitions(self) -> None:
        row = self.current()
        self.query_one("#def-canonical", Static).update(row.left if row else "")
        self.query_one("#def-variant", Static).update(row.right if row else "")

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self.show_definitions()
