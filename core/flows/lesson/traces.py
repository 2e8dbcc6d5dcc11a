"""Per-phase traces of lesson runs, the per-run summary row, and the savings report.

Token counts come from the `traces` table the model client writes (one row per model request,
with the LangGraph node that made it), so a phase's tokens are exact, re-asks included.
"Judging fully" is the baseline the cascade is measured against: every lesson — including
those the heuristics or the self-review stopped — judged by all three judges.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from core.flows.lesson.cascade import ONE_MODEL_NOTE, one_judge_model
from core.settings import Settings
from core.store import Store
from core.store.runs import now_iso

JUDGE_NODES = ("judge_primary", "judge_secondary", "judge_tiebreak")


class PhaseTrace(TypedDict):
    """One phase trace of a run (a row of `lesson_traces`)."""

    phase: str
    status: str
    tokens: int
    duration_ms: float
    detail: object
    """The trace's details as stored (JSON)."""


class LessonRunData(TypedDict):
    """One lesson run's summary (a row of `lesson_runs`)."""

    run_id: str
    mode: str
    topic: str
    language: str
    lesson_path: str
    status: str
    heuristic_action: str
    self_review_status: str
    caught_by: str
    judges_called: int
    judge_tokens: int
    full_judge_tokens: int
    total_tokens: int
    score: float | None
    updated_at: str


class SavingsReport(TypedDict):
    """Judge tokens spent against judging fully (`savings_report`)."""

    lessons: int
    judge_tokens: int
    full_judge_tokens: int
    saved_tokens: int
    saved_share: float
    judges_called: int
    caught: dict[str, int]
    self_review: dict[str, int]
    heuristics: dict[str, int]
    one_judge_model: bool


FULL_PANEL = 3
"""Judges a lesson would get without the cascade (primary, secondary, tie-break)."""


def panel_size(settings: Settings) -> int:
    """Judges the full panel really has: with one model in every judge role the tie-break is
    never called (it would repeat the same opinion), so judging fully is two calls."""
    return FULL_PANEL - 1 if one_judge_model(settings) else FULL_PANEL


def node_tokens(store: Store, run_id: str, *nodes: str) -> int:
    """Tokens (prompt + completion) of every model request these nodes made in the run."""
    marks = ",".join("?" * len(nodes))
    row = store.query_one(
        f"SELECT COALESCE(SUM(prompt_tokens + completion_tokens), 0) FROM traces"
        f" WHERE run_id = ? AND node IN ({marks})",
        (run_id, *nodes),
    )
    return int(row[0]) if row else 0


def recorded_tokens(store: Store, run_id: str, nodes: tuple[str, ...]) -> int:
    """Tokens of these nodes already recorded in earlier phase traces of the run."""
    row = store.query_one(
        "SELECT COALESCE(SUM(tokens), 0) FROM lesson_traces WHERE run_id = ?"
        " AND json_extract(detail_json, '$._nodes') = ?",
        (run_id, ",".join(nodes)),
    )
    return int(row[0]) if row else 0


def record_phase(
    store: Store,
    run_id: str,
    phase: str,
    status: str,
    *,
    nodes: tuple[str, ...],
    duration_ms: float,
    detail: Mapping[str, object] | None = None,
) -> int:
    """One trace row for a phase; its tokens are those of `nodes` not yet recorded (a phase
    can run several times, and several nodes can share a phase, like the three judges)."""
    tokens = max(0, node_tokens(store, run_id, *nodes) - recorded_tokens(store, run_id, nodes))
    detail = {**(detail or {}), "_nodes": ",".join(nodes)}
    store.execute(
        "INSERT INTO lesson_traces (run_id, phase, status, tokens, duration_ms, detail_json,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (run_id, phase, status, tokens, round(duration_ms, 3), json.dumps(detail), now_iso()),
    )
    return tokens


def phase_traces(store: Store, run_id: str) -> list[PhaseTrace]:
    """Every phase trace of a run, in order."""
    rows = store.query(
        "SELECT phase, status, tokens, duration_ms, detail_json FROM lesson_traces"
        " WHERE run_id = ? ORDER BY id",
        (run_id,),
    )
    return [
        {
            "phase": r[0],
            "status": r[1],
            "tokens": r[2],
            "duration_ms": r[3],
            "detail": json.loads(r[4]),
        }
        for r in rows
    ]


def judge_call_estimate(store: Store, run_id: str, prompt_tokens: int) -> int:
    """Tokens one judge call costs on this lesson: measured when a judge ran, else the
    counted prompt plus the mean completion of judge calls seen so far (400 when none)."""
    row = store.query_one(
        "SELECT COUNT(*), COALESCE(SUM(prompt_tokens + completion_tokens), 0) FROM traces"
        " WHERE run_id = ? AND node IN (?, ?, ?) AND outcome = 'ok'",
        (run_id, *JUDGE_NODES),
    )
    if row and row[0]:
        return int(row[1] / row[0])
    mean = store.query_one(
        "SELECT AVG(completion_tokens) FROM traces WHERE node IN (?, ?, ?) AND outcome = 'ok'",
        JUDGE_NODES,
    )
    completion = int(mean[0]) if mean and mean[0] is not None else 400
    return prompt_tokens + completion


@dataclass
class LessonRunRow:
    """The summary of one lesson run."""

    run_id: str
    mode: str
    topic: str = ""
    language: str = ""
    lesson_path: str = ""
    status: str = "generating"
    heuristic_action: str = "NONE"
    self_review_status: str = ""
    caught_by: str = ""
    judges_called: int = 0
    judge_tokens: int = 0
    full_judge_tokens: int = 0
    total_tokens: int = 0
    score: float | None = None
    extra: dict[str, object] = field(default_factory=dict)


def save_run(store: Store, row: LessonRunRow) -> None:
    store.execute(
        "INSERT OR REPLACE INTO lesson_runs (run_id, mode, topic, language, lesson_path, status,"
        " heuristic_action, self_review_status, caught_by, judges_called, judge_tokens,"
        " full_judge_tokens, total_tokens, score, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            row.run_id,
            row.mode,
            row.topic,
            row.language,
            row.lesson_path,
            row.status,
            row.heuristic_action,
            row.self_review_status,
            row.caught_by,
            row.judges_called,
            row.judge_tokens,
            row.full_judge_tokens,
            row.total_tokens,
            row.score,
            now_iso(),
        ),
    )


def run_total_tokens(store: Store, run_id: str) -> int:
    row = store.query_one(
        "SELECT COALESCE(SUM(prompt_tokens + completion_tokens), 0) FROM traces WHERE run_id = ?",
        (run_id,),
    )
    return int(row[0]) if row else 0


def lesson_rows(store: Store) -> list[LessonRunData]:
    """Every lesson run, newest first."""
    rows = store.query("SELECT * FROM lesson_runs ORDER BY updated_at DESC")
    return [
        {
            "run_id": r["run_id"],
            "mode": r["mode"],
            "topic": r["topic"],
            "language": r["language"],
            "lesson_path": r["lesson_path"],
            "status": r["status"],
            "heuristic_action": r["heuristic_action"],
            "self_review_status": r["self_review_status"],
            "caught_by": r["caught_by"],
            "judges_called": r["judges_called"],
            "judge_tokens": r["judge_tokens"],
            "full_judge_tokens": r["full_judge_tokens"],
            "total_tokens": r["total_tokens"],
            "score": r["score"],
            "updated_at": r["updated_at"],
        }
        for r in rows
    ]


def savings_report(
    store: Store, run_id: str | None = None, settings: Settings | None = None
) -> SavingsReport:
    """Judge tokens spent against judging fully, and what was caught before the judges.

    With `settings`, the report also says whether one model serves every judge role (its
    second opinion repeats the first; the tie-break is skipped and not counted)."""
    rows = [r for r in lesson_rows(store) if run_id is None or r["run_id"] == run_id]
    spent = sum(r["judge_tokens"] for r in rows)
    full = sum(r["full_judge_tokens"] for r in rows)
    caught: dict[str, int] = {}
    for r in rows:
        if r["caught_by"]:
            caught[r["caught_by"]] = caught.get(r["caught_by"], 0) + 1
    return {
        "lessons": len(rows),
        "judge_tokens": spent,
        "full_judge_tokens": full,
        "saved_tokens": full - spent,
        "saved_share": (full - spent) / full if full else 0.0,
        "judges_called": sum(r["judges_called"] for r in rows),
        "caught": caught,
        "self_review": _count(rows, "self_review_status"),
        "heuristics": _count(rows, "heuristic_action"),
        "one_judge_model": _one_model(settings),
    }


def _one_model(settings: Settings | None) -> bool:
    return settings is not None and one_judge_model(settings)


def _count(
    rows: list[LessonRunData], key: Literal["self_review_status", "heuristic_action"]
) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in rows:
        if r[key]:
            counts[r[key]] = counts.get(r[key], 0) + 1
    return counts


def savings_text(report: SavingsReport, rows: list[LessonRunData]) -> str:
    """The savings report as the CLI prints it and the lessons screen shows it."""
    lines = [
        f"{row['status']:<20} {row['judge_tokens']:>7} / {row['full_judge_tokens']:>7} "
        f"caught by {row['caught_by'] or '-':<12} {row['lesson_path']}"
        for row in rows
    ]
    lines.append(
        f"{report['lessons']} lessons: {report['judge_tokens']} judge tokens spent, "
        f"{report['full_judge_tokens']} when judging fully, saved {report['saved_share']:.0%}"
    )
    lines.append(f"caught before the judges: {report['caught'] or 'nothing'}")
    if report.get("one_judge_model"):
        lines.append(f"note: {ONE_MODEL_NOTE}; judging fully counts two judge calls, not three")
    return "\n".join(lines)
