"""A copy of the demo vault, indexed, with a review of its planted near-duplicates."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

from core.flows.normalization.accumulate import make_merge
from core.merges.reviews import ReviewsRepo
from core.merges.service import Merges
from core.store import Store
from vault.index import VaultIndex
from vault.layout import VaultLayout
from vault.writer import VaultWriter

SAMPLE = Path(__file__).resolve().parents[2] / "tui" / "sample_vault"
PLANTED = [
    ("Hábitos atómicos", "Hábito atómico"),
    ("Metacognición", "metacognicion"),
    ("Zona de desarrollo próximo", "ZDP"),
    ("Repetición espaciada", "Aprendizaje espaciado"),
]


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def index_rows(store: Store) -> dict[str, list[tuple]]:
    return {
        "concepts": [
            tuple(r)
            for r in store.query(
                "SELECT entity_id, path, title, aliases_json, summary FROM concepts ORDER BY entity_id"
            )
        ],
        "relations": [
            tuple(r) for r in store.query("SELECT * FROM concept_relations ORDER BY 1, 2, 3")
        ],
        "links": [tuple(r) for r in store.query("SELECT * FROM links ORDER BY 1, 2, 3, 4")],
        "quotes": [tuple(r) for r in store.query("SELECT * FROM quote_concepts ORDER BY 1, 2, 3")],
    }


class MergeVault:
    """A copy of `sample` (the demo vault) indexed in a store, with its Merges service."""

    def __init__(self, tmp_path: Path, sample: Path = SAMPLE) -> None:
        self.root = tmp_path / "vault"
        shutil.copytree(sample, self.root)
        self.store = Store(tmp_path / "store.sqlite3")
        layout = VaultLayout()
        self.index = VaultIndex(self.store, self.root, layout)
        self.index.sync_files()
        self.writer = VaultWriter(self.root, layout)
        self.vault = SimpleNamespace(
            root=self.root, layout=layout, writer=self.writer, index=self.index
        )
        self.merges = Merges(self.store, self.vault)
        self.ids = {r[0]: r[1] for r in self.store.query("SELECT title, entity_id FROM concepts")}

    def review(self, pairs=PLANTED, status: str = "accepted", review_id: str = "rev1") -> str:
        repo = ReviewsRepo(self.store)
        merges = [make_merge(self.ids[a], self.ids[b], a, b, "same") for a, b in pairs]
        review = repo.create(review_id, "run", merges, [len(merges)])
        for item in review.items:
            repo.set_item(review.id, item.key, status)
        return review.id

    def text(self, rel: str) -> str:
        return (self.root / rel).read_text(encoding="utf-8")
