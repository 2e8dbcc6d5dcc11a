"""The usage screen: totals, a chart of tokens per day, a table by flow / role / model / day."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from textual.widgets import DataTable
from textual_plotext import PlotextPlot

from tests.tui.helpers import settle, wait_for
from tui.screens.usage import UsageScreen

SIZE = (130, 40)


def seed(store) -> None:
    today = datetime.now(UTC).replace(hour=9, minute=0, second=0, microsecond=0)
    rows = [
        (0, "extraction", "default", "ollama_chat/qwen2.5:7b", 1200, 300, 4000.0, "ok"),
        (0, "extraction", "judge", "gpt-4o-mini", 2000, 500, 900.0, "ok"),
        (1, "tutor", "default", "ollama_chat/qwen2.5:7b", 800, 200, 2000.0, "ok"),
        (3, "tutor", "default", "ollama_chat/qwen2.5:7b", 900, 100, 1000.0, "error"),
        (45, "lesson", "judge", "gpt-4o-mini", 5000, 900, 3000.0, "ok"),
    ]
    for days_ago, flow, role, model, prompt, completion, ms, outcome in rows:
        stamp = (today - timedelta(days=days_ago)).isoformat()
        store.execute(
            "INSERT INTO traces (flow, node, role, model, kind, prompt_tokens, completion_tokens,"
            " latency_ms, outcome, created_at) VALUES (?, 'n', ?, ?, 'structured', ?, ?, ?, ?, ?)",
            (flow, role, model, prompt, completion, ms, outcome, stamp),
        )


def table_rows(screen) -> list[list[str]]:
    table = screen.query_one(DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_usage_screen_groups_cycles_and_charts(make_app) -> None:
    app = make_app()
    seed(app._injected.store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("dollar_sign")
        screen = app.screen
        assert isinstance(screen, UsageScreen)
        await wait_for(pilot, lambda: screen.calls)
        total = str(screen.query_one("#usage-total").render())
        assert total.startswith("4 model calls in the last 30 days (1 failed): 4,900 prompt")
        assert [r[:3] for r in table_rows(screen)] == [
            ["extraction", "2", "0"],
            ["tutor", "2", "1"],
        ]
        await pilot.press("b", "b")  # by role, then by model
        rows = {r[0]: r for r in table_rows(screen)}
        assert rows["gpt-4o-mini"][-1] == "$0.0006"  # 2,000 x $0.15/M + 500 x $0.60/M
        assert (
            rows["ollama_chat/qwen2.5:7b"][1] == "3" and rows["ollama_chat/qwen2.5:7b"][-1] == "-"
        )
        await pilot.press("d")  # 90 days: the lesson of 45 days ago counts now
        await wait_for(pilot, lambda: len(screen.calls) == 5)
        assert "5 model calls in the last 90 days" in str(screen.query_one("#usage-total").render())
        chart = str(screen.query_one(PlotextPlot).render())
        assert "Thousands of tokens per day" in chart and "prompt" in chart
        await pilot.press("escape")
        assert not isinstance(app.screen, UsageScreen)
