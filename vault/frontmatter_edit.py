"""Minimal in-place edits of a note's YAML frontmatter.

Only the lines of the fields whose value changes are rewritten; every other key, comment,
quoting style, the order of keys, the line endings and the body stay byte-identical. A field
set to the value it already holds keeps its bytes; a changed list keeps its style (an inline
`[a, b]` list stays inline, a block list keeps its items' indentation).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import yaml

from vault.markdown import frontmatter_span, newline_of

REMOVE = object()
"""Pass as a value to remove the key."""


def dump_yaml(mapping: Mapping[str, object], *, flow: bool = False) -> str:
    """A YAML mapping as text (readable Unicode when it reads back the same)."""
    for readable in (True, False):
        text = yaml.safe_dump(
            mapping,
            allow_unicode=readable,
            sort_keys=False,
            default_flow_style=flow,
            width=10**6,
        )
        if yaml.safe_load(text) == mapping:
            break  # PyYAML writes some characters (NEL, LS, PS) raw that it reads as breaks
    return text


def dump_field(key: str, value: object, newline: str = "\n", style: str = "") -> str:
    """One top-level YAML field as text, ending with a line ending. `style` is how the field
    was written before: "inline" (a `[a, b]` list), an indentation ("  ") for block list
    items, or "" for PyYAML's default."""
    if style == "inline" and isinstance(value, list):
        flow = dump_yaml({key: value}, flow=True).strip()
        text = f"{flow[1:-1]}\n" if flow.startswith("{") else dump_yaml({key: value})
        if yaml.safe_load(text) != {key: value}:
            text = dump_yaml({key: value})
    else:
        text = dump_yaml({key: value})
        if style.strip() == "" and style and isinstance(value, list):
            text = "".join(
                style + line if line.startswith("-") else line
                for line in text.splitlines(keepends=True)
            )
    return text.replace("\n", newline)


def _style(field_text: str, key_end: int) -> str:
    """How a field is written: "inline" for `key: [..]`, the indentation of its list items,
    or ""."""
    rest = field_text[key_end:]
    first = rest.split("\n", 1)[0].strip()
    if first.startswith("["):
        return "inline"
    for line in rest.split("\n")[1:]:
        stripped = line.lstrip(" ")
        if stripped.startswith("-"):
            return line[: len(line) - len(stripped)]
    return ""


def _same(field_text: str, key: str, value: object) -> bool:
    try:
        loaded = yaml.safe_load(field_text)
    except yaml.YAMLError:
        return False
    if not isinstance(loaded, dict) or key not in loaded:
        return False
    return type(loaded[key]) is type(value) and loaded[key] == value


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


def set_fields(text: str, fields: Mapping[str, object]) -> str:
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
        if extent is None:
            if value is REMOVE:
                continue
            new = dump_field(key, value, newline)
            insert_at = yaml_end
            prefix = "" if insert_at == yaml_start or text[insert_at - 1] == "\n" else newline
            text = text[:insert_at] + prefix + new + text[insert_at:]
            yaml_end += len(prefix) + len(new)
        else:
            s, e = extent
            if value is not REMOVE and _same(text[s:e], key, value):
                continue
            colon = text.index(":", s, e) + 1
            style = _style(text[s:e], colon - s)
            new = "" if value is REMOVE else dump_field(key, value, newline, style)
            text = text[:s] + new + text[e:]
            yaml_end += len(new) - (e - s)
    return text
