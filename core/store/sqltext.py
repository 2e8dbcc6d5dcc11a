"""SQL text as tokens: enough lexing to rewrite SQLite statements without touching literals.

Strings ('...'), quoted identifiers ("..." and [...] and `...`), comments, words, numbers,
parameters (`?`, `?NNN`, `:name`) and single punctuation characters. Joining the tokens gives
back the exact text, so a rewrite changes only the tokens it means to.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from functools import lru_cache

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<comment>--[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<string>'(?:[^']|'')*'?)
  | (?P<quoted>"(?:[^"]|"")*"?|\[[^\]]*\]?|`(?:[^`]|``)*`?)
  | (?P<param>\?\d*|:[A-Za-z_][A-Za-z0-9_]*)
  | (?P<word>[A-Za-z_][A-Za-z0-9_$]*)
  | (?P<number>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)
  | (?P<op>\|\||<>|<=|>=|!=|==|::|.)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class Token:
    kind: str
    """space, comment, string, quoted, param, word, number or op."""
    text: str

    @property
    def upper(self) -> str:
        return self.text.upper()

    def is_word(self, *words: str) -> bool:
        return self.kind == "word" and self.text.upper() in words

    @property
    def name(self) -> str:
        """An identifier's name as SQLite compares it: unquoted, lower-cased."""
        if self.kind == "quoted":
            return self.text[1:-1].lower()
        return self.text.lower()


@lru_cache(maxsize=2048)
def tokenize(sql: str) -> tuple[Token, ...]:
    """Every token of `sql`, whitespace and comments included (cached: statements repeat)."""
    return tuple(Token(m.lastgroup or "op", m.group()) for m in _TOKEN.finditer(sql))


def significant(tokens: tuple[Token, ...] | list[Token]) -> list[Token]:
    """The tokens without whitespace and comments."""
    return [t for t in tokens if t.kind not in ("space", "comment")]


def join(tokens: list[Token] | tuple[Token, ...]) -> str:
    return "".join(t.text for t in tokens)


def split_script(script: str) -> list[str]:
    """The statements of a script, each without its final `;` (triggers' BEGIN ... END kept
    whole: a `;` ends a statement only where SQLite itself says the statement is complete)."""
    statements, current = [], ""
    for token in tokenize(script):
        current += token.text
        if token.text == ";" and sqlite3.complete_statement(current):
            statement = current.strip()[:-1].strip()
            if significant(tokenize(statement)):
                statements.append(statement)
            current = ""
    rest = current.strip()
    if significant(tokenize(rest)):
        statements.append(rest)
    return statements
