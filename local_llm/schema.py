"""Bounded JSON schemas built per call, so grammar-constrained decoding cannot go astray.

`bounded_schema(Model, enums={"quote_ids": ids}, max_items={"quote_ids": 5}, max_length={...},
patterns={"titles": OPENS_WITH_A_WORD})`
takes the pydantic schema of `Model`, inlines `$defs`, drops keywords llama.cpp / Ollama
grammars do not support, closes every object (`additionalProperties: false`, all properties
required) and patches the named fields. A field key is a property name, matched at any depth,
or a dotted suffix path (`"concepts.quote_ids"`); arrays are crossed implicitly and nullable
fields (`str | None`) are patched on their non-null branch. An empty enum on a nullable field
leaves only `null`, on an array only `[]`.

`validate_bounded(data, schema)` checks an answer against the bounded schema (an id outside
the enum is an error) and returns readable messages for the re-ask.
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from local_llm.json_data import JSONValue

JsonSchema = dict[str, Any]

OPENS_WITH_A_WORD = r"^[^\s\d.,;:!?()<>{}\[\]#*+=/|~_'\"\\-].*$"
"""A string `pattern` (`bounded_schema(patterns=...)`): text that starts as words do, not with
a digit, a space or punctuation. Gemma 3 270M wrote the tutor's plan as "1. 1", "2. 2" and
">1.1.1.1..."; held to this by the local grammar (`local_llm.gbnf`) it wrote words. A hosted
model gets the same standard `pattern`; the answer is validated against it everywhere."""

UNSUPPORTED_KEYWORDS = frozenset(
    {
        "title",
        "default",
        "examples",
        "uniqueItems",
        "multipleOf",
        "discriminator",
        "not",
        "if",
        "then",
        "else",
        "dependentRequired",
        "dependentSchemas",
        "patternProperties",
        "propertyNames",
        "contains",
        "minContains",
        "maxContains",
        "unevaluatedProperties",
        "unevaluatedItems",
        "readOnly",
        "writeOnly",
        "deprecated",
        "$comment",
        "$schema",
        "$id",
        "contentEncoding",
        "contentMediaType",
    }
)
SUPPORTED_FORMATS = frozenset({"date", "time", "date-time", "uuid"})
_SUBSCHEMA_LISTS = ("anyOf", "prefixItems")


def schema_name(model: type[BaseModel]) -> str:
    """A response_format name the OpenAI API accepts ([a-zA-Z0-9_-], at most 64 chars)."""
    return re.sub(r"[^a-zA-Z0-9_-]", "_", model.__name__)[:64] or "answer"


@functools.lru_cache(maxsize=256)
def default_schema(model: type[BaseModel]) -> JsonSchema:
    """`bounded_schema(model)` without per-call bounds, cached per model class. Do not mutate."""
    return bounded_schema(model)


def bounded_schema(
    model: type[BaseModel],
    *,
    enums: Mapping[str, Sequence[object]] | None = None,
    max_length: Mapping[str, int] | None = None,
    max_items: Mapping[str, int] | None = None,
    min_items: Mapping[str, int] | None = None,
    patterns: Mapping[str, str] | None = None,
    all_required: bool = True,
) -> JsonSchema:
    """The model's JSON schema, cleaned for grammars and patched with per-call bounds."""
    raw = model.model_json_schema()
    schema = clean_schema(raw, raw.get("$defs", {}), all_required=all_required)
    for key, values in (enums or {}).items():
        _patch(schema, key, lambda node, v=values, k=key: _set_enum(node, list(v), k))
    for key, limit in (max_length or {}).items():
        _patch(schema, key, lambda node, n=limit: _set_on(node, "string", "maxLength", n))
    for key, limit in (max_items or {}).items():
        _patch(schema, key, lambda node, n=limit: _set_on(node, "array", "maxItems", n))
    for key, limit in (min_items or {}).items():
        _patch(schema, key, lambda node, n=limit: _set_on(node, "array", "minItems", n))
    for key, pattern in (patterns or {}).items():
        _patch(schema, key, lambda node, p=pattern: _set_on(node, "string", "pattern", p))
    return schema


def clean_schema(
    node: Mapping[str, Any],
    defs: Mapping[str, Any],
    *,
    all_required: bool = True,
    _stack: tuple[str, ...] = (),
) -> JsonSchema:
    """Inline `$ref`s, drop unsupported keywords, close objects. Recursive models are refused."""
    node, stack = _resolve(node, defs, _stack)
    out: JsonSchema = {}
    for key, value in node.items():
        if key in UNSUPPORTED_KEYWORDS or key in ("$defs", "definitions"):
            continue
        if key == "format" and value not in SUPPORTED_FORMATS:
            continue

        def sub(s: Mapping[str, Any]) -> JsonSchema:
            return clean_schema(s, defs, all_required=all_required, _stack=stack)

        if key == "properties":
            out[key] = {name: sub(schema) for name, schema in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, Mapping):
            out[key] = sub(value)
        elif key in (*_SUBSCHEMA_LISTS, "oneOf"):
            out["anyOf" if key == "oneOf" else key] = [sub(s) for s in value]
        else:
            out[key] = copy.deepcopy(value)
    if "properties" in out:
        out["additionalProperties"] = False
        if all_required:
            out["required"] = list(out["properties"])
    return out


def _resolve(
    node: Mapping[str, Any], defs: Mapping[str, Any], stack: tuple[str, ...]
) -> tuple[Mapping[str, Any], tuple[str, ...]]:
    """Follow `$ref` (and single-element `allOf` wrappers) into `$defs`."""
    node = dict(node)
    if isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1:
        node = {**node.pop("allOf")[0], **node}
    ref = node.pop("$ref", None)
    if ref is None:
        return node, stack
    name = ref.rsplit("/", 1)[-1]
    if name in stack:
        raise ValueError(f"recursive schema through {name!r} cannot be bounded for a grammar")
    target = defs.get(name)
    if target is None:
        raise ValueError(f"unresolvable $ref {ref!r}")
    merged, stack = _resolve({**target, **node}, defs, (*stack, name))
    return merged, stack


def _walk(
    node: JsonSchema, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], JsonSchema]]:
    """Every property subschema with its property-name path (arrays and unions crossed)."""
    for name, sub in node.get("properties", {}).items():
        yield (*path, name), sub
        yield from _walk(sub, (*path, name))
    for key in _SUBSCHEMA_LISTS:
        for sub in node.get(key, []):
            yield from _walk(sub, path)
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            yield from _walk(node[key], path)


def _patch(schema: JsonSchema, key: str, apply: Any) -> None:
    wanted = tuple(key.split("."))
    matches = [sub for path, sub in _walk(schema) if path[-len(wanted) :] == wanted]
    if not matches:
        raise KeyError(f"bounded_schema: no field {key!r} in the schema")
    for sub in matches:
        apply(sub)


def _branches(node: JsonSchema) -> list[JsonSchema]:
    """The non-null alternatives of a node (itself unless it is a union)."""
    if "anyOf" in node:
        return [b for b in node["anyOf"] if b.get("type") != "null"]
    return [node]


def _set_on(node: JsonSchema, kind: str, keyword: str, value: int | str) -> None:
    """Set `keyword` on the `kind` ("string" or "array") parts of a field, crossing arrays."""
    touched = False
    for branch in _branches(node):
        if branch.get("type") == kind:
            branch[keyword] = value
            touched = True
        elif branch.get("type") == "array" and isinstance(branch.get("items"), dict):
            _set_on(branch["items"], kind, keyword, value)
            touched = True
    if not touched:
        raise ValueError(f"bounded_schema: {keyword} needs a {kind} field, got {node}")


def _set_enum(node: JsonSchema, values: list[object], key: str) -> None:
    """Restrict a scalar field (or the items of an array field) to `values`."""
    if "anyOf" in node:
        nullable = any(b.get("type") == "null" for b in node["anyOf"])
        if not values and nullable:
            node.clear()
            node["type"] = "null"
            return
        for branch in _branches(node):
            _set_enum(branch, values, key)
        return
    if node.get("type") == "array":
        if not values:
            node["maxItems"] = 0
            node["items"] = {"type": "string"}
            node.pop("minItems", None)
            return
        _set_enum(node["items"], values, key)
        return
    if not values:
        raise ValueError(f"bounded_schema: empty enum for required field {key!r}")
    for keyword in ("const", "pattern", "format", "minLength", "maxLength"):
        node.pop(keyword, None)
    node["enum"] = values


def validate_bounded(data: JSONValue, schema: JsonSchema, *, limit: int = 5) -> list[str]:
    """Readable violations of `schema` by `data` (empty when valid), at most `limit`."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    messages = []
    for error in errors[:limit]:
        where = "/".join(str(p) for p in error.absolute_path) or "(root)"
        text = error.message if len(error.message) <= 240 else error.message[:237] + "..."
        messages.append(f"{where}: {text}")
    return messages
