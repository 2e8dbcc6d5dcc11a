"""The compact grammar the local backend sends in place of a JSON schema (local_llm.gbnf).

The grammars are checked by what they accept: a non-recursive GBNF grammar (all a schema
without `$ref` gives) is translated into a Python regular expression here, and hand-written
answers are matched against it."""

from __future__ import annotations

import json
import re

import pytest
from pydantic import BaseModel

from local_llm import LLMClient, ModelConfig, bounded_schema
from local_llm.backends.local_backend import LocalBackend
from local_llm.gbnf import json_grammar
from local_llm.grammar import grammar_schema
from local_llm.schema import OPENS_WITH_A_WORD, validate_bounded
from local_llm.testing import ScriptedBackend

TOKEN = re.compile(
    r'\s*(?:(?P<lit>"(?:[^"\\]|\\.)*")|(?P<cls>\[(?:[^\]\\]|\\.)*\])|(?P<rep>\{\d*,?\d*\})'
    r"|(?P<op>[()|?*+])|(?P<name>[a-zA-Z][a-zA-Z0-9_-]*))"
)
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def _literal(text: str) -> str:
    body = re.sub(r"\\(.)", lambda m: ESCAPES.get(m.group(1), m.group(1)), text[1:-1])
    return re.escape(body)


def _class(text: str) -> str:
    return re.sub(r"\\x([0-9A-Fa-f]{2})", lambda m: "\\x" + m.group(1), text)


def to_regex(grammar: str) -> re.Pattern[str]:
    """A non-recursive GBNF grammar as one regular expression (rules inlined)."""
    rules = {}
    for line in grammar.strip().splitlines():
        name, body = line.split(" ::= ", 1)
        rules[name] = body

    def expand(name: str, depth: int = 0) -> str:
        assert depth < 50, "recursive grammar"
        out = []
        for m in TOKEN.finditer(rules[name]):
            if m.group("lit"):
                out.append(_literal(m.group("lit")))
            elif m.group("cls"):
                out.append(_class(m.group("cls")))
            elif m.group("rep") or m.group("op"):
                out.append(m.group("rep") or m.group("op"))
            else:
                out.append(f"(?:{expand(m.group('name'), depth + 1)})")
        return "".join(out)

    return re.compile(expand("root"), re.DOTALL)


class Card(BaseModel):
    title: str
    quote_ids: list[str]
    confidence: float
    rank: int
    done: bool
    note: str | None


def card_schema():
    schema = bounded_schema(
        Card,
        enums={"quote_ids": ["q-1", 'dif"ícil']},
        max_items={"quote_ids": 2},
        min_items={"quote_ids": 1},
        max_length={"title": 13, "note": 5},
    )
    schema["properties"]["confidence"] |= {"minimum": 0, "maximum": 1}
    schema["properties"]["rank"] |= {"minimum": 1, "maximum": 5}
    return grammar_schema(schema)


def test_a_compact_answer_matches_and_whitespace_between_tokens_does_not():
    grammar = json_grammar(card_schema())
    assert grammar is not None
    rx = to_regex(grammar)
    good = '{"title":"Olvido ✨ útil","quote_ids":["q-1","dif\\"ícil"],"confidence":0.3,"rank":5,"done":true,"note":null}'
    assert rx.fullmatch(good)
    assert rx.fullmatch(good.replace('"note":null', '"note":"日本語"'))
    assert not rx.fullmatch(good.replace(",", ", "))  # no whitespace between tokens
    assert not rx.fullmatch(good.replace("{", "{\n \t \t", 1))
    assert not rx.fullmatch(good.replace("Olvido ✨ útil", "Olvido ✨ útil!"))  # 14 characters > 13
    assert not rx.fullmatch(good.replace('"q-1",', '"q-2",'))  # outside the enum
    assert not rx.fullmatch(good.replace('"q-1",', '"q-1","q-1",'))  # three > maxItems 2
    assert not rx.fullmatch(good.replace('"q-1","dif\\"ícil"', ""))  # minItems 1
    assert not rx.fullmatch(good.replace("0.3", "1e15"))  # a bounded number is a choice
    assert not rx.fullmatch(good.replace('"rank":5', '"rank":6'))
    assert not rx.fullmatch(good.replace('"done":true,', ""))  # every property, in order


def test_an_escape_counts_as_one_character_of_a_bounded_string():
    rx = to_regex(json_grammar(card_schema()) or "")
    thirteen = 'a\\"b\\\\c\\u00e9defghij'  # 13 characters once decoded, 22 written
    answer = f'{{"title":"{thirteen}","quote_ids":["q-1"],"confidence":1,"rank":1,"done":false,"note":""}}'
    assert rx.fullmatch(answer)
    assert not rx.fullmatch(answer.replace("ghij", "ghijk"))


class Steps(BaseModel):
    titles: list[str]


def test_a_string_that_must_open_as_words_do_cannot_open_with_a_digit_or_punctuation():
    """Gemma 3 270M planned "1. 1" and ">1.1.1..." steps: `OPENS_WITH_A_WORD` becomes a first
    character the grammar holds it to (and the rest of the string within its length)."""
    schema = bounded_schema(
        Steps,
        max_items={"titles": 3},
        max_length={"titles": 12},
        patterns={"titles": OPENS_WITH_A_WORD},
    )
    rx = to_regex(json_grammar(schema) or "")
    for title in ("Recordar", "¿Qué es?", "Ἀρετή 1", "日本語", "Ü", "a 1. 2"):
        assert rx.fullmatch(
            json.dumps({"titles": [title]}, ensure_ascii=False, separators=(",", ":"))
        )
        assert not validate_bounded({"titles": [title]}, schema)
    for title in ("1. 1", ">1.1.1", " a", "-x", "(a)", '\\"a', "", "Recordar mejor"):
        answer = json.dumps({"titles": ["Paso", title]}, ensure_ascii=False, separators=(",", ":"))
        assert not rx.fullmatch(answer), title
        assert validate_bounded({"titles": ["Paso", title]}, schema), title


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "pattern": "^a+$"},
        {"type": "string", "pattern": "^[^a-z].*$"},
        {"type": "string", "pattern": "^[^0-9]"},
        {"type": "string", "format": "date"},
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": []},
        {"type": "object", "properties": {"a": {"type": "string"}}},
        {"type": "integer", "minimum": 0},
        {},
    ],
)
def test_what_the_grammar_does_not_cover_is_left_to_the_server(schema):
    """A pattern, a format, an optional property, an open object, an open integer range:
    None, and the backend sends the schema itself."""
    assert json_grammar(schema) is None


class Label(BaseModel):
    label: str


async def test_the_local_backend_sends_the_compact_grammar_instead_of_the_schema():
    inner = ScriptedBackend(['{"label":"a"}'])
    backend = LocalBackend(__import__("pathlib").Path("/nonexistent"), inner=lambda: inner)
    backend.resolved = lambda config, mode: config  # type: ignore[method-assign]
    config = ModelConfig(provider="local", model="gemma3-270m", max_tokens=64)
    client = LLMClient({"default": config}, backends={"local": backend})
    backend.prepare = _nothing  # type: ignore[method-assign]
    assert (await client.structured([{"role": "user", "content": "x"}], Label)).label == "a"
    (call,) = inner.calls
    assert call.grammar is not None
    assert to_regex(call.grammar).fullmatch('{"label":"abc"}')
    assert not to_regex(call.grammar).fullmatch('{ "label": "abc" }')


async def _nothing(*_args, **_kwargs):
    return None
