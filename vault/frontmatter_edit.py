"""Minimal in-place edits of a note's YAML frontmatter.

Only the lines of the fields being set change; every other key, comment, quoting style, the
order of keys, the line endings and the body stay byte-identical.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from vault.markdown import frontmatter_span, newline_of

REMOVE = object()
"""Pass as a value to remove the key."""


def dump_field(key: str, value: Any, newline: str = "\n") -> str:
    """One top-level YAML field as text, ending with a line ending."""
    for readable in (True, False):
        text = yaml.safe_dump(
            {key: value},
            allow_unicode=readable,
            sort_keys=False,
            default_flow_style=False,
            width=10**6,
        )
        if yaml.safe_load(text) == {key: value}:
            break  # PyYAML writes some characters (NEL, LS, PS) raw that it reads as breaks
    return text.replace("\n", newline)


def _field_extent(text: str, start: int, end: int, key: str) -> tuple[int, int] | None:
    """The (start, end) of a top-level field's lines within text[start:end]."""
    pattern = re.compile(
        rf"^(?:{re.escape(key)}|'{re.escape(key)}'|\"{re.escape(key)}\")[ \t]*:", re.M
    )
    match = pattern.search(text, start, end)
    if match is None:
        return None
    pos = text.find("\n", match.start(), end)
    pos = end if pos < 0 else pos + 1
    last_kept = pos
    while pos < end:
        nl = text.find("\n", pos, end)
        line_end = end if nl < 0 else nl + 1
        line = text[pos:line_end]
        if line.strip() == "":
            pos = line_end
            continue
        if line[0] in " \t" or line.startswith("- ") or line.rstrip("\r\n") == "-":
            pos = last_kept = line_end
            continue
        break
    return match.start(), last_kept


def set_fields(text: str, fields: dict[str, Any]) -> str:
    """The text with these frontmatter fields set (REMOVE deletes one); minimal change."""
    newline = newline_of(text)
    span = frontmatter_span(text)
    if span is None:
        added = "".join(dump_field(k, v, newline) for k, v in fields.items() if v is not REMOVE)
        if not added:
            return text
        bom = "\ufeff" if text.startswith("\ufeff") else ""
        return f"{bom}---{newline}{added}---{newline}{text[len(bom) :]}"
    yaml_start, yaml_end, _ = span
    for key, value in fields.items():
        extent = _field_extent(text, yaml_start, yaml_end, key)
        new = "" if value is REMOVE else dump_field(key, value, newline)
        if extent is None:
            if not new:
                continue
            insert_at = yaml_end
            prefix = "" if insert_at == yaml_start or text[insert_at - 1] == "\n" else newline
            text = text[:insert_at] + prefix + new + text[insert_at:]
            yaml_end += len(prefix) + len(new)
        else:
            s, e = extent
            text = text[:s] + new + text[e:]
            yaml_end += len(new) - (e - s)
    return text
