"""The same schema migrations, applied to the shared side in PostgreSQL.

Each migration file is one script for both backends. SQLite runs all of it (the local file
keeps every table, so a user who sets nothing sees no change); PostgreSQL runs the statements
about shared tables (core.store.tables), rewritten by core.store.dialect, each migration in
one transaction with its version in `noema_schema`. Two processes starting at once take an
advisory lock: one migrates, the other finds the work done.
"""

from __future__ import annotations

import psycopg

from core.store.dialect import ddl_to_postgres
from core.store.postgres import MIGRATION_LOCK, PostgresStore, install_prelude
from core.store.sqltext import significant, split_script, tokenize
from core.store.tables import Layout, Side, renamed, route


class SharedSchemaError(Exception):
    """The shared store cannot be migrated (newer than this noema, or a statement that
    cannot run on PostgreSQL)."""


def _words(statement: str) -> list[str]:
    return [t.upper for t in significant(tokenize(statement))]


def _names(statement: str) -> list[str]:
    return [t.name for t in significant(tokenize(statement))]


def index_tables(scripts: list[str]) -> dict[str, str]:
    """index name -> its table, over every migration (for DROP INDEX)."""
    found = {}
    for script in scripts:
        for statement in split_script(script):
            upper, names = _words(statement), _names(statement)
            if upper[:1] == ["CREATE"] and "INDEX" in upper[:3] and "ON" in upper:
                at = upper.index("INDEX") + 1
                if upper[at : at + 3] == ["IF", "NOT", "EXISTS"]:
                    at += 3
                found[names[at]] = names[upper.index("ON") + 1]
    return found


def statement_side(statement: str, layout: Layout, indexes: dict[str, str]) -> Side:
    """Which database a migration statement belongs to."""
    upper, names = _words(statement), _names(statement)

    def side(table: str) -> Side:
        return layout.side_of(table) or "local"

    def name_after(position: int) -> str:
        at = position
        while upper[at] in ("IF", "NOT", "EXISTS"):
            at += 1
        return names[at]

    head = upper[0]
    if head in ("PRAGMA", "VACUUM", "ANALYZE", "REINDEX"):
        return "local"
    if head == "CREATE" and "TRIGGER" in upper[:4]:
        table = names[upper.index("ON") + 1]
        if side(table) == "shared":
            raise SharedSchemaError(
                f"a trigger on the shared table {table} cannot run on PostgreSQL; "
                "do it in code (core/store) instead"
            )
        return "local"
    if head == "CREATE" and "INDEX" in upper[:3]:
        return side(names[upper.index("ON") + 1])
    if head in ("CREATE", "DROP", "ALTER") and "TABLE" in upper[:3]:
        return side(name_after(upper.index("TABLE") + 1))
    if head == "DROP" and upper[1:2] == ["INDEX"]:
        return side(indexes.get(name_after(2), ""))
    if head == "DROP" and upper[1:2] == ["TRIGGER"]:
        return "local"
    return route(statement, layout)


def postgres_statements(statement: str) -> list[str]:
    """The PostgreSQL statements for one shared migration statement."""
    statements = [ddl_to_postgres(statement)]
    if (pair := renamed(statement)) is not None:
        statements.append(_rename_owned(*pair))
    return statements


def _rename_owned(old: str, new: str) -> str:
    """After `ALTER TABLE old RENAME TO new`: its key indexes and identity sequence take the
    new name too, so a later `CREATE TABLE old` (SQLite's rebuild pattern) does not collide."""
    return f"""
DO $$ DECLARE r record; BEGIN
  FOR r IN SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
           JOIN pg_class t ON t.oid = i.indrelid
           WHERE t.relname = '{new}' AND t.relnamespace = current_schema()::regnamespace
             AND left(c.relname, {len(old) + 1}) = '{old}_' LOOP
    EXECUTE format('ALTER INDEX %I RENAME TO %I', r.relname,
                   '{new}' || substr(r.relname, {len(old) + 1}));
  END LOOP;
  FOR r IN SELECT s.relname FROM pg_class s JOIN pg_depend d ON d.objid = s.oid
           JOIN pg_class t ON t.oid = d.refobjid
           WHERE s.relkind = 'S' AND t.relname = '{new}'
             AND t.relnamespace = current_schema()::regnamespace
             AND left(s.relname, {len(old) + 1}) = '{old}_' LOOP
    EXECUTE format('ALTER SEQUENCE %I RENAME TO %I', r.relname,
                   '{new}' || substr(r.relname, {len(old) + 1}));
  END LOOP;
END $$"""


def migrate_shared(pg: PostgresStore, known: list[tuple[int, str, str]], layout: Layout) -> int:
    """Bring the shared store to the latest version; returns it."""
    latest = known[-1][0] if known else 0
    indexes = index_tables([sql for _, _, sql in known])
    conn = pg._connect()
    with pg._lock:
        conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
        try:
            install_prelude(conn)
            conn.execute("CREATE TABLE IF NOT EXISTS noema_schema (version BIGINT NOT NULL)")
            row = conn.execute("SELECT version FROM noema_schema").fetchone()
            if row is None:
                conn.execute("INSERT INTO noema_schema (version) VALUES (0)")
            current = int(row[0]) if row else 0
            if current > latest:
                raise SharedSchemaError(
                    f"the shared store {pg.label} has schema version {current}, newer than "
                    f"this noema knows ({latest}); upgrade noema on this machine"
                )
            for version, name, sql in known:
                if version > current:
                    _apply(conn, version, name, sql, layout, indexes)
            reset_identities(conn, layout)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))
    return max(current, latest)


def _apply(
    conn: psycopg.Connection,
    version: int,
    name: str,
    sql: str,
    layout: Layout,
    indexes: dict[str, str],
) -> None:
    with conn.transaction():
        for statement in split_script(sql):
            if statement_side(statement, layout, indexes) != "shared":
                continue
            for pg_sql in postgres_statements(statement):
                try:
                    conn.execute(pg_sql)
                except Exception as exc:
                    raise SharedSchemaError(
                        f"migration {name} failed on PostgreSQL: {str(exc).strip()} "
                        f"(statement: {' '.join(statement.split())[:200]})"
                    ) from exc
        conn.execute("UPDATE noema_schema SET version = %s", (version,))


def reset_identities(conn: psycopg.Connection, layout: Layout) -> None:
    """Identity sequences continue after the largest id (rows copied with their ids)."""
    rows = conn.execute(
        "SELECT table_name, column_name FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND is_identity = 'YES'"
    ).fetchall()
    for table, column in rows:
        if table in layout.shared:
            conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'),"
                f" COALESCE((SELECT MAX({column}) FROM {table}), 0) + 1, false)"
            )
