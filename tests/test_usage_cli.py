"""`noema usage` prints totals and one table per grouping."""

from __future__ import annotations

from pathlib import Path

from core.store import Store
from tests.core.test_usage import TRACES
from tui import cli


def seeded_settings(tmp_path: Path) -> str:
    data = tmp_path / "data"
    path = tmp_path / "settings.toml"
    path.write_text(f'[data]\ndirectory = "{data}"\n', encoding="utf-8")
    store = Store(data / "noema.sqlite3")
    for day, flow, node, role, model, kind, prompt, completion, ms, outcome in TRACES:
        store.execute(
            "INSERT INTO traces (flow, node, role, model, kind, prompt_tokens, completion_tokens,"
            " latency_ms, outcome, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (flow, node, role, model, kind, prompt, completion, ms, outcome, f"{day}T08:00:00Z"),
        )
    store.close()
    return str(path)


def test_usage_prints_totals_and_tables(tmp_path: Path, capsys) -> None:
    settings = seeded_settings(tmp_path)
    assert cli.main(["--settings", settings, "usage", "--all", "--by", "model"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("8 model calls ever: 9,960 prompt + 2,110 completion tokens")
    assert out[2].split() == [
        "MODEL",
        "CALLS",
        "FAILED",
        "PROMPT",
        "COMPLETION",
        "MEDIAN",
        "P95",
        "COST",
    ]
    rows = {line.split()[0]: line.split() for line in out[3:]}
    assert rows["ollama_chat/qwen2.5:7b"][1:5] == ["4", "0", "2,910", "610"]
    assert rows["ollama_chat/qwen2.5:7b"][-1] == "-"
    assert rows["gpt-4o-mini"][-1] == "$0.0008"  # 3,000 x $0.15/M + 500 x $0.60/M


def test_usage_with_no_calls_says_so(tmp_path: Path, capsys) -> None:
    path = tmp_path / "settings.toml"
    path.write_text(f'[data]\ndirectory = "{tmp_path / "data"}"\n', encoding="utf-8")
    assert cli.main(["--settings", str(path), "usage"]) == 0
    assert capsys.readouterr().out.strip() == "no model calls recorded in the last 30 days"
    assert cli.main(["--settings", str(path), "usage", "--days", "0"]) == 1
