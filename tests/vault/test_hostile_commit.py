"""What noema writes into the hostile vault: Markdown links because the vault is set to them,
names unique in the whole vault and cut between words, model titles and texts that cannot
restructure a note; and a commit that could never be written is abandoned, not retried
forever."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import frontmatter

from core.concept_links import RELATION_PROPERTIES
from core.concept_notes import parse_concept_note
from core.events import Done
from core.flows.extraction.graph import SPEC
from core.repair import NoteCreate, VaultPlan, record_plan, repair
from core.services import open_services
from core.settings import Settings
from tests.flows.extraction.script import ConcurrencyBackend, FlowScript, concept, enum_of
from tests.vault import hostile_vault as hv
from vault.blocktext import clean_text
from vault.note import parse_note

HOSTILE_TITLE = "Sueño]] | [[x#y^z\n---\nentity_id: hack"
HOSTILE_TEXT = "Primera línea.\n## Fuente\n- [[Malvada#^x]]\n---\n# Otro título\n```\nsin cerrar"


def candidates(messages, schema):
    ids = enum_of(schema, "concepts", "[]", "quote_ids")
    return {
        "concepts": [
            concept("Inicio", [ids[0]]),  # a note of that name sits at the vault's root
            concept("Plan", [ids[1]]),  # ... and one of this name in the curriculum
            concept(HOSTILE_TITLE, [ids[3]], text=HOSTILE_TEXT, short="Corta."),
        ],
        "notes": "",
    }


def relations(messages, schema):
    target = enum_of(schema, "relations", "[]", "target")[0]
    return {
        "relations": [
            {"target": target, "type": "SUPPORTS", "explanation": "x", "confidence": 0.8}
        ],
        "notes": "",
    }


def open_app(vault: Path, data: Path):
    settings = Settings(
        vault={"path": vault}, data={"directory": data}, models={"max_tokens": 4096}
    )
    script = FlowScript(candidates=candidates, relations=relations)
    return open_services(settings, {"extraction": SPEC}, backend=ConcurrencyBackend(script))


async def commit(tmp_path: Path) -> tuple[Path, list[str]]:
    """The vault and the concept notes the commit created (not the existing notes it related
    the new ones to: with the whole graph pooled, the scripted model relates to "Café")."""
    vault = hv.build(tmp_path)
    before = {nfc(p.relative_to(vault).as_posix()) for p in vault.rglob("*.md")}
    async with open_app(vault, tmp_path / "data") as app:
        app.vault.index.sync_files()
        run = app.runtime.start("extraction", {"source": hv.PODCAST}, target=hv.PODCAST)
        await app.runtime.run_until_pause(run.id)
        events = await app.runtime.run_until_pause(run.id, {"action": "approve"}, resume=True)
        assert isinstance(events[-1], Done), events[-1]
        written = events[-1].output["written"]
    return vault, [p for p in written if p.startswith(hv.IDEAS) and nfc(p) not in before]


def nfc(path: str) -> str:
    return unicodedata.normalize("NFC", path)


async def test_new_notes_follow_the_vault_and_cannot_be_restructured(tmp_path: Path) -> None:
    vault, created = await commit(tmp_path)
    names = sorted(Path(p).stem for p in created)
    assert "Inicio 2" in names and "Plan 2" in names  # unique in the whole vault
    hostile = next(n for n in names if n.startswith("Sueño"))
    assert hostile == "Sueño x y z --- entity_id hack"
    for rel in created:
        text = (vault / rel).read_text(encoding="utf-8")
        note = parse_note(rel, text.encode())
        headings = [(s.level, s.heading) for s in note.sections if s.level <= 2]
        assert headings == [
            (1, Path(rel).stem),
            (2, "Concepto"),
            (2, "Análisis"),
            (2, "Conexiones"),
            (2, "Fuente"),
        ]
        own_links = text[note.section("Conexiones").start :]
        assert "[[" not in own_links and "](" in own_links  # the vault is set to Markdown links
        parsed = parse_concept_note(note)
        assert [q.source for q in parsed.quotes] == [Path(hv.PODCAST).stem]
        assert "](The%20Knowledge%20Project%20-%20Compounding.md#^" in own_links
        meta = frontmatter.loads(text).metadata
        properties = [v for k, v in meta.items() if k in RELATION_PROPERTIES.values()]
        assert properties and all(link.startswith("[[") for v in properties for link in v)
    hostile_note = (vault / f"{hv.IDEAS}/{hostile}.md").read_text(encoding="utf-8")
    parsed = parse_concept_note(parse_note("x.md", hostile_note.encode()))
    assert parsed.concept.concept == clean_text(HOSTILE_TEXT)  # reads back what was written
    assert frontmatter.loads(hostile_note).get("entity_id") != "hack"


async def test_the_index_keeps_every_quote_link_of_the_new_notes(tmp_path: Path) -> None:
    vault, created = await commit(tmp_path)
    async with open_app(vault, tmp_path / "data") as app:
        app.vault.index.sync_files()
        for rel in created:
            row = app.store.query_one("SELECT entity_id FROM concepts WHERE path=?", (rel,))
            quotes = app.store.query(
                "SELECT quote_id FROM quote_concepts WHERE concept_id=?", (row[0],)
            )
            assert len(quotes) == 1, rel


async def test_a_commit_that_leads_out_of_the_vault_is_abandoned_not_retried(tmp_path: Path):
    vault = hv.build(tmp_path)
    planned = f"{hv.IDEAS}/Secreta idea.md"
    plan = VaultPlan(
        run_id="old-run",
        source=f"{hv.SOURCES}/Secreto.md",
        source_name="Secreto",
        block_ids=["q-1"],
        create=[NoteCreate(path=planned, entity_id="new-1", text="# x\n")],
    )
    async with open_app(vault, tmp_path / "data") as app:
        app.vault.index.sync_files()
        with app.store.transaction() as conn:  # what an older noema committed to the store
            record_plan(conn, plan)
            conn.execute(
                "INSERT INTO notes VALUES (?, 'pending', 0, 0, 'concept', 'Secreta idea', '{}', 'x')",
                (planned,),
            )
            conn.execute(
                "INSERT INTO concepts (entity_id, path, title, text_hash) VALUES (?, ?, ?, 'h')",
                ("new-1", planned, "Secreta idea"),
            )
        first = repair(app)
        assert first.abandoned and "outside the vault" in first.abandoned[0]
        assert not first.errors
        row = app.store.query_one("SELECT status, error FROM extraction_commits")
        assert row[0] == "abandoned" and "outside the vault" in row[1]
        assert app.store.query_one("SELECT COUNT(*) FROM concepts WHERE entity_id='new-1'")[0] == 0
        assert repair(app).summary() == "nothing to repair"  # it finishes: no loop
        assert not (vault / planned).exists()
        assert hv.SECRET_TEXT not in json.dumps(
            [tuple(r) for r in app.store.query("SELECT * FROM notes")]
        )


def test_every_path_of_a_plan_is_checked_before_the_store_commits(tmp_path: Path) -> None:
    import pytest

    from core.flows.extraction.commit import check_paths
    from vault.writer import VaultWriteError, VaultWriter

    vault = hv.build(tmp_path)
    writer = VaultWriter(vault)
    good = VaultPlan(run_id="r", source=hv.PODCAST, source_name="x")
    check_paths(writer, good)  # nothing to say
    through_folder = good.model_copy(
        update={
            "create": [NoteCreate(path=f"{hv.IDEAS}/Externo/Nueva.md", entity_id="n", text="x")]
        }
    )
    for plan in (good.model_copy(update={"source": f"{hv.SOURCES}/Secreto.md"}), through_folder):
        with pytest.raises(VaultWriteError, match="outside the vault"):
            check_paths(writer, plan)
