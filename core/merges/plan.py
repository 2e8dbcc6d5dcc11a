"""The dry run of applying a review: every file's new text, every move, and the diff shown.

Nothing is written here. Each file changes at most once (all edits to it are composed in
memory), writes come before moves, and variants move into the archive folder.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import quote

from core.concept_notes import ConceptNote, parse_concept_note
from core.diffs import unified_diff
from core.merges.catalog import ConceptInfo, load_concepts
from core.merges.clusters import Cluster, build_clusters
from core.merges.edits import (
    dedupe_relation_links,
    merge_into_canonical,
    reparse,
    retarget_frontmatter,
)
from core.merges.reviews import Review, ReviewsRepo
from core.store import Store
from vault.layout import VaultLayout
from vault.links import note_name, rewrite_links
from vault.note import NoteUnreadable, content_hash, read_note
from vault.writer import VaultWriter, safe_filename


@dataclass(frozen=True)
class FileWrite:
    path: str
    before_hash: str
    before_text: str
    after_text: str


@dataclass(frozen=True)
class FileMove:
    path: str
    new_path: str
    expected_hash: str
    """Hash of the file when it moves (after its write, if it is also written)."""


@dataclass
class MergePlan:
    """What applying a review does to the vault."""

    review_id: str
    clusters: list[Cluster]
    concepts: dict[str, ConceptInfo]
    writes: list[FileWrite] = field(default_factory=list)
    moves: list[FileMove] = field(default_factory=list)

    def diff(self) -> str:
        """Unified diffs of every write, then the moves."""
        text = "".join(unified_diff(w.path, w.before_text, w.after_text) for w in self.writes)
        moves = "".join(f"move {m.path} -> {m.new_path}\n" for m in self.moves)
        return text + moves

    def summary(self) -> str:
        return (
            f"{len(self.clusters)} clusters, {len(self.writes)} notes rewritten,"
            f" {len(self.moves)} moves"
        )


class _Texts:
    """Current texts of the files the plan touches, read once through the writer."""

    def __init__(self, writer: VaultWriter) -> None:
        self.writer = writer
        self.before: dict[str, tuple[str, str]] = {}
        self.now: dict[str, str] = {}

    def get(self, path: str) -> str:
        if path not in self.now:
            note = self.writer.read(path)
            self.before[path] = (note.hash, note.text)
            self.now[path] = note.text
        return self.now[path]

    def set(self, path: str, text: str) -> None:
        self.get(path)
        self.now[path] = text

    def writes(self) -> list[FileWrite]:
        return [
            FileWrite(p, self.before[p][0], self.before[p][1], t)
            for p, t in self.now.items()
            if t != self.before[p][1]
        ]


def _final_path(
    writer: VaultWriter, concept: ConceptInfo, title: str | None, freed: set[str]
) -> str:
    if not title or title == concept.title:
        return concept.path
    folder = str(PurePosixPath(concept.path).parent)
    wanted = f"{folder}/{safe_filename(title)}.md"
    if wanted in freed or writer.current_hash(wanted) is None:
        return wanted
    return writer.unique_path(folder, title)


def _archive_path(writer: VaultWriter, layout: VaultLayout, rel: str, taken: set[str]) -> str:
    parent = str(PurePosixPath(rel).parent)
    archive = layout.archive.strip("/")
    folder = archive if parent == "." else f"{archive}/{parent}"
    stem, n = PurePosixPath(rel).stem, 1
    candidate = writer.unique_path(folder, stem)
    while candidate in taken:
        n += 1
        candidate = writer.unique_path(folder, f"{stem} {n}")
    taken.add(candidate)
    return candidate


def plan_review(
    store: Store, writer: VaultWriter, layout: VaultLayout, review: Review
) -> MergePlan:
    """The plan for the review's accepted items (the reviewer's canonical choices applied)."""
    concepts = {c.id: c for c in load_concepts(store)}
    accepted = [i for i in review.items if i.status == "accepted"]
    choices = ReviewsRepo(store).canonical_choices(review.id)
    clusters = build_clusters(accepted, concepts, choices)
    plan = MergePlan(review.id, clusters, concepts)
    texts = _Texts(writer)
    id_map = {v: c.canonical_id for c in clusters for v in c.variants}
    names = {cid: info.title for cid, info in concepts.items()}
    names.update({c.canonical_id: c.title(concepts) for c in clusters})
    names.update({v: c.title(concepts) for c in clusters for v in c.variants})
    variant_paths = {concepts[v].path for c in clusters for v in c.variants}
    renames: dict[str, str] = {}
    for cluster in clusters:
        canonical = concepts[cluster.canonical_id]
        final = _final_path(writer, canonical, cluster.new_title, variant_paths)
        if final != canonical.path:
            renames[canonical.path] = final
        _merge_cluster(texts, cluster, concepts, id_map, names)
    _retarget_relations(store, texts, id_map, variant_paths)
    redirects = {concepts[v].path: renames.get(concepts[c.canonical_id].path,
                 concepts[c.canonical_id].path) for c in clusters for v in c.variants}  # fmt: skip
    redirects.update(renames)
    _rewrite_backlinks(writer, layout, texts, redirects, variant_paths)
    for path, text in list(texts.now.items()):
        if text != texts.before[path][1]:
            texts.set(path, dedupe_relation_links(text))
    plan.writes = texts.writes()
    plan.moves = _moves(writer, layout, texts, plan.writes, variant_paths, renames)
    return plan


def _moves(writer, layout, texts: _Texts, writes, variant_paths, renames) -> list[FileMove]:
    """Variants into the archive first (freeing their names), then canonical renames."""
    after = {w.path: w for w in writes}
    taken: set[str] = set()
    moves = []
    for path in sorted(variant_paths):
        expected = texts.before[path][0] if path in texts.before else writer.current_hash(path)
        moves.append(FileMove(path, _archive_path(writer, layout, path, taken), expected or ""))
    for old, new in renames.items():
        if old in after:
            expected = content_hash(after[old].after_text.encode("utf-8"))
        else:
            expected = writer.current_hash(old) or ""
        moves.append(FileMove(old, new, expected))
    return moves


def _note(texts: _Texts, path: str) -> ConceptNote:
    return parse_concept_note(reparse(texts.get(path), path))


def _merge_cluster(texts, cluster, concepts, id_map, names) -> None:
    canonical = concepts[cluster.canonical_id]
    variants = [_note(texts, concepts[v].path) for v in cluster.variants]
    parsed = _note(texts, canonical.path)
    new_title = cluster.new_title if cluster.new_title != canonical.title else None
    text = merge_into_canonical(
        texts.get(canonical.path), parsed, variants, id_map, names, new_title=new_title
    )
    texts.set(canonical.path, text)


def _retarget_relations(store: Store, texts: _Texts, id_map, variant_paths) -> None:
    """Notes whose frontmatter relations point at a variant now point at its canonical."""
    if not id_map:
        return
    ids = list(id_map)
    rows = store.query(
        "SELECT DISTINCT c.path FROM concept_relations r JOIN concepts c ON c.entity_id = r.source_id"
        f" WHERE r.target_id IN ({','.join('?' * len(ids))})",
        ids,
    )
    for row in rows:
        if row[0] not in variant_paths:
            texts.set(row[0], retarget_frontmatter(texts.get(row[0]), id_map))


def _rewrite_backlinks(writer, layout, texts: _Texts, redirects: dict[str, str], skip) -> None:
    """Every link to a variant (or a renamed canonical), anywhere outside the archive."""
    archive = layout.archive.strip("/") + "/"
    needles = {}
    for old in redirects:
        name = note_name(old).lower()
        needles[old] = (name, quote(note_name(old)).lower())
    for rel in layout.iter_notes(writer.root):
        if rel in skip or rel.startswith(archive):
            continue
        try:
            text = texts.now.get(rel) or read_note(writer.root, rel, layout.max_note_bytes).text
        except NoteUnreadable:
            continue
        lowered = text.lower()
        for old, new in redirects.items():
            if any(n in lowered for n in needles[old]):
                text, edits = rewrite_links(text, old, new, rel)
                if edits:
                    texts.set(rel, text)
                    lowered = text.lower()
