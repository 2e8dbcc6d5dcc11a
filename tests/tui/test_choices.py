"""Choices made in the app land in the user's settings file, comments and all."""

from __future__ import annotations

from pathlib import Path

from core.settings import load_settings
from tests.tui.helpers import settle, wait_for

USER_FILE = """\
# my settings: do not lose this comment
[tui]
# dark at night
theme = "textual-dark"   # the default
autostart_queued_runs = true
"""


async def test_a_theme_chosen_in_the_palette_is_kept(make_app, tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(USER_FILE, encoding="utf-8")
    app = make_app()
    app.settings_path = path
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        app.search_themes()
        await pilot.pause()
        await pilot.press(*"nord")
        await wait_for(
            pilot,
            lambda: (
                "nord" in str(app.screen.query("OptionList").first().get_option_at_index(0).prompt)
            ),
        )
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.theme == "nord")
        await settle(pilot, app)
    text = path.read_text(encoding="utf-8")
    assert text == USER_FILE.replace('theme = "textual-dark"', 'theme = "nord"')
    assert load_settings(path).tui.theme == "nord"
    assert app.settings.tui.theme == "nord"
