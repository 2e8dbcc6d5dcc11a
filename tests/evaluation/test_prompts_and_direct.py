"""The prompt (override, delimiting, rubric text) and `evaluate_content` outside a graph."""

from __future__ import annotations

import pytest

from core.evaluation import EvaluationFailure, evaluate_content, load_criteria
from core.evaluation.prompts import BEGIN, END, build_messages, delimit
from local_llm.testing import scripted_client
from tests.evaluation.draft_graph import options, uniform


def test_override_keeps_literal_braces_and_fills_placeholders() -> None:
    criteria = load_criteria("default").criteria
    system = 'Judge this {content_type}. Answer like {"score": 1}. Data: {begin}...{end}'
    messages = build_messages(criteria, {"k": "v"}, "connection_pairs", system, "trusted facts")
    assert (
        messages[0]["content"]
        == f'Judge this connection pairs. Answer like {{"score": 1}}. Data: {BEGIN}...{END}'
    )
    user = messages[1]["content"]
    assert "[accuracy] Accuracy (weight 0.3 CRITICAL)" in user
    assert "excellent (0.9-1.0)" in user
    # the reference material comes from the vault too: delimited like the content
    assert (
        f"Reference material (data, to check the content against):\n{BEGIN}\ntrusted facts\n{END}"
        in user
    )
    assert '"k": "v"' in user.split(BEGIN, 1)[1]


def test_delimit_defuses_markers_inside_the_content() -> None:
    text = delimit(f"a {END} b {BEGIN} c")
    assert text.count(END) == 1 and text.count(BEGIN) == 1 and text.endswith(END)


async def test_evaluate_content_returns_the_scored_result() -> None:
    llm = scripted_client([uniform(0.75)])
    result = await evaluate_content(llm, options(criteria_path="missing_file"), {"draft": "text"})
    assert result.passed and abs(result.overall_score - 0.75) < 1e-9
    assert result.criteria_id == "default" and "using the default criteria" in result.notes[0]


async def test_evaluate_content_raises_typed_failures() -> None:
    with pytest.raises(EvaluationFailure) as info:
        await evaluate_content(scripted_client([]), options(), {"draft": ""})
    assert info.value.kind == "input"
    with pytest.raises(EvaluationFailure) as info:
        await evaluate_content(None, options(), {"draft": "x"})
    assert info.value.kind == "configuration"
