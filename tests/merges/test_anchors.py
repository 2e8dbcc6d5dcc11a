"""An apply keeps heading and block links resolving, and moves quote attributions."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.merges.reviews import ReviewsRepo
from tests.merges.merge_vault import SAMPLE, MergeVault
from vault.note import read_note

VARIANT = "08 - Ideas/Aprendizaje espaciado.md"
CANONICAL = "08 - Ideas/Repetición espaciada.md"


@pytest.fixture
def anchored(tmp_path: Path) -> MergeVault:
    """The demo vault with a block id and a new quote in a variant, and a note linking both
    the variant's block and one of its headings."""
    source = tmp_path / "sample"
    shutil.copytree(SAMPLE, source)
    variant = source / VARIANT
    text = variant.read_text(encoding="utf-8")
    text = text.replace("Espaciar la práctica en varias sesiones.", "Espaciar la práctica. ^ae1")
    text += "- [[Atomic Habits#^ah-identity]]\n"
    variant.write_text(text, encoding="utf-8")
    (source / "00 - Inbox" / "Enlaces.md").write_text(
        "Ver [[Aprendizaje espaciado#^ae1]] y [[Aprendizaje espaciado#Análisis]].\n",
        encoding="utf-8",
    )
    return MergeVault(tmp_path / "work", sample=source)


def _anchors(root: Path, rel: str) -> tuple[set[str], set[str]]:
    note = read_note(root, rel)
    text = note.text
    headings = {line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")}
    blocks = {
        word[1:] for line in text.splitlines() for word in line.split()[-1:] if word.startswith("^")
    }
    return headings, blocks


def _review(anchored: MergeVault) -> str:
    """The review, with the concept note chosen as canonical: the links this fixture adds to
    the variant would otherwise make it the most linked note and so the default canonical."""
    review = anchored.review()
    canonical, variant = anchored.ids["Repetición espaciada"], anchored.ids["Aprendizaje espaciado"]
    ReviewsRepo(anchored.store).choose_canonical(review, canonical, [canonical, variant])
    return review


def test_heading_and_block_links_to_a_variant_still_resolve(anchored: MergeVault) -> None:
    anchored.merges.apply(anchored.merges.plan(_review(anchored)))
    links = read_note(anchored.root, "00 - Inbox/Enlaces.md").links
    # (the curriculum has a note of the same name; the concept note is the one that was linked)
    assert [link.name for link in links] == ["Repetición espaciada"] * 2
    headings, blocks = _anchors(anchored.root, CANONICAL)
    for link in links:
        anchor = link.subpath[1:]
        assert anchor[1:] in blocks if anchor.startswith("^") else anchor in headings, link


def test_quote_attributions_move_to_the_canonical(anchored: MergeVault) -> None:
    anchored.merges.apply(anchored.merges.plan(_review(anchored)))
    text = anchored.text(CANONICAL)
    assert text.count("[[Atomic Habits#^ah-identity]]") == 1
    assert text.count("[[Apréndetelo#^ap-espaciado]]") == 1  # in both notes before: kept once
    rows = anchored.store.query(
        "SELECT concept_id FROM quote_concepts WHERE quote_id = 'ah-identity'"
    )
    ids = {r[0] for r in rows}
    assert anchored.ids["Repetición espaciada"] in ids
    assert anchored.ids["Aprendizaje espaciado"] not in ids
