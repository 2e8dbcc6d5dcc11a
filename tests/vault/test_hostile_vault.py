"""Issue 15 on a hand-written hostile vault: what is read, what each link opens, what is
reported and kept out of the workflows, the vault's own Obsidian settings."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from core.ingest import Ingest, layout_from_settings, vault_problems
from core.merges.catalog import load_concepts
from core.settings import Settings
from core.store import Store
from tests.vault import hostile_vault as hv
from vault.index import VaultIndex
from vault.search import search_text


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return hv.build(tmp_path)


@pytest.fixture
def settings(vault: Path, tmp_path: Path) -> Settings:
    return Settings(vault={"path": vault}, data={"directory": tmp_path / "data"})


@pytest.fixture
def indexed(settings: Settings):
    store = Store(settings.store_path)
    index = VaultIndex(store, settings.vault.path, layout_from_settings(settings))
    result = index.sync_files()
    yield store, result
    store.close()


def every_text_value(store: Store) -> str:
    """Everything the store holds, as one text (to look for what must not be there)."""
    tables = [r[0] for r in store.query("SELECT name FROM sqlite_master WHERE type='table'")]
    return "\n".join(
        str(value) for t in tables for row in store.query(f'SELECT * FROM "{t}"') for value in row
    )


def test_nothing_outside_the_vault_is_read_and_the_skipped_entries_say_why(indexed) -> None:
    store, result = indexed
    assert [r[0] for r in store.query("SELECT path FROM notes ORDER BY path")] == hv.INDEXED
    skipped = {entry.path: entry.reason for entry in result.skipped}
    assert set(skipped) == set(hv.SKIPPED)
    for path, word in hv.SKIPPED.items():
        assert word in skipped[path]
    assert hv.SECRET_TEXT not in every_text_value(store)
    assert "Fuera" not in every_text_value(store)


def test_the_watcher_path_never_reads_through_a_symlink_out(indexed, settings) -> None:
    store, _ = indexed
    index = VaultIndex(store, settings.vault.path, layout_from_settings(settings))
    index.index_paths([f"{hv.SOURCES}/Secreto.md", f"{hv.IDEAS}/Externo/Fuera.md"])
    assert hv.SECRET_TEXT not in every_text_value(store)
    assert [run.target for run in Ingest(store, index).catch_up()] == [hv.PODCAST]


def test_every_link_opens_the_file_obsidian_opens(indexed) -> None:
    store, _ = indexed
    for note, expected in hv.EXPECTED_LINKS.items():
        rows = store.query(
            "SELECT target, resolved_path FROM links WHERE source_path=? AND in_frontmatter=0"
            " ORDER BY rowid",
            (note,),
        )
        assert [(r[0], r[1]) for r in rows] == expected, note


def test_names_compare_in_nfc_and_keep_their_real_spelling(indexed) -> None:
    store, _ = indexed
    row = store.query_one("SELECT title, path FROM concepts WHERE path=?", (hv.CAFE_PATH,))
    assert row[0] == unicodedata.normalize("NFC", "Café")  # what links and searches compare
    assert row[1] == hv.CAFE_PATH and row[1] != unicodedata.normalize("NFC", row[1])
    hit = search_text(store, "café").hits[0]
    assert (hit.title, hit.path) == ("Café", hv.CAFE_PATH)


def test_attachments_and_excluded_notes_are_files_of_the_vault_not_notes(indexed) -> None:
    store, result = indexed
    files = dict(store.query("SELECT path, kind FROM vault_files"))
    assert {p for p, k in files.items() if k == "attachment"} == set(hv.ATTACHMENTS)
    ignored = {p for p, k in files.items() if k == "ignored"}
    assert {
        "Plantillas/Concepto.md",
        "Private/Diario.md",
        "Boceto.excalidraw.md",
        "Attachments/Leeme.md",
    } <= ignored
    assert result.excluded == {
        "templates folder": 1,
        "excluded in Obsidian": 2,
        "attachments folder": 1,
    }
    assert result.attachments == 2


def test_malformed_and_empty_notes_are_reported_and_kept_out_of_the_workflows(indexed, settings):
    store, _ = indexed
    concepts = store.query("SELECT path FROM concepts ORDER BY path")
    assert [r[0] for r in concepts] == hv.CONCEPTS
    assert {c.path for c in load_concepts(store)} == set(hv.CONCEPTS)  # normalization's input
    sources = {r[0] for r in store.query("SELECT path FROM sources")}
    assert sources == {f"{hv.SOURCES}/Atomic Habits.md", hv.PODCAST}
    assert sorted({path for path, _ in vault_problems(store)}) == hv.PROBLEMS
    index = VaultIndex(store, settings.vault.path, layout_from_settings(settings))
    queued = Ingest(store, index).catch_up()
    assert [run.target for run in queued] == [hv.PODCAST]


def test_case_only_duplicates_have_backlinks_of_their_own(indexed) -> None:
    store, _ = indexed
    links = {c.path: c.links for c in load_concepts(store)}
    # each is linked by its exact path from Inicio (and the symlink to it inside the vault, a
    # note of its own for Obsidian too) and by its exact-case name from Atención
    assert links[f"{hv.IDEAS}/Psicología/Memoria de trabajo.md"] == 3
    assert links[f"{hv.IDEAS}/Psicología/memoria de Trabajo.md"] == 3
    # three links of Inicio (twice) and Plan's relative one; Plan's bare link stays in its folder
    assert links[f"{hv.IDEAS}/Dopamina.md"] == 7


def test_podcast_quotes_keep_their_time_as_location_and_ids_on_their_own_line(indexed) -> None:
    store, _ = indexed
    rows = store.query(
        "SELECT location, text, block_id FROM quotes WHERE source_path=? ORDER BY position",
        (hv.PODCAST,),
    )
    assert [tuple(r) for r in rows] == hv.QUOTES


def test_quotes_are_searchable_and_point_to_their_source_and_block(indexed) -> None:
    store, _ = indexed
    found = search_text(store, "compounding", quotes=True).quotes
    assert {q.source_path for q in found} == {hv.PODCAST}
    assert len(found) == 2
    habits = search_text(store, "compound interest", quotes=True).quotes[0]
    assert habits.link_target == "The Knowledge Project - Compounding#^kp-habits"
    assert habits.location == "00:45:10"


def test_the_vault_settings_are_read_and_noema_settings_override_them(vault, tmp_path) -> None:
    layout = layout_from_settings(Settings(vault={"path": vault}))
    assert (layout.markdown_links, layout.link_format) == (True, "shortest")
    assert (layout.templates, layout.attachments) == ("Plantillas", "Attachments")
    assert layout.is_excluded("Private/Diario.md") and layout.is_excluded("B.excalidraw.md")
    own = Settings(
        vault={
            "path": vault,
            "link_style": "wikilink",
            "link_format": "absolute",
            "folders": {"templates": "Templates", "attachments": ""},
        }
    )
    layout = layout_from_settings(own)
    assert (layout.markdown_links, layout.link_format) == (False, "absolute")
    assert (layout.templates, layout.attachments) == ("Templates", "")
    ignored = layout_from_settings(Settings(vault={"path": vault, "obsidian_settings": False}))
    assert not ignored.markdown_links and not ignored.is_excluded("Private/Diario.md")


# -- obsidiantools, where it agrees with Obsidian --------------------------------------------


def _without_symlinks(vault: Path, copy: Path) -> Path:
    """The vault without its symlinks: noema never follows a link out of the vault on purpose,
    obsidiantools (like Obsidian) does, so only the rest is compared."""
    import shutil

    shutil.copytree(
        vault, copy, ignore=lambda d, names: [n for n in names if (Path(d) / n).is_symlink()]
    )
    return copy


def _their_targets(raw: list[str]) -> list[str]:
    from urllib.parse import unquote

    return [unquote(t) for t in raw if "://" not in t]


def test_links_and_their_files_agree_with_obsidiantools(vault, settings, tmp_path) -> None:
    import warnings

    from obsidiantools.api import Vault

    plain = _without_symlinks(vault, tmp_path / "plain")
    store = Store(tmp_path / "plain.sqlite3")
    VaultIndex(store, plain, layout_from_settings(Settings(vault={"path": plain}))).sync_files()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = Vault(plain).connect()
    files = {name: path.as_posix() for name, path in theirs.md_file_index.items()}
    compared = 0
    for note in ("Inicio.md", f"{hv.NEURO}/Plan.md", f"{hv.IDEAS}/Psicología/Atención.md"):
        name = note.rsplit("/", 1)[-1][:-3]
        key = name if name in files else note[:-3]
        rows = store.query(
            "SELECT kind, embed, target, resolved_path FROM links WHERE source_path=?"
            " AND in_frontmatter=0 ORDER BY rowid",
            (note,),
        )
        wiki = [r for r in rows if r[0] == "wiki" and not r[1]]
        ours = [r[2][:-3] if r[2].endswith(".md") else r[2] for r in wiki]
        assert ours == (theirs.wikilinks_index.get(key) or []), note
        markdown = [r[2] for r in rows if r[0] == "markdown" and not r[1]]
        assert markdown == _their_targets(theirs.md_links_index.get(key) or []), note
        for _, _, target, resolved in wiki:
            bare = target.removesuffix(".md")
            if bare in files and unicodedata.is_normalized("NFC", files[bare]):
                assert resolved == files[bare], (note, target)  # a unique name: one file
                compared += 1
    assert compared >= 8
    store.close()


def test_the_watcher_queues_nothing_that_leads_out_of_the_vault(indexed, settings) -> None:
    from vault.watcher import VaultEvent, VaultWatcher

    store, _ = indexed
    root = settings.vault.path
    layout = layout_from_settings(settings)
    watcher = VaultWatcher(root, lambda events: None, layout)
    assert watcher.rel(str(root / hv.SOURCES / "Secreto.md")) is None
    assert watcher.rel(str(root / hv.IDEAS / "Externo" / "Fuera.md")) is None
    assert watcher.rel(str(root / "Private" / "Diario.md")) is None  # excluded in Obsidian
    ingest = Ingest(store, VaultIndex(store, root, layout))
    queued = ingest.handle([VaultEvent("created", f"{hv.SOURCES}/Secreto.md")])
    assert queued == [] and hv.SECRET_TEXT not in every_text_value(store)


def test_links_follow_files_that_come_and_go(indexed, settings) -> None:
    """A note at the root named like a link takes it over (an exact path wins); when it goes,
    the link opens the concept again, on the watcher's path and on a full sync alike."""
    store, _ = indexed
    root = settings.vault.path
    index = VaultIndex(store, root, layout_from_settings(settings))

    def opened() -> str | None:
        row = store.query_one(
            "SELECT resolved_path FROM links WHERE source_path='Inicio.md' AND target='Dopamina'"
        )
        return row[0]

    assert opened() == f"{hv.IDEAS}/Dopamina.md"
    (root / "Dopamina.md").write_text("# Dopamina en la raíz\n", encoding="utf-8")
    index.index_paths(["Dopamina.md"])
    assert opened() == "Dopamina.md"
    (root / "Dopamina.md").unlink()
    index.index_paths(["Dopamina.md"])
    assert opened() == f"{hv.IDEAS}/Dopamina.md"
    (root / "Dopamina.md").write_text("# otra vez\n", encoding="utf-8")
    index.sync_files()
    assert opened() == "Dopamina.md"
