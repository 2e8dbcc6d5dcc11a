"""Screens reach the app typed (tui.screens.base): what they need and is not there yet is one
line for the user, and the app's own attributes never shadow Textual's."""

from __future__ import annotations

import pytest

from tests.tui.helpers import settle
from tui.screens.base import NotReady
from tui.screens.home import HomeScreen


async def test_services_or_vault_missing_is_one_clear_line(make_app):
    app = make_app()
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, HomeScreen)
        services = app.services
        assert screen.require_services() is services and screen.require_vault() is services.vault
        app.services = None  # still opening
        with pytest.raises(NotReady, match="^still opening the vault and the model"):
            screen.require_services()
        app.services, vault, services.vault = services, services.vault, None  # no vault set
        try:
            with pytest.raises(NotReady, match="^no vault configured"):
                screen.require_vault()
        finally:
            services.vault = vault


def test_the_app_does_not_shadow_textuals_watch(make_app):
    """`App.watch(obj, attribute, callback)` is Textual's; `watch=False` used to replace it
    with a bool on the instance."""
    app = make_app(watch=False)
    assert callable(app.watch) and app.watch_vault is False
