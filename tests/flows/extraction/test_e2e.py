"""The extraction flow against the real local model (llama.cpp + Gemma 3 270M).

A small source (4 quotes) -> review -> approve -> concept notes with valid frontmatter,
relations in both directions in store and notes, processed_date set, a second run skips.
The tiny model's concepts are weak; this asserts mechanics and schema validity.
"""

from __future__ import annotations

import json
from pathlib import Path

import frontmatter
import pytest

from core.context import FlowContext
from core.domain import RELATION_MAP, RelationType
from core.evaluation import BUILTIN_DIR
from core.flows.extraction.graph import SPEC
from core.runtime import Runtime
from core.settings import Settings
from core.store import Store
from core.vault_handle import VaultHandle
from local_llm import LLMClient
from vault.index import VaultIndex
from vault.layout import VaultLayout
from vault.writer import VaultWriter

SOURCE = "03 - Sources/Sleep.md"
TEXT = """---
title: Why We Sleep
author: Matthew Walker
category: book
---
# Why We Sleep

## Highlights
> Sleep after learning consolidates new memories into long-term storage.

> Deep sleep moves memories from the hippocampus to the cortex.

> Caffeine blocks adenosine receptors and hides the pressure to sleep.

> A regular sleep schedule improves the quality of sleep.
"""


def compact_criteria(folder: Path) -> None:
    """Two criteria of concept_extraction, so the tiny model's critique stays short."""
    data = json.loads((BUILTIN_DIR / "concept_extraction.json").read_text(encoding="utf-8"))
    data["criteria"] = [
        {**data["criteria"][0], "weight": 0.5},
        {**data["criteria"][2], "weight": 0.5},
    ]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "concept_extraction.json").write_text(json.dumps(data), encoding="utf-8")


def source_vault(tmp_path: Path) -> Path:
    """A vault holding the source note (and an empty concepts folder)."""
    root = tmp_path / "vault"
    (root / "03 - Sources").mkdir(parents=True)
    (root / "08 - Ideas").mkdir()
    (root / SOURCE).write_text(TEXT, encoding="utf-8")
    return root


async def local_runtime(llm: LLMClient, root: Path, data: Path) -> Runtime:
    """A runtime for the extraction flow over `root`, indexed with the local embedding model;
    one critique round at most, the compact criteria, a generous step timeout."""
    settings = Settings(
        vault={"path": root},
        data={"directory": data},
        flows={"extraction": {"max_critique_iterations": 0, "timeout_s": 300}},
    )
    compact_criteria(settings.data_dir / "criteria")
    store = Store(settings.store_path)
    layout = VaultLayout()
    index = VaultIndex(store, root, layout, embed=llm.embed, embed_model="local-embedding")
    await index.sync_async()
    vault = VaultHandle(root, layout, VaultWriter(root, layout), index, "local-embedding")
    return Runtime(
        settings,
        store,
        {"extraction": SPEC},
        lambda run_id: FlowContext(settings, llm, store, vault, run_id),
    )


@pytest.mark.e2e
async def test_extraction_with_the_local_model(local_llm_client: LLMClient, tmp_path: Path) -> None:
    roles = {
        name: c.replace(max_tokens=1024, context_budget=3000) if name != "embedding" else c
        for name, c in local_llm_client.roles.items()
    }
    llm = LLMClient(roles)
    root = source_vault(tmp_path)
    runtime = await local_runtime(llm, root, tmp_path / "data")
    async with runtime:
        run = runtime.start("extraction", {"source": SOURCE}, target=SOURCE)
        events = await runtime.run_until_pause(run.id)
        pending = await runtime.pending_interrupt(run.id)
        assert pending is not None, events[-1]
        payload = pending.payload
        quote_ids = {q["id"] for q in (await runtime.state(run.id)).values["quotes"]}
        print(
            "e2e concepts:",
            [c["title"] for c in payload["concepts"]],
            "relations:",
            [(r["source_title"], r["type"], r["target_title"]) for r in payload["relations"]],
        )
        assert payload["concepts"], "the model extracted no concept from four quotes"
        for concept in payload["concepts"]:
            assert concept["title"].strip() and set(concept["quote_ids"]) <= quote_ids
        assert len(payload["critique_log"]) == 1
        events = await runtime.run_until_pause(run.id, {"action": "approve"}, resume=True)
        output = events[-1].output
        assert output["outcome"] == "committed", events[-1]

        notes = sorted((root / "08 - Ideas").glob("*.md"))
        assert len(notes) == len(payload["concepts"])
        posts = {}
        for path in notes:
            post = frontmatter.loads(path.read_text(encoding="utf-8"))
            assert post["entity_type"] == "Concept" and post["entity_id"]
            assert isinstance(post["concept_relations"], dict)
            posts[post["entity_id"]] = post
            row = runtime.store.query_one(
                "SELECT path FROM concepts WHERE entity_id=?", (post["entity_id"],)
            )
            assert row is not None and row[0] == f"08 - Ideas/{path.name}"
        for source_id, post in posts.items():
            for rel_type, targets in post["concept_relations"].items():
                for target in targets:
                    inverse = RELATION_MAP[RelationType(rel_type)].value
                    assert source_id in posts[target]["concept_relations"][inverse]
                    assert runtime.store.query_one(
                        "SELECT 1 FROM concept_relations WHERE source_id=? AND type=? AND target_id=?",
                        (target, inverse, source_id),
                    )
        assert frontmatter.loads((root / SOURCE).read_text(encoding="utf-8"))["processed_date"]

        again = runtime.start("extraction", {"source": SOURCE}, target=SOURCE)
        events = await runtime.run_until_pause(again.id)
        assert events[-1].output["outcome"] == "skipped"
