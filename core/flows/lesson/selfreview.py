"""Combining the free checks and the self-reviewer's answer into one `SelfReviewResult`.

Code overrides the model where code knows: foreign script over the threshold or several
truncation signs (heuristic action REGENERATE or PARTIAL_REGEN) force REGENERATE whatever the
model said; the model's own REGENERATE stands (the router regenerates once, spec 3.4); hygiene problems the heuristics can fix exactly are fixed by code when the model
did not; a patch from the model is kept only if the heuristics find it no worse and it keeps
every section.
"""

from __future__ import annotations

from core.flows.lesson.document import deterministic_fixes, split_sections
from core.flows.lesson.heuristics import HeuristicAction, HeuristicReport, run_heuristics
from core.flows.lesson.heuristics.result import SEVERITY, CheckStatus
from core.flows.lesson.prompts import SelfReviewAnswer
from core.flows.lesson.review_types import SelfReviewIssue, SelfReviewResult, SelfReviewStatus

CHECK_TYPES = {
    "language_consistency": "LANGUAGE",
    "content_truncation": "TRUNCATION",
    "min_section_length": "SHORT_SECTION",
    "placeholders": "EMPTY",
    "chatbot_artifacts": "HYGIENE",
}
ACTION_SEVERITY = {
    HeuristicAction.REGENERATE: "CRITICAL",
    HeuristicAction.PARTIAL_REGEN: "CRITICAL",
    HeuristicAction.SELF_FIX: "FIXABLE",
    HeuristicAction.FLAG_TO_JUDGE: "INFO",
}


def heuristic_issues(report: HeuristicReport) -> list[SelfReviewIssue]:
    """The heuristics' findings as self-review issues (source `heuristics`)."""
    issues = []
    for check in report.checks:
        if check.status == CheckStatus.PASS:
            continue
        for finding in check.findings[:4]:
            issues.append(
                SelfReviewIssue(
                    type=CHECK_TYPES[check.name],  # type: ignore[arg-type]
                    severity=ACTION_SEVERITY.get(check.action, "INFO"),  # type: ignore[arg-type]
                    location=(finding.section or finding.sample)[:120],
                    description=f"{finding.message}: {finding.sample}"[:300]
                    if finding.sample
                    else finding.message[:300],
                    source="heuristics",
                )
            )
    return issues


def patch_acceptable(original: str, patched: str, language: str, min_words: int) -> bool:
    """A model patch is kept when it keeps every section and is no worse by the checks."""
    if not patched.strip() or len(patched) < 0.6 * len(original):
        return False
    before = [h for h, _ in split_sections(original)[1]]
    after = [h for h, _ in split_sections(patched)[1]]
    if len(after) < len(before):
        return False
    old = run_heuristics(original, language, min_section_words=min_words).action
    new = run_heuristics(patched, language, min_section_words=min_words).action
    return SEVERITY[new] <= SEVERITY[old] and new not in (
        HeuristicAction.REGENERATE,
        HeuristicAction.PARTIAL_REGEN,
    )


def decide(
    report: HeuristicReport,
    answer: SelfReviewAnswer | None,
    lesson: str,
    language: str,
    *,
    can_fix: bool,
    min_words: int,
    not_reviewed: str = "",
) -> SelfReviewResult:
    """The self-review result from the checks and the model's answer.

    `answer` is None when the model was not asked (the heuristics already demand a
    regeneration) or could not review (`not_reviewed` says why: the lesson then goes to the
    judges flagged, never as passed)."""
    issues = heuristic_issues(report)
    status = answer.status if answer else SelfReviewStatus.PASS
    reasoning = answer.reasoning if answer else "the self-reviewer was not asked"
    if not_reviewed:
        status, reasoning = SelfReviewStatus.FLAG_TO_JUDGE, f"not reviewed: {not_reviewed}"
    if answer:
        issues += [SelfReviewIssue(**i.model_dump()) for i in answer.issues]
    action = report.action
    if action in (HeuristicAction.REGENERATE, HeuristicAction.PARTIAL_REGEN):
        override = "" if status == SelfReviewStatus.REGENERATE else f"heuristics: {action}"
        return SelfReviewResult(
            passed=False,
            decision=SelfReviewStatus.REGENERATE,
            issues=issues,
            reasoning=reasoning,
            overridden_by_code=override,
        )
    fixed, how = _fix(report, answer, lesson, language, can_fix=can_fix, min_words=min_words)
    if fixed is not None:
        return SelfReviewResult(
            passed=False,
            decision=SelfReviewStatus.FIXED,
            issues=issues,
            self_fix_applied=True,
            fixed_content=fixed,
            reasoning=reasoning,
            overridden_by_code=how,
            not_reviewed=not_reviewed,
        )
    if status == SelfReviewStatus.FIXED:  # a fix we could not apply: the judges decide
        status = SelfReviewStatus.FLAG_TO_JUDGE
    if status == SelfReviewStatus.PASS and (issues or action != HeuristicAction.NONE):
        status = SelfReviewStatus.PASS_WITH_FLAGS
    return SelfReviewResult(
        passed=status in (SelfReviewStatus.PASS, SelfReviewStatus.PASS_WITH_FLAGS),
        decision=status,
        issues=issues,
        reasoning=reasoning,
        not_reviewed=not_reviewed,
    )


def _fix(
    report: HeuristicReport,
    answer: SelfReviewAnswer | None,
    lesson: str,
    language: str,
    *,
    can_fix: bool,
    min_words: int,
) -> tuple[str | None, str]:
    """The patched lesson (the model's if acceptable, else code's) and who made it."""
    if not can_fix:
        return None, ""
    model_fixed = answer is not None and answer.status == SelfReviewStatus.FIXED
    if (
        answer is not None
        and model_fixed
        and patch_acceptable(lesson, answer.patched_content, language, min_words)
    ):
        return answer.patched_content.strip() + "\n", ""
    if report.action == HeuristicAction.SELF_FIX:
        fixed, applied = deterministic_fixes(lesson, language)
        if applied and fixed != lesson:
            return fixed, "code fix: " + ", ".join(applied)
    return None, ""
