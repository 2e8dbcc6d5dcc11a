"""Merge clusters as pictures: each cluster a tree with its canonical concept at the root and
every member under the concept its merge joined it to, the merge's status and evidence (who
proposed it, and why) on the edge. Rejected merges are listed apart, so they can be taken back.

Every node carries the key of a merge of the review, so the review's keys (accept, reject,
canonical, rename) act on the highlighted node as they do on the table's row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Unpack

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from core.merges.clusters import Cluster, cluster_layout
from core.merges.reviews import ReviewItem
from tui.widgets.options import WidgetOptions

STATUS_STYLE = {"pending": "yellow", "accepted": "green", "rejected": "red"}


def evidence(item: ReviewItem) -> Text:
    """`accepted · model: same idea, two names`."""
    text = Text(item.status, style=STATUS_STYLE.get(item.status, ""))
    text.append(f" · {item.origin}", style="dim")
    if item.reason:
        text.append(f": {item.reason}", style="dim")
    return text


def cluster_label(cluster: Cluster, title: str) -> Text:
    accepted = sum(1 for item in cluster.items if item.status == "accepted")
    return Text.assemble(
        ("★ ", "yellow"),
        (title, "bold"),
        (
            f"  canonical · {len(cluster.members)} concepts · "
            f"{accepted}/{len(cluster.items)} merges accepted",
            "dim",
        ),
    )


def pair_label(item: ReviewItem, title: Callable[[str], str], prefix: str = "") -> Text:
    return Text.assemble(
        prefix, (f"{title(item.a_id)} = {title(item.b_id)}", "bold"), "  ", evidence(item)
    )


class ClusterTree(Tree[str]):
    """The review's clusters as trees (the normalization screen's other view)."""

    DEFAULT_CSS = "ClusterTree { height: 1fr; }"

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__("Merge clusters", **kwargs)
        self.show_root = False

    def show(
        self,
        clusters: Iterable[Cluster],
        rejected: Iterable[ReviewItem],
        title: Callable[[str], str],
        canonical_title: Callable[[Cluster], str],
    ) -> None:
        """Replace the trees, keeping the cursor on the merge it was on."""
        current = self.current_key()
        self.clear()
        for cluster in clusters:
            self.add_cluster(cluster, title, canonical_title(cluster))
        rejected = list(rejected)
        if rejected:
            group = self.root.add(
                Text(f"✗ Rejected ({len(rejected)})", style="red"),
                data=rejected[0].key,
                expand=True,
            )
            for item in rejected:
                group.add_leaf(pair_label(item, title), data=item.key)
        self.root.expand()
        self.call_after_refresh(self.move_to, current)

    def add_cluster(self, cluster: Cluster, title: Callable[[str], str], name: str) -> None:
        placed, extra = cluster_layout(cluster)
        root = self.root.add(cluster_label(cluster, name), data=cluster.items[0].key, expand=True)
        nodes: dict[str, TreeNode[str]] = {cluster.canonical_id: root}
        for edge in placed:
            label = Text.assemble((title(edge.child_id), "bold"), "  ← ", evidence(edge.item))
            nodes[edge.child_id] = nodes[edge.parent_id].add(label, data=edge.item.key, expand=True)
        for item in extra:  # a merge between members already placed (a cycle): evidence too
            root.add_leaf(pair_label(item, title, prefix="also "), data=item.key)
        for node in nodes.values():
            node.allow_expand = bool(node.children)

    def current_key(self) -> str | None:
        node = self.cursor_node
        return node.data if node is not None else None

    def move_to(self, key: str | None) -> None:
        """The cursor on the first node of the merge `key` (the first node when it is gone)."""
        stack = list(self.root.children)
        while key and stack:
            node = stack.pop(0)
            if node.data == key and node.parent is not self.root:
                self.move_cursor(node)
                return
            stack[:0] = list(node.children)
        if self.cursor_node is None or self.cursor_line < 0:
            self.cursor_line = 0
