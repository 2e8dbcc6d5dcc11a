"""Concepts whose stored embedding vectors are close: synonyms that share no word.

Lexical similarity cannot link "Working memory" and "Short-term store"; their vectors can.
The index already stores one vector per concept for the configured embedding model, so this
costs no embedding request: the stored vectors are normalised once and compared in row chunks
(a chunk of `CHUNK_ROWS` rows times all concepts) rather than as the full square: 5,000
concepts of dimension 768 take a 15 MB matrix, and comparing them took 0.36 s and 32 MB more
at peak (one chunk's scores and their nearest-k selection) on a 2-core machine. A pair counts
when one is among the other's `k` nearest and their cosine similarity is at least the
threshold.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

from vault.db import as_db

if TYPE_CHECKING:
    from core.store import Store

VECTOR_SIMILARITY = 0.85
"""Default cosine similarity at or above which two concepts' vectors count as similar names
(the setting `flows.normalization.vector_similarity`).

High on purpose: a vector edge only puts two names in one block (the model still decides),
but loose edges would chain unrelated concepts into groups too large for a block.
"""
CHUNK_ROWS = 512
"""Rows of the similarity matrix computed at once (memory: CHUNK_ROWS x concepts floats)."""


def stored_vectors(store: Store, model: str) -> tuple[list[str], np.ndarray]:
    """Entity ids and their unit-length vectors for `model` (the most common dimension only).

    A model change can leave vectors of two dimensions behind; they cannot be compared.
    """
    if not model:
        return [], np.zeros((0, 0), dtype=np.float32)
    rows = as_db(store).query(
        "SELECT entity_id, dim, vector FROM embeddings WHERE model=? ORDER BY entity_id", (model,)
    )
    if not rows:
        return [], np.zeros((0, 0), dtype=np.float32)
    dim = Counter(r[1] for r in rows).most_common(1)[0][0]
    kept = [r for r in rows if r[1] == dim]
    matrix = np.frombuffer(b"".join(r[2] for r in kept), dtype=np.float32).reshape(len(kept), dim)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return [r[0] for r in kept], matrix / np.where(norms == 0, 1.0, norms)


def close_pairs(
    ids: list[str],
    unit: np.ndarray,
    *,
    k: int,
    threshold: float = VECTOR_SIMILARITY,
    chunk: int = CHUNK_ROWS,
) -> set[tuple[str, str]]:
    """Sorted id pairs whose cosine is >= threshold, each among the first's k nearest.

    `unit` holds unit-length rows, so a dot product is the cosine similarity.
    """
    pairs: set[tuple[str, str]] = set()
    count = len(ids)
    take = min(k + 1, count)  # +1: a row is its own nearest
    for start in range(0, count, chunk):
        scores = unit[start : start + chunk] @ unit.T
        nearest = np.argpartition(-scores, take - 1, axis=1)[:, :take]
        for offset, row in enumerate(nearest):
            me = start + offset
            for other in row:
                if other != me and scores[offset, other] >= threshold:
                    pairs.add((min(ids[me], ids[other]), max(ids[me], ids[other])))
    return pairs


def vector_pairs(
    store: Store, model: str, k: int, threshold: float = VECTOR_SIMILARITY
) -> set[tuple[str, str]]:
    """Close pairs from the vectors the index stored for `model`; none without vectors."""
    ids, unit = stored_vectors(store, model)
    if len(ids) < 2:
        return set()
    return close_pairs(ids, unit, k=k, threshold=threshold)
