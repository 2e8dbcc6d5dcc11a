"""SQLite statements as PostgreSQL runs them: the one place that knows the differences.

noema's SQL is written once, for SQLite (the embedded default). With the PostgreSQL backend
each statement on a shared table is rewritten here, once per distinct text (cached):

- parameters: `?` -> `%s`, `:name` -> `%(name)s`, and a literal `%` doubled (psycopg's style);
- `INSERT OR IGNORE` -> `ON CONFLICT DO NOTHING`; `INSERT OR REPLACE` / `REPLACE INTO` ->
  `ON CONFLICT (primary key) DO UPDATE SET` every other column (the table's key from the
  catalog);
- an INSERT into a table with an `INTEGER PRIMARY KEY` gains `RETURNING id` so the cursor's
  `lastrowid` works as in sqlite3;
- `LIKE` -> `ILIKE` (SQLite's LIKE ignores ASCII case), `x IS ?` -> `IS NOT DISTINCT FROM`,
  `==` -> `=`, `LIMIT -1` -> `LIMIT ALL`, `rowid` -> `ctid` (insertion order for rows that
  were never updated).

Functions SQLite has and PostgreSQL lacks (json_extract, ifnull, instr, group_concat,
datetime('now'), round(real, n)) and the NOCASE collation are created in the database by
POSTGRES_PRELUDE instead, so they need no rewriting. Schema migrations go through
`ddl_to_postgres` (types: INTEGER -> BIGINT, REAL -> DOUBLE PRECISION, BLOB -> BYTEA,
INTEGER PRIMARY KEY -> an identity column).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from core.store.sqltext import Token, join, significant, tokenize


@dataclass(frozen=True)
class TableInfo:
    """What the rewrite needs to know about a table (read from PostgreSQL's catalog)."""

    columns: tuple[str, ...]
    key: tuple[str, ...] = ()
    """Primary key columns (the conflict target of `INSERT OR REPLACE`)."""
    identity: str | None = None
    """The `INTEGER PRIMARY KEY` column (an identity column in PostgreSQL)."""


@dataclass(frozen=True)
class Translated:
    sql: str
    returns_rowid: bool = False
    """`RETURNING <identity>` was added: its value is the cursor's lastrowid, not a row."""


class UnsupportedStatement(ValueError):
    """A statement the PostgreSQL rewrite cannot express."""


_SPACE = Token("space", " ")


@dataclass
class Dialect:
    """Rewrites statements for one PostgreSQL schema (cached per statement text)."""

    tables: Mapping[str, TableInfo] = field(default_factory=dict)
    _cache: dict[str, Translated] = field(default_factory=dict)

    def translate(self, sql: str) -> Translated:
        found = self._cache.get(sql)
        if found is None:
            found = self._translate(sql)
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[sql] = found
        return found

    def _translate(self, sql: str) -> Translated:
        tokens = list(tokenize(sql.strip().rstrip(";")))
        tokens, conflict, table = _insert_mode(tokens)
        tokens = _rewrite_tokens(tokens)
        info = self.tables.get(table or "")
        if info is not None:
            tokens = _qualify_upsert(tokens, table or "", info.columns)
        tail: list[str] = []
        if conflict is not None:
            tail.append(self._conflict_clause(conflict, table, tokens))
        returns_rowid = False
        if table and info and info.identity and not _has_word(tokens, "RETURNING"):
            tail.append(f"RETURNING {info.identity}")
            returns_rowid = True
        text = join(tokens)
        if tail:
            text = _insert_before_returning(text, tokens, " ".join(tail))
        return Translated(text, returns_rowid)

    def _conflict_clause(self, mode: str, table: str | None, tokens: list[Token]) -> str:
        if mode == "IGNORE":
            return "ON CONFLICT DO NOTHING"
        info = self.tables.get(table or "")
        if info is None or not info.key:
            raise UnsupportedStatement(
                f"INSERT OR REPLACE into {table!r}: the table has no primary key in PostgreSQL"
            )
        columns = _insert_columns(tokens) or list(info.columns)
        updates = [c for c in columns if c not in info.key]
        target = ", ".join(info.key)
        if not updates:
            return f"ON CONFLICT ({target}) DO NOTHING"
        sets = ", ".join(f"{c} = EXCLUDED.{c}" for c in updates)
        return f"ON CONFLICT ({target}) DO UPDATE SET {sets}"


def _has_word(tokens: list[Token], word: str) -> bool:
    return any(t.is_word(word) for t in tokens)


def _insert_mode(tokens: list[Token]) -> tuple[list[Token], str | None, str | None]:
    """Strips `OR IGNORE` / `OR REPLACE` (and turns `REPLACE INTO` into `INSERT INTO`):
    (tokens, "IGNORE" | "REPLACE" | None, target table or None when not an INSERT)."""
    idx = [i for i, t in enumerate(tokens) if t.kind not in ("space", "comment")]
    if not idx:
        return tokens, None, None
    first = tokens[idx[0]]
    mode = None
    if first.is_word("REPLACE"):
        tokens[idx[0]] = Token("word", "INSERT")
        mode = "REPLACE"
    elif not first.is_word("INSERT"):
        return tokens, None, None
    elif len(idx) > 2 and tokens[idx[1]].is_word("OR"):
        mode = tokens[idx[2]].upper
        if mode not in ("IGNORE", "REPLACE", "ABORT", "FAIL", "ROLLBACK"):
            raise UnsupportedStatement(f"INSERT OR {mode}")
        del tokens[idx[1] : idx[2] + 1]
        mode = mode if mode in ("IGNORE", "REPLACE") else None
    words = significant(tokens)
    into = next((i for i, t in enumerate(words) if t.is_word("INTO")), None)
    if into is None or into + 1 >= len(words):
        return tokens, mode, None
    name_at = into + 3 if into + 2 < len(words) and words[into + 2].text == "." else into + 1
    return tokens, mode, words[name_at].name


def _insert_columns(tokens: list[Token]) -> list[str]:
    """The column list of `INSERT INTO t (a, b) ...`, [] when the statement has none."""
    words = significant(tokens)
    into = next(i for i, t in enumerate(words) if t.is_word("INTO"))
    i = into + (3 if into + 2 < len(words) and words[into + 2].text == "." else 1) + 1
    if i >= len(words) or words[i].text != "(":
        return []
    columns = []
    for token in words[i + 1 :]:
        if token.text == ")":
            break
        if token.kind in ("word", "quoted"):
            columns.append(token.name)
    return columns


def _rewrite_tokens(tokens: list[Token]) -> list[Token]:
    out: list[Token] = []
    words = [i for i, t in enumerate(tokens) if t.kind not in ("space", "comment")]
    nxt = {a: b for a, b in zip(words, words[1:], strict=False)}
    prev = {b: a for a, b in zip(words, words[1:], strict=False)}
    skip_to = -1
    for i, token in enumerate(tokens):
        if i <= skip_to:
            continue
        after = tokens[nxt[i]] if i in nxt else None
        before = tokens[prev[i]] if i in prev else None
        if token.kind == "param":
            out.append(_param(token))
        elif token.kind in ("string", "op") and "%" in token.text:
            out.append(Token(token.kind, token.text.replace("%", "%%")))
        elif token.text == "==":
            out.append(Token("op", "="))
        elif token.is_word("LIKE"):
            out.append(Token("word", "ILIKE"))
        elif token.is_word("ROWID", "_ROWID_"):
            out.append(Token("word", "ctid"))
        elif token.is_word("IS") and after is not None and after.kind == "param":
            out.append(Token("word", "IS NOT DISTINCT FROM"))
        elif token.is_word("IS") and after is not None and after.is_word("NOT"):
            following = tokens[nxt[nxt[i]]] if nxt.get(i) in nxt else None
            if following is not None and following.kind == "param":
                out.append(Token("word", "IS DISTINCT FROM"))
                skip_to = nxt[i]
            else:
                out.append(token)
        elif token.text == "-" and before is not None and before.is_word("LIMIT"):
            if after is not None and after.text == "1":
                out.append(Token("word", "ALL"))
                skip_to = nxt[i]
            else:
                out.append(token)
        else:
            out.append(token)
    return out


def _qualify_upsert(tokens: list[Token], table: str, columns: tuple[str, ...]) -> list[Token]:
    """In `ON CONFLICT ... DO UPDATE SET a = f(b) WHERE c`, SQLite reads a bare `b` or `c` as
    the existing row's column; PostgreSQL calls it ambiguous: it becomes `table.b`."""
    words = [i for i, t in enumerate(tokens) if t.kind not in ("space", "comment")]
    start = next(
        (
            n
            for n, i in enumerate(words[:-2])
            if tokens[i].is_word("DO")
            and tokens[words[n + 1]].is_word("UPDATE")
            and tokens[words[n + 2]].is_word("SET")
        ),
        None,
    )
    if start is None:
        return tokens
    out = list(tokens)
    known = set(columns)
    depth, target = 0, True
    for n in range(start + 3, len(words)):
        i = words[n]
        token = tokens[i]
        before = tokens[words[n - 1]].text
        after = tokens[words[n + 1]].text if n + 1 < len(words) else ""
        if token.text == "(":
            depth += 1
        elif token.text == ")":
            depth -= 1
        elif token.text == "," and depth == 0:
            target = True
            continue
        elif token.is_word("WHERE", "RETURNING") and depth == 0:
            target = False
        elif (
            token.kind == "word"
            and token.name in known
            and before != "."
            and after not in (".", "(")
            and not target
        ):
            out[i] = Token("word", f"{table}.{token.text}")
        if token.text == "=" and depth == 0:
            target = False
    return out


def _param(token: Token) -> Token:
    if token.text == "?":
        return Token("param", "%s")
    if token.text.startswith(":"):
        return Token("param", f"%({token.text[1:]})s")
    raise UnsupportedStatement(f"numbered parameter {token.text}: use ? or :name")


def _insert_before_returning(text: str, tokens: list[Token], clause: str) -> str:
    """`clause` goes before a top-level RETURNING, else at the end."""
    depth = 0
    offset = 0
    for token in tokens:
        if token.text == "(":
            depth += 1
        elif token.text == ")":
            depth -= 1
        elif depth == 0 and token.is_word("RETURNING"):
            return f"{text[:offset].rstrip()} {clause} {text[offset:]}"
        offset += len(token.text)
    return f"{text.rstrip()} {clause}"


# -- schema migrations -------------------------------------------------------------------------

_TYPES = {
    "INTEGER": "BIGINT",
    "INT": "BIGINT",
    "REAL": "DOUBLE PRECISION",
    "DOUBLE": "DOUBLE PRECISION",
    "FLOAT": "DOUBLE PRECISION",
    "BLOB": "BYTEA",
}


def ddl_to_postgres(statement: str) -> str:
    """A CREATE TABLE / ALTER TABLE / CREATE INDEX / INSERT ... SELECT of a migration as
    PostgreSQL runs it (column types mapped; `INTEGER PRIMARY KEY` becomes an identity)."""
    tokens = list(tokenize(statement))
    head = [t.upper for t in significant(tokens)[:3]]
    if head[:2] not in (["CREATE", "TABLE"], ["ALTER", "TABLE"]):
        return Dialect().translate(statement).sql
    words = [i for i, t in enumerate(tokens) if t.kind not in ("space", "comment")]
    out: list[Token] = []
    depth = 0
    for n, i in enumerate(words):
        token = tokens[i]
        depth += token.text == "("
        depth -= token.text == ")"
        following = [tokens[j].upper for j in words[n + 1 : n + 3]]
        if token.is_word("INTEGER") and following == ["PRIMARY", "KEY"]:
            out.append(Token("word", "BIGINT GENERATED BY DEFAULT AS IDENTITY"))
        elif token.is_word(*_TYPES):
            out.append(Token("word", _TYPES[token.upper]))
        elif (
            token.is_word("AUTOINCREMENT")
            or depth == 0
            and token.is_word("WITHOUT", "ROWID", "STRICT")
        ):
            continue
        else:
            out.append(token)
        out.append(_SPACE)
    return join(out).strip()


POSTGRES_PRELUDE = r"""
CREATE OR REPLACE FUNCTION json_extract(doc text, path text) RETURNS text
    LANGUAGE sql IMMUTABLE AS $$ SELECT jsonb_path_query_first(doc::jsonb, path::jsonpath) #>> '{}' $$;
CREATE OR REPLACE FUNCTION ifnull(a anycompatible, b anycompatible) RETURNS anycompatible
    LANGUAGE sql IMMUTABLE AS $$ SELECT COALESCE(a, b) $$;
CREATE OR REPLACE FUNCTION instr(haystack text, needle text) RETURNS integer
    LANGUAGE sql IMMUTABLE AS $$ SELECT strpos(haystack, needle) $$;
CREATE OR REPLACE FUNCTION round(x double precision, digits integer) RETURNS double precision
    LANGUAGE sql IMMUTABLE AS $$ SELECT round(x::numeric, digits)::double precision $$;
CREATE OR REPLACE FUNCTION datetime(what text) RETURNS text
    LANGUAGE sql STABLE AS $$
        SELECT to_char(CASE WHEN lower(what) = 'now' THEN now() ELSE what::timestamptz END
                       AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') $$;
CREATE OR REPLACE FUNCTION noema_concat_step(acc text, value text, sep text) RETURNS text
    LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE WHEN value IS NULL THEN acc WHEN acc IS NULL THEN value
                    ELSE acc || sep || value END $$;
CREATE OR REPLACE FUNCTION noema_concat_step(acc text, value text) RETURNS text
    LANGUAGE sql IMMUTABLE AS $$ SELECT noema_concat_step(acc, value, ',') $$;
CREATE OR REPLACE AGGREGATE group_concat(text, text) (SFUNC = noema_concat_step, STYPE = text);
CREATE OR REPLACE AGGREGATE group_concat(text) (SFUNC = noema_concat_step, STYPE = text);
DO $$ BEGIN
    CREATE COLLATION nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
"""
"""SQLite's functions and its NOCASE collation, made in PostgreSQL (idempotent)."""
