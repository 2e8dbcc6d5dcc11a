"""Answers a fake server gives by itself, read from the request's JSON schema (`--responder`).

`extraction` answers every call of the concept extraction flow the way a good model would for
a small source: one new concept citing the first quote offered (its title made from the
prompt, so two sources never propose the same concept), no duplicate, no relation search, a
passing self-critique. A run of it reaches its review in four calls; the pool benchmark and
the bulk extraction tests run many such runs against real server processes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

Schema = dict[str, Any]
RELATION_TYPES = {
    "GENERALIZES",
    "SPECIFIC_OF",
    "PART_OF",
    "HAS_PART",
    "SUPPORTS",
    "SUPPORTED_BY",
    "OPPOSES",
    "SIMILAR_TO",
    "RELATES_TO",
}
"""Spec 002's nine relation types: the properties of a relation-query (1.1c) schema."""


def _props(schema: Schema | None) -> dict[str, Any]:
    return (schema or {}).get("properties", {})


def _first_quote(schema: Schema) -> str:
    items = _props(schema)["concepts"]["items"]
    return items["properties"]["quote_ids"]["items"]["enum"][0]


def _tag(messages: Any) -> str:
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()[:8]


def _candidates(messages: Any, schema: Schema) -> dict[str, Any]:
    tag = _tag(messages)
    return {
        "concepts": [
            {
                "title": f"Idea {tag}",
                "quote_ids": [_first_quote(schema)],
                "short_summary": f"Una idea breve de la fuente {tag}",
                "summary": f"La idea {tag} de la fuente, resumida en una frase.",
                "concept": "La idea que la cita expresa, dicha con otras palabras.",
                "analysis": "Sirve para recordar la cita en su contexto.",
                "rationale": "La cita la expresa con claridad.",
            }
        ],
        "notes": "",
    }


def _critique(schema: Schema) -> dict[str, Any]:
    criteria = _props(schema)["criteria"]["properties"]
    judged = {
        name: {
            "rationale": f"Se cumple bien en la propuesta ({n + 1}).",
            "issues": [],
            "score": 0.9,
        }
        for n, name in enumerate(criteria)
    }
    answer: dict[str, Any] = {"criteria": judged}
    for field, spec in _props(schema).items():
        if field != "criteria":
            answer[field] = [] if spec.get("type") == "array" else "Una propuesta clara."
    return answer


def extraction(messages: Any, schema: Schema | None) -> Any:
    """One answer of the extraction flow, by the shape of its schema."""
    props = _props(schema)
    if "criteria" in props:
        return _critique(schema or {})
    if "match" in props:
        return {"reasoning": "Es una idea distinta.", "match": "none", "confidence": 0.9}
    if props and set(props) & RELATION_TYPES:  # 1.1c: exactly n queries per type asked
        return {
            name: [f"{name.lower()} {i}" for i in range(spec.get("minItems", 0))]
            for name, spec in props.items()
        }
    if "relations" in props:
        return {"relations": [], "notes": ""}
    if "concepts" in props:
        return _candidates(messages, schema or {})
    return "Una respuesta."


RESPONDERS: dict[str, Callable[[Any, Any], Any]] = {"extraction": extraction}
