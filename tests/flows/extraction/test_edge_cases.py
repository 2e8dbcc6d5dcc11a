"""Every edge case of spec 002, section 2, with a scripted model."""

from __future__ import annotations

import frontmatter

from tests.flows.extraction.notes import SOURCE, SOURCE_TEXT, quote_source
from tests.flows.extraction.script import FlowScript, concept, enum_of

PROCESSED = SOURCE_TEXT.replace("category: book\n", "category: book\nprocessed_date: 2026-01-02\n")
NO_QUOTES = "---\ntitle: Empty\n---\n# Empty\n\nJust notes, no highlights.\n"


async def test_already_processed_source_exits_at_once(harness) -> None:
    h = harness(sources={SOURCE: PROCESSED})
    out = await h.start()
    assert out["outcome"] == "skipped" and "__interrupt__" not in out
    assert h.backend.calls == []
    assert h.read(SOURCE) == PROCESSED


async def test_source_without_quotes_ends_without_model_calls(harness) -> None:
    h = harness(sources={"03 - Sources/Empty.md": NO_QUOTES})
    out = await h.start("03 - Sources/Empty.md")
    assert out["outcome"] == "no_quotes" and h.backend.calls == []
    assert "processed_date" not in frontmatter.loads(h.read("03 - Sources/Empty.md"))


async def test_no_existing_concepts_skips_duplicate_model_and_relation_search(harness) -> None:
    def candidates(messages, schema):
        ids = enum_of(schema, "concepts", "[]", "quote_ids")
        return {"concepts": [concept("Uno", [ids[0]]), concept("Dos", [ids[1]])], "notes": ""}

    script = FlowScript(candidates=candidates)
    h = harness(script, existing=False)
    out = await h.start()
    payload = out["__interrupt__"][0].value
    assert len(payload["concepts"]) == 2
    # nothing to compare with: no 1.1b model call, no 1.1c queries; 1.1e relates new to new
    assert script.count("duplicate") == 0 and script.count("queries") == 0
    assert script.count("relations") == 2
    assert sorted(payload["disconnected"]) == ["Dos", "Uno"]


async def test_all_quotes_unconceptual_cannot_be_approved_empty(harness) -> None:
    """An empty review is not approvable (it would mark the source processed with nothing
    written): approve is not offered, an approve is refused with a message, abort leaves the
    source unprocessed so that it can be extracted again."""
    script = FlowScript()  # 1.1a finds no concept at all
    h = harness(script)
    out = await h.start()
    payload = out["__interrupt__"][0].value
    assert payload["concepts"] == [] and len(payload["unattributed"]) == 3
    assert "approve" not in payload["actions"]
    issues = payload["critique_log"][0]["code_issues"]
    assert sum(i["what"] == "quote supports no concept" for i in issues) == 3
    refused = (await h.resume({"action": "approve"}))["__interrupt__"][0].value
    assert "Nothing to commit" in refused["notice"]
    assert "processed_date" not in frontmatter.loads(h.read(SOURCE))
    done = await h.resume({"action": "abort"})
    assert done["outcome"] == "aborted"
    assert not list((h.root / "08 - Ideas").glob("*.md"))[1:]  # only the existing note
    assert "processed_date" not in frontmatter.loads(h.read(SOURCE))


async def test_all_quotes_attributed_to_existing_concepts(harness) -> None:
    def candidates(messages, schema):
        ids = enum_of(schema, "concepts", "[]", "quote_ids")
        return {"concepts": [concept("Práctica de recuperación", ids)], "notes": ""}

    script = FlowScript(candidates=candidates)
    h = harness(script)
    out = await h.start()
    payload = out["__interrupt__"][0].value
    assert payload["concepts"] == [] and payload["unattributed"] == []
    assert payload["existing"][0]["quote_ids"] == [q["id"] for q in (await h.state())["quotes"]]
    done = await h.resume("approve")
    assert done["outcome"] == "committed"
    text = h.read("08 - Ideas/Práctica de recuperación.md")
    assert text.count("[[Make It Stick#^") == 3


async def test_very_large_source_is_batched_and_merged(harness) -> None:
    batches: list[list[str]] = []

    def candidates(messages, schema):
        ids = enum_of(schema, "concepts", "[]", "quote_ids")
        batches.append(ids)
        # the same idea shows up in every batch: merged into one concept
        return {"concepts": [concept("Memoria y práctica", ids[:2])], "notes": ""}

    script = FlowScript(candidates=candidates)
    h = harness(
        script,
        sources={"03 - Sources/Big Book.md": quote_source(300)},
        flows={"max_quotes_per_batch": 40},
        max_tokens=8192,
    )
    out = await h.start("03 - Sources/Big Book.md")
    payload = out["__interrupt__"][0].value
    assert len(batches) == 8 and all(len(b) <= 40 for b in batches)
    flat = [q for b in batches for q in b]
    assert sorted(flat) == sorted(f"q{i}" for i in range(300))  # every quote, once
    assert len(payload["concepts"]) == 1
    assert len(payload["concepts"][0]["quotes"]) == 16


async def test_batches_follow_the_context_budget(harness) -> None:
    sizes: list[int] = []

    def candidates(messages, schema):
        sizes.append(len(enum_of(schema, "concepts", "[]", "quote_ids")))
        return {"concepts": [], "notes": ""}

    h = harness(
        FlowScript(candidates=candidates),
        context_budget=1200,
        sources={"03 - Sources/Big Book.md": quote_source(60)},
    )
    await h.start("03 - Sources/Big Book.md")
    assert sum(sizes) == 60 and len(sizes) >= 2 and max(sizes) < 40  # the budget split it
    for call in h.backend.calls_of("complete"):
        if "Quotes:" in call.last_user:
            assert h.llm.count_tokens(call.messages) <= 1200


async def test_batches_and_answers_fit_the_completion_budget(harness) -> None:
    """With 1024 completion tokens at most 2 concepts of worst-case size fit: batches hold
    at most 6 quotes and the schema admits at most 2 concepts."""
    script = FlowScript()
    h = harness(script, sources={"03 - Sources/Big Book.md": quote_source(20)}, max_tokens=1024)
    await h.start("03 - Sources/Big Book.md")
    schemas = script.calls["candidates"]
    assert len(schemas) == 4
    assert all(s["properties"]["concepts"]["maxItems"] == 2 for s in schemas)
    assert sorted(len(enum_of(s, "concepts", "[]", "quote_ids")) for s in schemas) == [2, 6, 6, 6]
