"""Key hints that follow the keymap: every "press d to drop" names the key bound now.

Bindings carry ids (`extraction.drop`) and `[tui] keymap` in settings remaps them; a hint written
as `key_for(node, "extraction.drop")` shows the remapped key, never the one in the source.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.dom import DOMNode


def declared_key(node: DOMNode, binding_id: str) -> str | None:
    """The keys a binding with this id is declared with, on `node`, its ancestors or the app."""
    chain: list[DOMNode] = [node, *node.ancestors_with_self, node.app]
    for owner in chain:
        bindings = getattr(owner, "_bindings", None)
        if bindings is None:
            continue
        for found in bindings.key_to_bindings.values():
            for binding in found:
                if binding.id == binding_id:
                    return binding.key
    return None


def key_for(node: DOMNode, binding_id: str) -> str:
    """How the key bound to `binding_id` is displayed (after the keymap), e.g. `d`, `^s`."""
    app = node.app
    keys = app._keymap.get(binding_id) or declared_key(node, binding_id)
    if not keys:
        return "?"
    first = keys.split(",")[0].strip()
    return app.get_key_display(Binding(first, ""))


def hints(node: DOMNode, *pairs: tuple[str, str], sep: str = "   ") -> str:
    """`d: drop   f: feedback` from (binding id, what it does) pairs, keys after the keymap."""
    return sep.join(f"{key_for(node, binding_id)}: {what}" for binding_id, what in pairs)
