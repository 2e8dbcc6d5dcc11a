"""Concept embeddings: float32 BLOBs with the model name; only changed concepts re-embedded."""

from __future__ import annotations

import json
import math
from array import array
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from vault.db import Db
from vault.index_rows import embedding_text


def _numpy() -> Any:
    """numpy, imported on the first vector search (about 0.5 s that `noema doctor` and the
    other commands without a search need not pay); None without it, and pure Python is used."""
    try:  # numpy makes vector search fast; pure Python keeps it working without it
        import numpy
    except ImportError:  # pragma: no cover - numpy is a dependency, the fallback is for safety
        return None
    return numpy


Embedder = Callable[[list[str]], Awaitable[list[list[float]]]]
"""async embed(texts) -> one vector per text (local_llm.LLMClient.embed)."""

BATCH = 64


def pack(vector: Sequence[float]) -> bytes:
    return array("f", vector).tobytes()


def unpack(blob: bytes) -> list[float]:
    values = array("f")
    values.frombytes(blob)
    return values.tolist()


async def embed_pending(db: Db, embed: Embedder, model: str, batch: int = BATCH) -> int:
    """Embed concepts without a current vector for `model`; drop vectors of gone concepts."""
    db.execute("DELETE FROM embeddings WHERE entity_id NOT IN (SELECT entity_id FROM concepts)")
    pending = db.query(
        "SELECT c.entity_id, c.title, c.aliases_json, c.short_summary, c.summary, c.text_hash"
        " FROM concepts c LEFT JOIN embeddings e ON e.entity_id = c.entity_id AND e.model = ?"
        " WHERE e.entity_id IS NULL OR e.text_hash != c.text_hash ORDER BY c.id",
        (model,),
    )
    done = 0
    for start in range(0, len(pending), batch):
        chunk = pending[start : start + batch]
        texts = [embedding_text(r[1], json.loads(r[2]), r[3], r[4]) for r in chunk]
        vectors = await embed(texts)
        if len(vectors) != len(chunk):
            raise ValueError(f"embed returned {len(vectors)} vectors for {len(chunk)} texts")
        rows = [(r[0], model, len(v), pack(v), r[5]) for r, v in zip(chunk, vectors, strict=True)]
        with db.transaction():
            db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?, ?)", rows)
        done += len(rows)
    return done


def cosine_top(query: Sequence[float], rows: list[Any], k: int) -> list[tuple[str, float]]:
    """(entity_id, cosine similarity) of the k rows (entity_id, blob) closest to the query."""
    if not rows:
        return []
    np = _numpy()
    if np is not None:
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
        matrix = matrix.reshape(len(rows), -1)
        q = np.asarray(query, dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(q) or 1.0)
        scores = matrix @ q / np.where(norms == 0, 1.0, norms)
        order = np.argsort(-scores)[:k]
        return [(rows[i][0], float(scores[i])) for i in order]
    qn = math.sqrt(sum(x * x for x in query)) or 1.0
    scored = []
    for entity_id, blob in rows:
        vector = unpack(blob)
        norm = math.sqrt(sum(x * x for x in vector)) or 1.0
        scored.append(
            (entity_id, sum(a * b for a, b in zip(query, vector, strict=False)) / (norm * qn))
        )
    scored.sort(key=lambda item: -item[1])
    return scored[:k]
