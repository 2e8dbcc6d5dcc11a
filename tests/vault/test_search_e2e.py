"""Index the demo vault with the real local embedding model and search it hybrid."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.store import Store
from local_llm import LLMClient
from vault.index import VaultIndex
from vault.search import search

SAMPLE = Path(__file__).resolve().parents[2] / "tui" / "sample_vault"


@pytest.mark.e2e
async def test_real_embeddings_and_hybrid_search(local_embedding_server, tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(SAMPLE, vault)
    client = LLMClient({"embedding": local_embedding_server.model_config(timeout_s=120.0)})
    store = Store(tmp_path / "store.sqlite3")
    index = VaultIndex(store, vault, embed=client.embed, embed_model="gemma3-270m")
    first = await index.sync_async()
    assert first.embedding_error is None
    assert first.embedded == 14
    dims = {r[0] for r in store.query("SELECT dim FROM embeddings WHERE model='gemma3-270m'")}
    assert len(dims) == 1 and dims.pop() > 16
    again = await index.sync_async()
    assert again.embedded == 0

    result = await search(store, "deep work", k=5, embed=client.embed, model="gemma3-270m")
    assert result.mode == "hybrid"
    assert result.hits[0].title == "Deep Work"  # the full-text side ranks it first
    vector = await search(
        store, "concentración profunda", k=3, mode="vector", embed=client.embed, model="gemma3-270m"
    )
    assert vector.mode == "vector" and len(vector.hits) == 3
    assert all(-1.0 <= hit.score <= 1.0 for hit in vector.hits)
    store.close()
