"""What a grammar can guarantee about an answer, and how long the longest valid answer is.

llama.cpp's server and Ollama turn a JSON schema into a grammar (llama.cpp's
json-schema-to-grammar): types, enums, `const`, required properties, string `minLength` /
`maxLength`, array `minItems` / `maxItems` and integer `minimum` / `maximum` become grammar
rules, so the model cannot write anything else. A `number`'s `minimum` / `maximum` do not:
a grammar-constrained model may still answer `1e15` for a confidence in [0, 1].

- `grammar_schema(schema)` is the schema as sent to the model: a bounded `number` becomes a
  choice among evenly spaced values (`0, 0.1, ..., 1`), which the grammar does enforce. The
  answer is still validated against the original schema (a hosted model without grammars may
  answer 0.35), and pydantic checks the rest.
- `fitted_schema(schema, limit)` brings the longest answer within `limit` tokens (the role's
  `max_tokens`): what the schema leaves unbounded gets bounds, and string lengths (then
  array sizes) shrink when the answer could exceed the limit. A small model pads strings to their maxLength, so the
  lengths on the wire are what the slowest answer costs.
- `answer_tokens(schema)` is an upper bound of the tokens of the longest answer the grammar
  allows, or None when the schema is unbounded (a string without `maxLength`, an array
  without `maxItems`). The client sends `limit_tokens(schema)` (the same bound with every
  character of a string a token) as the call's `max_tokens`, so a valid answer is not cut
  at the token limit.

The bound counts `CHARS_PER_TOKEN` characters of a string per token, and between any two
JSON tokens the whitespace the grammar allows: llama.cpp's `space` rule is one space, or one or
two newlines and up to 20 spaces or tabs, and a model under the grammar may write each of them
as its own token (the bundled Gemma answered the tutor's evaluator with `"\n" + " \t" * 10`
between every two tokens: 561 tokens for a schema fitted to 470), so `answer_tokens` counts
`GRAMMAR_WHITESPACE_TOKENS` per gap. `fitted_schema` fits what a model usually writes (the
strings' length) with `WHITESPACE_TOKENS` per gap: counting the widest whitespace there would
leave no room for the content.
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

JsonSchema = dict[str, Any]

CHARS_PER_TOKEN = 2
"""Characters of a string per token, at least, in the bound. Tokenizers of the models noema
runs (Gemma, Llama, Qwen, Mistral) take 3-5 characters of prose per token, and a model that
pads a string to its maxLength repeats words; a string of rare symbols (emoji, other scripts)
can take more tokens than this, and such an answer may be cut (the trace shows it)."""
WHITESPACE_TOKENS = 2
"""Tokens of the whitespace a model usually writes after a JSON token ("\\n" + indentation as
one token): the gap `fitted_schema` fits strings with."""
GRAMMAR_WHITESPACE_TOKENS = 22
"""Tokens of the widest whitespace the grammar allows after a JSON token: two newlines and 20
spaces or tabs, each a token at worst (`answer_tokens`, hence a call's `max_tokens`)."""
NUMBER_CHOICES = 11
"""How many evenly spaced values a bounded `number` becomes (0, 0.1, ..., 1 for [0, 1])."""
UNBOUNDED_INTEGER = 20
"""Characters of an integer without bounds: llama.cpp's grammar allows a sign and 16 digits."""
UNBOUNDED_NUMBER = 40
"""Characters of a number the grammar allows: sign, 16 digits, fraction and exponent."""
FORMAT_LENGTHS = {"date": 12, "time": 20, "date-time": 34, "uuid": 38}
WORST_CHARS_PER_TOKEN = 1
"""Characters of a string per token in a call's `max_tokens`: digits and punctuation go one
a token (the bundled Gemma wrote a lesson section as `1) 2) 3) ... 135)`: 631 tokens for 600
characters, cut at a limit counted at 2 characters a token). A grammar ends the string at its
maxLength anyway, so the larger limit costs nothing but room in the context window."""


def grammar_schema(schema: JsonSchema) -> JsonSchema:
    """The schema as sent to a grammar-constrained model (bounded numbers as fixed choices);
    `schema` itself when there is nothing to change."""
    rewritten = _rewrite(schema)
    return rewritten if isinstance(rewritten, dict) else schema  # a dict stays a dict


def _rewrite(node: object) -> object:
    """`node` with every bounded number replaced; the same object when none is inside."""
    if isinstance(node, list):
        items = [_rewrite(item) for item in node]
        return node if all(a is b for a, b in zip(items, node, strict=True)) else items
    if not isinstance(node, dict):
        return node
    choices = number_choices(node)
    if choices is not None:
        return {"enum": choices}
    values = {key: _rewrite(value) for key, value in node.items()}
    return node if all(values[k] is node[k] for k in node) else values


def number_choices(node: JsonSchema) -> list[float | int] | None:
    """Evenly spaced values for a `number` with a lower and an upper bound (None otherwise)."""
    if node.get("type") != "number" or "enum" in node or "const" in node:
        return None
    low = node.get("minimum", node.get("exclusiveMinimum"))
    high = node.get("maximum", node.get("exclusiveMaximum"))
    if not isinstance(low, int | float) or not isinstance(high, int | float) or high <= low:
        return None
    step = (high - low) / (NUMBER_CHOICES - 1)
    decimals = max(0, -math.floor(math.log10(step))) if step < 1 else 0
    values = [_tidy(round(low + i * step, decimals)) for i in range(NUMBER_CHOICES)]
    if "exclusiveMinimum" in node and "minimum" not in node:
        values = values[1:]
    if "exclusiveMaximum" in node and "maximum" not in node:
        values = values[:-1]
    return values


def _tidy(value: float) -> float | int:
    """Whole values as integers (`1`, not `1.0`: one token fewer, and what a model writes)."""
    return int(value) if float(value).is_integer() else value


DEFAULT_MAX_ITEMS = 5
"""Items of an array the schema leaves unbounded, on the wire (`fitted_schema`)."""
MIN_LENGTH = 24
"""Characters a string keeps at least on the wire when a schema is fitted to a limit (or its
own maxLength when that is less)."""


def fitted_schema(schema: JsonSchema, limit: int) -> JsonSchema:
    """`schema` with its longest answer brought within `limit` tokens, as a grammar enforces it:
    arrays without maxItems get `DEFAULT_MAX_ITEMS`; when the bounded strings take more than
    the limit leaves, their maxLength shrinks in proportion; strings without maxLength share
    what is left. No string drops below `MIN_LENGTH` (nor its minLength); when the strings at
    that floor still do not fit, arrays hold fewer items (a third fewer a round, never fewer
    than one or their minItems) and the strings are fitted again. `schema` itself when it fits.

    The answer is still validated against `schema`: only what the model may write shrinks."""
    bound = answer_tokens(schema, WHITESPACE_TOKENS)
    if bound is not None and bound <= limit:
        return schema
    fitted = copy.deepcopy(schema)
    wanted: dict[int, int | None] = {
        id(node): node.get("maxLength") for node, _weight in _strings(fitted, 1)
    }
    for _round in range(FIT_ROUNDS):
        if not _fit_strings(fitted, wanted, limit):
            return schema  # `{}` or an open object somewhere: nothing a grammar can bound
        if (answer_tokens(fitted, WHITESPACE_TOKENS) or 0) <= limit or not _fewer_items(fitted):
            break
    return fitted


FIT_ROUNDS = 12


def _fit_strings(fitted: JsonSchema, wanted: dict[int, int | None], limit: int) -> bool:
    """Set every string's maxLength in `fitted` (see `fitted_schema`); False if unbounded."""
    strings = _strings(fitted, 1)
    for node, _weight in strings:
        node["maxLength"] = 0
    fixed = answer_tokens(fitted, WHITESPACE_TOKENS)
    if fixed is None:
        return False
    bounded = [
        (node, w, int(length)) for node, w in strings if (length := wanted[id(node)]) is not None
    ]
    free = [(node, w) for node, w in strings if wanted[id(node)] is None]
    budget = (limit - fixed - sum(w for _node, w, _n in bounded)) * CHARS_PER_TOKEN
    used = sum(w * n for _node, w, n in bounded)
    factor = 1.0 if used <= max(0, budget) else max(0, budget) / used
    for node, _w, length in bounded:
        node["maxLength"] = _shrunk(node, length, factor)
    left = limit - (answer_tokens(fitted, WHITESPACE_TOKENS) or 0)
    share = left // max(1, sum(w for _node, w in free)) * CHARS_PER_TOKEN
    for node, _w in free:
        node["maxLength"] = max(MIN_LENGTH, share, int(node.get("minLength", 0)))
    return True


def _fewer_items(node: object) -> bool:
    """Every array under `node` holds a third fewer items (at least 1 or its minItems);
    False when none can shrink."""
    if isinstance(node, list):
        return any([_fewer_items(item) for item in node])  # noqa: C419 - every item shrinks
    if not isinstance(node, dict):
        return False
    changed = False
    if node.get("type") == "array" and isinstance(node.get("maxItems"), int):
        floor = max(1, int(node.get("minItems", 0)))
        if node["maxItems"] > floor:
            node["maxItems"] = max(floor, node["maxItems"] * 2 // 3)
            changed = True
    return any([_fewer_items(value) for value in node.values()]) or changed  # noqa: C419


def _shrunk(node: JsonSchema, length: int, factor: float) -> int:
    floor = max(min(length, MIN_LENGTH), int(node.get("minLength", 0)))
    return max(floor, int(length * factor))


def _strings(node: object, weight: int) -> list[tuple[JsonSchema, int]]:
    """Strings a length bounds (not enums, not formats), each with how many times it can occur
    in an answer; arrays without maxItems get `DEFAULT_MAX_ITEMS` on the way."""
    if isinstance(node, list):
        return [found for item in node for found in _strings(item, weight)]
    if not isinstance(node, dict):
        return []
    if node.get("type") == "string" and "enum" not in node and "const" not in node:
        return [] if node.get("format") in FORMAT_LENGTHS else [(node, weight)]
    if node.get("type") == "array" and isinstance(node.get("items"), dict):
        if "maxItems" not in node:
            choices = len(node["items"].get("enum", []))  # an array of ids may list them all
            node["maxItems"] = max(DEFAULT_MAX_ITEMS, choices, int(node.get("minItems", 0)))
        return _strings(node["items"], weight * int(node["maxItems"]))
    found = []
    for key in ("properties", "anyOf", "prefixItems"):
        value = node.get(key)
        children = value.values() if isinstance(value, dict) else value or []
        for child in children:
            found += _strings(child, weight)
    return found


def answer_tokens(
    schema: JsonSchema,
    whitespace: int = GRAMMAR_WHITESPACE_TOKENS,
    chars_per_token: int = CHARS_PER_TOKEN,
) -> int | None:
    """Upper bound of the tokens of the longest answer valid under `schema` (None: unbounded),
    with `whitespace` tokens in every gap the grammar allows between two JSON tokens and
    `chars_per_token` characters of a string per token."""
    return _tokens(schema, whitespace, chars_per_token)


def limit_tokens(schema: JsonSchema) -> int | None:
    """The `max_tokens` that never cuts an answer valid under `schema`: the widest whitespace
    in every gap and every character of a string a token (`WORST_CHARS_PER_TOKEN`)."""
    return answer_tokens(schema, GRAMMAR_WHITESPACE_TOKENS, WORST_CHARS_PER_TOKEN)


def _tokens(node: object, ws: int, cpt: int = CHARS_PER_TOKEN) -> int | None:
    if not isinstance(node, dict) or not node:
        return None  # `{}` or `true`: anything goes
    if "enum" in node or "const" in node:
        values = node.get("enum", [node.get("const")])
        return max(len(json.dumps(v, ensure_ascii=False)) for v in values) + ws
    if "anyOf" in node:
        return _largest(node["anyOf"], ws, cpt)
    kind = node.get("type")
    if isinstance(kind, list):
        return _largest([{**node, "type": k} for k in kind], ws, cpt)
    measure = _MEASURES.get(kind) if isinstance(kind, str) else None
    return measure(node, ws, cpt) if measure is not None else None


def _largest(nodes: list[object], ws: int, cpt: int) -> int | None:
    sizes = [_tokens(n, ws, cpt) for n in nodes]
    return None if not sizes or any(s is None for s in sizes) else max(sizes)  # type: ignore[type-var]


def _string(node: JsonSchema, ws: int, cpt: int) -> int | None:
    if node.get("format") in FORMAT_LENGTHS:
        return FORMAT_LENGTHS[node["format"]] + ws
    if "maxLength" not in node:
        return None
    return -(-int(node["maxLength"]) // cpt) + 2 + ws


def _integer(node: JsonSchema, ws: int, cpt: int) -> int:
    low, high = node.get("minimum"), node.get("maximum")
    if isinstance(low, int | float) and isinstance(high, int | float):
        return max(len(str(int(low))), len(str(int(high)))) + ws
    return UNBOUNDED_INTEGER + ws


def _array(node: JsonSchema, ws: int, cpt: int) -> int | None:
    fixed = node.get("prefixItems") or []
    items = node.get("items")
    most = node.get("maxItems")
    if items is False or most == 0:
        extra, count = 0, 0
    elif most is None:
        return None
    else:
        count = int(most) - len(fixed)
        counted = _tokens(items, ws, cpt) if count > 0 else 0
        if counted is None:
            return None
        extra = counted
    prefixed = [_tokens(n, ws, cpt) for n in fixed]
    if any(size is None for size in prefixed):
        return None
    elements = sum(prefixed) + count * extra  # type: ignore[arg-type]
    separators = max(0, len(fixed) + count - 1) * (1 + ws)
    return 2 + 2 * ws + elements + separators


def _object(node: JsonSchema, ws: int, cpt: int) -> int | None:
    properties = node.get("properties") or {}
    if node.get("additionalProperties", True) is not False and not properties:
        return None
    total = 2 + 2 * ws
    for name, sub in properties.items():
        value = _tokens(sub, ws, cpt)
        if value is None:
            return None
        key = len(json.dumps(name, ensure_ascii=False)) + 1 + 2 * ws
        total += key + value + 1 + ws
    return total


_MEASURES = {
    "string": _string,
    "integer": _integer,
    "number": lambda node, ws, cpt: UNBOUNDED_NUMBER + ws,
    "boolean": lambda node, ws, cpt: 5 + ws,
    "null": lambda node, ws, cpt: 4 + ws,
    "array": _array,
    "object": _object,
}


class WireSchema:
    """What a structured call sends, worked out once per schema and token limit (the tutor's
    evaluator paid about 3 ms of schema work on every turn): `schema` as the grammar
    enforces it, fitted to the limit; `bound`, the `max_tokens` that never cuts an answer of
    it; `answer_bound`, the same for the schema before fitting. Shared: never mutate them."""

    __slots__ = ("answer_bound", "bound", "schema")

    def __init__(self, schema: JsonSchema, limit: int) -> None:
        self.answer_bound = limit_tokens(grammar_schema(schema))
        self.schema = grammar_schema(fitted_schema(schema, limit))
        self.bound = limit_tokens(self.schema)


_WIRE: dict[tuple[str, int], WireSchema] = {}
WIRE_CACHE_SIZE = 256
"""Schemas kept: a flow's schemas are a handful; ones built per call (enums of the ids at
hand) come and go, so the oldest leave first."""


def wire_schema(schema: JsonSchema, limit: int) -> WireSchema:
    """`WireSchema(schema, limit)`, from the cache when the same schema came before (keyed by
    its JSON text: property order matters to the grammar, so it is not sorted)."""
    key = (json.dumps(schema, ensure_ascii=False), limit)
    wire = _WIRE.get(key)
    if wire is None:
        wire = _WIRE[key] = WireSchema(schema, limit)
        if len(_WIRE) > WIRE_CACHE_SIZE:
            del _WIRE[next(iter(_WIRE))]
    return wire
