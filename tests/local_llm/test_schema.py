"""bounded_schema(): per-call bounds patched into a grammar-friendly schema."""

from __future__ import annotations

from datetime import date
from enum import StrEnum

import pytest
from pydantic import BaseModel, Field

from local_llm import bounded_schema, validate_bounded
from local_llm.schema import UNSUPPORTED_KEYWORDS


class Kind(StrEnum):
    a = "a"
    b = "b"


class Link(BaseModel):
    """A relation to another concept."""

    target_id: str
    kind: Kind = Kind.a


class Concept(BaseModel):
    title: str = Field(title="The title", description="Short title")
    quote_ids: list[str] = Field(default_factory=list)
    duplicate_of: str | None = None
    links: list[Link] = Field(default_factory=list)
    seen: date | None = None
    tags: set[str] = Field(default_factory=set)


class Batch(BaseModel):
    concepts: list[Concept]
    summary: str = ""


def _keys(node, found=None):
    found = set() if found is None else found
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "properties":  # property names are not keywords
                for sub in value.values():
                    _keys(sub, found)
                continue
            found.add(key)
            _keys(value, found)
    elif isinstance(node, list):
        for value in node:
            _keys(value, found)
    return found


def test_defs_are_inlined_and_objects_closed():
    schema = bounded_schema(Batch)
    assert "$defs" not in schema and "$ref" not in str(schema)
    concept = schema["properties"]["concepts"]["items"]
    link = concept["properties"]["links"]["items"]
    for obj in (schema, concept, link):
        assert obj["additionalProperties"] is False
        assert obj["required"] == list(obj["properties"])
    assert link["properties"]["kind"]["enum"] == ["a", "b"]
    assert not (_keys(schema) & UNSUPPORTED_KEYWORDS)
    assert concept["properties"]["title"]["description"] == "Short title"
    assert concept["properties"]["seen"]["anyOf"][0]["format"] == "date"


def test_a_property_named_title_survives_the_keyword_cleanup():
    assert "title" in bounded_schema(Batch)["properties"]["concepts"]["items"]["properties"]


def test_enums_limits_and_nullable_fields_are_patched_at_depth():
    schema = bounded_schema(
        Batch,
        enums={"quote_ids": ["q1", "q2"], "duplicate_of": ["c1"], "target_id": ["c1", "c2"]},
        max_items={"concepts": 3, "quote_ids": 2},
        max_length={"title": 60, "concepts.links.target_id": 10},
        min_items={"concepts": 1},
    )
    concepts = schema["properties"]["concepts"]
    assert (concepts["maxItems"], concepts["minItems"]) == (3, 1)
    props = concepts["items"]["properties"]
    assert props["quote_ids"]["items"]["enum"] == ["q1", "q2"]
    assert props["quote_ids"]["maxItems"] == 2
    assert props["title"]["maxLength"] == 60
    branches = props["duplicate_of"]["anyOf"]
    assert {"type": "string", "enum": ["c1"]} in branches and {"type": "null"} in branches
    assert props["links"]["items"]["properties"]["target_id"]["enum"] == ["c1", "c2"]


def test_empty_enums_leave_only_null_or_empty_arrays():
    schema = bounded_schema(Concept, enums={"duplicate_of": [], "quote_ids": []})
    props = schema["properties"]
    assert props["duplicate_of"] == {"type": "null"}
    assert props["quote_ids"]["maxItems"] == 0
    assert validate_bounded({**_concept(), "quote_ids": []}, schema) == []
    assert validate_bounded({**_concept(), "quote_ids": ["q1"]}, schema)


def test_empty_enum_on_a_required_string_is_refused():
    with pytest.raises(ValueError, match="empty enum"):
        bounded_schema(Link, enums={"target_id": []})


def test_unknown_field_is_a_key_error():
    with pytest.raises(KeyError, match="quote_idz"):
        bounded_schema(Concept, enums={"quote_idz": ["q1"]})


def test_recursive_models_are_refused():
    class Node(BaseModel):
        children: list[Node] = Field(default_factory=list)

    with pytest.raises(ValueError, match="recursive"):
        bounded_schema(Node)


def _concept(**changes):
    base = {
        "title": "t",
        "quote_ids": ["q1"],
        "duplicate_of": None,
        "links": [],
        "seen": None,
        "tags": [],
    }
    return {**base, **changes}


def test_validate_bounded_reports_ids_outside_the_enum_with_paths():
    schema = bounded_schema(Batch, enums={"quote_ids": ["q1"]}, max_length={"title": 5})
    good = {"concepts": [_concept()], "summary": ""}
    assert validate_bounded(good, schema) == []
    bad = {"concepts": [_concept(quote_ids=["q7"], title="much too long")], "summary": ""}
    problems = validate_bounded(bad, schema)
    assert any(p.startswith("concepts/0/quote_ids/0:") and "'q7'" in p for p in problems)
    assert any(p.startswith("concepts/0/title:") for p in problems)
    extra = {"concepts": [], "summary": "", "surprise": 1}
    assert any("surprise" in p for p in validate_bounded(extra, schema))
