"""The whole flow with a scripted model: extraction, review, commit into vault and store."""

from __future__ import annotations

import frontmatter

from core.domain import RELATION_MAP, RelationType
from core.flows.extraction.steps import NODE_STEPS
from tests.flows.extraction.notes import EXISTING_ID, SOURCE
from tests.flows.extraction.script import FlowScript, concept, enum_of


def two_concepts(messages, schema):
    ids = enum_of(schema, "concepts", "[]", "quote_ids")
    return {
        "concepts": [
            concept("Efecto del espaciado", [ids[1]]),
            concept("Práctica intercalada", [ids[2], ids[1]]),
        ],
        "notes": "",
    }


def relate_first(messages, schema):
    targets = enum_of(schema, "relations", "[]", "target")
    return {
        "relations": [
            {"target": targets[0], "type": "PART_OF", "explanation": "es parte", "confidence": 0.8}
        ],
        "notes": "",
    }


async def test_extraction_to_review_to_commit(harness) -> None:
    script = FlowScript(candidates=two_concepts, relations=relate_first)
    h = harness(script)
    out = await h.start()
    payload = out["__interrupt__"][0].value
    assert payload["type"] == "extraction_review"
    assert [c["title"] for c in payload["concepts"]] == [
        "Efecto del espaciado",
        "Práctica intercalada",
    ]
    assert payload["concepts"][1]["quotes"][0]["text"].startswith("Interleaving")
    # the retrieval quote supports nothing: reported, and the multi-concept quote is marked
    assert [q["id"] for q in payload["unattributed"]] == ["ms-retrieval"]
    assert any(a["multi"] for a in payload["attributions"])
    assert payload["critique_log"][0]["passed"] is True
    assert len(payload["relations"]) >= 1
    # the candidate call's schema admits only this batch's real quote ids
    assert set(enum_of(script.calls["candidates"][0], "concepts", "[]", "quote_ids")) == {
        q["id"] for q in (await h.state())["quotes"]
    }

    done = await h.resume({"action": "approve"})
    assert done["outcome"] == "committed"
    written = done["written"]
    new_paths = [p for p in written if p.startswith("08 - Ideas/") and "recuperación" not in p]
    assert sorted(new_paths) == [
        "08 - Ideas/Efecto del espaciado.md",
        "08 - Ideas/Práctica intercalada.md",
    ]
    notes = {p: frontmatter.loads(h.read(p)) for p in new_paths}
    for post in notes.values():
        assert post["entity_type"] == "Concept" and post["entity_id"]
        assert "## Concepto" in post.content and "## Fuente" in post.content
    # every relation is in both notes, with its inverse, and in the store both ways
    ids = {post["entity_id"]: post for post in notes.values()}
    for source_id, post in ids.items():
        for rel_type, targets in (post.get("concept_relations") or {}).items():
            for target in targets:
                inverse = RELATION_MAP[RelationType(rel_type)].value
                if target in ids:
                    assert source_id in ids[target]["concept_relations"][inverse]
                assert h.store.query_one(
                    "SELECT 1 FROM concept_relations WHERE source_id=? AND type=? AND target_id=?",
                    (target, inverse, source_id),
                )
    # block ids were added to the quotes the notes cite, and the links resolve
    source_text = h.read(SOURCE)
    post = notes["08 - Ideas/Práctica intercalada.md"]
    for line in post.content.split("## Fuente", 1)[1].strip().splitlines():
        block = line.split("#^", 1)[1].rstrip("]")
        assert f"^{block}" in source_text
    assert frontmatter.loads(source_text)["processed_date"]
    row = h.store.query_one("SELECT processed_date FROM sources WHERE path=?", (SOURCE,))
    assert row[0]
    # a second run skips at once without a model call
    calls = len(h.backend.calls)
    h.fresh_run()
    again = await h.start()
    assert again["outcome"] == "skipped" and len(h.backend.calls) == calls


async def test_existing_concept_gets_quotes_and_relations_by_minimal_edit(harness) -> None:
    def candidates(messages, schema):
        ids = enum_of(schema, "concepts", "[]", "quote_ids")
        return {
            "concepts": [
                concept("retrieval practice", [ids[0]]),
                concept("Efecto del espaciado", [ids[1]]),
            ],
            "notes": "",
        }

    def relations(messages, schema):
        targets = enum_of(schema, "relations", "[]", "target")
        return {
            "relations": [
                {"target": t, "type": "SUPPORTED_BY", "explanation": "x", "confidence": 0.7}
                for t in targets
            ],
            "notes": "",
        }

    def queries(messages, schema):
        return {
            t: (["práctica de recordar", "evocar"] if t == "SUPPORTED_BY" else ["zzz", "yyy"])
            for t in schema["properties"]
        }

    script = FlowScript(candidates=candidates, relations=relations, queries=queries)
    h = harness(script)
    existing_path = "08 - Ideas/Práctica de recuperación.md"
    before = h.read(existing_path)
    out = await h.start()
    payload = out["__interrupt__"][0].value
    # the alias matched exactly: a duplicate decided without the model
    assert payload["duplicates"][0]["title"] == "Práctica de recuperación"
    assert payload["duplicates"][0]["decided_by"] == "match"
    assert not any("retrieval practice" in p for p in script.prompts["duplicate"])
    assert script.count("duplicate") == 1  # the other candidate did go to the model
    assert [c["title"] for c in payload["concepts"]] == ["Efecto del espaciado"]
    # 1.1c queries found the existing concept through 1.1d's pool, so 1.1e could target it
    assert "Práctica de recuperación" in script.prompts["relations"][0]
    await h.resume("approve")
    after = h.read(existing_path)
    assert "[[Make It Stick#^ms-retrieval]]" in after
    post = frontmatter.loads(after)
    new_id = next(iter(post["concept_relations"]["SUPPORTS"]))
    # only the added lines changed in the existing note
    assert after.startswith(before.split("concept_relations")[0])
    assert h.store.query_one(
        "SELECT 1 FROM concept_relations WHERE source_id=? AND type='SUPPORTED_BY' AND target_id=?",
        (new_id, EXISTING_ID),
    )


def test_every_node_has_a_step() -> None:
    from core.flows.extraction.graph import NODES

    assert set(NODES) - {"aborted", "round_limit", "finish"} <= set(NODE_STEPS)
