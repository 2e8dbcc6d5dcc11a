"""Visibly degenerate evaluations are re-asked before anyone reads them (issue 12): in the
walkthrough the rubric gave every criterion the same remark about a term the note does not
contain (copied from the prompt's own example). The bad answers are written by hand after
what Gemma 3 270M returned."""

from __future__ import annotations

import pytest

from core.degenerate import (
    echoes,
    field_names_as_values,
    looping,
    quotes_not_in,
    repeated_sentence,
)
from core.evaluation import EvaluationFailure, evaluate_content
from local_llm.testing import scripted_client
from tests.evaluation.draft_graph import DEFAULT_IDS, options, uniform

NOTE = {"draft": "Photosynthesis turns light into chemical energy in the chloroplasts."}


def remark_everywhere(text: str, where: str = "## Background") -> dict:
    answer = uniform(0.6)
    for cid in DEFAULT_IDS:
        answer["criteria"][cid]["rationale"] = text
        answer["criteria"][cid]["issues"] = [{"what": text, "where": where}]
    return answer


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        (remark_everywhere("'entropy' is never defined"), "quotes 'entropy'"),
        (remark_everywhere("rationale"), "is not a remark"),
        (remark_everywhere("<why this score, by the guidelines>"), "is not a remark"),
        (
            remark_everywhere("The note explains the topic but lacks any example of it at all."),
            "every criterion has the same rationale",
        ),
        ({**uniform(0.6), "feedback": "100% (100% (100% (100% ("}, "over and over"),
    ],
)
async def test_a_degenerate_evaluation_is_asked_again(bad: dict, problem: str) -> None:
    llm = scripted_client([bad, uniform(0.8)])
    result = await evaluate_content(llm, options(), NOTE)
    assert abs(result.overall_score - 0.8) < 1e-9  # the second, sound answer
    calls = llm.backend().calls
    assert len(calls) == 2 and problem in calls[1].messages[-1]["content"]


async def test_an_evaluation_that_stays_degenerate_fails_instead_of_being_shown() -> None:
    bad = remark_everywhere("'entropy' is never defined")
    llm = scripted_client([bad, bad, bad, bad])
    with pytest.raises(EvaluationFailure) as info:
        await evaluate_content(llm, options(), NOTE)
    assert info.value.kind == "parse" and "entropy" in info.value.detail


def test_the_checks_leave_ordinary_remarks_alone() -> None:
    text = "Photosynthesis turns light into chemical energy in the chloroplasts."
    assert quotes_not_in("It says 'chemical energy' but never 'glucose'.", text) == ["glucose"]
    assert (
        quotes_not_in("The term «Chloroplasts» is used well; l'auteur n'explique pas.", text) == []
    )
    assert field_names_as_values({"feedback": "Reasons: reasons"}, ["reasoning", "feedback"])
    assert not field_names_as_values({"feedback": "Good reasons given"}, ["reasoning"])
    assert repeated_sentence("Good. Good work on the intro. Good work on the intro.")
    assert not repeated_sentence("One idea here. Another idea there. A third idea.")


def test_a_fragment_said_over_and_over_is_a_loop_and_prose_is_not() -> None:
    """The walkthrough's rubric remarks were `100% (100% (100% (100% (` in every field: no
    sentence ends there, so the repeated-sentence check could not see it."""
    assert looping("100% (100% (100% (100% (")
    assert looping("no no no no") == "no"
    assert looping("el sistema el sistema el sistema el sistema") == "el sistema"
    for prose in (
        "El sistema 1 opera rápido. El sistema 2 piensa despacio.",
        "Ha, ha, ha, said the clown, who laughed at his own joke all evening long.",
        "x = 1, 2, 3, 4 and so on",
        "Готово, готово — сказал он и ушёл домой.",
        "",
    ):
        assert looping(prose) == "", prose


def wordless_answer() -> dict:
    """What Gemma 3 270M answered in the issue-12 walk: scores, and remarks with no words."""
    answer = uniform(0.5)
    walk = ["=0.0", "1.0", "${},", "accuracies: {"]
    for cid, text in zip(DEFAULT_IDS, walk * len(DEFAULT_IDS), strict=False):
        answer["criteria"][cid] = {
            "rationale": text,
            "issues": [{"what": "0.0", "where": ""}],
            "score": 0.5,
        }
    first = DEFAULT_IDS[0]
    answer["criteria"][first]["rationale"] = "La nota define «Photosynthesis» sin ejemplos."
    answer["criteria"][first]["score"] = 0.9
    answer.update(
        strengths=["1.0", "Explica bien la idea", "accuracy: 0.0, issues: 0"],
        weaknesses=["0.0", "completeness: 0.0, issue"],
        feedback="0.0",
    )
    return answer


async def test_remarks_with_no_words_are_left_out_and_the_scores_kept() -> None:
    """The walk's rubric remarks were `=0.0`, `1.0`, `${},`, `accuracies: {`. Re-asking made the
    run fail (the small model keeps writing them), so they are dropped and said so, once."""
    from core.evaluation.report import render_text

    llm = scripted_client([wordless_answer()])
    result = await evaluate_content(llm, options(), NOTE)
    assert len(llm.backend().calls) == 1  # not asked again
    first, *rest = result.criteria
    assert rest and all(c.rationale == "" and c.no_remark and c.score == 0.5 for c in rest)
    assert first.rationale.startswith("La nota") and not first.no_remark and first.score == 0.9
    assert all(c.issues == [] for c in result.criteria)
    assert result.strengths == ["Explica bien la idea"] and result.weaknesses == []
    assert result.feedback == ""
    text = render_text(result)
    for shown in ("=0.0", "${},", "accuracies", "- 1.0", "- 0.0", "issues: 0", "Feedback:"):
        assert shown not in text
    assert text.count("the model gave no usable remark for this criterion") == len(rest)
    assert result.notes[-1:] == [
        "the model's strengths, weaknesses and feedback had no words and were left out"
    ]
    assert "Note: the model's strengths, weaknesses and feedback had no words" in text
    assert result.raw_response["feedback"] == "0.0"  # the model's own answer, for debugging


@pytest.mark.parametrize(
    "remark",
    ["=0.0", "1.0", "${},", "accuracies: {", '"score":', "0.0 / 1", "—", "ideas: [0.5]", "{note}"],
)
def test_a_remark_with_no_words_is_wordless(remark: str) -> None:
    from core.degenerate import wordless

    assert wordless(remark)


@pytest.mark.parametrize(
    "remark",
    [
        "Clear.",
        "Claridad: la nota define sus términos.",
        "说明清楚",
        "メタ認知の定義がある",
        "Хорошо",
        "وضوح",
        "[[Metacognición]] está enlazada",
        "See [the note](x.md)",
        "Score 0.5: too short",
        "🧠 ok",
        "",
    ],
)
def test_a_remark_with_words_in_any_script_is_not_wordless(remark: str) -> None:
    from core.degenerate import wordless

    assert not wordless(remark)


INSTRUCTIONS = (
    "You are the tutor talking to a learner. Teach the current step of the plan briefly, in the "
    "learner's language, with an example that fits their interests, and end with exactly ONE "
    "question the learner can answer in a sentence."
)


@pytest.mark.parametrize(
    "text",
    [
        "You are the tutor talking to a learner. Teach the current step of the plan briefly.",
        "OK. you are THE tutor talking to a learner, teach the current step of the plan!",
    ],
)
def test_instructions_said_back_are_an_echo(text):
    assert echoes(text, INSTRUCTIONS)


@pytest.mark.parametrize(
    "text",
    [
        "Imagine you study for an exam: instead of rereading, close the book. What do you recall?",
        "Teach me: what is the current step?",  # a few words in common are no echo
        "",
    ],
)
def test_an_answer_in_its_own_words_is_no_echo(text):
    assert not echoes(text, INSTRUCTIONS)
