"""Normalization benchmark: the spec's full-list loop vs noema's approach, in the same run.

2,000 synthetic concepts with 200 planted duplicate pairs (half spelling variants code can
find: plural, case, accent, punctuation; half only a model can: acronyms, word order, a
generic suffix) go through the real normalization graph twice with a scripted oracle model
that proposes exactly the planted pairs whose two names are visible in its prompt, and an
evaluator that accepts everything:

- full list (spec 000): every name in every generator prompt, no deterministic pass;
- noema: deterministic variants first, then blocks of similar names (from the index's
  full-text search) within an 8,192-token context budget.

Both use the same convergence rule and the same completion room (large: the oracle has no
completion limit, so neither approach is capped by answer size). Printed: prompt tokens per
run, calls, largest prompt and recall; then noema alone at 5,000 concepts, where every prompt
must fit 8,192 tokens.
Targets: equal recall at no more than 25% of the full-list tokens; every prompt <= 8,192.

Synonyms: the 2,000 concepts plus 50 planted synonym pairs whose names share no word (only
their meaning links them), every concept with a stored embedding vector (dimension 128, seeded:
synonyms at cosine 0.92, all others random), run through noema twice: without the vectors
(full-text blocks only) and with them (near stored vectors also link names). Printed: recall on
the synonym pairs, overall recall and tokens of each; target: the vectors raise synonym recall.
The last line is one JSON object with the figures and the targets.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402

from core.context import FlowContext  # noqa: E402
from core.flows.normalization.accumulate import merge_key  # noqa: E402
from core.flows.normalization.graph import build_graph  # noqa: E402
from core.settings import Settings  # noqa: E402
from core.store import Store  # noqa: E402
from local_llm import LLMClient, ModelConfig  # noqa: E402
from local_llm.testing import ScriptedBackend  # noqa: E402
from local_llm.tokens import count_messages  # noqa: E402
from vault.embedding import pack  # noqa: E402

BUDGET = 8192
TOKEN_TARGET = 0.25
SYLLABLES = [a + b for a in "bdfgklmnprstvz" for b in ("a", "e", "i", "o", "u", "ar", "el", "on")]
COMMON = ["effect", "model", "theory", "learning", "memory", "practice", "method", "bias"]
SUFFIXES = ["effect", "model", "theory", "principle"]
ACCENTS = {"a": "á", "e": "é", "i": "í", "o": "ó", "u": "ú"}
KINDS = [
    ("plural", 30),
    ("case", 25),
    ("accent", 25),
    ("punct", 20),
    ("acronym", 35),
    ("order", 35),
    ("suffix", 30),
]
"""Kinds of planted duplicates per 200 pairs: the first four are deterministic variants."""
SYNONYM_PAIRS = 50
DIM = 128
SYNONYM_COSINE = 0.92
"""Cosine of a planted synonym pair's vectors (random pairs at dimension 128: |cos| < 0.5)."""
EMBED_MODEL = "bench-embed"


class Synth:
    """Synthetic concept names: pseudo-words, some common words, planted duplicates."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.used: set[str] = set()

    def word(self) -> str:
        while True:
            w = "".join(self.rng.choice(SYLLABLES) for _ in range(self.rng.randint(2, 3)))
            if w not in self.used:
                self.used.add(w)
                return w

    def name(self, words: int | None = None) -> str:
        n = words or self.rng.choice((1, 2, 2, 2, 3, 3))
        parts = [self.word() for _ in range(n)]
        if n < 3 and self.rng.random() < 0.3:
            parts.append(self.rng.choice(COMMON))
        return " ".join(parts).capitalize()

    def pair(self, kind: str) -> tuple[str, str]:
        if kind == "plural":
            base = f"{self.word().capitalize()} {self.word()}"
            return base, base + "s"
        if kind == "case":
            base = self.name(2)
            return base, base.lower().title()
        if kind == "accent":
            base = self.name(2)
            i = next(i for i, ch in enumerate(base) if ch in ACCENTS)
            return base, base[:i] + ACCENTS[base[i]] + base[i + 1 :]
        if kind == "punct":
            a, b = self.word(), self.word()
            return f"{a.capitalize()} {b}", f"{a.capitalize()}-{b}"
        if kind == "acronym":
            parts = [self.word().capitalize() for _ in range(self.rng.randint(3, 4))]
            return " ".join(parts), "".join(p[0] for p in parts).upper()
        if kind == "order":
            a, b = self.word(), self.word()
            return f"{a.capitalize()} {b}", f"{b.capitalize()} of {a}"
        base = self.name(2)
        return base, f"{base} {self.rng.choice(SUFFIXES)}"


def synthesize(n_concepts: int, n_pairs: int, seed: int = 7) -> tuple[list[tuple], set[str]]:
    """(id, title, summary) rows and the merge keys of the planted pairs."""
    synth = Synth(seed)
    rows: list[tuple[str, str, str]] = []
    planted: set[str] = set()
    titles: set[str] = set()
    scale = n_pairs / 200
    for kind, count in KINDS:
        for _ in range(round(count * scale)):
            a, b = synth.pair(kind)
            ids = (f"p{len(rows)}", f"p{len(rows) + 1}")
            for cid, title in zip(ids, (a, b), strict=True):
                rows.append((cid, title, f"Definition of {a.lower()} ({kind})."))
                titles.add(title.casefold())
            planted.add(merge_key(*ids))
    while len(rows) < n_concepts:
        title = synth.name()
        if title.casefold() not in titles:
            titles.add(title.casefold())
            rows.append((f"c{len(rows)}", title, f"Definition of {title.lower()}."))
    synth.rng.shuffle(rows)
    return rows, planted


def add_synonyms(rows: list[tuple], n_pairs: int, seed: int = 13) -> set[str]:
    """Append pairs of two-word names sharing no word with each other (nor with any name)."""
    synth = Synth(seed)
    synth.used = {w for _, title, _ in rows for w in title.casefold().split()}
    keys: set[str] = set()
    for _ in range(n_pairs):
        a, b = (f"{synth.word().capitalize()} {synth.word()}" for _ in range(2))
        ids = (f"s{len(rows)}", f"s{len(rows) + 1}")
        rows += [(ids[0], a, f"Definition of {a.lower()}."), (ids[1], b, f"Same as {a.lower()}.")]
        keys.add(merge_key(*ids))
    return keys


def synthetic_vectors(rows: list[tuple], synonyms: set[str], seed: int = 17) -> dict[str, Any]:
    """A random unit vector per concept; each synonym's partner at SYNONYM_COSINE from it."""
    rng = np.random.default_rng(seed)
    unit = rng.standard_normal((len(rows), DIM))
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    vectors = {cid: unit[i] for i, (cid, _, _) in enumerate(rows)}
    for key in sorted(synonyms):
        a, b = key.split("|")
        ortho = vectors[b] - (vectors[b] @ vectors[a]) * vectors[a]
        ortho /= np.linalg.norm(ortho)
        vectors[b] = SYNONYM_COSINE * vectors[a] + np.sqrt(1 - SYNONYM_COSINE**2) * ortho
    return vectors


def fill_vectors(store: Store, vectors: dict[str, Any]) -> None:
    """The embeddings table, as vault/embedding.py writes it."""
    with store.transaction():
        store.executemany(
            "INSERT INTO embeddings VALUES (?, ?, ?, ?, '')",
            [(cid, EMBED_MODEL, DIM, pack(v.tolist())) for cid, v in vectors.items()],
        )


def fill_index(store: Store, rows: list[tuple]) -> None:
    """The index's concept tables, as vault/index.py writes them."""
    with store.transaction():
        store.executemany(
            "INSERT INTO concepts (entity_id, path, title, aliases_json, short_summary, summary,"
            " language, text_hash) VALUES (?, ?, ?, '[]', '', ?, 'en', '')",
            [(cid, f"08 - Ideas/{cid}.md", title, summary) for cid, title, summary in rows],
        )
        store.execute(
            "INSERT INTO concepts_fts (rowid, title, aliases, short_summary, summary)"
            " SELECT id, title, '', short_summary, summary FROM concepts"
        )


def oracle(planted_titles: list[tuple[str, str]]):
    """Proposes exactly the planted pairs whose two names are in its prompt; judges all sound."""
    partners: dict[str, list[str]] = {}
    for a, b in planted_titles:
        partners.setdefault(a, []).append(b)

    def respond(messages: list[dict[str, Any]], _schema: Any) -> dict[str, Any]:
        if "normalize the concept names" not in messages[0]["content"]:
            return {"weak_merges": []}
        listing = messages[-1]["content"].split("# AVOID")[0]
        names = set(re.findall(r"^- (.+)$", listing, re.M))
        merges = [
            {"concept_a": a, "concept_b": b, "reason": "same concept"}
            for a in names
            for b in partners.get(a, [])
            if b in names
        ]
        return {"merges": sorted(merges, key=lambda m: m["concept_a"])}

    return respond


async def run_flow(
    rows, planted, *, noema: bool, budget: int, vectors=None, use_vectors=False, focus=()
) -> dict[str, Any]:
    """One run of the real graph; prompt tokens, calls, largest prompt, recall, seconds.

    `vectors` are stored in the index; the flow is told their model only with `use_vectors`.
    `focus`: merge keys whose recall is also reported on its own (as focus_recall).
    """
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "store.sqlite3")
        fill_index(store, rows)
        if vectors:
            fill_vectors(store, vectors)
        title = {cid: t for cid, t, _ in rows}
        pairs = [tuple(title[cid] for cid in key.split("|")) for key in planted]
        backend = ScriptedBackend(oracle(pairs))
        config = ModelConfig(model="oracle", context_budget=budget, max_tokens=16384, retries=0)
        llm = LLMClient({"default": config}, backend=backend)
        flows = {
            "strategy": "auto" if noema else "full_list",
            "deterministic": noema,
            "max_merges_per_call": 200,
        }
        settings = Settings(
            vault={"language": "en"},  # the stand-in vault has no notes to detect it from
            data={"directory": Path(tmp) / "data"},
            flows={"normalization": flows},
        )
        vault = SimpleNamespace(index=None, embed_model=EMBED_MODEL) if use_vectors else None
        context = FlowContext(settings, llm, store, vault, run_id="bench")
        app = build_graph().compile(checkpointer=InMemorySaver())
        start = time.perf_counter()
        state = await app.ainvoke(
            {}, {"configurable": {"thread_id": "b"}, "recursion_limit": 100}, context=context
        )
        seconds = time.perf_counter() - start
        store.close()
    prompts = [count_messages(c.messages) for c in backend.calls_of("complete")]
    found = planted & set(state.get("all_merges", {}))
    extra = {"focus_recall": round(len(found & focus) / len(focus), 4)} if focus else {}
    return {
        "prompt_tokens": sum(prompts),
        "calls": len(prompts),
        "max_prompt_tokens": max(prompts, default=0),
        "recall": round(len(found) / len(planted), 4),
        "iterations": state.get("iteration", 0),
        "trend": state.get("new_unique_merges_trend", []),
        "by_code": state.get("deterministic_count", 0),
        "seconds": round(seconds, 2),
    } | extra


def show(label: str, r: dict[str, Any]) -> None:
    print(
        f"{label:<26} tokens {r['prompt_tokens']:>8,}  calls {r['calls']:>3}  "
        f"max prompt {r['max_prompt_tokens']:>6,}  recall {r['recall']:.3f}  "
        f"iterations {r['iterations']} trend {r['trend']}  by code {r['by_code']}  "
        f"{r['seconds']:.1f}s"
    )


async def main() -> None:
    rows, planted = synthesize(2000, 200)
    print(f"{len(rows)} concepts, {len(planted)} planted duplicate pairs")
    full = await run_flow(rows, planted, noema=False, budget=10**7)
    show("full list (spec 000)", full)
    ours = await run_flow(rows, planted, noema=True, budget=BUDGET)
    show("noema (code + blocks)", ours)
    share = ours["prompt_tokens"] / full["prompt_tokens"]
    print(f"noema uses {share:.1%} of the full-list tokens (target <= {TOKEN_TARGET:.0%})")

    big_rows, big_planted = synthesize(5000, 500, seed=11)
    big = await run_flow(big_rows, big_planted, noema=True, budget=BUDGET)
    show("noema at 5,000 concepts", big)
    print(f"largest prompt at 5,000 concepts: {big['max_prompt_tokens']:,} (budget {BUDGET:,})")
    syn = await synonym_runs()
    targets = {
        "equal_recall": ours["recall"] >= full["recall"],
        "token_share_max": TOKEN_TARGET,
        "token_share_ok": share <= TOKEN_TARGET,
        "budget": BUDGET,
        "budget_ok_at_5000": big["max_prompt_tokens"] <= BUDGET,
        "vectors_raise_synonym_recall": (
            syn["with_vectors"]["focus_recall"] > syn["without_vectors"]["focus_recall"]
        ),
    }
    print(
        json.dumps(
            {
                "full_list": full,
                "noema": ours,
                "noema_5000": big,
                "token_share": round(share, 4),
                "synonyms": syn,
                "targets": targets,
            }
        )
    )


async def synonym_runs() -> dict[str, Any]:
    """Noema with and without near stored vectors, on 2,000 concepts plus synonym pairs."""
    rows, planted = synthesize(2000, 200)
    synonyms = add_synonyms(rows, SYNONYM_PAIRS)
    vectors = synthetic_vectors(rows, synonyms)
    print(
        f"{len(rows)} concepts, {len(planted)} planted pairs + {len(synonyms)} synonym pairs"
        " sharing no word, vectors stored"
    )
    runs: dict[str, Any] = {"pairs": len(synonyms)}
    for label, use in (("without_vectors", False), ("with_vectors", True)):
        r = await run_flow(
            rows,
            planted | synonyms,
            noema=True,
            budget=BUDGET,
            vectors=vectors,
            use_vectors=use,
            focus=synonyms,
        )
        show(f"noema {label.replace('_', ' ')}", r)
        print(f"{'':<26} synonym recall {r['focus_recall']:.3f}")
        runs[label] = r
    return runs


if __name__ == "__main__":
    asyncio.run(main())
