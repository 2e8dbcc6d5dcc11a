"""Data that really is arbitrary JSON: a model's raw answer before it is validated."""

from __future__ import annotations

from typing import TypeAlias

JSONValue: TypeAlias = "str | int | float | bool | None | list[JSONValue] | dict[str, JSONValue]"
"""A value as `json.loads` returns it."""
