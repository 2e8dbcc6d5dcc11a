"""Issue 13, points 7 and 8: text and titles a model writes cannot restructure a note, and a
note noema wrote reads back to what it wrote."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from core.concept_notes import ConceptNote, QuoteRef, parse_concept_note, render_concept_note
from core.domain import Concept, Relation, RelationType
from core.flows.lesson.document import assemble
from core.flows.lesson.heuristics.parse import parse_lesson
from core.flows.tutor.summary import note_text
from core.merges.edits import merged_section
from vault.blocktext import clean_text, guard, unguard
from vault.note import parse_note
from vault.titles import MAX_NAME, MAX_NAME_BYTES, note_title

TEMPLATE = [(1, None), (2, "Concepto"), (2, "Análisis"), (2, "Conexiones"), (2, "Fuente")]


def reparse(text: str):
    return parse_concept_note(parse_note("08 - Ideas/x.md", text.encode("utf-8")))


def structure(text: str) -> list[tuple[int, str]]:
    return [
        (s.level, s.heading) for s in parse_note("x.md", text.encode()).sections if s.level <= 2
    ]


def test_a_model_that_writes_headings_rules_and_fences_cannot_restructure_the_note() -> None:
    hostile = (
        "Idea.\n# Fake title\n## Fuente\n- [[Evil#^fake]]\n---\ntitle: injected\n---\n```\nopen"
    )
    concept = Concept(title="Real", concept=hostile, analysis="## Conexiones\n===\nx\n---")
    quotes = [QuoteRef("Book", "q-real")]
    text = render_concept_note(concept, [], {}, quotes)
    assert [level for level, _ in structure(text)] == [1, 2, 2, 2, 2]
    assert parse_note("x.md", text.encode()).frontmatter["entity_id"] == concept.id
    back = reparse(text)
    assert back.quotes == quotes  # not the fake Fuente's link
    assert back.concept.concept == hostile and back.concept.analysis == concept.analysis


hostile_alphabet = st.sampled_from(
    [
        "#",
        "##",
        "# ",
        "---",
        "***",
        "___",
        "===",
        "-",
        "=",
        "```",
        "~~~",
        ">",
        "|",
        "[[",
        "]]",
        "^",
        "\\",
        "\\#",
        "%%",
        " ",
        "    ",
        "\t",
        "\n",
        "\r\n",
        "\r",
        "\x85",
        "\u2028",
        "\x00",
        "\u202e",
        "a",
        "Fuente",
        "Concepto",
        "Análisis",
        "Conexiones",
        "[[S#^q]]",
        "entity_id: x",
        "🧠",
        "記憶",
        "é",
        "e\u0301",
    ]
)
hostile = st.lists(hostile_alphabet, max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(
    title=hostile,
    concept_text=hostile,
    analysis=hostile,
    summary=hostile,
    aliases=st.lists(hostile, max_size=3),
)
@example(title="", concept_text="", analysis="#```#```", summary="", aliases=[])  # found once
def test_what_noema_writes_reads_back_whatever_the_model_wrote(
    title, concept_text, analysis, summary, aliases
) -> None:
    concept = Concept(
        title=title,
        concept=concept_text,
        analysis=analysis,
        summary=summary,
        short_summary=summary,
        aliases=aliases,
    )
    other = Concept(title="Otra")
    relations = [Relation(source_id=concept.id, type=RelationType.SUPPORTS, target_id=other.id)]
    quotes = [QuoteRef("Fuente de citas", "q-1")]
    text = render_concept_note(concept, relations, {other.id: "Otra"}, quotes)
    assert [level for level, _ in structure(text)] == [lvl for lvl, _ in TEMPLATE]
    back = reparse(text)
    assert back.concept.title == note_title(title)
    assert back.concept.concept == clean_text(concept_text)
    assert back.concept.analysis == clean_text(analysis)
    assert back.concept.summary == back.concept.short_summary == clean_text(summary)
    assert back.concept.aliases == [clean_text(a) for a in aliases if clean_text(a)]
    assert back.quotes == quotes and [r.key for r in back.relations] == [relations[0].key]
    # written again from what was read: the same note, byte for byte
    assert render_concept_note(back.concept, back.relations, {other.id: "Otra"}, quotes) == text


@settings(max_examples=300, deadline=None)
@given(hostile)
def test_guard_is_undone_exactly(text) -> None:
    clean = clean_text(text)
    assert unguard(guard(text)) == clean
    assert clean_text(clean) == clean


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=400) | hostile)
def test_one_title_is_safe_as_file_name_heading_and_link_text(raw) -> None:
    title = note_title(raw)
    assert title and title == note_title(title)
    assert not any(bad in title for bad in ("[", "]", "|", "#", "^", "/", "\\", ":", "%%"))
    assert "\n" not in title and "\r" not in title and not title.startswith(".")
    assert len(title) <= MAX_NAME and len(title.encode("utf-8")) <= MAX_NAME_BYTES
    heading = parse_note("x.md", f"# {title}\n".encode()).sections[0].heading
    assert heading == title  # the H1 reads back as the file name
    link = parse_note("x.md", f"[[{title}]]".encode()).links[0]
    assert link.target == title and link.alias is None


def test_a_long_title_is_cut_between_words() -> None:
    words = ["consolidación", "de", "la", "memoria", "durante", "el", "sueño", "profundo"] * 6
    raw = " ".join(words)
    title = note_title(raw)
    assert len(title) <= MAX_NAME and raw.startswith(title) and raw[len(title)] == " "
    assert note_title("x" * 300) == "x" * MAX_NAME  # one word: cut where it must be


def test_lesson_titles_cannot_add_sections_or_frontmatter() -> None:
    sections = ["Uno\n---\nstatus: hacked", "Dos ## Tres", "[[Cuatro]] | cinco"]
    body = assemble("Lección]]\n# Otra", sections, {"0": "a", "1": "b", "2": "c"})
    lesson = parse_lesson(body)
    assert [s.title for s in lesson.sections if s.title] == [note_title(s) for s in sections]
    assert not [line for line in body.splitlines() if line.startswith("---")]
    assert body.splitlines()[0] == "# Lección Otra"


def test_tutor_session_notes_keep_their_structure_with_hostile_titles() -> None:
    state = {
        "topic_info": {"title": "Tema\n---\ntype: hacked", "concepts": [{"title": "A]]|[[B"}]},
        "study_plan": {"todo_list": [{"title": "Paso\n# Falso", "status": "completed"}]},
    }
    summary = {
        "steps_completed": 1,
        "steps_total": 1,
        "mastery_score": 1.0,
        "outcome": "completed",
        "misconceptions_seen": [],
        "suggestions": [],
    }
    text = note_text(state, summary, "s1")
    note = parse_note("x.md", text.encode())
    assert note.frontmatter["type"] == "tutoring-session"
    assert [s.heading for s in note.sections if s.level == 1] == ["Tutoring: Tema --- type hacked"]
    assert "- [completed] Paso Falso" in text and "- [[A B]]" in text


def test_a_tutoring_conversation_cannot_restructure_its_session_note() -> None:
    hostile = [
        "## Plan\n- [completed] todo\n---\ntype: hacked\n```\n# Falso",
        "**You** · 10:00\nyo no dije esto",  # a speaker line faked inside a message
        "Setext\n===\n\n> cita\n\x1b[2J\u202eal revés",
    ]
    conversation = [
        {
            "role": "tutor",
            "kind": "teaching",
            "content": hostile[0],
            "timestamp": "2026-01-02T10:00:00",
        },
        {
            "role": "student",
            "kind": "answer",
            "content": hostile[1],
            "timestamp": "2026-01-02T10:01:00",
        },
        {"role": "tutor", "kind": "feedback", "content": hostile[2], "stopped": True},
        {"role": "tutor", "kind": "closing", "content": "Steps completed: 1/1"},
    ]
    state = {
        "topic_info": {"title": "Fracciones"},
        "conversation": conversation,
        "study_plan": {"todo_list": [{"title": "Paso", "status": "completed"}]},
    }
    summary = {
        "steps_completed": 1,
        "steps_total": 1,
        "mastery_score": 1.0,
        "outcome": "completed",
        "misconceptions_seen": ["## Ups\n---"],
        "suggestions": [],
    }
    text = note_text(state, summary, "s1")
    note = parse_note("x.md", text.encode())
    assert note.frontmatter["type"] == "tutoring-session"
    headings = [(s.level, s.heading) for s in note.sections]
    assert headings == [
        (1, "Tutoring: Fracciones"),
        (2, "Summary"),
        (2, "Plan"),
        (2, "Conversation"),
    ]
    talk = text.split("## Conversation\n\n", 1)[1].rstrip("\n").split("\n")
    speakers = [line for line in talk if not line.startswith(">") and line]
    assert speakers == ["**Tutor** · 10:00", "**You** · 10:01", "**Feedback**"]
    assert "> \\## Plan" in talk and "> \\---" in talk and "> \\```" in talk
    assert "> **You** · 10:00" in talk  # the faked speaker stays inside the quote
    assert "\x1b" not in text and "\u202e" not in text and "> *(stopped)*" in talk
    assert "Steps completed: 1/1" not in "\n".join(talk)


def test_a_merged_variant_brings_its_text_in_one_section() -> None:
    variant = ConceptNote(
        Concept(title="V]]\n# x", concept="## Fuente\n- [[S#^q]]", summary="s\n---")
    )
    section = merged_section(variant, "es")
    assert [level for level, _ in structure(section)] == [2]
    assert structure(section)[0][1] == "Fusionado desde: V x"
