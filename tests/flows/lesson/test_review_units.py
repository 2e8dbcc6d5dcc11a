"""The cascade's arithmetic, the routers, and the self-review decision (code over model)."""

from __future__ import annotations

from types import SimpleNamespace

from core.flows.lesson import cascade
from core.flows.lesson.document import deterministic_fixes
from core.flows.lesson.heuristics import run_heuristics
from core.flows.lesson.prompts import SelfReviewAnswer
from core.flows.lesson.review_nodes import route_heuristics, route_self_review
from core.flows.lesson.selfreview import decide
from core.settings.flows import LessonSettings
from tests.flows.lesson.corpus import PARAGRAPHS

S = LessonSettings()
ES = PARAGRAPHS["es"]
CLEAN = f"# L\n\n## Uno\n\n{ES[0]}\n\n## Dos\n\n{ES[1]}\n"


def runtime(**lesson):
    settings = SimpleNamespace(flows=SimpleNamespace(lesson=LessonSettings(**lesson)))
    return SimpleNamespace(context=SimpleNamespace(settings=settings))


def test_confidence_is_low_at_thresholds_and_high_far_from_them():
    assert cascade.confidence(0.7, 0.7, 0.5, flagged=False) == 0.5
    assert cascade.confidence(0.95, 0.7, 0.5, flagged=False) == 1.0
    assert cascade.confidence(0.95, 0.7, 0.5, flagged=True) == 0.85
    assert cascade.confidence(0.6, 0.7, 0.5, flagged=False) == 1.0  # 0.1 from both: no flip
    assert cascade.confidence(0.73, 0.7, 0.5, flagged=False) == 0.65
    assert cascade.confidence(0.73, 0.7, 0.5, flagged=False, margin=0.2) == 0.575


def test_cascade_routes():
    sure = cascade.JudgeVote(role="judge", score=0.95, confidence=0.9, passed=True)
    unsure = cascade.JudgeVote(role="judge", score=0.72, confidence=0.55, passed=True)
    far = cascade.JudgeVote(role="judge_secondary", score=0.9, confidence=1, passed=True)
    near = cascade.JudgeVote(role="judge_secondary", score=0.8, confidence=1, passed=True)
    assert cascade.after_primary(sure, S) == "verdict"
    assert cascade.after_primary(unsure, S) == "secondary"
    assert cascade.after_primary(None, S) == "secondary"
    assert cascade.after_secondary(unsure, far, S) == "tiebreak"  # 0.18 > 0.1
    assert cascade.after_secondary(unsure, near, S) == "verdict"  # 0.08
    assert cascade.after_secondary(unsure, None, S) == "tiebreak"


def _vote(score, passed=True):
    return cascade.JudgeVote(role="j", score=score, confidence=1, passed=passed)


def test_verdict_thresholds():
    res = [{"scores": {"a": 0.9}}]
    assert (
        cascade.verdict([_vote(0.9)], res, S, fixes_left=True, regenerations_left=True).decision
        == "accept"
    )
    assert (
        cascade.verdict(
            [_vote(0.9, False)], res, S, fixes_left=True, regenerations_left=True
        ).decision
        == "fix"
    )
    assert (
        cascade.verdict([_vote(0.6)], res, S, fixes_left=True, regenerations_left=True).decision
        == "fix"
    )
    assert (
        cascade.verdict([_vote(0.6)], res, S, fixes_left=False, regenerations_left=True).decision
        == "escalate"
    )
    assert (
        cascade.verdict([_vote(0.3)], res, S, fixes_left=True, regenerations_left=True).decision
        == "regenerate"
    )
    assert (
        cascade.verdict([_vote(0.3)], res, S, fixes_left=True, regenerations_left=False).decision
        == "escalate"
    )
    assert (
        cascade.verdict([], [], S, fixes_left=True, regenerations_left=True).decision == "escalate"
    )
    three = cascade.verdict(
        [_vote(0.2), _vote(0.9), _vote(0.75)], res * 3, S, fixes_left=True, regenerations_left=True
    )
    assert three.score == 0.75 and three.decision == "accept"


def test_route_heuristics():
    rt = runtime(max_regenerations=1)
    regen = {"heuristics": {"action": "REGENERATE"}, "mode": "generate", "regenerations": 0}
    assert route_heuristics(regen, rt) == "regenerate"
    assert route_heuristics({**regen, "regenerations": 1}, rt) == "self_review"
    assert route_heuristics({**regen, "mode": "review"}, rt) == "caught"
    fine = {"heuristics": {"action": "NONE"}, "mode": "generate"}
    assert route_heuristics(fine, rt) == "self_review"
    assert route_heuristics({**fine, "skip_self_review": True}, rt) == "judge"


def test_route_self_review_spec_3_4():
    rt = runtime(max_regenerations=1)
    base = {"mode": "generate", "regenerations": 0}
    assert route_self_review({**base, "self_review": {"decision": "PASS"}}, rt) == "judge"
    fixed = {"decision": "FIXED", "self_fix_applied": True}
    assert route_self_review({**base, "self_review": fixed}, rt) == "recheck"
    regen = {"decision": "REGENERATE"}
    assert route_self_review({**base, "self_review": regen}, rt) == "regenerate"
    assert route_self_review({**base, "regenerations": 1, "self_review": regen}, rt) == "judge"
    # a reviewed note cannot be regenerated: the model's REGENERATE goes to the judges (spec),
    # the heuristics' condemnation stops it before them
    review = {"mode": "review", "self_review": regen}
    assert route_self_review({**review, "heuristics": {"action": "NONE"}}, rt) == "judge"
    assert route_self_review({**review, "heuristics": {"action": "REGENERATE"}}, rt) == "caught"
    assert route_self_review({**base, "self_review": {"decision": "FLAG_TO_JUDGE"}}, rt) == "judge"


def answer(status, patched=""):
    return SelfReviewAnswer(status=status, reasoning="r", issues=[], patched_content=patched)


def test_code_forces_regenerate_over_a_passing_model():
    bad = CLEAN.replace("problema.", "problema 这个方法很好.")
    report = run_heuristics(bad, "es")
    result = decide(report, answer("PASS"), bad, "es", can_fix=True, min_words=50)
    assert result.decision == "REGENERATE" and "heuristics" in result.overridden_by_code
    assert any(i.source == "heuristics" and i.type == "LANGUAGE" for i in result.issues)


def test_model_patch_kept_only_when_no_worse():
    dirty = CLEAN.replace(ES[0], "Claro, aquí tienes la lección. " + ES[0])
    report = run_heuristics(dirty, "es")
    good = decide(report, answer("FIXED", CLEAN), dirty, "es", can_fix=True, min_words=50)
    assert good.decision == "FIXED" and good.fixed_content == CLEAN and not good.overridden_by_code
    broken = CLEAN.replace("## Dos", "## Dos\n\nTODO")
    worse = decide(report, answer("FIXED", broken), dirty, "es", can_fix=True, min_words=50)
    assert worse.decision == "FIXED" and worse.overridden_by_code.startswith("code fix")
    assert "Claro" not in worse.fixed_content and "TODO" not in worse.fixed_content
    no_fix = decide(report, answer("FIXED", CLEAN), dirty, "es", can_fix=False, min_words=50)
    assert no_fix.decision == "FLAG_TO_JUDGE" and not no_fix.self_fix_applied


def test_pass_with_flags_when_checks_warn():
    short = "# L\n\n## Uno\n\nPocas palabras aquí.\n"
    result = decide(
        run_heuristics(short, "es"), answer("PASS"), short, "es", can_fix=True, min_words=50
    )
    assert result.decision == "PASS_WITH_FLAGS" and result.passed


def test_deterministic_fixes_keep_code():
    text = "# L\n\n## A\n\nSure, here is the lesson. Real text 的 here.\n\n```\nSure, here is code 的\n```\n"
    fixed, applied = deterministic_fixes(text, "en")
    assert "Sure, here is the lesson" not in fixed and "Real text here." in fixed
    assert "Sure, here is code 的" in fixed
    assert len(applied) == 2


def test_terminology_only_to_a_term_the_lesson_already_uses():
    from core.flows.lesson.document import apply_terminology

    body = "# L\n\n## A\n\nUn commit guarda. Una confirmación `confirmación` también.\n\n```\nconfirmación\n```\n"
    fixed, applied = apply_terminology(body, [("commit", "confirmación"), ("rama", "branch")])
    assert applied == ["confirmación -> commit"]
    assert "Una commit guarda" not in fixed and "Una commit `confirmación` también." in fixed
    assert fixed.endswith("```\nconfirmación\n```\n")  # code untouched
    assert apply_terminology(body, [("rebase", "commit")])[1] == []  # "rebase" is not in it
