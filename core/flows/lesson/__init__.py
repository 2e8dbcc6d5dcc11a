"""Lesson generation with free heuristics, self-review and cascaded judging (spec 001).

Public API:

- `core.flows.lesson.graph`: `SPEC` (flow `lesson`), `build_graph()`, `STEPS`, `NODE_STEP`.
  Input: `{"mode": "generate", "concept": TITLE_OR_PATH, "language", "objectives",
  "sections"}` or `{"mode": "review", "note_path": PATH}`. The escalation interrupt's payload
  has `type: "lesson_review"`; answer `{"action": accept|regenerate|judge|edit|reject,
  "content": ...}`.
- `core.flows.lesson.heuristics.run_heuristics(body, language, min_section_words=50)` ->
  `HeuristicReport` (the free checks, no model).
- `core.flows.lesson.driver`: `start_lesson(services, data)`, `drive_lesson(...)`.
- `core.flows.lesson.traces`: `phase_traces(store, run_id)`, `savings_report(store, run_id=None)`,
  `lesson_rows(store)`.
"""
