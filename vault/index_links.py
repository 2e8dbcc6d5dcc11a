"""The index's view of every file of the vault, and each link resolved to the file it opens.

A link's resolution depends on the whole vault (a new note with the same name in the linking
note's folder takes its links over), so when files appear or go, the links whose target name
they share are resolved again; a changed note's own links are resolved before they are stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

from vault.db import Db
from vault.resolve import LinkResolver, name_key

if TYPE_CHECKING:
    from vault.index_rows import LinkRow

TARGET: Final = 1
"""Position of the written target in a links row (see vault.index_rows)."""
RESOLVED: Final = 8
"""Position of resolved_path in a links row (its last column)."""


def name_keys(paths: Iterable[str]) -> set[str]:
    """The link target names under which these files are found (`x` and `x.md` for a note)."""
    keys = set()
    for path in paths:
        name = name_key(path.rsplit("/", 1)[-1])
        keys.add(name)
        if name.endswith(".md"):
            keys.add(name[:-3])
    return keys


def resolver_from_db(db: Db) -> LinkResolver:
    """Every file the index knows: notes and the vault's other files."""
    paths = [r[0] for r in db.query("SELECT path FROM notes")]
    paths += [r[0] for r in db.query("SELECT path FROM vault_files")]
    return LinkResolver(paths)


def resolve_rows(rows: list[LinkRow], resolver: LinkResolver) -> list[LinkRow]:
    """Links rows (vault.index_rows) with their resolved_path filled in."""
    return [(*row[:RESOLVED], resolver.resolve(row[TARGET], row[0])) for row in rows]


def re_resolve(db: Db, resolver: LinkResolver, names: set[str], skip: set[str]) -> int:
    """Resolve again every stored link whose target name is one of `names` (files with that
    name appeared or went); links of the notes in `skip` were just resolved. Returns how many
    changed."""
    if not names:
        return 0
    keys = sorted(names)
    changed: list[tuple[str | None, int]] = []
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        rows = db.query(
            "SELECT rowid, source_path, target, resolved_path FROM links"
            f" WHERE target_name IN ({','.join('?' * len(chunk))})",
            chunk,
        )
        for rowid, source, target, old in rows:
            if source in skip:
                continue
            new = resolver.resolve(target, source)
            if new != old:
                changed.append((new, rowid))
    db.executemany("UPDATE links SET resolved_path=? WHERE rowid=?", changed)
    return len(changed)


def sync_files_table(db: Db, files: dict[str, str]) -> set[str]:
    """Make `vault_files` hold exactly `files` (path -> kind); the paths added or removed."""
    known = {r[0]: r[1] for r in db.query("SELECT path, kind FROM vault_files")}
    gone = [p for p in known if p not in files]
    fresh = [(p, k) for p, k in files.items() if known.get(p) != k]
    db.executemany("DELETE FROM vault_files WHERE path=?", [(p,) for p in gone])
    db.executemany("INSERT OR REPLACE INTO vault_files (path, kind) VALUES (?, ?)", fresh)
    return set(gone) | {p for p, _ in fresh if p not in known}
