"""Slot choice on the bundled chat server: a kind of call keeps the slot holding its prompt."""

from __future__ import annotations

import asyncio
from pathlib import Path

from local_llm import ModelConfig
from local_llm.backends.litellm_backend import LiteLLMBackend
from local_llm.backends.local_backend import LocalBackend
from local_llm.slot_affinity import SlotAffinity, kind_of
from local_llm.testing import ScriptedBackend
from tests.local_llm.test_backends import FakeLiteLLM

CRITIQUE = [
    {"role": "system", "content": "Évalue l'extraction 🧪"},
    {"role": "user", "content": "v1"},
]
REFINE = [{"role": "system", "content": "Corrige l'extraction"}, {"role": "user", "content": "v1"}]
SHORT = [{"role": "system", "content": f"Tâche courte n°{n}"} for n in range(6)]


def test_a_long_prompt_keeps_its_slot_while_other_kinds_come_and_go():
    """The critique's 1,900-token prompt, then a refinement and four kinds of short calls,
    then the critique again: it finds its slot as it left it (with one slot per kind of call
    it would have been taken by the fourth short kind)."""
    slots = SlotAffinity(4)
    first = slots.take(kind_of(CRITIQUE), 1900)
    slots.give_back(first)
    refine = slots.take(kind_of(REFINE), 1300)
    slots.give_back(refine)
    for message in SHORT[:4]:
        slots.give_back(slots.take(kind_of([message]), 500))
    assert slots.take(kind_of(CRITIQUE), 1950) == first
    assert slots.take(kind_of(REFINE), 1300) == refine


def test_calls_of_one_kind_sent_at_once_go_to_several_slots():
    slots = SlotAffinity(4)
    taken = [slots.take(kind_of(SHORT[:1]), 400) for _ in range(4)]
    assert sorted(taken) == [0, 1, 2, 3]
    fifth = slots.take(kind_of(SHORT[:1]), 400)  # all busy: queued on one of them
    assert fifth in taken


def test_the_kind_is_the_instructions_whatever_follows():
    other_user = [CRITIQUE[0], {"role": "user", "content": "v2 — otra versión"}]
    assert kind_of(CRITIQUE) == kind_of(other_user) != kind_of(REFINE)


async def test_the_local_backend_asks_for_the_slot_with_several_and_none_with_one():
    config = ModelConfig(provider="local", model="gemma3-270m", max_tokens=64)
    sent = {}
    for parallel in (1, 4):
        inner = ScriptedBackend(["a", "b", "c"])
        backend = LocalBackend(Path("/nonexistent"), parallel=parallel, inner=lambda i=inner: i)
        backend.resolved = lambda config, mode: config  # type: ignore[method-assign]

        def ask(messages, backend=backend):
            return backend.complete(messages, json_schema=None, config=config)

        await ask(CRITIQUE)
        await asyncio.gather(ask(SHORT[:1]), ask(REFINE))
        sent[parallel] = [call.slot for call in inner.calls]
    assert sent[1] == [None, None, None]
    critique, short, refine = sent[4]
    assert len({critique, short, refine}) == 3  # the critique's slot was left to it


async def test_litellm_sends_the_slot_to_llama_cpp():
    backend = LiteLLMBackend()
    backend._litellm = fake = FakeLiteLLM()
    config = ModelConfig(model="openai/gemma3-270m", base_url="http://127.0.0.1:9/v1")
    await backend.complete(CRITIQUE, json_schema=None, config=config, slot=2)
    assert fake.calls[0]["extra_body"] == {"id_slot": 2, "cache_prompt": True}
    await backend.complete(CRITIQUE, json_schema=None, config=config)
    assert "extra_body" not in fake.calls[1]
