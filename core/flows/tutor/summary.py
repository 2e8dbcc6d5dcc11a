"""The end of a session: its summary (computed by code) and the note saved in the vault (with
the whole conversation)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from core.flows.tutor.plan import mastery, now_iso, progress, steps
from core.flows.tutor.state import MessageData, SimplifiedState, SummaryData
from vault.blocktext import guard
from vault.linkformat import Linker
from vault.titles import note_title

MASTERED = 0.8


def build_summary(state: SimplifiedState, outcome: str) -> SummaryData:
    """Steps completed, mastery, misconceptions seen and suggestions, from the plan's statuses."""
    plan = state.get("study_plan")
    done, total = progress(plan)
    value = mastery(plan)
    misconceptions = list(dict.fromkeys(m for m in state.get("misconceptions") or [] if m))
    title = (state.get("topic_info") or {}).get("title", "this topic")
    suggestions = []
    if outcome == "completed" and value >= MASTERED:
        suggestions += [f"Excellent work on {title}!", "Ready for more advanced topics."]
    elif outcome == "completed":
        suggestions.append(f"You finished {title}; a short practice session will consolidate it.")
    elif outcome != "in_progress":  # (an export of a session that goes on: no verdict yet)
        suggestions.append(
            f"{title} needs another approach: try a different explanation, an example from "
            "your interests, or a prerequisite first."
        )
    for step in steps(plan):
        if step.get("status") != "completed":
            suggestions.append(f"Review: {step['title']}")
    suggestions += [f"Revisit: {m}" for m in misconceptions[:3]]
    return {
        "steps_completed": done,
        "steps_total": total,
        "mastery_score": value,
        "misconceptions_seen": misconceptions,
        "suggestions": suggestions,
        "outcome": outcome,
        "note_path": "",
    }


def summary_text(summary: Mapping[str, Any]) -> str:
    """The summary as plain lines (the closing chat message and the CLI); front ends pass it
    from the checkpointed values, which LangGraph hands them untyped."""
    lines = [
        f"Steps completed: {summary['steps_completed']}/{summary['steps_total']}",
        f"Mastery: {summary['mastery_score']:.0%}",
    ]
    if summary["outcome"] == "needs_another_approach":
        lines.append("This topic needs another approach (the plan was changed too many times).")
    if summary["misconceptions_seen"]:
        lines.append("Misconceptions seen: " + "; ".join(summary["misconceptions_seen"]))
    lines += [f"- {s}" for s in summary["suggestions"]]
    return "\n".join(lines)


def note_text(
    state: SimplifiedState,
    summary: SummaryData,
    session_id: str,
    linker: Linker | None = None,
) -> str:
    """The session note (frontmatter, summary, plan, concepts, the whole conversation);
    links to the concepts are written in the vault's style (`linker`)."""
    linker = linker or Linker()
    info = state.get("topic_info") or {}
    meta = {
        "type": "tutoring-session",
        "session_id": session_id,
        "topic": info.get("title", ""),
        "outcome": summary["outcome"],
        "mastery": summary["mastery_score"],
        "date": now_iso(),
    }
    if info.get("path"):
        meta["guideline"] = f"[[{info['path'].rsplit('/', 1)[-1].removesuffix('.md')}]]"
    fm = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False)
    plan = steps(state.get("study_plan"))
    plan_lines = [f"- [{s['status']}] {note_title(str(s['title']))}" for s in plan]
    concepts = [f"- {linker.link(note_title(str(c['title'])))}" for c in info.get("concepts") or []]
    parts = [
        f"---\n{fm}---\n# Tutoring: {note_title(str(info.get('title', '')))}\n",
        "## Summary\n" + guard(summary_text(summary)) + "\n",
        "## Plan\n" + "\n".join(plan_lines) + "\n",
    ]
    if concepts:
        parts.append("## Concepts\n" + "\n".join(concepts) + "\n")
    conversation = conversation_text(state.get("conversation") or [])
    if conversation:
        parts.append("## Conversation\n\n" + conversation + "\n")
    return "\n".join(parts)


SPEAKERS = {"feedback": "Feedback", "closing": "Summary"}


def conversation_text(conversation: list[MessageData]) -> str:
    """The conversation as Markdown: each message under its speaker and time, as a quote
    (every line of it starts with `>`, and lines Markdown would read as structure are escaped:
    `guard`), so nothing a model or the learner wrote can restructure the note. The closing
    message is left out: it is the Summary section."""
    parts = []
    for message in conversation:
        if message.get("kind") == "closing":
            continue
        who = "You" if message.get("role") == "student" else "Tutor"
        who = SPEAKERS.get(str(message.get("kind")), who)
        stamp = str(message.get("timestamp") or "")[11:16]
        head = f"**{who}**" + (f" · {stamp}" if stamp else "")
        body = guard(str(message.get("content", ""))) or "…"
        if message.get("stopped"):
            body += "\n\n*(stopped)*"
        quoted = "\n".join(f"> {line}" if line else ">" for line in body.split("\n"))
        parts.append(f"{head}\n{quoted}")
    return "\n\n".join(parts)
