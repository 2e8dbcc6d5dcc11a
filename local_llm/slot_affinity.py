"""Which slot of the bundled chat server a request goes to (llama.cpp's `id_slot`).

Why: llama.cpp reuses a prompt's start only from the KV cache of the slot that answers it.
A slot that answered another kind of call since has lost it, and its RAM prompt cache does
not make up for it with Gemma 3: a saved state keeps only the last 512 positions of the
sliding-window layers, so a restored prompt is evaluated again from the start unless all but
~500 tokens of it are shared (measured on the extraction's critique: 1,906-token prompts that
shared 1,771 tokens got 0 from the cache after a refinement and three shorter calls in
between, with one slot; 1,771 with the critique kept in its own slot).

So each kind of call (its first message: the instructions, byte-identical across the calls of
a kind) keeps to the slot that answered it last while that slot is free, and a kind seen
for the first time takes the free slot whose prompt is the cheapest to lose (the shortest,
then the least recently used): the long prompts (critique, refinement) keep their slot while
the short ones share the others. Calls of one kind sent at once go to several free slots and
are decoded together. Per process: another noema process on the same server has its own
table (the server still answers; only some reuse is lost).
"""

from __future__ import annotations

import hashlib
import itertools
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass
class _Slot:
    kind: str = ""
    """The kind of call whose prompt the slot holds ("" when none yet)."""
    tokens: int = 0
    """How long that prompt was (what reusing it saves)."""
    used: int = 0
    """When it was last given out (a counter)."""
    busy: int = 0
    """Requests of this process in flight on it."""


def kind_of(messages: Sequence[Mapping[str, object]]) -> str:
    """A call's kind: a digest of its first message (the instructions)."""
    first = str(messages[0].get("content", "")) if messages else ""
    return hashlib.blake2b(first.encode("utf-8"), digest_size=8).hexdigest()


class SlotAffinity:
    """Slot choice for `slots` slots; `take()` before a request, `give_back()` after it."""

    def __init__(self, slots: int):
        if slots < 1:
            raise ValueError("a server has at least one slot")
        self._slots = [_Slot() for _ in range(slots)]
        self._lock = threading.Lock()
        self._clock = itertools.count(1)

    def take(self, kind: str, tokens: int) -> int:
        """The slot for a request of `kind` whose prompt is about `tokens` long."""
        with self._lock:
            slot = self._choose(kind)
            held = self._slots[slot]
            held.kind, held.tokens, held.used = kind, tokens, next(self._clock)
            held.busy += 1
            return slot

    def give_back(self, slot: int) -> None:
        with self._lock:
            self._slots[slot].busy = max(0, self._slots[slot].busy - 1)

    def _choose(self, kind: str) -> int:
        free = [i for i, s in enumerate(self._slots) if not s.busy]
        if not free:  # every slot answers already: queue on the least loaded one
            return min(range(len(self._slots)), key=lambda i: self._slots[i].busy)
        same = [i for i in free if self._slots[i].kind == kind]
        if same:
            return max(same, key=lambda i: self._slots[i].used)
        return min(free, key=lambda i: (self._slots[i].tokens, self._slots[i].used))
