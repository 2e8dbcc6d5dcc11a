"""Candidates code rejects before anyone reviews them (issue 12): from every source tried, a
small model returned the extraction prompt's own examples as concepts (a book about thinking
gave "El ejercicio aeróbico regular mejora la salud cardiovascular..."). These answers are
written by hand after what Gemma 3 270M returned."""

from __future__ import annotations

from core.flows.extraction.prompts import candidates_messages
from core.flows.extraction.proposal import Proposal
from tests.flows.extraction.notes import SOURCE
from tests.flows.extraction.script import FlowScript, concept, enum_of

THINKING = """---
title: Pensar rápido, pensar despacio
author: Daniel Kahneman
---
# Pensar rápido, pensar despacio

## Highlights
> El sistema 1 opera de manera rápida y automática, con poco o ningún esfuerzo. ^k1

> El sistema 2 centra la atención en las actividades mentales esforzadas que lo demandan. ^k2

> La facilidad cognitiva hace que las cosas parezcan familiares, verdaderas y buenas. ^k3

> Nada en la vida es tan importante como uno piensa mientras piensa en ello. ^k4
"""
BAD = {
    "copied example": concept(
        "El ejercicio aeróbico regular",
        ["k1"],
        text="El ejercicio aeróbico regular mejora la salud cardiovascular al fortalecer el "
        "músculo cardíaco y reducir la presión arterial",
    ),
    "too-thin example": concept("El ejercicio es bueno", ["k2"], text="El ejercicio es bueno."),
    "field names": concept("title", ["k3"], text="concept", short="short_summary"),
    "template slots": concept("<something> is good", ["k1"], text="<something> is good."),
    "unsupported": concept(
        "Dieta mediterránea",
        ["k2"],
        text="La dieta mediterránea reduce el colesterol con aceite de oliva y pescado azul.",
    ),
    "looping": concept(
        "Sistema rápido",
        ["k1"],
        text="El sistema 1 es rápido. El sistema 1 es rápido. El sistema 1 es rápido.",
    ),
    "the book's title, cut by the grammar": concept(
        "Pensar rápido, pensar despac",
        ["k1"],
        text="El sistema 1 opera de manera rápida y el sistema 2 de manera esforzada.",
    ),
}
GOOD = concept(
    "Sistema 1",
    ["k1"],
    text="El sistema 1 es el modo de pensar rápido y automático, que opera sin esfuerzo.",
)


async def test_visibly_degenerate_candidates_are_rejected_and_reported(harness) -> None:
    def answer(messages, schema):
        ids = enum_of(schema, "concepts", "[]", "quote_ids")
        assert sorted(ids) == ["k1", "k2", "k3", "k4"]
        return {"concepts": [*BAD.values(), GOOD], "notes": ""}

    script = FlowScript(candidates=answer)
    h = harness(script, sources={SOURCE: THINKING})
    payload = (await h.start())["__interrupt__"][0].value
    assert [c["title"] for c in payload["concepts"]] == ["Sistema 1"]
    rejected = [w for w in payload["warnings"] if "rejected" in w]
    assert len(rejected) == len(BAD)
    for title in ("El ejercicio aeróbico regular", "Dieta mediterránea", "title"):
        assert any(repr(title) in w for w in rejected), title
    assert any("'Pensar rápido, pensar despac'" in w and "source's title" in w for w in rejected)


async def test_notes_that_say_nothing_do_not_reach_the_review(harness) -> None:
    """Gemma's notes in the walkthrough: "nada", a real remark, then "1" three times."""

    def answer(messages, schema):
        return {"concepts": [GOOD], "notes": "1"}

    h = harness(FlowScript(candidates=answer), sources={SOURCE: THINKING})
    payload = (await h.start())["__interrupt__"][0].value
    assert payload["notes"] == []


def test_a_proposal_keeps_each_note_worth_reading_once() -> None:
    notes = ["nada", "1", "Dos citas hablan de lo mismo.", " Dos citas hablan de lo mismo.", "-"]
    assert Proposal(notes=notes).notes == ["Dos citas hablan de lo mismo."]


def test_the_prompt_shows_no_example_a_model_could_take_for_the_source() -> None:
    messages = candidates_messages("Pensar", {}, [{"id": "k1", "text": "x"}], "es")
    prompt = messages[0]["content"]
    assert "ejercicio" not in prompt.lower() and "cardiovascular" not in prompt.lower()
    assert "<something>" in prompt  # shapes with slots, said to be no content


def test_only_a_title_cut_inside_a_word_names_the_source() -> None:
    """A concept named like the whole book ('Deep Work' from *Deep Work*) is legitimate: the
    extraction e2e tests lost their only concepts when any prefix of the title was refused."""
    from core.flows.extraction.sanity import names_the_source

    book = "Pensar rápido, pensar despacio"
    assert names_the_source("Pensar rápido, pensar despac", book)
    assert not names_the_source(book, book)
    assert not names_the_source("Deep Work", "Deep Work")
    assert not names_the_source("Pensar rápido", book)  # a whole word, and half the title


async def test_a_candidate_titled_with_letters_alone_is_rejected(harness) -> None:
    """The refined concept of *Deep Work* in the walk was 'a-b-c-d-e-f-g-h-i-j-k-l-', with a
    quote attributed to it: approving wrote '08 - Ideas/a-b-c-d-e-f-g-h-i-j-k-l-.md'."""
    letters = concept(
        "a-b-c-d-e-f-g-h-i-j-k-l-",
        ["k3"],
        text="La facilidad cognitiva hace que las cosas parezcan familiares y verdaderas.",
    )
    script = FlowScript(candidates=lambda m, s: {"concepts": [letters, GOOD], "notes": ""})
    h = harness(script, sources={SOURCE: THINKING})
    payload = (await h.start())["__interrupt__"][0].value
    assert [c["title"] for c in payload["concepts"]] == ["Sistema 1"]
    assert any("a-b-c-d" in w and "letters, not words" in w for w in payload["warnings"])


def test_a_title_of_letters_alone_names_nothing() -> None:
    from core.flows.extraction.sanity import letters_not_words

    assert letters_not_words("a-b-c-d-e-f-g-h-i-j-k-l-") and letters_not_words("x y z")
    for title in (
        "C",
        "A/B testing",
        "Sistema 1",
        "e-learning",
        "Zona de desarrollo próximo",
        "ZDP",
        "π",
        "大脑",
        "Ley de Yerkes-Dodson",
    ):
        assert not letters_not_words(title), title
