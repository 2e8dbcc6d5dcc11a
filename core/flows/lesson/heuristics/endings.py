"""Whether a block is finished: the shape of its end, per block kind.

A model that runs out of tokens stops at an arbitrary token: inside a word, after a comma or
a conjunction, inside a table row, a formula or a code statement. A finished block ends with
terminal punctuation, or with something that cannot be the middle of a sentence: a closed
formula or code span, a URL, an emoji or another symbol, a closing bracket or quotation mark.
Lists, tables, code and formulas are judged by their own structure (the last item against its
siblings, the last row against the header, balanced brackets, a statement or formula that does
not end on an operator).
"""

from __future__ import annotations

import re
from typing import Literal

from core.flows.lesson.heuristics.lexicon import ends_on_function_word
from core.flows.lesson.heuristics.notation import EMOJI, INLINE_CODE, INLINE_MATH, URL
from core.flows.lesson.heuristics.parse import LIST_ITEM, Block

Tail = Literal["complete", "separator", "colon", "open", "word"]

TERMINAL = set(".!?。！？…؟।‼⁉")
SEPARATORS = set(",;、，；(（[{-–—/+=&*×·")
CLOSERS = ")]}\"'»”’“›」』】）*_`~"
OPENERS = {"(": ")", "[": "]", "{": "}", "「": "」", "『": "』", "【": "】", "（": "）"}
SENTENCE_END = re.compile(r"(?<=[.!?。！？])[\s»”“\"')*_]*\s(?=\S)")
CURRENCY = re.compile(r"\$\s?\d[\d.,]*(?:\s?(?:[kKmMbB]n?|million|billion))?(?![\w$^_{])")
TRAILING_EMOJI = re.compile(f"(?:{EMOJI.pattern}|\\s)+$")
PYTHON_FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})\s*(?:python3?|py)\b", re.IGNORECASE)
ORDERED_FIRST = re.compile(r"^\s*1[.)]\s")
FOOTNOTE_END = re.compile(r"\s*\[\^?\d+(?:\s*[,–-]\s*\d+)*\]$")
ATTRIBUTION = re.compile(r"^\s*(?:[—–~-]|\(\s*\w)")
CODE_OPERATOR_END = re.compile(r"(?:[,(\[{=+\-*/\\%&|<>.^]|\band|\bor|\bnot)\s*$")
FORMULA_OPERATOR_END = re.compile(
    r"(?:[=+\-*/,(\[{<>^_]|\\(?:cdot|times|div|pm|mp|le|ge|leq|geq|neq|approx|to|Rightarrow|"
    r"Leftrightarrow|implies|iff|in|subset|cup|cap|frac|sqrt|left|quad|qquad))\s*$"
)
CODE_COMMENT = re.compile(r"(?:#|//|--)\s.*$|/\*.*?\*/")
CODE_STRING = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'")


def _quotes_open(text: str) -> bool:
    """A quotation mark opened and not closed (German „…“ and English “…” both counted)."""
    if "„" in text:
        return text.count("„") > text.count("“")
    return text.count("“") > text.count("”") or text.count("«") > text.count("»")


def _unbalanced(text: str) -> bool:
    """An opened bracket, quotation mark, inline math, code span or emphasis left open."""
    plain = CURRENCY.sub(" ", INLINE_MATH.sub(" ", URL.sub(" ", INLINE_CODE.sub(" ", text))))
    last = SENTENCE_END.split(plain.strip())[-1]  # what the cut left open: the last sentence
    if last.count("`") % 2 or last.count("**") % 2:
        return True
    if len(re.findall(r"(?<![\\$])\$(?!\$)", last)) % 2:
        return True
    singles = re.sub(r"\*\*|^\s*\*\s", "", last, flags=re.MULTILINE)
    if len(re.findall(r"(?<![\s\\])\*|\*(?!\s)", singles)) % 2:
        return True
    return _quotes_open(last) or any(last.count(o) > last.count(c) for o, c in OPENERS.items())


def _ends_with_notation(text: str) -> bool:
    """Whether the text ends with a URL, a closed formula or a closed code span."""
    for notation in (URL, INLINE_MATH, INLINE_CODE):
        ends = [match.end() for match in notation.finditer(text)]
        if ends and ends[-1] >= len(text):
            return True
    return False


def tail(text: str, language: str = "") -> Tail:
    """How a piece of running text ends (see the module docstring)."""
    text = text.rstrip()
    stripped = TRAILING_EMOJI.sub("", text)
    if not text or not stripped or stripped != text:
        return "complete" if text else "word"  # an emoji ends it
    bare = FOOTNOTE_END.sub("", stripped).rstrip()
    if bare[-1] in TERMINAL:
        return "complete"
    if _unbalanced(bare):
        return "open"
    if _ends_with_notation(bare) or bare != stripped or bare[-1] in CLOSERS:
        return "complete"
    last = bare[-1]
    if last in ":：":
        return "colon"
    if last in SEPARATORS:
        return "separator"
    if not last.isalnum():
        return "complete"  # a symbol: °, %, →, ✓, ♯, ™...
    if language and ends_on_function_word(bare, language):
        return "separator"
    return "word"


def _item_texts(block: Block) -> list[str]:
    """Each list item's text (continuation lines joined), markers removed."""
    items: list[str] = []
    for line in block.lines:
        if LIST_ITEM.match(line) and not line.startswith(("  ", "\t")) or not items:
            items.append(LIST_ITEM.sub("", line, count=1).strip())
        else:
            items[-1] += " " + line.strip()
    return items


def _parallel_cut(last: str, siblings: list[str]) -> bool:
    """The last item stops where all its siblings go on: their final parts (after the last
    comma, semicolon or dash) begin with the words the last item ends with."""
    split = re.compile(r"[,;–—:]")
    end = split.split(last)[-1].split()
    if not end or len(siblings) < 2:
        return False
    parts = [split.split(s)[-1].split() for s in siblings]
    return all(
        len(p) > len(end) and [w.lower() for w in p[: len(end)]] == [w.lower() for w in end]
        for p in parts
    )


def list_signs(block: Block, language: str) -> list[str]:
    """Why the list's last item looks cut off."""
    items = _item_texts(block)
    last, siblings = items[-1], items[:-1]
    if not last:
        return ["the list ends with an empty item"]
    if not siblings and ORDERED_FIRST.match(block.lines[0]):
        return ["a numbered list stops after its first item"]
    state = tail(last, language)
    if state in ("open", "separator", "colon"):
        return [f"the last list item breaks off ({state})"]
    if state == "complete":
        return []
    if siblings and all(tail(s) == "complete" and s.rstrip()[-1:] in TERMINAL for s in siblings):
        return ["the last list item stops mid-sentence (the others end with a full stop)"]
    marks = {s.rstrip()[-1:] for s in siblings}
    if len(siblings) >= 2 and len(marks) == 1 and not marks.pop().isalnum():
        return ["the last list item stops where the others end with a punctuation mark"]
    if _parallel_cut(last, siblings):
        return ["the last list item stops where the others go on"]
    return []


def _cells(row: str) -> list[str]:
    inner = row.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") else inner
    return [c.strip() for c in inner.split("|")]


def table_signs(block: Block) -> list[str]:
    """A last row that is shorter than the header, unclosed, or ends on a separator."""
    rows = [r for r in block.lines if r.strip()]
    header, last = rows[0], rows[-1].rstrip()
    if len(rows) <= 2 and all(set(c) <= set(":- ") for c in _cells(rows[-1])):
        return ["the table has no rows"]
    if header.rstrip().endswith("|") and not last.endswith("|"):
        return ["the table's last row is not closed"]
    if len(_cells(last)) < len(_cells(header)):
        return ["the table's last row has fewer cells than the header"]
    body = [r for r in rows[2:-1] if not set(r.strip()) <= set("|:- ")]
    if not _cells(last)[-1] and body and all(_cells(r)[-1] for r in body):
        return ["the table's last row stops before its last cell"]
    cell = _cells(last)[-1]
    if cell and tail(cell) in ("open", "separator"):
        return ["the table's last cell breaks off"]
    return []


def code_signs(block: Block) -> list[str]:
    """An unclosed fence, or a last statement that cannot be complete."""
    if not block.closed:
        return ["the code block is never closed"]
    body = [CODE_COMMENT.sub("", CODE_STRING.sub('""', ln)) for ln in block.lines[1:-1]]
    body = [ln for ln in body if ln.strip()]
    if not body:
        return []
    text = "\n".join(body)
    if sum(text.count(o) for o in "([{") > sum(text.count(c) for c in ")]}"):
        return ["the code stops inside an open bracket"]
    if CODE_OPERATOR_END.search(body[-1]):
        return ["the last code statement stops on an operator"]
    if body[-1].rstrip().endswith(":") and PYTHON_FENCE.match(block.lines[0]):
        return ["the Python block stops after a line that opens a block"]
    return []


def formula_signs(block: Block) -> list[str]:
    """An unclosed display formula, unbalanced braces, or one that ends on an operator."""
    if not block.closed:
        return ["the display formula is never closed"]
    inner = re.sub(r"^\s*(?:\$\$|\\\[)|(?:\$\$|\\\])\s*[.,;]?\s*$", "", block.text.strip())
    inner = inner.replace("\\{", "").replace("\\}", "").strip()
    if inner.count("{") != inner.count("}"):
        return ["the formula's braces are not balanced"]
    if inner.count("\\left") > inner.count("\\right"):
        return ["the formula has a \\left without its \\right"]
    if FORMULA_OPERATOR_END.search(inner.rstrip("\\ &")):
        return ["the formula ends on an operator"]
    return []


def prose_signs(block: Block, language: str, *, display: bool) -> list[str]:
    """A paragraph or quotation that does not end as a finished sentence. A `display` line
    (shown after a colon, e.g. `venir → je vins`) may end without a full stop."""
    lines = (
        [re.sub(r"^\s*>\s?", "", ln) for ln in block.lines]
        if block.kind == "quote"
        else block.lines
    )
    lines = [ln for ln in lines if ln.strip()]
    if not lines:
        return []
    state = tail("\n".join(lines), language)
    verse = block.kind == "quote" and len(lines) >= 2 and all(len(ln) <= 70 for ln in lines)
    if block.kind == "quote" and ATTRIBUTION.match(lines[-1]) and state != "open":
        return []
    lenient = display or verse
    if state == "complete" or (lenient and state in ("word", "colon")):
        return []
    what = {
        "open": "something opened is never closed",
        "separator": "it stops after a separator",
        "colon": "it announces something that never comes",
        "word": "it stops mid-sentence",
    }
    return [f"the {block.kind} ends unfinished: {what[state]}"]
