"""Search: concepts by full text (FTS5 BM25), vector (cosine) or both (reciprocal rank
fusion), and the quotes of the sources by full text.

Works with no embedding model at all (full-text only) and says which mode it used. A quote
hit points to its source note and its block (`[[Source#^block]]`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Literal

from vault.db import Db, Handle, as_db
from vault.embedding import Embedder, cosine_top

Mode = Literal["auto", "text", "vector", "hybrid"]
RRF_K = 60
"""The constant of reciprocal rank fusion (Cormack et al.); 60 is the usual choice."""
BM25_WEIGHTS = (10.0, 6.0, 3.0, 1.0)
"""Column weights: title, aliases, short_summary, summary."""
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Hit:
    """One concept found."""

    entity_id: str
    title: str
    path: str
    short_summary: str
    summary: str
    aliases: list[str]
    score: float
    """Higher is better; comparable only within one result."""


@dataclass(frozen=True)
class QuoteHit:
    """One quote of a source note found."""

    source_path: str
    """The source note that holds it."""
    quote_id: str
    block_id: str | None
    """Its block id in the source (`[[Source#^block]]` links to it), if it has one yet."""
    location: str | None
    """Where it sits in the source when the source says so (a podcast's time stamp)."""
    text: str
    score: float

    @property
    def link_target(self) -> str:
        """`Source#^block` (or just the source's name when the quote has no block id)."""
        name = self.source_path.rsplit("/", 1)[-1].removesuffix(".md")
        return f"{name}#^{self.block_id}" if self.block_id else name


@dataclass
class SearchResult:
    """The hits and the mode actually used ("text", "vector" or "hybrid")."""

    mode: str
    hits: list[Hit] = field(default_factory=list)
    note: str = ""
    """Why the mode differs from the one asked for, if it does."""
    quotes: list[QuoteHit] = field(default_factory=list)
    """Quotes of sources that match the words (full text), best first."""


def fts_query(text: str) -> str:
    """An FTS5 query matching any word of the text (prefix match on each)."""
    words = [w for w in _WORD.findall(text) if len(w) > 1 or w.isdigit()]
    return " OR ".join(f'"{w}"*' for w in dict.fromkeys(words))


def text_ids(store: Db | Handle, query: str, k: int) -> list[tuple[str, float]]:
    """(entity_id, -bm25) of the best k full-text matches."""
    match = fts_query(query)
    if not match:
        return []
    weights = ", ".join(str(w) for w in BM25_WEIGHTS)
    rows = as_db(store).query(
        f"SELECT c.entity_id, bm25(concepts_fts, {weights}) AS rank FROM concepts_fts"
        " JOIN concepts c ON c.id = concepts_fts.rowid"
        " WHERE concepts_fts MATCH ? ORDER BY rank LIMIT ?",
        (match, k),
    )
    return [(r[0], -float(r[1])) for r in rows]


def search_quotes(store: Db | Handle, query: str, k: int = 10) -> list[QuoteHit]:
    """The best k quotes of the vault's sources for a query (full text, accents ignored)."""
    match = fts_query(query)
    if not match:
        return []
    rows = as_db(store).query(
        "SELECT q.source_path, q.id, q.block_id, q.location, q.text, bm25(quotes_fts) AS rank"
        " FROM quotes_fts JOIN quotes q ON q.n = quotes_fts.rowid"
        " WHERE quotes_fts MATCH ? ORDER BY rank LIMIT ?",
        (match, k),
    )
    return [QuoteHit(r[0], r[1], r[2], r[3], r[4], -float(r[5])) for r in rows]


def vector_ids(
    store: Db | Handle, vector: list[float], model: str, k: int
) -> list[tuple[str, float]]:
    """(entity_id, cosine) of the k concepts closest to the vector, among `model`'s vectors."""
    rows = as_db(store).query(
        "SELECT entity_id, vector FROM embeddings WHERE model=? AND dim=?", (model, len(vector))
    )
    return cosine_top(vector, [(r[0], r[1]) for r in rows], k)


def rrf(rankings: list[list[tuple[str, float]]], k: int) -> list[tuple[str, float]]:
    """Reciprocal rank fusion of several rankings."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, (entity_id, _) in enumerate(ranking):
            scores[entity_id] = scores.get(entity_id, 0.0) + 1.0 / (RRF_K + rank + 1)
    return sorted(scores.items(), key=lambda item: -item[1])[:k]


def has_vectors(store: Db | Handle, model: str) -> bool:
    return (
        as_db(store).query_one("SELECT 1 FROM embeddings WHERE model=? LIMIT 1", (model,))
        is not None
    )


def hits_for(store: Db | Handle, ranked: list[tuple[str, float]]) -> list[Hit]:
    """Concept rows for ranked ids, order kept."""
    if not ranked:
        return []
    ids = [entity_id for entity_id, _ in ranked]
    rows = as_db(store).query(
        "SELECT entity_id, title, path, short_summary, summary, aliases_json FROM concepts"
        f" WHERE entity_id IN ({','.join('?' * len(ids))})",
        ids,
    )
    by_id = {r[0]: r for r in rows}
    return [
        Hit(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), score)
        for entity_id, score in ranked
        if (r := by_id.get(entity_id)) is not None
    ]


async def search(
    store: Db | Handle,
    query: str,
    *,
    k: int = 10,
    mode: Mode = "auto",
    embed: Embedder | None = None,
    model: str = "",
    quotes: bool = False,
) -> SearchResult:
    """Top-k concepts for a query ("auto" is hybrid when vectors exist, else full-text), and
    with `quotes` the top-k quotes of the sources by full text."""
    result = await _search_concepts(store, query, k=k, mode=mode, embed=embed, model=model)
    if quotes:
        result.quotes = search_quotes(store, query, k)
    return result


async def _search_concepts(
    store: Db | Handle, query: str, *, k: int, mode: Mode, embed: Embedder | None, model: str
) -> SearchResult:
    wants_vectors = mode in ("auto", "vector", "hybrid")
    usable = embed is not None and has_vectors(store, model)
    if wants_vectors and not usable:
        why = "no embedding model" if embed is None else f"no vectors for model {model!r}"
        note = "" if mode == "auto" else f"{mode} search asked, {why}: full-text used"
        return SearchResult("text", hits_for(store, text_ids(store, query, k)), note)
    if mode == "text":
        return SearchResult("text", hits_for(store, text_ids(store, query, k)))
    try:
        vector = (await embed([query]))[0]  # type: ignore[misc]
    except Exception as exc:  # a dead embedding server must not break search
        note = f"embedding failed ({type(exc).__name__}: {exc}): full-text used"
        return SearchResult("text", hits_for(store, text_ids(store, query, k)), note)
    by_vector = vector_ids(store, vector, model, k * 2 if mode != "vector" else k)
    if mode == "vector":
        return SearchResult("vector", hits_for(store, by_vector[:k]))
    fused = rrf([text_ids(store, query, k * 2), by_vector], k)
    return SearchResult("hybrid", hits_for(store, fused))


def search_text(
    store: Db | Handle, query: str, k: int = 10, *, quotes: bool = False
) -> SearchResult:
    """Full-text search only (concepts; with `quotes` the sources' quotes too), without an
    event loop."""
    hits = hits_for(store, text_ids(store, query, k))
    return SearchResult("text", hits, quotes=search_quotes(store, query, k) if quotes else [])
