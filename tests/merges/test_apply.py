"""Applying a review to a copy of the demo vault, undoing it byte for byte, conflicts, resume."""

from __future__ import annotations

import frontmatter
import pytest

from core.merges.journal import ApplyInterrupted
from tests.merges.merge_vault import index_rows, snapshot
from vault.layout import VaultLayout
from vault.note import read_note
from vault.writer import ConflictError

IDEAS = "08 - Ideas"


def resolvable(root) -> tuple[set[str], list[tuple[str, str]]]:
    """Names of live (non-archived) notes, and every link of live notes as (note, target)."""
    layout = VaultLayout()
    live = [r for r in layout.iter_notes(root) if not r.startswith("99 - Archive/")]
    names = {r.rsplit("/", 1)[-1][:-3].lower() for r in live}
    links = []
    for rel in live:
        for link in read_note(root, rel).links:
            if link.target:
                links.append((rel, link.name.lower()))
    return names, links


def test_apply_merges_the_planted_duplicates_and_every_link_still_resolves(mv) -> None:
    names_before, links_before = resolvable(mv.root)
    files = snapshot(mv.root)
    plan = mv.merges.plan(mv.review())
    diff = plan.diff()
    assert len(plan.clusters) == 4 and "+aliases: [ZDP]" in diff  # an inline list stays inline
    assert "move 08 - Ideas/ZDP.md -> 99 - Archive/08 - Ideas/ZDP.md" in diff
    assert snapshot(mv.root) == files  # the dry run wrote nothing
    mv.merges.apply(plan)

    canonical = frontmatter.loads(mv.text(f"{IDEAS}/Hábitos atómicos.md"))
    assert "Hábito atómico" in canonical["aliases"]
    assert "## Fusionado desde: Hábito atómico" in canonical.content
    assert "Hábito pequeño y fácil" in canonical.content  # the variant's content moved in
    own = canonical["entity_id"]
    targets = [t for ts in canonical["concept_relations"].values() for t in ts]
    assert own not in targets and mv.ids["Hábito atómico"] not in targets  # no self-relation
    assert len(targets) == len(set(targets))
    assert "[[Hábito atómico]]" not in canonical.content.split("## Fusionado")[0]

    zona = frontmatter.loads(mv.text(f"{IDEAS}/Zona de desarrollo próximo.md"))
    assert "ZDP" in zona["aliases"]
    assert not (mv.root / IDEAS / "ZDP.md").exists()
    assert (mv.root / "99 - Archive" / IDEAS / "ZDP.md").exists()

    # relations that pointed at a variant now point at its canonical
    practica = frontmatter.loads(mv.text(f"{IDEAS}/Práctica intercalada.md"))
    assert practica["concept_relations"]["RELATES_TO"] == [mv.ids["Repetición espaciada"]]
    assert "[[Repetición espaciada|Aprendizaje espaciado]]" in practica.content

    names_after, links_after = resolvable(mv.root)
    broken_before = {(n, t) for n, t in links_before if t not in names_before}
    broken_after = {(n, t) for n, t in links_after if t not in names_after}
    assert broken_after <= broken_before  # every link that resolved still resolves
    variants = {"zdp", "metacognicion", "hábito atómico", "aprendizaje espaciado"}
    assert not [t for _, t in links_after if t in variants]  # none leads into the archive
    assert mv.merges.review("rev1").status == "applied"
    titles = {r[0] for r in mv.store.query("SELECT title FROM concepts")}
    assert "ZDP" not in titles and "Zona de desarrollo próximo" in titles


def test_undo_restores_the_vault_and_the_index_byte_for_byte(mv) -> None:
    files, rows = snapshot(mv.root), index_rows(mv.store)
    mv.merges.apply(mv.merges.plan(mv.review()))
    assert snapshot(mv.root) != files
    mv.merges.undo("rev1")
    assert snapshot(mv.root) == files
    assert not (mv.root / "99 - Archive").exists()
    assert index_rows(mv.store) == rows
    assert mv.merges.review("rev1").status == "pending"


def test_a_conflict_before_apply_writes_nothing(mv) -> None:
    files = snapshot(mv.root)
    plan = mv.merges.plan(mv.review())
    note = mv.root / IDEAS / "Práctica intercalada.md"
    note.write_text(note.read_text(encoding="utf-8") + "\nmy edit\n", encoding="utf-8")
    files[f"{IDEAS}/Práctica intercalada.md"] = note.read_bytes()
    with pytest.raises(ConflictError):
        mv.merges.apply(plan)
    assert snapshot(mv.root) == files and mv.merges.unfinished() == []


def _fail_on_write(mv, n: int) -> None:
    real, count = mv.writer.write, {"n": 0}

    def flaky(rel, text, *, expected_hash):
        count["n"] += 1
        if count["n"] == n:
            raise ConflictError(f"{rel} changed on disk (simulated)")
        return real(rel, text, expected_hash=expected_hash)

    mv.writer.write = flaky


def test_an_apply_interrupted_halfway_can_be_resumed(mv, tmp_path) -> None:
    from tests.merges.merge_vault import MergeVault

    clean = MergeVault(tmp_path / "clean")
    clean.merges.apply(clean.merges.plan(clean.review()))

    plan = mv.merges.plan(mv.review())
    _fail_on_write(mv, 3)
    with pytest.raises(ApplyInterrupted) as info:
        mv.merges.apply(plan)
    assert info.value.step == 2
    assert mv.merges.review("rev1").status == "interrupted"
    assert [u[0] for u in mv.merges.unfinished()] == ["rev1"]
    with pytest.raises(ApplyInterrupted):  # a new apply refuses while one is unfinished
        mv.merges.apply(mv.merges.plan("rev1"))
    mv.merges.resume("rev1")
    assert snapshot(mv.root) == snapshot(clean.root)
    assert mv.merges.review("rev1").status == "applied" and mv.merges.unfinished() == []


def test_an_apply_interrupted_halfway_can_be_undone(mv) -> None:
    files = snapshot(mv.root)
    plan = mv.merges.plan(mv.review())
    _fail_on_write(mv, 4)
    with pytest.raises(ApplyInterrupted):
        mv.merges.apply(plan)
    assert snapshot(mv.root) != files
    mv.merges.undo("rev1")
    assert snapshot(mv.root) == files and mv.merges.unfinished() == []


def test_undo_refuses_when_a_note_changed_after_the_apply(mv) -> None:
    mv.merges.apply(mv.merges.plan(mv.review()))
    note = mv.root / IDEAS / "Zona de desarrollo próximo.md"
    note.write_text(note.read_text(encoding="utf-8") + "later edit\n", encoding="utf-8")
    with pytest.raises(ConflictError):
        mv.merges.undo("rev1")
    assert "later edit" in note.read_text(encoding="utf-8")
    assert (mv.root / "99 - Archive" / IDEAS / "ZDP.md").exists()


def test_choosing_and_renaming_the_canonical(mv) -> None:
    from core.merges.reviews import ReviewsRepo

    review = mv.review([("Zona de desarrollo próximo", "ZDP")])
    members = [mv.ids["ZDP"], mv.ids["Zona de desarrollo próximo"]]
    ReviewsRepo(mv.store).choose_canonical(review, mv.ids["ZDP"], members, "Zona de desarrollo")
    files = snapshot(mv.root)
    mv.merges.apply(mv.merges.plan(review))
    renamed = frontmatter.loads(mv.text(f"{IDEAS}/Zona de desarrollo.md"))
    assert renamed["entity_id"] == mv.ids["ZDP"] and renamed.content.startswith(
        "# Zona de desarrollo"
    )
    assert {"ZDP", "Zona de desarrollo próximo"} <= set(renamed["aliases"])
    assert not (mv.root / IDEAS / "ZDP.md").exists()
    assert "[[Zona de desarrollo|Zona de desarrollo próximo]]" in mv.text(
        f"{IDEAS}/Carga cognitiva.md"
    )
    mv.merges.undo(review)
    assert snapshot(mv.root) == files


class Crash(BaseException):
    """The process dying mid-apply: nothing catches it, the journal stays in progress."""


def test_a_crash_after_a_write_is_resumed_by_a_new_process(mv, tmp_path) -> None:
    from core.merges.service import Merges
    from tests.merges.merge_vault import MergeVault

    clean = MergeVault(tmp_path / "clean")
    clean.merges.apply(clean.merges.plan(clean.review()))
    plan = mv.merges.plan(mv.review())
    real, count = mv.writer.write, {"n": 0}

    def dies_after_second_write(rel, text, *, expected_hash):
        count["n"] += 1
        written = real(rel, text, expected_hash=expected_hash)
        if count["n"] == 2:
            raise Crash  # written, but the journal never marked it done
        return written

    mv.writer.write = dies_after_second_write
    with pytest.raises(Crash):
        mv.merges.apply(plan)
    mv.writer.write = real
    again = Merges(mv.store, mv.vault)  # a new process finds the unfinished apply
    assert [u[0] for u in again.unfinished()] == ["rev1"]
    assert mv.store.query_one("SELECT status FROM merge_journals")[0] == "in_progress"
    again.resume("rev1")
    assert snapshot(mv.root) == snapshot(clean.root)


def test_a_crash_can_be_undone_byte_for_byte(mv) -> None:
    files = snapshot(mv.root)
    plan = mv.merges.plan(mv.review())
    real, count = mv.writer.write, {"n": 0}

    def dies(rel, text, *, expected_hash):
        count["n"] += 1
        written = real(rel, text, expected_hash=expected_hash)
        if count["n"] == 3:
            raise Crash
        return written

    mv.writer.write = dies
    with pytest.raises(Crash):
        mv.merges.apply(plan)
    mv.writer.write = real
    mv.merges.undo("rev1")
    assert snapshot(mv.root) == files


def test_relation_lines_do_not_name_the_canonical_twice() -> None:
    from core.merges.edits import dedupe_relation_links

    text = "## Conexiones\n- RELATES_TO: [[B]], [[B|V]], [[C]]\n- SIMILAR_TO: [[D]]\nSee [[B]], [[B|V]].\n"
    assert dedupe_relation_links(text) == (
        "## Conexiones\n- RELATES_TO: [[B]], [[C]]\n- SIMILAR_TO: [[D]]\nSee [[B]], [[B|V]].\n"
    )


def test_a_note_relating_to_both_canonical_and_variant_keeps_one_relation(mv) -> None:
    note = mv.root / IDEAS / "Carga cognitiva.md"
    text = (
        note.read_text(encoding="utf-8")
        .replace(
            "RELATES_TO: [[Zona de desarrollo próximo]]",
            "RELATES_TO: [[Zona de desarrollo próximo]], [[ZDP]]",
        )
        .replace(
            "  - 655b5ef7-a53d-5d27-ba67-86616990b32c\n",
            "  - 655b5ef7-a53d-5d27-ba67-86616990b32c\n  - 0ed5d3e7-e285-5e17-87f6-7db5809945e5\n",
        )
    )
    note.write_text(text, encoding="utf-8")
    mv.index.sync_files()
    mv.merges.apply(mv.merges.plan(mv.review([("Zona de desarrollo próximo", "ZDP")])))
    post = frontmatter.loads(note.read_text(encoding="utf-8"))
    assert post["concept_relations"]["RELATES_TO"].count(mv.ids["Zona de desarrollo próximo"]) == 1
    assert mv.ids["ZDP"] not in post["concept_relations"]["RELATES_TO"]
    assert "- RELATES_TO: [[Zona de desarrollo próximo]], [[Deep Work]]" in post.content


def test_applying_merges_leaves_no_empty_folder_and_undo_brings_it_back(mv) -> None:
    folder = mv.root / IDEAS / "Temas"
    folder.mkdir()
    (mv.root / IDEAS / "ZDP.md").rename(folder / "ZDP.md")  # the variant, alone in its folder
    mv.index.sync_files()
    mv.merges.apply(mv.merges.plan(mv.review()))
    assert not folder.exists()
    assert (mv.root / "99 - Archive" / IDEAS / "Temas" / "ZDP.md").exists()
    empty = [d for d in mv.root.rglob("*") if d.is_dir() and not any(d.iterdir())]
    assert empty == []
    mv.merges.undo("rev1")
    assert (folder / "ZDP.md").exists()
