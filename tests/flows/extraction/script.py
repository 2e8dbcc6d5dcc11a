"""A scripted model for the extraction flow: answers each call kind from a small script.

The kind of a call is the name of its answer's schema, which the client records on the call
(`DuplicateAnswer` -> duplicate detection, `EvaluationAnswer` -> self-critique, ...). Every answer respects the schema's enums, so a test
script can say "the first quote id you were offered" without knowing it in advance.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.evaluation import load_criteria
from core.evaluation.prompts import BEGIN, END
from local_llm.testing import CallResponder, ScriptedBackend, ScriptedCall
from tests.flow_harness import SCRIPTED_MODELS, FlowHarness
from tests.flows.extraction.notes import EXISTING, SECOND, SOURCE, SOURCE_TEXT

CRITERIA = load_criteria("concept_extraction").criteria.ids
TYPES = {
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


SCHEMA_KINDS = {
    "CandidatesAnswer": "candidates",
    "DuplicateAnswer": "duplicate",
    "DuplicatesAnswer": "duplicate",
    "RelationQueries": "queries",
    "RelationsAnswer": "relations",
    "EvaluationAnswer": "critique",
    "Revision": "refine",
    "FeedbackRevision": "feedback",
}
"""The kind of each extraction call, by the name of the answer's schema (as the client reports
it on the call: local_llm.calls), never guessed from the prompt or the schema's fields."""


def kind_of(call: ScriptedCall) -> str:
    """The kind of answer a call asks for (its schema's name)."""
    if call.schema_name in SCHEMA_KINDS:
        return SCHEMA_KINDS[call.schema_name]
    raise AssertionError(
        f"the extraction script has no answer for schema {call.schema_name!r} (node {call.node!r})"
    )


def enum_of(schema: dict[str, Any], *path: str) -> list[str]:
    node = schema
    for key in path:
        node = node["properties"][key] if key != "[]" else node["items"]
    return list(node.get("enum") or node.get("items", {}).get("enum") or [])


def concept(title: str, quote_ids: list[str], text: str = "", short: str = "") -> dict[str, Any]:
    return {
        "title": title,
        "quote_ids": quote_ids,
        "short_summary": short or f"Idea breve sobre {title.lower()} en la práctica",
        "summary": f"Resumen de {title.lower()}: lo que la fuente dice de esta idea.",
        "concept": text or f"El concepto de {title.lower()} explica una idea de la fuente.",
        "analysis": "Una idea útil para el estudio.",
        "rationale": "Las citas lo expresan.",
    }


def candidates(messages, schema):
    """The default 1.1a answer: two new concepts citing the second and third quotes."""
    ids = enum_of(schema, "concepts", "[]", "quote_ids")
    return {
        "concepts": [
            concept("Efecto del espaciado", [ids[1]]),
            concept("Práctica intercalada", [ids[2]]),
        ],
        "notes": "",
    }


def relations(messages, schema):
    """The default relations answer: the first offered target, PART_OF."""
    target = enum_of(schema, "relations", "[]", "target")[0]
    return {
        "relations": [{"target": target, "type": "PART_OF", "explanation": "x", "confidence": 0.7}],
        "notes": "",
    }


def critique(score: float) -> dict[str, Any]:
    return {
        "criteria": {cid: {"rationale": "ok", "issues": [], "score": score} for cid in CRITERIA},
        "strengths": ["claro"],
        "weaknesses": [],
        "suggestions": ["dividir conceptos"] if score < 0.7 else [],
        "feedback": "bien" if score >= 0.7 else "mejorable",
    }


def empty_revision(**extra: Any) -> dict[str, Any]:
    return {
        "changes": "sin cambios",
        "drop_concepts": [],
        "edit_concepts": [],
        "add_concepts": [],
        "link_quotes": [],
        "unlink_quotes": [],
        "add_relations": [],
        "drop_relations": [],
        **extra,
    }


def retitle(messages: list[dict[str, Any]], schema: dict[str, Any]) -> dict[str, Any]:
    """A refinement that changes the first concept's title (to a new one each time), so the
    critique loop goes on (a refinement that changes nothing ends it)."""
    label = enum_of(schema, "edit_concepts", "[]", "concept")[0]
    title = f"Espaciado, versión {sum(len(m['content']) for m in messages)}"
    edit = {"concept": label, "title": title, "short_summary": "", "summary": ""}
    return empty_revision(edit_concepts=[edit | {"concept_text": "", "analysis": ""}])


Handler = Callable[[list[dict[str, Any]], dict[str, Any]], Any]


def title_queries(messages: list[dict[str, Any]], schema: dict[str, Any]) -> dict[str, Any]:
    """The default 1.1c answer: the concept's own title, twice per relation type (the pool is
    then what a search by the title finds)."""
    card = messages[-1]["content"].split("\n")[2]  # New concept: / BEGIN marker / the card
    title = card.split(" — ")[0]
    return {t: [title, title] for t in schema["properties"]}


def fit(answer: Any, schema: dict[str, Any]) -> Any:
    """The answer without the fields its schema does not have (a script written for a richer
    schema still answers an older one: the same tests run against an earlier version)."""
    if isinstance(answer, dict) and isinstance(schema.get("properties"), dict):
        props = schema["properties"]
        return {k: fit(v, props[k]) for k, v in answer.items() if k in props}
    if isinstance(answer, list) and isinstance(schema.get("items"), dict):
        return [fit(item, schema["items"]) for item in answer]
    return answer


class FlowScript:
    """Per-kind handlers; defaults: no candidates, no duplicates, no relations, a passing
    critique, no revision. Records the schema of every call by kind."""

    def __init__(self, **handlers: Handler | Any) -> None:
        self.handlers: dict[str, Handler] = {
            "candidates": lambda m, s: {"concepts": [], "notes": ""},
            "duplicate": lambda m, s: {"reasoning": "distinto", "match": "none", "confidence": 0.9},
            "queries": title_queries,
            "relations": lambda m, s: {"relations": [], "notes": ""},
            "critique": lambda m, s: critique(0.9),
            "refine": lambda m, s: empty_revision(),
            "feedback": lambda m, s: empty_revision(interpretation="entendido", unresolved=""),
        }
        for kind, handler in handlers.items():
            self.handlers[kind] = handler if callable(handler) else (lambda m, s, v=handler: v)
        self.calls: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.prompts: dict[str, list[str]] = defaultdict(list)
        self.messages: dict[str, list[list[dict[str, Any]]]] = defaultdict(list)
        self.merged: list[list[dict[str, Any]]] = []
        """The messages of every merged duplicate-detection call (several candidates)."""
        self.merged_schemas: list[dict[str, Any]] = []

    def __call__(self, call: ScriptedCall) -> Any:
        kind, schema = kind_of(call), dict(call.json_schema or {})
        if call.schema_name == "DuplicatesAnswer":
            self.merged.append([dict(m) for m in call.messages])
            self.merged_schemas.append(schema)
            return {"verdicts": [self.verdict(*one) for one in each_candidate(call, schema)]}
        self.calls[kind].append(schema)
        self.prompts[kind].append(call.messages[-1]["content"])
        self.messages[kind].append([dict(m) for m in call.messages])
        return fit(self.handlers[kind](call.messages, schema), schema)

    def verdict(self, label: str, messages: list[dict[str, Any]], schema: dict[str, Any]) -> Any:
        """One candidate's verdict of a merged call, as the `duplicate` handler answers that
        candidate alone (recorded as a `duplicate` check: one per candidate, as before)."""
        self.calls["duplicate"].append(schema)
        self.prompts["duplicate"].append(messages[-1]["content"])
        return {"candidate": label, **self.handlers["duplicate"](messages, schema)}

    def count(self, kind: str) -> int:
        return len(self.calls[kind])


def each_candidate(
    call: ScriptedCall, schema: dict[str, Any]
) -> list[tuple[str, list[dict[str, Any]], dict[str, Any]]]:
    """A merged duplicate-detection call seen as one call per candidate: (label, the
    messages and schema of a single-candidate call over the same existing concepts)."""
    prompt = call.messages[-1]["content"]
    existing = block(prompt, "Existing concepts:")
    item = schema["properties"]["verdicts"]["items"]["properties"]
    single = {"type": "object", "properties": {"match": item["match"]}}
    views = []
    for line in block(prompt, "Candidates:").splitlines():
        label, card = line[1:].split("] ", 1)
        text = f"Candidate:\n{BEGIN}\n{card}\n{END}\n\nExisting concepts:\n{existing}"
        views.append((label, [{"role": "user", "content": text}], single))
    return views


def block(prompt: str, heading: str) -> str:
    """The delimited block after `heading` in a prompt, markers included or not."""
    after = prompt.split(heading, 1)[1]
    inner = after.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")
    return inner if heading == "Candidates:" else f"{BEGIN}\n{inner}\n{END}"


class ConcurrencyBackend(ScriptedBackend):
    """A ScriptedBackend answering each call with `script` (told which call it is), that records
    how many completions were in flight at once."""

    def __init__(self, script: CallResponder | None = None, **kwargs: Any) -> None:
        super().__init__(answer=script or FlowScript(), **kwargs)
        self.in_flight = 0
        self.max_in_flight = 0

    async def complete(self, messages, *, json_schema, config, schema_name="answer"):
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(0)
            return await super().complete(
                messages, json_schema=json_schema, config=config, schema_name=schema_name
            )
        finally:
            self.in_flight -= 1


def beyond_pool(**flows: Any) -> dict[str, Any]:
    """Harness arguments for a graph larger than a relation pool (two concept notes, pools
    of one): 1.1c asks for search queries instead of pooling the whole graph."""
    sources = {SOURCE: SOURCE_TEXT, "08 - Ideas/Práctica intercalada.md": SECOND}
    return {"sources": sources, "flows": {"pool_size": 1, **flows}}


def extraction_harness(
    base: Path,
    script: FlowScript | None = None,
    *,
    existing: bool = True,
    sources: dict[str, str] | None = None,
    flows: dict[str, Any] | None = None,
    latency_s: float = 0.0,
    context_budget: int = 8192,
    max_tokens: int = 4096,
    roles: dict[str, dict[str, Any]] | None = None,
) -> FlowHarness:
    """The extraction flow over a vault holding the source note(s) and, with `existing`, one
    concept note already written (tests/flows/extraction/notes.py), answered by `script`."""
    script = script or FlowScript()

    def write(root: Path) -> None:
        for rel, text in (sources or {SOURCE: SOURCE_TEXT}).items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        (root / "08 - Ideas").mkdir(parents=True, exist_ok=True)
        if existing:
            (root / "08 - Ideas/Práctica de recuperación.md").write_text(EXISTING, encoding="utf-8")

    models = {
        **SCRIPTED_MODELS,
        "retries": 1,
        "transient_retries": 0,
        "context_budget": context_budget,
        "max_tokens": max_tokens,
        **({"roles": roles} if roles else {}),
    }
    return FlowHarness(
        base,
        "extraction",
        backend=ConcurrencyBackend(script, latency_s=latency_s),
        vault=write,
        script=script,
        make_input=lambda source=SOURCE: {"source": source},
        models=models,
        # the scripted concepts and the existing note are Spanish: so are the new notes
        flows={"extraction": {"language": "es", "recursion_limit": 200, **(flows or {})}},
    )
