"""A JSON schema as a GBNF grammar for llama.cpp's server, with no whitespace between tokens.

llama.cpp turns a request's JSON schema into a grammar whose `space` rule allows, between any
two JSON tokens, a space, or up to two newlines and twenty spaces or tabs. The bundled Gemma
takes that room: its answers were 40% whitespace tokens (2,886 tokens generated over an
extraction where the same JSON written compactly takes 1,670), and one answer of 45 tokens of
content came out as 272 (`"\\n \\t \\t ..."` before every value). Generated tokens are what a
small model's wall time is made of, so the local backend sends this grammar instead: the same
answers, written without whitespace.

`json_grammar(schema)` covers what `local_llm.schema.bounded_schema` produces (closed objects
whose properties are all required, arrays with item bounds, strings with length bounds, enums
and consts, integers, numbers, booleans, null, anyOf, and a string's `pattern` when it only
rules out some first characters: `^[^...].*$`, as `local_llm.schema.OPENS_WITH_A_WORD`); for
anything else (another pattern, a format, an optional property, an open object, a wide integer
range) it returns None, and the schema goes to the server as before. Strings count a character (or an escape sequence) as one, as
llama.cpp's own conversion and JSON Schema's `maxLength` do.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Any

JsonSchema = dict[str, Any]

WHITESPACE_TOKENS = 0
"""Whitespace tokens between two JSON tokens under this grammar (`answer_tokens`' gap)."""
MAX_INTEGER_CHOICES = 256
"""A bounded integer range up to this size is written as its values; a wider one is left to
the server's own conversion."""

PRIMITIVES = {
    "char": r'[^"\\\x7F\x00-\x1F] | [\\] (["\\/bfnrt] | "u" [0-9a-fA-F]{4})',
    "integer": r'"-"? ("0" | [1-9] [0-9]{0,15})',
    "number": r'"-"? ("0" | [1-9] [0-9]{0,15}) ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,16})?',
    "boolean": r'"true" | "false"',
    "null": r'"null"',
    "string": r'"\"" char* "\""',
}


OPENING_PATTERN = re.compile(r"\^\[\^((?:\\.|[^\]\\])+)\]\.\*\$")
"""`^[^...].*$`: a string whose first character is none of the listed ones (the rest free)."""
CLASS_ESCAPES = {"s": " \t\n\r\x0b\x0c", "d": "0123456789"}


class Unsupported(Exception):
    """A schema keyword this converter does not turn into grammar."""


def json_grammar(schema: JsonSchema) -> str | None:
    """The GBNF grammar of the answers valid under `schema`, compact; None when the schema
    uses what this converter does not cover (the caller then sends the schema itself).
    Built once per schema (its JSON text, in its own property order, is the key)."""
    return _grammar_of(json.dumps(schema, ensure_ascii=False))


@functools.lru_cache(maxsize=256)
def _grammar_of(schema_text: str) -> str | None:
    schema = json.loads(schema_text)
    builder = _Builder()
    try:
        root = builder.rule_of(schema)
    except Unsupported:
        return None
    lines = [f"root ::= {root}"]
    lines += [f"{name} ::= {body}" for name, body in builder.rules.items()]
    return "\n".join(lines) + "\n"


def excluded_chars(body: str) -> list[str]:
    """The characters a regex class body `...` of `[^...]` lists: plain characters, escaped
    ones and `\\s` / `\\d`; a range (`a-z`) is not read."""
    chars: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\" and index + 1 < len(body):
            index += 1
            chars += CLASS_ESCAPES.get(body[index], body[index])
        elif char == "-" and 0 < index < len(body) - 1:
            raise Unsupported("a range in a pattern's class")
        else:
            chars.append(char)
        index += 1
    return list(dict.fromkeys(chars))


def literal(value: object) -> str:
    """A JSON value as a GBNF string literal."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class _Builder:
    """Rules by name; a body seen before reuses its rule."""

    def __init__(self) -> None:
        self.rules: dict[str, str] = {}
        self._names: dict[str, str] = {}

    def named(self, body: str) -> str:
        if body not in self._names:
            name = f"r{len(self._names)}"
            self._names[body] = name
            self.rules[name] = body
        return self._names[body]

    def primitive(self, name: str) -> str:
        if name == "string":
            self.primitive("char")
        self.rules.setdefault(name, PRIMITIVES[name])
        return name

    def rule_of(self, node: object) -> str:
        """The name of the rule of one schema node."""
        if not isinstance(node, dict) or not node:
            raise Unsupported("an empty schema allows anything")
        if "pattern" in node and node.get("type") == "string":
            return self.opening_string(node)
        for key in ("pattern", "format", "not", "allOf", "oneOf", "$ref", "patternProperties"):
            if key in node:
                raise Unsupported(key)
        if "enum" in node or "const" in node:
            values = node["enum"] if "enum" in node else [node["const"]]
            if not values:
                raise Unsupported("an empty enum")
            return self.named(" | ".join(literal(v) for v in values))
        if "anyOf" in node:
            return self.named(" | ".join(self.rule_of(branch) for branch in node["anyOf"]))
        kind = node.get("type")
        if isinstance(kind, list):
            return self.named(" | ".join(self.rule_of({**node, "type": k}) for k in kind))
        build = _KINDS.get(kind) if isinstance(kind, str) else None
        if build is None:
            raise Unsupported(f"type {kind!r}")
        return str(build(self, node))

    def string(self, node: JsonSchema) -> str:
        low, high = int(node.get("minLength", 0)), node.get("maxLength")
        if low == 0 and high is None:
            return self.primitive("string")
        if high == 0:
            return self.named(literal(""))
        self.primitive("char")
        count = f"{{{low},{int(high)}}}" if high is not None else f"{{{low},}}"
        return self.named(f'"\\"" char{count} "\\""')

    def opening_string(self, node: JsonSchema) -> str:
        """A string whose pattern rules out some first characters (`OPENING_PATTERN`), within
        its length bounds."""
        match = OPENING_PATTERN.fullmatch(str(node["pattern"]))
        if match is None or "format" in node or node.get("maxLength") == 0:
            raise Unsupported("pattern")
        excluded = "".join(f"\\u{ord(c):04X}" for c in excluded_chars(match.group(1)))
        first = self.named(f'[^"\\\\\\x7F\\x00-\\x1F{excluded}]')
        self.primitive("char")
        low, high = max(0, int(node.get("minLength", 1)) - 1), node.get("maxLength")
        count = f"{{{low},{int(high) - 1}}}" if high is not None else f"{{{low},}}"
        return self.named(f'"\\"" {first} char{count} "\\""')

    def integer(self, node: JsonSchema) -> str:
        low, high = node.get("minimum"), node.get("maximum")
        if low is None and high is None:
            return self.primitive("integer")
        if (
            isinstance(low, int | float)
            and isinstance(high, int | float)
            and 0 <= high - low < MAX_INTEGER_CHOICES
        ):
            first = int(low) if float(low).is_integer() else int(low) + 1
            return self.named(" | ".join(literal(v) for v in range(first, int(high) + 1)))
        raise Unsupported("a wide or open integer range")

    def number(self, node: JsonSchema) -> str:
        if any(k in node for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")):
            raise Unsupported("a bounded number (grammar_schema makes it a choice first)")
        return self.primitive("number")

    def array(self, node: JsonSchema) -> str:
        if "prefixItems" in node:
            raise Unsupported("prefixItems")
        low, high = int(node.get("minItems", 0)), node.get("maxItems")
        if high == 0 or node.get("items") is False:
            return self.named('"[" "]"')
        item = self.rule_of(node.get("items", {}))
        if high is None:
            body = f'{item} ("," {item})*'
        elif int(high) == 1:
            body = item
        else:
            body = f'{item} ("," {item}){{{max(0, low - 1)},{int(high) - 1}}}'
        return self.named(f'"[" {body} "]"' if low > 0 else f'"[" ({body})? "]"')

    def object(self, node: JsonSchema) -> str:
        properties = node.get("properties") or {}
        if node.get("additionalProperties", True) is not False:
            raise Unsupported("an open object")
        if set(node.get("required", [])) != set(properties):
            raise Unsupported("an optional property")
        members = [f'{literal(name)} ":" {self.rule_of(sub)}' for name, sub in properties.items()]
        return self.named('"{" ' + ' "," '.join(members) + ' "}"' if members else '"{" "}"')


_KINDS: dict[str, Callable[[_Builder, JsonSchema], str]] = {
    "string": _Builder.string,
    "integer": _Builder.integer,
    "number": _Builder.number,
    "boolean": lambda builder, node: builder.primitive("boolean"),
    "null": lambda builder, node: builder.primitive("null"),
    "array": _Builder.array,
    "object": _Builder.object,
}
