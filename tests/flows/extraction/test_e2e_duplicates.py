"""Duplicate detection against a vault that already holds the concept, with the real local
model (llama.cpp + Gemma 3 270M): every candidate is compared with the existing concept, and
the commit follows each verdict (a duplicate's quotes go to the existing note, no new note;
a novel candidate gets its note). The tiny model decides either way; this asserts mechanics.
"""

from __future__ import annotations

from pathlib import Path

import frontmatter
import pytest

from local_llm import LLMClient
from tests.flows.extraction.test_e2e import SOURCE, local_runtime, source_vault

EXISTING_ID = "0b6f5a3e-2c1d-4e7f-9a8b-5c4d3e2f1a00"
EXISTING = f"""---
entity_id: {EXISTING_ID}
entity_type: Concept
short_summary: Sleep after learning consolidates new memories into long-term storage.
summary: Dormir después de aprender consolida los recuerdos nuevos en la memoria a largo plazo.
aliases:
- Sleep and memory consolidation
concept_relations: {{}}
---
# Sueño y consolidación de la memoria

## Concepto
Dormir después de aprender consolida los recuerdos nuevos (sleep consolidates memories).

## Análisis
El sueño profundo mueve recuerdos del hipocampo a la corteza.

## Conexiones

## Fuente
"""


class Recording(LLMClient):
    """The local client, keeping the prompt of every duplicate-detection call."""

    duplicate_prompts: list[str]

    async def structured(self, messages, schema, **kwargs):
        if "match" in (kwargs.get("json_schema") or {}).get("properties", {}):
            self.duplicate_prompts.append(messages[-1]["content"])
        return await super().structured(messages, schema, **kwargs)


@pytest.mark.e2e
async def test_duplicates_against_an_existing_concept(
    local_llm_client: LLMClient, tmp_path: Path
) -> None:
    roles = {
        name: c.replace(max_tokens=1024, context_budget=3000) if name != "embedding" else c
        for name, c in local_llm_client.roles.items()
    }
    llm = Recording(roles)
    llm.duplicate_prompts = []
    root = source_vault(tmp_path)
    existing = root / "08 - Ideas" / "Sueño y consolidación de la memoria.md"
    existing.write_text(EXISTING, encoding="utf-8")
    runtime = await local_runtime(llm, root, tmp_path / "data")
    async with runtime:
        run = runtime.start("extraction", {"source": SOURCE}, target=SOURCE)
        events = await runtime.run_until_pause(run.id)
        pending = await runtime.pending_interrupt(run.id)
        assert pending is not None, events[-1]
        payload = pending.payload
        state = (await runtime.state(run.id)).values
        detections = state["detections"]
        print("e2e verdicts:", [(d["decided_by"], d["existing_title"]) for d in detections])
        assert detections and len(detections) == len(state["merged"])
        # every candidate met the existing concept: matched by name, or shown to the judge
        for d in detections:
            assert d["decided_by"] in ("match", "model", "error"), d
        for prompt in llm.duplicate_prompts:
            assert "Sueño y consolidación de la memoria" in prompt.split("Existing concepts:")[1]
        duplicates = [d for d in detections if d["duplicate_of"] == EXISTING_ID]
        assert len(payload["duplicates"]) == len(duplicates)
        if not payload["concepts"] and not duplicates:
            pytest.skip("the tiny model extracted nothing this time")
        before = existing.read_text(encoding="utf-8")
        events = await runtime.run_until_pause(run.id, {"action": "approve"}, resume=True)
        assert events[-1].output["outcome"] == "committed", events[-1]
        notes = sorted(p.name for p in (root / "08 - Ideas").glob("*.md"))
        assert len(notes) == 1 + len(payload["concepts"])
        after = existing.read_text(encoding="utf-8")
        handed = {q for d in payload["duplicates"] for q in d["quote_ids"]}
        for quote in handed:
            assert f"#^{quote}]]" in after
        assert (after == before) == (not handed and not payload["relations"])
        assert frontmatter.loads(after)["entity_id"] == EXISTING_ID
