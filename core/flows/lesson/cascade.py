"""The judge cascade in code: a judge's confidence, when to call the next judge, the verdict.

A judge's confidence is computed, not asked for (a small model's self-reported confidence means
little): it is how far its overall score sits from the nearest decision threshold (accept or
fix), measured in units of the judge disagreement the settings tolerate — a score closer to a
threshold than two judges may disagree could flip the decision, one farther away could not —
lowered when the heuristics or the self-review flagged the lesson (a second opinion is due).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from core.flows.lesson.review_types import CascadeVerdict, Decision, JudgeVote

if TYPE_CHECKING:
    from core.evaluation import EvaluationResultData
    from core.settings import Settings
    from core.settings.flows import LessonSettings

FLAG_PENALTY = 0.15
ONE_MODEL_NOTE = (
    "one model serves every judge role: the second judge repeats the first one's opinion and "
    "the tie-break is skipped (set [models.roles.judge_secondary] for a real second opinion)"
)


def judge_roles(settings: Settings) -> tuple[str, str, str]:
    """The roles of the primary, secondary and tie-break judges."""
    return ("judge", "judge_secondary", settings.flows.lesson.tiebreak_role)


def one_judge_model(settings: Settings) -> bool:
    """Whether every judge role resolves to the same model (provider, model, server): then a
    second opinion or a tie-break asks the same model again."""
    models = {
        (m.provider, m.model, m.base_url)
        for m in (settings.role(role) for role in judge_roles(settings))
    }
    return len(models) == 1


def confidence(
    score: float, accept: float, fix: float, *, flagged: bool, margin: float = 0.1
) -> float:
    """0.5 at a threshold, 1.0 at `margin` (the tolerated judge disagreement) or more away;
    minus a penalty for flagged lessons."""
    distance = min(abs(score - accept), abs(score - fix))
    value = 0.5 + 0.5 * min(1.0, distance / max(margin, 1e-6))
    return round(max(0.0, value - (FLAG_PENALTY if flagged else 0.0)), 4)


def vote(
    role: str, result: EvaluationResultData | None, settings: LessonSettings, flagged: bool
) -> JudgeVote | None:
    """A judge's vote from its `EvaluationResult` dict (None when the judge failed)."""
    if not result:
        return None
    score = float(result["overall_score"])
    return JudgeVote(
        role=role,
        score=score,
        confidence=confidence(
            score,
            settings.accept_threshold,
            settings.fix_threshold,
            flagged=flagged,
            margin=settings.judge_disagreement,
        ),
        passed=bool(result["passed"]),
    )


def after_primary(
    primary: JudgeVote | None, settings: LessonSettings
) -> Literal["secondary", "verdict"]:
    """One confident judge is enough; otherwise ask the second judge."""
    if primary is not None and primary.confidence >= settings.judge_confidence_accept:
        return "verdict"
    return "secondary"


def after_secondary(
    primary: JudgeVote | None,
    secondary: JudgeVote | None,
    settings: LessonSettings,
    *,
    one_model: bool = False,
) -> Literal["tiebreak", "verdict"]:
    """Two judges that differ by more than the setting (or a failed one) call a third, unless
    one model serves every judge role (a third call to it breaks no tie)."""
    if one_model:
        return "verdict"
    if primary is None or secondary is None:
        return "tiebreak"
    if abs(primary.score - secondary.score) > settings.judge_disagreement:
        return "tiebreak"
    return "verdict"


def combine(votes: list[JudgeVote]) -> tuple[float, bool]:
    """The final score and pass: one judge as is, two by mean, three by median."""
    scores = [v.score for v in votes]
    if len(votes) >= 3:
        median = statistics.median(scores)
        closest = min(votes, key=lambda v: abs(v.score - median))
        return median, closest.passed
    return statistics.fmean(scores), all(v.passed for v in votes)


def mean_scores(results: Sequence[EvaluationResultData]) -> dict[str, float]:
    ids = [cid for cid in results[0].get("scores", {})] if results else []
    return {
        cid: round(
            statistics.fmean(r["scores"][cid] for r in results if cid in r.get("scores", {})), 4
        )
        for cid in ids
    }


def verdict(
    votes: list[JudgeVote],
    results: Sequence[EvaluationResultData],
    settings: LessonSettings,
    *,
    fixes_left: bool,
    regenerations_left: bool,
) -> CascadeVerdict:
    """Accept, targeted fix, regenerate or escalate, from the combined score and settings."""
    if not votes:
        return CascadeVerdict(
            decision="escalate",
            score=0.0,
            passed=False,
            reason="no judge could evaluate the lesson",
        )
    score, passed = combine(votes)
    scores = mean_scores(results)
    decision: Decision
    if passed and score >= settings.accept_threshold:
        decision, reason = "accept", f"score {score:.2f} >= {settings.accept_threshold:.2f}"
    elif score >= settings.fix_threshold:
        decision = "fix" if fixes_left else "escalate"
        reason = f"score {score:.2f} between fix and accept thresholds"
    else:
        decision = "regenerate" if regenerations_left else "escalate"
        reason = f"score {score:.2f} < {settings.fix_threshold:.2f}"
    if decision == "escalate":
        reason += "; no automatic remedy left"
    return CascadeVerdict(
        decision=decision,
        score=round(score, 4),
        passed=passed,
        votes=votes,
        reason=reason,
        scores=scores,
    )
