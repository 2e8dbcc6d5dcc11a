"""Agent logs of a session (spec 004): one JSON line per agent step and a readable text log.

<data dir>/tutor/logs/<session id>/agent_steps.jsonl
<data dir>/tutor/logs/<session id>/agent_steps.txt
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from core.flows.tutor.agents import AGENTS, Agent
from core.flows.tutor.plan import now_iso
from core.flows.tutor.state import AgentLogData

if TYPE_CHECKING:
    from core.store import Store

T = TypeVar("T")

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
    agent: Agent, input_summary: str, output: Mapping[str, object], reasoning: str, timer: Timer
) -> AgentLogData:
    """One agent step as the state and the log files keep it."""
    return {
        "timestamp": now_iso(),
        "agent": agent,
        "input_summary": input_summary[:300],
        "output": dict(output),
        "reasoning": reasoning,
        "duration_ms": timer.ms(),
    }


def format_entry(item: AgentLogData) -> str:
    """The readable form of one entry."""
    output = json.dumps(item.get("output", {}), ensure_ascii=False, indent=2)
    return (
        f"[{item.get('timestamp', '')}] {str(item.get('agent', '')).upper()}"
        f" ({item.get('duration_ms', 0):.0f} ms)\n"
        f"  input: {item.get('input_summary', '')}\n"
        f"  reasoning: {item.get('reasoning', '') or '-'}\n"
        "  output: " + output.replace("\n", "\n  ") + "\n"
    )


def write(data_dir: Path, session_id: str, item: AgentLogData) -> None:
    """Append one entry to both files of the session."""
    folder = log_dir(data_dir, session_id)
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / JSONL).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(item, ensure_ascii=False) + "\n")
    with (folder / TEXT).open("a", encoding="utf-8") as handle:
        handle.write(format_entry(item) + "\n")


def read(
    data_dir: Path, session_id: str, agent: str | None = None, page: Page | None = None
) -> list[AgentLogData]:
    """The session's entries (of one agent when given), oldest first; one page of them when
    `page` is given."""
    path = log_dir(data_dir, session_id) / JSONL
    if not path.is_file():
        return []
    items: list[AgentLogData] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            if agent is None or item.get("agent") == agent:
                items.append(item)
    return page.of(items) if page is not None else items


def read_text(
    data_dir: Path, session_id: str, agent: str | None = None, page: Page | None = None
) -> str:
    """The readable log (filtered by agent, one page, when given)."""
    if agent is None and page is None:
        path = log_dir(data_dir, session_id) / TEXT
        return path.read_text(encoding="utf-8") if path.is_file() else ""
    return "\n".join(format_entry(item) for item in read(data_dir, session_id, agent, page))


@dataclass(frozen=True)
class Page:
    """Which entries to show: page `number` (from 1) of `size` entries."""

    number: int = 1
    size: int = 20

    def of(self, items: list[T]) -> list[T]:
        start = (self.number - 1) * self.size
        return items[start : start + self.size]

    def count(self, total: int) -> int:
        """How many pages `total` entries make (at least 1)."""
        return max(1, -(-total // self.size))


@dataclass
class AgentStats:
    """Spec 004's log summary for one agent: its steps, and its model calls as traced."""

    agent: str
    steps: int = 0
    calls: int = 0
    tokens: int = 0
    latency_ms: float = 0.0
    """Total latency of the agent's model calls."""
    errors: int = 0
    """Model requests that failed or had to be re-asked."""

    @property
    def mean_ms(self) -> float:
        return self.latency_ms / self.calls if self.calls else 0.0


def summary(store: Store, data_dir: Path, session_id: str) -> list[AgentStats]:
    """Per agent: steps logged, model calls, tokens, latency and errors (from the traces)."""
    stats = {agent: AgentStats(agent) for agent in AGENTS}
    for item in read(data_dir, session_id):
        stats.setdefault(item["agent"], AgentStats(item["agent"])).steps += 1
    rows = store.query(
        "SELECT node, COUNT(*), COALESCE(SUM(prompt_tokens + completion_tokens), 0),"
        " COALESCE(SUM(latency_ms), 0), SUM(outcome != 'ok') FROM traces"
        " WHERE run_id = ? GROUP BY node",
        (session_id,),
    )
    for node, calls, tokens, latency, errors in rows:
        if node in stats:
            entry = stats[node]
            entry.calls, entry.tokens = int(calls), int(tokens)
            entry.latency_ms, entry.errors = float(latency), int(errors or 0)
    return [s for s in stats.values() if s.steps or s.calls]


def summary_text(stats: list[AgentStats]) -> str:
    """The summary as a table (the CLI's `tutor logs --summary` and the logs modal)."""
    lines = [f"{'AGENT':<10} {'STEPS':>5} {'CALLS':>5} {'TOKENS':>7} {'MEAN MS':>8} {'ERRORS':>6}"]
    lines += [
        f"{s.agent:<10} {s.steps:>5} {s.calls:>5} {s.tokens:>7} {s.mean_ms:>8.0f} {s.errors:>6}"
        for s in stats
    ]
    return "\n".join(lines) if stats else "no agent steps logged"
