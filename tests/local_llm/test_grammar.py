"""Schemas as the grammar can enforce them, and the longest answer they allow."""

from __future__ import annotations

import json
import re
from typing import Literal

from pydantic import BaseModel, Field

from local_llm import CallTrace, ModelConfig, bounded_schema
from local_llm.grammar import (
    DEFAULT_MAX_ITEMS,
    MIN_LENGTH,
    WHITESPACE_TOKENS,
    answer_tokens,
    fitted_schema,
    grammar_schema,
    limit_tokens,
    number_choices,
)
from local_llm.testing import scripted_client

MESSAGES = [{"role": "user", "content": "¿Es un duplicado? 🤔"}]


class Verdict(BaseModel):
    reasoning: str
    match: str
    confidence: float = Field(ge=0, le=1)


class Row(BaseModel):
    name: str
    kind: Literal["GENERALIZES", "PART_OF", "RELATES_TO"]
    weight: int = Field(ge=1, le=5)
    tags: list[str]


class Table(BaseModel):
    rows: list[Row]
    note: str | None
    done: bool


def test_a_bounded_number_becomes_choices_the_grammar_enforces():
    assert number_choices({"type": "number", "minimum": 0, "maximum": 1}) == [
        0,
        0.1,
        0.2,
        0.3,
        0.4,
        0.5,
        0.6,
        0.7,
        0.8,
        0.9,
        1,
    ]
    assert number_choices({"type": "number", "minimum": 0, "maximum": 10}) == list(range(11))
    assert number_choices({"type": "number", "exclusiveMinimum": 0, "maximum": 1})[0] == 0.1
    assert number_choices({"type": "number", "minimum": -1, "maximum": 1})[5] == 0
    for open_ended in (
        {"type": "number"},
        {"type": "number", "minimum": 0},
        {"type": "integer", "minimum": 0, "maximum": 9},
        {"type": "number", "minimum": 0, "maximum": 1, "enum": [0, 1]},
    ):
        assert number_choices(open_ended) is None


def test_the_wire_schema_changes_only_bounded_numbers_and_leaves_the_original_alone():
    schema = bounded_schema(Verdict, enums={"match": ["none", "e1"]}, max_length={"reasoning": 90})
    before = json.dumps(schema, sort_keys=True)
    wire = grammar_schema(schema)
    assert wire["properties"]["confidence"] == {
        "enum": number_choices({"type": "number", "minimum": 0, "maximum": 1})
    }
    assert wire["properties"]["match"] == schema["properties"]["match"]
    assert json.dumps(schema, sort_keys=True) == before
    plain = bounded_schema(Row, max_length={"name": 40, "tags": 12}, max_items={"tags": 3})
    assert grammar_schema(plain) is plain  # nothing to change: no copy per call


def longest_answer(schema: dict) -> object:
    """The longest answer a grammar of `schema` allows, written independently of the bound."""
    if "enum" in schema:
        return max(schema["enum"], key=lambda v: len(json.dumps(v, ensure_ascii=False)))
    if "anyOf" in schema:
        return max(
            (longest_answer(s) for s in schema["anyOf"]),
            key=lambda v: len(json.dumps(v, ensure_ascii=False)),
        )
    kind = schema["type"]
    if kind == "object":
        return {k: longest_answer(s) for k, s in schema["properties"].items()}
    if kind == "array":
        return [longest_answer(schema["items"]) for _ in range(schema["maxItems"])]
    if kind == "string":
        return "ж" * schema["maxLength"]  # one character, one token at the very least
    if kind == "integer":
        return -99999 if "minimum" not in schema else max(schema["minimum"], schema["maximum"])
    return {"boolean": False, "null": None}[kind]


STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def tokens_at_most(text: str) -> int:
    """Tokens of a JSON text in the worst case the bound covers: a string's content two
    characters a token and each quote a token, any other character a token, a whitespace run
    (a newline and its indentation) at most two tokens."""
    strings = STRING.findall(text)
    rest = STRING.sub("", text)
    runs = re.findall(r"\s+", rest)
    inside = sum(-(-len(json.loads(s)) // 2) + 2 for s in strings)
    return inside + len(re.sub(r"\s+", "", rest)) + 2 * len(runs)


def test_the_bound_holds_the_longest_valid_answer_however_it_is_indented():
    schema = grammar_schema(
        bounded_schema(
            Table, max_length={"name": 30, "tags": 8, "note": 120}, max_items={"rows": 4, "tags": 3}
        )
    )
    longest = longest_answer(schema)
    usual = answer_tokens(schema, WHITESPACE_TOKENS)  # an indentation run as one or two tokens
    assert usual is not None and usual <= answer_tokens(schema)
    for indent in (None, 1, 2, 4, "\t"):
        text = json.dumps(longest, ensure_ascii=False, indent=indent)
        assert tokens_at_most(text) <= usual, indent
    # and it is a bound, not a guess an order of magnitude off
    assert usual < 3 * tokens_at_most(json.dumps(longest, ensure_ascii=False, indent=2))


GAP = "\n" + " \t" * 10
"""The widest whitespace llama.cpp's grammar allows between two JSON tokens (a newline and 20
spaces or tabs), as the bundled Gemma wrote it in every gap of a tutor evaluation."""


def widest(value: object) -> str:
    """`value` as JSON with `GAP` wherever the grammar allows whitespace: after every token."""
    if isinstance(value, dict):
        items = [
            json.dumps(k, ensure_ascii=False) + GAP + ":" + GAP + widest(v)
            for k, v in value.items()
        ]
        return "{" + GAP + ("," + GAP).join(items) + "}" + GAP
    if isinstance(value, list):
        return "[" + GAP + ("," + GAP).join(widest(v) for v in value) + "]" + GAP
    return json.dumps(value, ensure_ascii=False) + GAP


def tokens_at_worst(text: str) -> int:
    """Tokens of a JSON text when every character outside its strings is its own token."""
    strings = STRING.findall(text)
    inside = sum(-(-len(json.loads(s)) // 2) + 2 for s in strings)
    return inside + len(STRING.sub("", text))


def test_the_bound_holds_an_answer_with_the_widest_whitespace_in_every_gap():
    """The bundled model answered the tutor's evaluator with a newline and 20 spaces and tabs
    between every two JSON tokens: 561 tokens where the bound said 470, cut at max_tokens."""
    schema = grammar_schema(
        bounded_schema(
            Table, max_length={"name": 30, "tags": 8, "note": 120}, max_items={"rows": 4, "tags": 3}
        )
    )
    text = widest(longest_answer(schema))
    assert json.loads(text) == longest_answer(schema)
    assert tokens_at_worst(text) <= answer_tokens(schema) < 3 * tokens_at_worst(text)


async def test_a_call_may_write_its_fitted_answer_with_the_widest_whitespace():
    config = ModelConfig(model="scripted", context_budget=6000, max_tokens=150)
    answer = {"reasoning": "mismo concepto 🙂", "match": "none", "confidence": 0}
    client = scripted_client([answer], config=config)
    schema = bounded_schema(Verdict, enums={"match": ["none", "e1"]}, max_length={"reasoning": 900})
    await client.structured(MESSAGES, Verdict, json_schema=schema)
    sent = client.backend().calls[-1]
    text = widest(longest_answer(sent.json_schema))
    assert tokens_at_worst(text) <= sent.config.max_tokens


class Section(BaseModel):
    text: str


async def test_a_string_of_one_token_per_character_is_not_cut():
    """The bundled model wrote a lesson section as `1) 2) 3) ... 135)`: a valid answer of 600
    characters in 631 tokens, cut at a limit that counted 2 characters a token."""
    config = ModelConfig(model="scripted", context_budget=3000, max_tokens=512)
    numbered = " ".join(f"{n})" for n in range(1, 200))[:974]
    client = scripted_client([{"text": numbered}], config=config)
    schema = bounded_schema(Section, max_length={"text": 974})
    await client.structured(MESSAGES, Section, json_schema=schema)
    sent = client.backend().calls[-1]
    length = sent.json_schema["properties"]["text"]["maxLength"]
    assert sent.config.max_tokens >= length + len('{"text":""}')  # a token a character


def test_unbounded_schemas_have_no_bound():
    assert answer_tokens(bounded_schema(Row, max_items={"tags": 3})) is None  # name unbounded
    assert answer_tokens(bounded_schema(Row, max_length={"name": 9, "tags": 9})) is None  # tags
    assert answer_tokens({"type": "object"}) is None
    assert answer_tokens({}) is None


async def test_a_schema_that_fits_is_sent_as_it_is_with_the_role_limit():
    traces: list[CallTrace] = []
    config = ModelConfig(model="scripted", context_budget=2000, max_tokens=500)
    answer = {"reasoning": "mismo concepto", "match": "e1", "confidence": 0.9}
    client = scripted_client([answer] * 2, config=config, trace_sink=traces.append)
    schema = bounded_schema(Verdict, enums={"match": ["none", "e1"]}, max_length={"reasoning": 90})
    needed = answer_tokens(grammar_schema(schema))
    assert needed is not None and needed < config.max_tokens
    await client.structured(MESSAGES, Verdict, json_schema=schema)
    sent = client.backend().calls[-1]
    # never below the role's limit (a model under a grammar picks its own tokens)
    assert sent.config.max_tokens == config.max_tokens == traces[-1].max_tokens
    assert sent.json_schema["properties"]["confidence"]["enum"][-1] == 1
    assert sent.json_schema["properties"]["reasoning"]["maxLength"] == 90  # it fits: as it is
    # an explicit limit wins
    await client.structured(MESSAGES, Verdict, json_schema=schema, max_tokens=77)
    assert client.backend().calls[-1].config.max_tokens == 77


async def test_a_schema_longer_than_max_tokens_is_shrunk_to_fit_it():
    """A small model pads its strings to their maxLength: an answer the grammar lets run past
    max_tokens was cut (and re-asked) or ran into the call's timeout."""
    config = ModelConfig(model="scripted", context_budget=2000, max_tokens=150)
    answer = {"reasoning": "mismo concepto 🙂", "match": "none", "confidence": 0}
    client = scripted_client([answer] * 2, config=config)
    schema = bounded_schema(Verdict, enums={"match": ["none", "e1"]}, max_length={"reasoning": 900})
    assert answer_tokens(grammar_schema(schema)) > config.max_tokens
    await client.structured(MESSAGES, Verdict, json_schema=schema)
    sent = client.backend().calls[-1]
    assert MIN_LENGTH <= sent.json_schema["properties"]["reasoning"]["maxLength"] < 900
    assert answer_tokens(sent.json_schema, WHITESPACE_TOKENS) <= config.max_tokens
    # the call may write it with the widest whitespace the grammar allows, a token a character
    assert sent.config.max_tokens == limit_tokens(sent.json_schema) > config.max_tokens
    longest = json.dumps(longest_answer(sent.json_schema), ensure_ascii=False, indent=2)
    assert tokens_at_most(longest) <= sent.config.max_tokens
    # a limit too small even for the shortest strings: the longest answer, if the context holds it
    tiny = scripted_client(
        [answer], config=ModelConfig(model="s", context_budget=2000, max_tokens=20)
    )
    long = [{"role": "user", "content": "palabra " * 745}]
    await tiny.structured(long, Verdict, json_schema=schema)
    wire = tiny.backend().calls[-1].json_schema
    assert wire["properties"]["reasoning"]["maxLength"] == MIN_LENGTH
    room = tiny.config().context_window - tiny.count_tokens(long)
    assert tiny.backend().calls[-1].config.max_tokens == room < limit_tokens(wire)


async def test_what_a_schema_leaves_unbounded_is_bounded_to_fit_the_configured_limit():
    traces: list[CallTrace] = []
    config = ModelConfig(model="scripted", context_budget=2000, max_tokens=1200)
    answer = {
        "rows": [{"name": "Ω", "kind": "PART_OF", "weight": 2, "tags": ["a"]}],
        "note": None,
        "done": True,
    }
    client = scripted_client([answer], config=config, trace_sink=traces.append)
    await client.structured(MESSAGES, Table)
    sent = client.backend().calls[-1]
    row = sent.json_schema["properties"]["rows"]
    assert row["maxItems"] == DEFAULT_MAX_ITEMS and row["items"]["properties"]["tags"]["maxItems"]
    assert row["items"]["properties"]["name"]["maxLength"] >= MIN_LENGTH
    bound = answer_tokens(sent.json_schema, WHITESPACE_TOKENS)
    assert bound is not None and bound <= config.max_tokens <= sent.config.max_tokens
    assert traces[0].answer_bound is None  # the schema as written was unbounded
    # and the longest answer the grammar now allows is within that bound
    longest = json.dumps(longest_answer(sent.json_schema), ensure_ascii=False, indent=2)
    assert tokens_at_most(longest) <= bound
    fitted = fitted_schema(bounded_schema(Table), 2000)
    assert answer_tokens(fitted, WHITESPACE_TOKENS) <= 2000
    plain = bounded_schema(Row, max_length={"name": 40, "tags": 12}, max_items={"tags": 3})
    assert fitted_schema(plain, 1000) is plain  # it fits already: left as it is


async def test_a_value_between_the_choices_is_still_a_valid_answer():
    """Hosted models without grammars may answer 0.35: the meaning (ge=0, le=1) is checked,
    not the wire's choices."""
    client = scripted_client([{"reasoning": "parecido", "match": "none", "confidence": 0.35}])
    schema = bounded_schema(Verdict, enums={"match": ["none", "e1"]}, max_length={"reasoning": 90})
    assert (await client.structured(MESSAGES, Verdict, json_schema=schema)).confidence == 0.35


class Changes(BaseModel):
    """A revision's shape: many lists of small items, enums and strings."""

    links: list[Row]
    drops: list[Literal["n1", "n2", "n3"]]
    summary: str


def test_lists_hold_fewer_items_when_their_strings_at_the_floor_still_do_not_fit():
    """An extraction revision allowed 20 links, 10 edits... : 3,000 tokens with every string at
    its floor, and the bundled model wrote 1,400 of them (past the call's timeout)."""
    schema = grammar_schema(
        bounded_schema(
            Changes,
            max_items={"links": 20, "tags": 6, "drops": 3},
            min_items={"drops": 2},
            max_length={"name": 80, "tags": 30, "summary": 160},
        )
    )
    assert answer_tokens(schema) > 1500
    fitted = fitted_schema(schema, 300)
    assert answer_tokens(fitted, WHITESPACE_TOKENS) <= 300
    links = fitted["properties"]["links"]
    assert 1 <= links["maxItems"] < 20 and links["items"]["properties"]["tags"]["maxItems"] >= 1
    assert fitted["properties"]["drops"]["maxItems"] >= 2  # never below minItems
    longest = json.dumps(longest_answer(fitted), ensure_ascii=False, indent=4)
    assert tokens_at_most(longest) <= 300
    assert answer_tokens(schema) > 1500  # the schema as written is untouched
