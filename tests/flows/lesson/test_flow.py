"""The lesson flow end to end with scripted models: generation, self-review, cascade, writing."""

from __future__ import annotations

from core.events import Done, Interrupted
from core.flows.lesson.traces import savings_report
from tests.flows.lesson.script import GOOD, trace_phases


async def test_generate_accepts_with_one_confident_judge(harness_factory):
    async with harness_factory() as h:
        run_id, events = await h.run()
        assert isinstance(events[-1], Done), events[-1]
        state = await h.state(run_id)
        assert state["status"] == "accepted"
        assert h.models_asked("judge") == ["judge-a"]
        meta, body = h.frontmatter(state["lesson_path"])
        assert state["lesson_path"].startswith("09 - Lessons/")
        assert meta["status"] == "accepted" and meta["language"] == "es"
        assert meta["topic"] == "Práctica de recuperación"
        assert meta["self_review"]["decision"] == "PASS"
        assert meta["judge"]["decision"] == "accept" and meta["judge"]["judges"] == 1
        assert meta["tokens"]["total"] > 0 and meta["tokens"]["judge"] > 0
        assert body.count("\n## ") + body.startswith("## ") == 2
        assert "Ahora veamos el siguiente paso" in body  # the smoother's transition
        phases = [p for p, _ in trace_phases(h, run_id)]
        for phase in (
            "planner",
            "expander",
            "assembler",
            "smoother",
            "heuristics",
            "self_review",
            "judge",
            "verdict",
            "write",
        ):
            assert phase in phases
        report = savings_report(h.services.store)
        assert report["lessons"] == 1 and report["judges_called"] == 1
        assert 0 < report["judge_tokens"] < report["full_judge_tokens"]


async def test_sources_reach_the_planner(harness_factory):
    async with harness_factory() as h:
        await h.run()
        plan_call = next(c for c in h.backend.calls if c.node == "planner")
        assert "<SOURCES>" in plan_call.last_user
        assert "Repetición espaciada" in plan_call.last_user  # a related concept from the index


async def test_unconfident_primary_asks_secondary_agreeing_no_tiebreak(harness_factory):
    async with harness_factory() as h:
        h.script.scores = {"judge-a": [0.72], "judge-b": [0.76], "judge-c": [0.9]}
        run_id, events = await h.run()
        assert isinstance(events[-1], Done)
        assert h.models_asked("judge") == ["judge-a", "judge-b"]
        cascade = (await h.state(run_id))["cascade"]
        assert cascade["decision"] == "accept" and abs(cascade["score"] - 0.74) < 1e-6


async def test_disagreeing_judges_call_the_tiebreak(harness_factory):
    async with harness_factory() as h:
        h.script.scores = {"judge-a": [0.72], "judge-b": [0.95], "judge-c": [0.8]}
        run_id, _ = await h.run()
        assert h.models_asked("judge") == ["judge-a", "judge-b", "judge-c"]
        cascade = (await h.state(run_id))["cascade"]
        assert abs(cascade["score"] - 0.8) < 1e-6  # the median of three
        report = savings_report(h.services.store, run_id)
        assert report["full_judge_tokens"] >= report["judge_tokens"] > 0  # the panel ran in full


async def test_planted_language_mixing_regenerates_before_self_review(harness_factory):
    async with harness_factory() as h:
        h.script.bad_first = {1: GOOD[2].replace("commits.", "commits 这个方法很好 y más cosas.")}
        run_id, events = await h.run()
        assert isinstance(events[-1], Done)
        assert h.script.count("section") == 4  # two sections, then both again
        assert h.script.count("review") == 1  # the self-reviewer only saw the clean lesson
        phases = trace_phases(h, run_id)
        assert ("heuristics", "REGENERATE") in phases
        state = await h.state(run_id)
        assert "这" not in state["lesson"] and state["regenerations"] == 1
        assert state["caught_by"] == "heuristics"


async def test_artifact_fixed_by_code_then_rechecked_and_judged(harness_factory):
    async with harness_factory() as h:
        h.script.sections = [
            f"¡Claro, aquí tienes la lección! {GOOD[0]}\n\n{GOOD[1]}",
            f"{GOOD[2]}\n\n{GOOD[3]}",
        ]
        run_id, events = await h.run()
        assert isinstance(events[-1], Done)
        state = await h.state(run_id)
        review = state["self_review"]
        assert review["decision"] == "FIXED" and review["self_fix_applied"]
        assert review["overridden_by_code"].startswith("code fix")
        assert "Claro, aquí tienes" not in state["lesson"]
        assert "Claro, aquí tienes" in state["before_fix"]
        assert h.script.count("review") == 1  # the recheck is free: heuristics, then the judge
        assert [p for p, _ in trace_phases(h, run_id)].count("heuristics") == 2


async def test_model_regenerate_regenerates_once_then_judges(harness_factory):
    """Spec 3.4's router: the self-reviewer's REGENERATE with a retry left goes back to the
    sections (main downgraded it to FLAG_TO_JUDGE, so the route was unreachable); the second
    REGENERATE has no retry left and goes to the judges."""
    async with harness_factory() as h:
        h.script.review = {
            "status": "REGENERATE",
            "reasoning": "bad",
            "issues": [
                {"type": "LOGIC", "severity": "COMPLEX", "location": "Parte 1", "description": "?"}
            ],
            "patched_content": "",
        }
        run_id, _ = await h.run()
        state = await h.state(run_id)
        assert state["regenerations"] == 1
        assert h.script.count("section") == 4  # two sections, written twice
        assert h.script.count("review") == 2
        assert state["self_review"]["decision"] == "REGENERATE"
        assert h.models_asked("judge")  # no retry left: the judges decide


async def test_targeted_fix_after_middling_verdict(harness_factory):
    async with harness_factory(max_regenerations=0) as h:
        h.script.scores = {"judge-a": [0.6, 0.95], "judge-b": [0.6, 0.95], "judge-c": [0.6]}
        run_id, events = await h.run()
        assert isinstance(events[-1], Done)
        state = await h.state(run_id)
        assert state["judge_fixes"] == 1 and state["status"] == "accepted"
        assert h.script.count("fix") >= 1
        assert GOOD[4] in state["lesson"]


async def test_low_score_escalates_then_user_accepts(harness_factory):
    async with harness_factory(max_regenerations=0, max_judge_fixes=0) as h:
        h.script.scores = {"judge-a": [0.2], "judge-b": [0.25], "judge-c": [0.2]}
        run_id, events = await h.run()
        assert isinstance(events[-1], Interrupted)
        assert events[-1].payload["type"] == "lesson_review"
        assert "accept" in events[-1].payload["actions"]
        events = await h.resume_run(run_id, {"action": "accept"})
        assert isinstance(events[-1], Done)
        state = await h.state(run_id)
        meta, _ = h.frontmatter(state["lesson_path"])
        assert meta["status"] == "accepted" and meta["judge"]["decision"] == "escalate"


async def test_escalation_edit_is_checked_and_judged_again(harness_factory):
    async with harness_factory(max_regenerations=0, max_judge_fixes=0) as h:
        h.script.scores = {"judge-a": [0.2, 0.9], "judge-b": [0.2, 0.9], "judge-c": [0.2]}
        run_id, _ = await h.run()
        edited = f"# Lección\n\n## Uno\n\n{GOOD[0]} {GOOD[1]}\n\n## Dos\n\n{GOOD[2]} {GOOD[3]}\n"
        events = await h.resume_run(run_id, {"action": "edit", "content": edited})
        assert isinstance(events[-1], Done)
        state = await h.state(run_id)
        assert state["lesson"] == edited and state["status"] == "accepted"


async def test_review_mode_catches_a_broken_note_before_any_judge(harness_factory):
    async with harness_factory() as h:
        bad = (
            "---\ntopic: Recursión\nlanguage: es\n---\n# Recursión\n\n## Idea\n\n"
            f"{GOOD[0]} 这个方法很好\n\n## Final\n\n{GOOD[1][:120]}"
        )
        (h.root / "09 - Lessons").mkdir(exist_ok=True)
        (h.root / "09 - Lessons" / "Mala.md").write_text(bad, encoding="utf-8")
        run_id, events = await h.run(mode="review", note_path="09 - Lessons/Mala.md")
        assert isinstance(events[-1], Done)
        assert h.models_asked("judge") == [] and h.script.count("review") == 0
        meta, _ = h.frontmatter("09 - Lessons/Mala.md")
        assert meta["status"] == "needs_regeneration" and meta["topic"] == "Recursión"
        report = savings_report(h.services.store, run_id)
        assert report["judge_tokens"] == 0 and report["full_judge_tokens"] > 0
        assert report["caught"] == {"heuristics": 1}


async def test_review_mode_judges_a_clean_note(harness_factory):
    async with harness_factory() as h:
        good = (
            f"---\ntopic: Recursión\nlanguage: es\nmine: keep\n---\n# Recursión\n\n## Idea\n\n"
            f"{GOOD[0]}\n\n## Final\n\n{GOOD[1]}\n"
        )
        (h.root / "09 - Lessons").mkdir(exist_ok=True)
        (h.root / "09 - Lessons" / "Buena.md").write_text(good, encoding="utf-8")
        run_id, events = await h.run(mode="review", note_path="09 - Lessons/Buena.md")
        assert isinstance(events[-1], Done)
        meta, _ = h.frontmatter("09 - Lessons/Buena.md")
        assert meta["status"] == "accepted" and meta["mine"] == "keep"
        assert h.models_asked("judge") == ["judge-a"]


async def test_review_mode_never_rewrites_the_note_itself(harness_factory):
    async with harness_factory() as h:
        h.script.scores = {"judge-a": [0.6], "judge-b": [0.6], "judge-c": [0.6]}
        good = (
            f"---\ntopic: Recursión\nlanguage: es\n---\n# Recursión\n\n## Idea\n\n"
            f"{GOOD[0]}\n\n## Final\n\n{GOOD[1]}\n"
        )
        (h.root / "09 - Lessons").mkdir(exist_ok=True)
        (h.root / "09 - Lessons" / "Media.md").write_text(good, encoding="utf-8")
        run_id, events = await h.run(mode="review", note_path="09 - Lessons/Media.md")
        assert isinstance(events[-1], Interrupted)  # a fix of the user's note is the user's call
        assert (await h.state(run_id))["cascade"]["decision"] == "escalate"
        assert h.script.count("fix") == 0
        events = await h.resume_run(run_id, {"action": "reject"})
        meta, body = h.frontmatter("09 - Lessons/Media.md")
        assert meta["status"] == "rejected" and GOOD[0] in body


async def test_every_judge_call_is_counted_in_its_phase_trace(harness_factory):
    async with harness_factory() as h:
        h.script.scores = {"judge-a": [0.72], "judge-b": [0.95], "judge-c": [0.8]}
        run_id, _ = await h.run()
        rows = h.services.store.query(
            "SELECT tokens FROM lesson_traces WHERE run_id = ? AND phase = 'judge'", (run_id,)
        )
        assert len(rows) == 3 and all(r[0] > 0 for r in rows)
        total = h.services.store.query_one(
            "SELECT SUM(prompt_tokens + completion_tokens) FROM traces WHERE run_id = ?"
            " AND node LIKE 'judge_%'",
            (run_id,),
        )[0]
        assert sum(r[0] for r in rows) == total


async def test_review_of_a_generated_lesson_gives_the_judges_its_concept_sources(harness_factory):
    async with harness_factory() as h:
        run_id, _ = await h.run()
        path = (await h.state(run_id))["lesson_path"]
        review_id, events = await h.run(mode="review", note_path=path)
        assert isinstance(events[-1], Done)
        sources = (await h.state(review_id))["source_text"]
        assert sources.startswith("Concept: Práctica de recuperación")
        assert "Repetición espaciada" in sources


async def test_planted_bad_lesson_of_the_sample_vault_is_caught_before_the_judges(harness_factory):
    """Issue 7's "Done when": the demo vault's draft lesson (an English paragraph in a Spanish
    lesson, a last section cut mid-sentence) never reaches the self-review or a judge."""
    path = "09 - Lessons/Práctica de recuperación (borrador).md"
    async with harness_factory() as h:
        run_id, events = await h.run(mode="review", note_path=path)
        assert isinstance(events[-1], Done)
        assert h.models_asked("judge") == [] and h.script.count("review") == 0
        failed = {
            c["name"]
            for c in (await h.state(run_id))["heuristics"]["checks"]
            if c["status"] == "FAIL"
        }
        assert failed == {"language_consistency", "content_truncation"}
        meta, _ = h.frontmatter(path)
        assert meta["status"] == "needs_regeneration"
        assert savings_report(h.services.store, run_id)["caught"] == {"heuristics": 1}
