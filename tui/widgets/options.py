"""The keyword options every Textual widget takes, for widgets that pass them on to their base."""

from __future__ import annotations

from typing import TypedDict


class WidgetOptions(TypedDict, total=False):
    """`Widget.__init__`'s own keywords (`name`, `id`, `classes`, `disabled`), as a widget's
    `**kwargs: Unpack[WidgetOptions]` forwards them to its base class."""

    name: str | None
    id: str | None
    classes: str | None
    disabled: bool
