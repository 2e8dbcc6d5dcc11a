"""The dry run of applying a review: every file's new text, every move, and the diff shown.

Nothing is written here. Each file changes at most once (all edits to it are composed in
memory), writes come before moves, and variants move into the archive folder.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath

from core.concept_links import NoteLinks
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
from core.wording import plural
from vault.layout import VaultLayout
from vault.linkformat import Linker
from vault.links import rewrite_links
from vault.note import NoteUnreadable, content_hash, read_note
from vault.resolve import LinkResolver, name_key
from vault.rewrite import resolvers
from vault.scan import scan_vault
from vault.titles import note_title
from vault.writer import VaultWriter


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
            f"{plural(len(self.clusters), 'cluster')}, {plural(len(self.writes), 'note')} "
            f"rewritten, {plural(len(self.moves), 'move')}"
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


def _final_path(concept: ConceptInfo, title: str | None, taken: set[str]) -> str:
    """Where the canonical ends up: renamed to the cleaned new title, its name unique in the
    vault once the variants have moved out (`taken`)."""
    if not title or title == concept.title:
        return concept.path
    folder = str(PurePosixPath(concept.path).parent)
    base, n = note_title(title), 1
    candidate = base
    while name_key(candidate) in taken:
        n += 1
        candidate = f"{base} {n}"
    taken.add(name_key(candidate))
    return f"{folder}/{candidate}.md" if folder != "." else f"{candidate}.md"


def _archive_path(writer: VaultWriter, layout: VaultLayout, rel: str, taken: set[str]) -> str:
    parent = str(PurePosixPath(rel).parent)
    archive = layout.archive.strip("/")
    folder = archive if parent == "." else f"{archive}/{parent}"
    stem, n = PurePosixPath(rel).stem, 1
    candidate = writer.unique_path(folder, stem, vault_wide=False)
    while candidate in taken:
        n += 1
        candidate = writer.unique_path(folder, f"{stem} {n}", vault_wide=False)
    taken.add(candidate)
    return candidate


@dataclass
class _Places:
    """Where every file of the merge goes, and how links resolve before and after."""

    renames: dict[str, str]
    """Canonical path -> its new path (a renamed canonical)."""
    archived: dict[str, str]
    """Variant path -> its path in the archive."""
    paths: dict[str, str]
    """Concept UUID -> the path of the note it is after the apply (variants: their canonical's)."""
    before: LinkResolver
    after: LinkResolver


def _places(
    writer: VaultWriter,
    layout: VaultLayout,
    clusters: list[Cluster],
    concepts: dict[str, ConceptInfo],
) -> _Places:
    scan = scan_vault(writer.root, layout)
    variants = {concepts[v].path for c in clusters for v in c.variants}
    freed = variants | {concepts[c.canonical_id].path for c in clusters if c.new_title}
    taken = {
        name_key(PurePosixPath(p).stem)
        for p in [*scan.notes, *scan.files]
        if p.endswith(".md") and p not in freed
    }
    renames: dict[str, str] = {}
    for cluster in clusters:
        canonical = concepts[cluster.canonical_id]
        final = _final_path(canonical, cluster.new_title, taken)
        if final != canonical.path:
            renames[canonical.path] = final
    archived: dict[str, str] = {}
    in_archive: set[str] = set()
    for path in sorted(variants):
        archived[path] = _archive_path(writer, layout, path, in_archive)
    paths = {cid: renames.get(info.path, info.path) for cid, info in concepts.items()}
    for cluster in clusters:
        paths.update({v: paths[cluster.canonical_id] for v in cluster.variants})
    before, after = resolvers(scan, {**archived, **renames})
    return _Places(renames, archived, paths, before, after)


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
    places = _places(writer, layout, clusters, concepts)
    linker = writer.linker(places.after)
    for cluster in clusters:
        note_path = places.paths[cluster.canonical_id]
        _merge_cluster(texts, cluster, concepts, id_map, NoteLinks(places.paths, linker, note_path))
    _retarget_relations(store, texts, id_map, set(places.archived), places, linker)
    redirects = {
        old: places.paths[c.canonical_id]
        for c in clusters
        for v in c.variants
        for old in [concepts[v].path]
    }
    redirects.update(places.renames)
    _rewrite_backlinks(store, writer, layout, texts, redirects, places)
    for path, text in list(texts.now.items()):
        if text != texts.before[path][1]:
            texts.set(path, dedupe_relation_links(text))
    plan.writes = texts.writes()
    plan.moves = _moves(writer, texts, plan.writes, places)
    return plan


def _moves(
    writer: VaultWriter, texts: _Texts, writes: list[FileWrite], places: _Places
) -> list[FileMove]:
    """Variants into the archive first (freeing their names), then canonical renames."""
    after = {w.path: w for w in writes}
    moves = []
    for path, archived in places.archived.items():
        expected = texts.before[path][0] if path in texts.before else writer.current_hash(path)
        moves.append(FileMove(path, archived, expected or ""))
    for old, new in places.renames.items():
        if old in after:
            expected = content_hash(after[old].after_text.encode("utf-8"))
        else:
            expected = writer.current_hash(old) or ""
        moves.append(FileMove(old, new, expected))
    return moves


def _note(texts: _Texts, path: str) -> ConceptNote:
    return parse_concept_note(reparse(texts.get(path), path))


def _merge_cluster(
    texts: _Texts,
    cluster: Cluster,
    concepts: dict[str, ConceptInfo],
    id_map: dict[str, str],
    links: NoteLinks,
) -> None:
    canonical = concepts[cluster.canonical_id]
    variants = [_note(texts, concepts[v].path) for v in cluster.variants]
    parsed = _note(texts, canonical.path)
    new_title = cluster.new_title if cluster.new_title != canonical.title else None
    members = [
        PurePosixPath(concepts[c].path).stem for c in [cluster.canonical_id, *cluster.variants]
    ]
    text = merge_into_canonical(
        texts.get(canonical.path),
        parsed,
        variants,
        id_map,
        links,
        new_title=new_title,
        member_names=members,
    )
    texts.set(canonical.path, text)


def _retarget_relations(
    store: Store,
    texts: _Texts,
    id_map: dict[str, str],
    variant_paths: set[str],
    places: _Places,
    linker: Linker,
) -> None:
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
            links = NoteLinks(places.paths, linker, places.renames.get(row[0], row[0]))
            texts.set(row[0], retarget_frontmatter(texts.get(row[0]), id_map, links))


def _rewrite_backlinks(
    store: Store,
    writer: VaultWriter,
    layout: VaultLayout,
    texts: _Texts,
    redirects: dict[str, str],
    places: _Places,
) -> None:
    """Every link that resolves to a variant (or a renamed canonical), anywhere outside the
    archive: the notes that hold one are found by the index's resolved paths."""
    archive = layout.archive.strip("/") + "/"
    olds = list(redirects)
    rows = (
        store.query(
            "SELECT DISTINCT source_path FROM links"
            f" WHERE resolved_path IN ({','.join('?' * len(olds))})",
            olds,
        )
        if olds
        else []
    )
    for rel in sorted({r[0] for r in rows} | set(texts.now)):
        if rel in places.archived or rel.startswith(archive):
            continue
        try:
            text = texts.now.get(rel) or read_note(writer.root, rel, layout.max_note_bytes).text
        except NoteUnreadable:
            continue
        for old, new in redirects.items():
            text, edits = rewrite_links(
                text,
                old,
                new,
                places.renames.get(rel, rel),
                before=places.before,
                after=places.after,
            )
            if edits:
                texts.set(rel, text)
