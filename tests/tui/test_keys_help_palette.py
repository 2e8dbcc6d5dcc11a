"""Issue 12, "Screens that keep their word": keys, help, command palette, hints after a remap,
and the bundled-model banner on every result screen."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.binding import Binding

from core.flows.extraction.graph import SPEC as EXTRACTION
from core.flows.normalization.graph import SPEC as NORMALIZATION
from core.services import open_services
from local_llm.testing import ScriptedBackend
from tests.tui.helpers import make_settings, settle, shown, wait_for
from tests.tui.test_extraction_screen import make_app as make_extraction_app
from tests.tui.test_extraction_screen import open_review
from tui.app import NoemaApp
from tui.demo import sample_vault
from tui.registry import DEFAULT_REGISTRY
from tui.screens.extraction import ExtractionScreen
from tui.screens.help import HelpScreen
from tui.screens.home import HomeScreen
from tui.screens.lesson import LessonScreen
from tui.screens.model import ModelScreen
from tui.screens.normalization import NormalizationScreen
from tui.screens.rubric import RubricScreen
from tui.screens.tutor import TutorScreen
from tui.widgets.banner import MechanicsBanner

SIZE = (160, 48)
README = Path(__file__).resolve().parents[2] / "README.md"


def keys_of(bindings: list[Binding]) -> set[str]:
    return {key.strip() for b in bindings for key in b.key.split(",")}


def test_screen_keys_never_shadow_the_global_keys():
    global_keys = keys_of(NoemaApp.BINDINGS) | {entry.key for entry in DEFAULT_REGISTRY}
    screens = [
        HomeScreen,
        ModelScreen,
        ExtractionScreen,
        NormalizationScreen,
        LessonScreen,
        RubricScreen,
        TutorScreen,
    ]
    for screen in screens:
        clash = keys_of(screen.BINDINGS) & global_keys
        assert not clash, f"{screen.__name__} shadows the global keys {sorted(clash)}"
    assert "never shadow" in README.read_text(encoding="utf-8")


async def test_help_lists_the_screen_s_keys_then_the_global_ones_with_enter(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("question_mark")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        (mine, own), (everywhere, globals_) = help_screen.sections
        assert mine.startswith("This screen") and everywhere == "Everywhere"
        assert own[0][0] == "enter" and "open the selected run" in own[0][1]
        assert [row[2] for row in own if row[2]][:3] == [
            "home.open_run",
            "home.start_run",
            "home.cancel_run",
        ]
        assert {"app.help", "app.quit", "app.screen.tutor"} <= {r[2] for r in globals_}
        assert "app.home" not in {r[2] for r in globals_}  # home is where this is
        descriptions = " ".join(row[1] for row in help_screen.rows).lower()
        assert "cursor" not in descriptions and "scroll" not in descriptions  # widget internals


async def test_the_command_palette_offers_actions_not_only_screens(tmp_path: Path):
    root = tmp_path / "vault"
    shutil.copytree(sample_vault(), root)
    settings = make_settings(root, tmp_path / "data")
    services = open_services(
        settings,
        {"normalization": NORMALIZATION, "extraction": EXTRACTION},
        backend=ScriptedBackend([]),
    )
    services.vault.index.sync_files()
    app = NoemaApp(settings, services=services, vault_label="sample", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        from tui.palette import ActionsProvider

        provider = ActionsProvider(app.screen)
        titles = [title for title, _help, _callback in await provider.entries()]
        for wanted in (
            "Start normalization",
            "Index the vault",
            "Pull a model",
            "Extract Pensar rápido, pensar despacio",
        ):
            assert wanted in titles
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Start normalization")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, NormalizationScreen) and app.screen.run_id is not None,
        )


async def test_after_a_remap_every_hint_names_the_new_key(tmp_path: Path):
    app, _root, _script = make_extraction_app(tmp_path)
    app.set_keymap(
        {"extraction.drop": "z", "extraction.approve": "ctrl+a", "rubric.modal.save": "ctrl+o"}
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot, app)
        outcome = str(screen.query_one("#outcome").render())
        assert "z: drop/restore" in outcome and "^a: approve" in outcome
        assert "d: drop" not in outcome
        await pilot.press("z")
        assert "DROPPED — z restores it" in shown(screen.query_one("#detail"))
        await pilot.press("f")
        assert "Send (^o)" in str(app.screen.query_one("#modal-save").label)


BUNDLED = {
    "local": {"provider": "local"},
    "llama.cpp+gemma": {"model": "openai/gemma3-270m", "base_url": "http://127.0.0.1:9/v1"},
    "ollama": None,
}


@pytest.mark.parametrize("models", list(BUNDLED))
async def test_every_result_screen_says_the_bundled_model_is_for_the_mechanics(
    vault: Path, tmp_path: Path, models: str
):
    bundled = BUNDLED[models] is not None
    settings = make_settings(vault, tmp_path / "data", models=BUNDLED[models] or {})
    services = open_services(settings, {}, backend=ScriptedBackend([]))
    app = NoemaApp(settings, services=services, vault_label="sample", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        for key in ("x", "n", "l", "e", "t"):
            await pilot.press(key)
            await settle(pilot, app)
            banner = app.screen.query_one(MechanicsBanner)
            assert banner.display == bundled and (banner.region.height > 0) == bundled
            assert "trying the mechanics" in str(banner.render())
            await pilot.press("h")
            await pilot.pause()


@pytest.mark.parametrize("width", [100, 160])
async def test_homes_footer_holds_every_key_and_quit_at_100_columns(make_app, width):
    """At 100 columns `h Home` and `q Quit` were pushed out of home's footer: home drops the
    key that goes home, and the long names live in help."""
    from textual.widgets._footer import FooterKey

    app = make_app()
    async with app.run_test(size=(width, 30)) as pilot:
        await settle(pilot, app)
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))
        await pilot.pause(0.2)
        footer = app.screen.query(FooterKey)
        shown = {key.key for key in footer if key.region.width and key.region.right <= width}
        assert {"o", "s", "c", "i", "r", "a", "question_mark", "q"} <= shown, shown
        assert "h" not in shown
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelScreen))
        await pilot.pause(0.2)
        assert "h" in {key.key for key in app.screen.query(FooterKey)}


def cut_footer_keys(screen) -> list[str]:
    """Footer keys not wholly visible: past the screen's edge or under `^p palette` (docked
    at the right, it is drawn over the last keys)."""
    from textual.widgets._footer import FooterKey

    keys = list(screen.query(FooterKey))
    palette = [k.region.x for k in keys if k.key == "ctrl+p"]
    limit = min(palette + [screen.size.width])
    return [
        k.key for k in keys if k.key != "ctrl+p" and (not k.region.width or k.region.right > limit)
    ]


@pytest.mark.parametrize("screen_key", ["x", "n", "l", "e", "t"])
async def test_every_screens_footer_fits_100_columns_with_quit(make_app, tmp_path, screen_key):
    """At 100x30 the extraction footer ended `? Help h▏^p palette` and the tutor's
    `h Home▏^p palette`: `q Quit` was drawn under the palette key. Every key a footer shows
    fits beside it, `q Quit` among them (the extraction's with a review open)."""
    from textual.widgets._footer import FooterKey

    app = make_extraction_app(tmp_path / "x")[0] if screen_key == "x" else make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        if screen_key == "x":
            await open_review(pilot, app)
        else:
            await pilot.press(screen_key)
            await wait_for(pilot, lambda: not isinstance(app.screen, HomeScreen))
        await settle(pilot, app)
        if screen_key == "t":  # it opens typing in the concept search: letters type there
            await pilot.press("tab")
            await settle(pilot, app)
        assert not cut_footer_keys(app.screen), cut_footer_keys(app.screen)
        assert "q" in {k.key for k in app.screen.query(FooterKey)}


@pytest.mark.parametrize(("screen_key", "field"), [("l", "#concept"), ("e", "#note")])
async def test_g_puts_the_cursor_in_the_field_and_letters_type_there(make_app, screen_key, field):
    """In the walkthrough `tab` from the lessons list did not reach the concept field and
    "Metacog" typed on: its `e` opened the rubric screen. `g` (in the footer) goes to the field."""
    from textual.widgets import Input
    from textual.widgets._footer import FooterKey

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press(screen_key)
        await wait_for(pilot, lambda: not isinstance(app.screen, HomeScreen))
        screen = app.screen
        await pilot.pause(0.2)
        assert "g" in {key.key for key in screen.query(FooterKey)}
        await pilot.press("g", *"Metacog")
        assert app.screen is screen
        assert screen.query_one(field, Input).value == "Metacog"
