"""A plain-text rendering of an evaluation, for the CLI and logs."""

from __future__ import annotations

from collections.abc import Mapping

from core.evaluation.answer import NO_REMARK
from core.evaluation.result import EvaluationResult


def score_bar(score: float, threshold: float | None = None, width: int = 20) -> str:
    """`[#########|-------]`: filled up to the score, `|` marking the threshold."""
    filled = round(max(0.0, min(1.0, score)) * width)
    cells = ["#" if i < filled else "-" for i in range(width)]
    if threshold is not None:
        mark = min(width - 1, round(threshold * width))
        cells[mark] = "|"
    return "[" + "".join(cells) + "]"


def render_text(result: EvaluationResult | Mapping[str, object], *, details: bool = True) -> str:
    """The evaluation as text: verdict, a bar per criterion, then the model's remarks."""
    if not isinstance(result, EvaluationResult):
        result = EvaluationResult.model_validate(result)
    verdict = "PASSED" if result.passed else "NOT PASSED"
    lines = [
        f"{verdict}  overall {result.overall_score:.2f} (threshold {result.passing_threshold:.2f})"
        f"  rubric {result.criteria_id}@{result.criteria_version}",
    ]
    width = max((len(c.name) for c in result.criteria), default=0)
    for c in result.criteria:
        flag = "ok " if c.passed else "LOW"
        critical = "  critical" if c.is_critical else ""
        lines.append(
            f"  {c.name:<{width}} {score_bar(c.score, c.passing_threshold)} "
            f"{c.score:.2f}/{c.passing_threshold:.2f} {flag}{critical}"
        )
        if details and c.rationale:
            lines.append(f"      {c.rationale}")
        elif details and c.no_remark:
            lines.append(f"      ({NO_REMARK})")
        if details:
            lines.extend(
                f"      - {i.what}" + (f" ({i.where})" if i.where else "") for i in c.issues
            )
    for title, items in (
        ("Strengths", result.strengths),
        ("Weaknesses", result.weaknesses),
        ("Suggestions", result.suggestions),
    ):
        if items:
            lines.append(f"{title}:")
            lines.extend(f"  - {item}" for item in items)
    if result.feedback:
        lines.append(f"Feedback: {result.feedback}")
    lines.extend(f"Note: {note}" for note in result.notes)
    return "\n".join(lines)
