"""The line every result screen shows when the bundled model produced its results.

Gemma 3 270M (the bundled model, `provider = "local"`, or llama.cpp's server with it as the demo
used to start it) is a mechanics model: its concepts, rubric remarks, lessons and tutoring are
weak. Results from it must say so plainly, on the screen that shows them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Unpack

from textual import getters
from textual.widgets import Static

from tui.widgets.options import WidgetOptions

if TYPE_CHECKING:
    from tui.app import NoemaApp

MECHANICS_NOTE = (
    "⚠ Bundled model (Gemma 3 270M): these results are for trying the mechanics, not for real "
    "use. For real work, point noema at a real model (the model screen, m, shows the settings)."
)


def bundled_in_use(app: NoemaApp) -> bool:
    """Whether the app's default (or judge) role runs on the bundled model (the services'
    settings once they are open: they are the effective ones)."""
    from core.models import uses_bundled_model

    settings = app.services.settings if app.services is not None else app.settings
    return any(uses_bundled_model(settings, role) for role in ("default", "judge"))


class MechanicsBanner(Static):
    """Shown only while the bundled model is configured; hidden otherwise."""

    if TYPE_CHECKING:
        app = getters.app(NoemaApp)

    DEFAULT_CSS = """
    MechanicsBanner { height: auto; padding: 0 1; background: $warning 20%; color: $text; }
    MechanicsBanner.-hidden { display: none; }
    """

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(MECHANICS_NOTE, markup=False, **kwargs)

    def on_mount(self) -> None:
        self.check()

    def check(self) -> None:
        """Show or hide (again after the services open: their config is the effective one)."""
        self.set_class(not bundled_in_use(self.app), "-hidden")
