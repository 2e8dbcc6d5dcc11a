"""Agent logs of a session (spec 004): one JSON line per agent step and a readable text log.

<data dir>/tutor/logs/<session id>/agent_steps.jsonl
<data dir>/tutor/logs/<session id>/agent_steps.txt
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from core.flows.tutor.plan import now_iso

JSONL = "agent_steps.jsonl"
TEXT = "agent_steps.txt"


def log_dir(data_dir: Path, session_id: str) -> Path:
    return Path(data_dir) / "tutor" / "logs" / (session_id or "unknown")


class Timer:
    """Milliseconds since creation."""

    def __init__(self) -> None:
        self.started = time.perf_counter()

    def ms(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 2)


def entry(
    agent: str, input_summary: str, output: Mapping[str, Any], reasoning: str, timer: Timer
) -> dict[str, Any]:
    """One agent step as the state and the log files keep it."""
    return {
        "timestamp": now_iso(),
        "agent": agent,
        "input_summary": input_summary[:300],
        "output": dict(output),
        "reasoning": reasoning,
        "duration_ms": timer.ms(),
    }


def format_entry(item: Mapping[str, Any]) -> str:
    """The readable form of one entry."""
    output = json.dumps(item.get("output", {}), ensure_ascii=False, indent=2)
    return (
        f"[{item.get('timestamp', '')}] {str(item.get('agent', '')).upper()}"
        f" ({item.get('duration_ms', 0):.0f} ms)\n"
        f"  input: {item.get('input_summary', '')}\n"
        f"  reasoning: {item.get('reasoning', '') or '-'}\n"
        "  output: " + output.replace("\n", "\n  ") + "\n"
    )


def write(data_dir: Path, session_id: str, item: Mapping[str, Any]) -> None:
    """Append one entry to both files of the session."""
    folder = log_dir(data_dir, session_id)
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / JSONL).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(item, ensure_ascii=False) + "\n")
    with (folder / TEXT).open("a", encoding="utf-8") as handle:
        handle.write(format_entry(item) + "\n")


def read(data_dir: Path, session_id: str, agent: str | None = None) -> list[dict[str, Any]]:
    """The session's entries (of one agent when given), oldest first."""
    path = log_dir(data_dir, session_id) / JSONL
    if not path.is_file():
        return []
    items = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            if agent is None or item.get("agent") == agent:
                items.append(item)
    return items


def read_text(data_dir: Path, session_id: str, agent: str | None = None) -> str:
    """The readable log (filtered by agent when given)."""
    if agent is None:
        path = log_dir(data_dir, session_id) / TEXT
        return path.read_text(encoding="utf-8") if path.is_file() else ""
    return "\n".join(format_entry(item) for item in read(data_dir, session_id, agent))
