"""Visibly degenerate evaluations are re-asked before anyone reads them (issue 12): in the
walkthrough the rubric gave every criterion the same remark about a term the note does not
contain (copied from the prompt's own example). The bad answers are written by hand after
what Gemma 3 270M returned."""

from __future__ import annotations

import pytest

from core.degenerate import field_names_as_values, looping, quotes_not_in, repeated_sentence
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
