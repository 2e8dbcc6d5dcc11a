"""The shape of a free-text answer, which a grammar-capable server can hold the model to.

A streamed answer (the tutor's message and its hints) is free text, so no schema bounds it.
The bundled Gemma 3 270M, asked for one, answered in every tutor turn of four sessions with a
chat-template marker (`<|im_start|>user`, cut at once: an empty message), a loop of
`- [PREPARE]` lines, or 300 tokens of `<|im_end|>user` until the token limit cut it: the
learner read the code's stand-in message every time. Held to a `ProseShape` (a paragraph that
starts with a letter, has no markup brackets or control characters and ends with a
sentence's end, then a few prefixed lines) and sampled with llama.cpp's DRY repetition
penalty, it wrote a paragraph and its hints in 4 of 5 tries, within the limit in all 5.

The shape also bounds the answer's length, so `max_tokens` is derived from it (a token per
character at worst): a valid answer is never cut, on any provider. Only the local backend
sends the grammar; other providers get the derived `max_tokens` and write as they will.
"""

from __future__ import annotations

from dataclasses import dataclass

PLAIN = r"[^<>\[\]{}|#*\\\x00-\x1F\x7F\u00A0\u2000-\u206F\u3000]"
"""A character of plain prose: no markup brackets (where the bundled model's chat-template
markers and `[PLACEHOLDER]` loops start), no control characters, and none of the exotic
spaces it fills a line with (each of which costs it several tokens)."""
OPENING = r"[^a-z<>\[\]{}|#*\\\x00-\x20\x7F\u00A0\u2000-\u206F\u3000\-.,;:)]"
"""The first character of a paragraph or a line: plain, not a space or punctuation that only
continues something, and not a lower-case Latin letter (a sentence starts with a capital; the
bundled model's paragraphs that started lower-case were prompt labels it went on with,
`student: I'm going to...`, `current step: ...`)."""
SENTENCE_END = r"[.?!。？！]"

DRY_SAMPLING = {
    "dry_multiplier": 0.8,
    "dry_base": 1.75,
    "dry_allowed_length": 2,
    "repeat_penalty": 1.1,
}
"""llama.cpp's DRY sampler: repeating a run of tokens already in the answer gets less likely
the longer the run. It is what stopped the bundled model's sentence loops."""


@dataclass(frozen=True)
class ProseShape:
    """One paragraph of `min_chars`-`max_chars` characters, then 0-`max_lines` lines each
    starting with `line_prefix` and holding up to `max_line_chars` characters."""

    max_chars: int
    min_chars: int = 20
    line_prefix: str = ""
    max_lines: int = 0
    max_line_chars: int = 0

    @property
    def longest(self) -> int:
        """Characters of the longest answer the shape allows."""
        line = 1 + len(self.line_prefix) + self.max_line_chars
        return self.max_chars + self.max_lines * line

    @property
    def max_tokens(self) -> int:
        """A token limit no valid answer reaches (one token per character at worst)."""
        return self.longest + 8

    def grammar(self) -> str:
        """The shape as a GBNF grammar for llama.cpp's server."""
        body = max(0, self.max_chars - 2)
        low = max(0, min(self.min_chars - 2, body))
        rules = [f"root ::= para{' lines' if self.max_lines else ''}"]
        rules.append(f"para ::= {OPENING} {PLAIN}{{{low},{body}}} {SENTENCE_END}")
        if self.max_lines:
            prefix = self.line_prefix.replace("\\", "\\\\").replace('"', '\\"')
            line = max(1, self.max_line_chars - 1)
            rules.append(f"lines ::= line{{0,{self.max_lines}}}")
            rules.append(f'line ::= "\\n{prefix}" {OPENING} {PLAIN}{{0,{line}}}')
        return "\n".join(rules) + "\n"
