"""Incremental index sync and concept search (text, vector, hybrid) on a real store."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from core.store import Store
from core.store.db import migrations
from vault.index import VaultIndex, sync
from vault.layout import VaultLayout
from vault.search import fts_query, rrf, search, search_text

SAMPLE = Path(__file__).resolve().parents[2] / "tui" / "sample_vault"


@pytest.fixture
def vault(tmp_path):
    root = tmp_path / "vault"
    shutil.copytree(SAMPLE, root)
    return root


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "store.sqlite3")
    yield s
    s.close()


def count(store, table):
    return store.query_one(f"SELECT count(*) FROM {table}")[0]


def test_cold_sync_of_the_sample_vault(vault, store):
    progress = []
    result = sync(store, vault, progress=lambda d, t, p: progress.append((d, t, p)))
    notes = [p for p in vault.rglob("*.md") if "Templates" not in p.parts]
    assert result.added == len(notes) == count(store, "notes")
    assert result.warnings == []
    assert progress[-1][0] == progress[-1][1] == len(notes)
    assert count(store, "concepts") == 14
    assert count(store, "sources") == 4
    unprocessed = store.query("SELECT path FROM sources WHERE processed_date IS NULL")
    assert [r[0] for r in unprocessed] == ["03 - Sources/Pensar rápido, pensar despacio.md"]
    assert count(store, "quotes") == 4 + 4 + 3 + 4
    # Every relation in the sample has its inverse.
    rels = {
        tuple(r) for r in store.query("SELECT source_id, type, target_id FROM concept_relations")
    }
    assert len(rels) == 24
    # Quote support resolves to real quotes of real sources.
    orphan = store.query(
        "SELECT qc.quote_id FROM quote_concepts qc LEFT JOIN quotes q ON q.id = qc.quote_id"
        " WHERE q.id IS NULL"
    )
    assert orphan == []
    kinds = dict(store.query("SELECT kind, count(*) FROM notes GROUP BY kind"))
    assert kinds["curriculum"] == 5 and kinds["source"] == 4 and kinds["concept"] == 14


def test_incremental_changes_deletes_and_renames(vault, store):
    index = VaultIndex(store, vault)
    index.sync()
    again = index.sync()
    assert (again.added, again.changed, again.deleted, again.renamed) == (0, 0, 0, 0)
    concept = vault / "08 - Ideas" / "Carga cognitiva.md"
    concept.write_text(concept.read_text().replace("Teoría de Sweller", "Teoría de John Sweller"))
    (vault / "08 - Ideas" / "ZDP.md").rename(vault / "08 - Ideas" / "ZPD.md")
    (vault / "00 - Inbox" / "Borrador - Por qué olvidamos lo que estudiamos.md").unlink()
    (vault / "New.md").write_text("[[Deep Work]]")
    result = index.sync()
    assert (result.added, result.changed, result.deleted, result.renamed) == (1, 1, 1, 1)
    assert (
        "John" in store.query_one("SELECT summary FROM concepts WHERE title='Carga cognitiva'")[0]
    )
    assert store.query_one("SELECT path FROM concepts WHERE title='ZPD'")[0] == "08 - Ideas/ZPD.md"
    assert store.query_one("SELECT count(*) FROM concepts WHERE title='ZDP'")[0] == 0
    assert (
        store.query_one("SELECT count(*) FROM links WHERE source_path LIKE '00 - Inbox/%'")[0] == 0
    )
    backlinks = store.query("SELECT source_path FROM links WHERE target_name='deep work'")
    assert "New.md" in {r[0] for r in backlinks}
    # A touch without a content change costs a hash, not a re-index.
    concept.touch()
    touched = index.sync()
    assert touched.changed == 0 and touched.unchanged == count(store, "notes")


def test_index_paths_handles_one_note_and_deletions(vault, store):
    index = VaultIndex(store, vault)
    index.sync()
    target = "08 - Ideas/Deep Work.md"
    path = vault / target
    path.write_text(path.read_text().replace("short_summary: Focusing", "short_summary: Zeroing"))
    result = index.index_paths([target])
    assert result.changed == 1
    assert search_text(store, "zeroing").hits[0].title == "Deep Work"
    path.unlink()
    assert index.index_paths([target]).deleted == 1
    assert search_text(store, "zeroing").hits == []
    assert count(store, "concepts_fts") == count(store, "concepts") == 13


def test_duplicate_entity_ids_get_a_warning_not_a_crash(vault, store):
    original = vault / "08 - Ideas" / "Metacognición.md"
    (vault / "08 - Ideas" / "Metacognición copia.md").write_bytes(original.read_bytes())
    result = sync(store, vault)
    assert any("entity_id" in w for w in result.warnings)
    assert count(store, "concepts") == 15


def test_works_on_a_plain_sqlite_connection(vault, tmp_path):
    conn = sqlite3.connect(tmp_path / "plain.sqlite3", isolation_level=None)
    for _, _, sql in migrations():
        conn.executescript(sql)
    result = sync(conn, vault)
    assert result.added > 20
    assert search_text(conn, "hábitos").hits


def test_full_text_search_ranks_titles_and_aliases_ignoring_accents(vault, store):
    sync(store, vault)
    hits = search_text(store, "repeticion espaciada").hits
    assert hits[0].title == "Repetición espaciada"
    assert search_text(store, "Interleaving").hits[0].title == "Práctica intercalada"
    assert search_text(store, "metacognicion").hits[0].title.lower() in {
        "metacognición",
        "metacognicion",
    }
    assert search_text(store, "!!!").hits == []
    assert fts_query('a "habit" loop* habit') == '"habit"* OR "loop"*'


def _fake_embedder(calls):
    """A deterministic bag-of-letters embedding: similar spelling -> similar vector."""

    async def embed(texts):
        calls.append(list(texts))
        vectors = []
        for text in texts:
            v = [0.0] * 26
            for ch in text.lower():
                if "a" <= ch <= "z":
                    v[ord(ch) - 97] += 1.0
            vectors.append(v)
        return vectors

    return embed


async def test_only_changed_concepts_are_re_embedded_and_search_modes(vault, store):
    calls: list[list[str]] = []
    embed = _fake_embedder(calls)
    index = VaultIndex(store, vault, embed=embed, embed_model="letters")
    first = await index.sync_async()
    assert first.embedded == 14 and count(store, "embeddings") == 14
    calls.clear()
    second = await index.sync_async()
    assert second.embedded == 0 and calls == []
    path = vault / "08 - Ideas" / "Deep Work.md"
    path.write_text(path.read_text().replace("Focusing without", "Concentrating without"))
    third = await index.sync_async()
    assert third.embedded == 1 and len(calls) == 1 and "Concentrating" in calls[0][0]

    text = await search(store, "deep work", k=3)
    assert text.mode == "text" and text.hits[0].title == "Deep Work"
    hybrid = await search(store, "deep work", k=3, embed=embed, model="letters")
    assert hybrid.mode == "hybrid" and hybrid.hits[0].title == "Deep Work"
    vector = await search(store, "deep work", k=3, mode="vector", embed=embed, model="letters")
    assert vector.mode == "vector" and len(vector.hits) == 3
    other = await search(store, "deep work", mode="hybrid", embed=embed, model="unknown")
    assert other.mode == "text" and "no vectors" in other.note


async def test_a_failing_embedder_leaves_full_text_working(vault, store):
    async def broken(texts):
        raise ConnectionError("embedding server down")

    result = await VaultIndex(store, vault, embed=broken, embed_model="m").sync_async()
    assert "embedding server down" in result.embedding_error
    assert search_text(store, "deep work").hits


def test_rrf_fuses_rankings():
    fused = rrf([[("a", 1), ("b", 1)], [("b", 1), ("c", 1)]], 3)
    assert [x for x, _ in fused] == ["b", "a", "c"]


def test_layout_exclusions(tmp_path):
    layout = VaultLayout(exclude=(".obsidian/**", "Private/**", "*.excalidraw.md"))
    for rel in [
        "a.md",
        ".obsidian/x.md",
        "Templates/t.md",
        "Private/p.md",
        "d.excalidraw.md",
        "sub/.hidden.md",
        "sub/ok.md",
    ]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    assert list(layout.iter_notes(tmp_path)) == ["a.md", "sub/ok.md"]
    assert layout.kind_of("08 - Ideas/x.md") == "concept"
    assert layout.kind_of("99 - Archive/08 - Ideas/x.md") == "archive"
