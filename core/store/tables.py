"""Which tables are shared state and which are this machine's index of its vault.

With `[store] backend = "postgres"` the shared tables live in PostgreSQL, where every machine
and process sees the same runs, reviews, journals, sessions and mastery; the local tables stay
in the SQLite file of the data directory, because they describe this machine's copy of the
vault (paths, hashes, mtimes, full-text and vector indexes) and are rebuilt from it at will.
A statement is sent to the database that holds the tables it names (`route`).

A new table is shared unless it is listed in LOCAL_TABLES (or is an FTS5 virtual table, or a
temporary table renamed into a local one); `tests/core/test_store_dialect.py` makes every new
table a deliberate choice.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from core.store.sqltext import Token, significant, split_script, tokenize

Side = Literal["local", "shared"]

LOCAL_TABLES = frozenset(
    {
        # the vault index (migration 0002 and its successors): one per machine
        "notes",
        "links",
        "concepts",
        "concepts_fts",
        "concept_relations",
        "sources",
        "quotes",
        "quotes_fts",
        "quote_concepts",
        "embeddings",
        "vault_files",
        # problems found in this machine's notes (unreadable, too large)
        "vault_warnings",
    }
)
"""The vault index and what describes this machine's files. Everything else is shared."""

_TABLE_AFTER = {"FROM", "JOIN", "INTO", "UPDATE", "TABLE"}
_ENDS_FROM_LIST = {
    "WHERE",
    "GROUP",
    "ORDER",
    "LIMIT",
    "HAVING",
    "UNION",
    "EXCEPT",
    "INTERSECT",
    "ON",
    "USING",
    "JOIN",
    "INNER",
    "LEFT",
    "RIGHT",
    "FULL",
    "CROSS",
    "NATURAL",
    "SET",
    "VALUES",
    "RETURNING",
    "WINDOW",
    "SELECT",
}
_NOT_A_NAME = {"IF", "NOT", "EXISTS", "ONLY", "LATERAL", "OR", "IGNORE", "REPLACE"}


def _name(tokens: list[Token], i: int) -> str:
    """The table name starting at token i (`schema.table` gives `table`)."""
    if i + 2 < len(tokens) and tokens[i + 1].text == ".":
        return tokens[i + 2].name
    return tokens[i].name


def referenced_tables(sql: str) -> frozenset[str]:
    """Names that stand where a table stands: after FROM, JOIN, INTO, UPDATE, TABLE, and in a
    FROM list after a comma. Lower-cased; CTE names and table functions are included too
    (the caller keeps only tables it knows)."""
    tokens = significant(tokenize(sql))
    found: set[str] = set()
    expect = False
    depth = 0
    from_depths: list[int] = []
    for i, token in enumerate(tokens):
        if token.text == "(":
            depth += 1
            expect = False
            continue
        if token.text == ")":
            depth -= 1
            while from_depths and from_depths[-1] > depth:
                from_depths.pop()
            continue
        if token.kind == "word" and token.upper in _TABLE_AFTER:
            expect = True
            if token.upper == "FROM":
                from_depths.append(depth)
            continue
        ends = token.kind == "word" and token.upper in _ENDS_FROM_LIST
        if ends and from_depths and from_depths[-1] == depth:
            from_depths.pop()
        if expect and token.kind in ("word", "quoted"):
            if token.kind == "word" and token.upper in _NOT_A_NAME:
                continue
            found.add(_name(tokens, i))
            expect = False
            continue
        if token.text == "," and from_depths and from_depths[-1] == depth:
            expect = True
            continue
        expect = False
    return frozenset(found)


@dataclass(frozen=True)
class Layout:
    """Every table the migrations create, split into the two sides."""

    local: frozenset[str]
    shared: frozenset[str]

    def side_of(self, table: str) -> Side | None:
        if table in self.local:
            return "local"
        if table in self.shared:
            return "shared"
        return None


def created_table(statement: str) -> tuple[str, bool] | None:
    """(table, virtual) when the statement creates a table."""
    words = significant(tokenize(statement))
    upper = [t.upper for t in words[:6]]
    if upper[:2] == ["CREATE", "TABLE"] or upper[:3] == ["CREATE", "VIRTUAL", "TABLE"]:
        virtual = upper[1] == "VIRTUAL"
        i = 3 if virtual else 2
        if [t.upper for t in words[i : i + 3]] == ["IF", "NOT", "EXISTS"]:
            i += 3
        return _name(words, i), virtual
    return None


def renamed(statement: str) -> tuple[str, str] | None:
    """(old, new) when the statement is `ALTER TABLE old RENAME TO new`."""
    words = significant(tokenize(statement))
    upper = [t.upper for t in words]
    if upper[:2] == ["ALTER", "TABLE"] and "RENAME" in upper and "TO" in upper:
        to = upper.index("TO")
        if upper[upper.index("RENAME") + 1] == "TO":
            return _name(words, 2), words[to + 1].name
    return None


@lru_cache(maxsize=8)
def layout_of(scripts: tuple[str, ...]) -> Layout:
    """The two sides for these migration scripts (see the module docstring for the rules)."""
    created: dict[str, bool] = {}
    renames: dict[str, str] = {}
    for script in scripts:
        for statement in split_script(script):
            if (made := created_table(statement)) is not None:
                created[made[0]] = made[1]
            if (pair := renamed(statement)) is not None:
                renames[pair[0]] = pair[1]

    def final(name: str) -> str:
        seen = set()
        while name in renames and name not in seen:
            seen.add(name)
            name = renames[name]
        return name

    local = {name for name, virtual in created.items() if virtual or final(name) in LOCAL_TABLES}
    return Layout(frozenset(local), frozenset(set(created) - local))


def route(sql: str, layout: Layout) -> Side:
    """Where a statement runs: `shared` when it names shared tables only, `local` when it
    names local tables or none it knows (PRAGMA, sqlite_master). Both: StatementSpansStores."""
    sides = {layout.side_of(name) for name in referenced_tables(sql)} - {None}
    if sides == {"shared"}:
        return "shared"
    if sides == {"local", "shared"}:
        raise StatementSpansStores(sql)
    return "local"


class StatementSpansStores(ValueError):
    """One statement names a shared table and a local one: they live in two databases."""

    def __init__(self, sql: str) -> None:
        super().__init__(
            "this statement joins shared tables (PostgreSQL) with the local vault index "
            f"(SQLite); read each side on its own: {' '.join(sql.split())[:200]}"
        )
