"""Which file a link points to, the way Obsidian decides it.

Observed in Obsidian 1.x (`metadataCache.getFirstLinkpathDest`, see the tests' fixture vault):

1. `./x` and `../x` are relative to the linking note's folder.
2. A link that names an existing vault path (`[[08 - Ideas/X]]`, `[[X]]` for `X.md` at the
   root, `[t](Sub/X.md)`) is that file, even when a same-named note sits beside the linking
   note. An exact-case path wins over one that differs only in case.
3. Otherwise the file with that name, compared case-insensitively (a note's name without
   `.md`; any file by its full name, `diagram.png`); a link with a folder part (`Sub/X`)
   keeps only files whose path ends with it. Among several, the one in the linking note's own
   folder wins, then the shortest path, then the one written in the same case.

Names are compared in Unicode NFC (macOS writes file names in NFD) while the file's real
name on disk is what a resolution returns.
"""

from __future__ import annotations

import posixpath
import unicodedata
from collections.abc import Iterable


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def name_key(text: str) -> str:
    """How names compare: NFC, lower-cased (as Obsidian's JavaScript `toLowerCase`)."""
    return nfc(text).lower()


def _stem(path: str) -> str:
    return path[:-3] if path.endswith(".md") else path


class LinkResolver:
    """Resolves link targets against a fixed set of vault paths (notes and other files)."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.exact: dict[str, str] = {}
        """NFC path -> real path."""
        self.folded: dict[str, list[str]] = {}
        """name_key(path) -> real paths (several when they differ only in case)."""
        self.by_name: dict[str, list[str]] = {}
        """name_key(file name, and a note's name without .md) -> real paths."""
        for path in paths:
            self.add(path)

    def add(self, path: str) -> None:
        norm = nfc(path)
        self.exact[norm] = path
        self.folded.setdefault(norm.lower(), []).append(path)
        name = norm.rsplit("/", 1)[-1].lower()
        self.by_name.setdefault(name, []).append(path)
        if name.endswith(".md"):
            self.by_name.setdefault(name[:-3], []).append(path)

    def remove(self, path: str) -> None:
        norm = nfc(path)
        if self.exact.get(norm) != path:
            return
        del self.exact[norm]
        name = norm.rsplit("/", 1)[-1].lower()
        for key, table in (
            (norm.lower(), self.folded),
            (name, self.by_name),
            (name[:-3], self.by_name),
        ):
            paths = table.get(key)
            if paths and path in paths:
                paths.remove(path)
                if not paths:
                    del table[key]

    def __contains__(self, path: str) -> bool:
        return nfc(path) in self.exact

    def resolve(self, target: str, source: str = "") -> str | None:
        """The real vault path a link target (as written, URL-decoded, without `#...`) from
        the note at `source` points to; None when it is unresolved. An empty target (`[[#H]]`)
        is the linking note itself."""
        written = nfc(target.strip())
        if not written:
            return source or None
        folder = posixpath.dirname(source)
        if written.startswith(("./", "../")):
            return self._path(posixpath.normpath(posixpath.join(folder, written)))
        written = written.lstrip("/")
        found = self._path(written)
        if found is None and "/" in written and folder:
            found = self._path(posixpath.normpath(posixpath.join(folder, written)))
        return found if found is not None else self._by_name(written, folder)

    def _path(self, path: str) -> str | None:
        """A file at exactly this vault path (with or without `.md`), exact case first."""
        if path.startswith("../"):
            return None
        for candidate in (path + ".md", path) if not path.endswith(".md") else (path,):
            if candidate in self.exact:
                return self.exact[candidate]
        for candidate in (path + ".md", path) if not path.endswith(".md") else (path,):
            same = self.folded.get(candidate.lower())
            if same:
                return min(same)
        return None

    def _by_name(self, written: str, folder: str) -> str | None:
        key = written.rsplit("/", 1)[-1].lower()
        candidates = self.by_name.get(key, [])
        if "/" in written:
            tail = "/" + written.lower()
            candidates = [
                p
                for p in candidates
                if (lowered := nfc(p).lower()).endswith(tail) or lowered.endswith(tail + ".md")
            ]
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        name = written.rsplit("/", 1)[-1]

        def rank(path: str) -> tuple[bool, int, bool, str]:
            base = _stem(nfc(path).rsplit("/", 1)[-1])
            return (posixpath.dirname(path) != folder, len(nfc(path)), base != _stem(name), path)

        return min(candidates, key=rank)

    def shortest_target(self, path: str) -> str:
        """How Obsidian's "shortest path when possible" names `path` in a new link: the bare
        name when no other file shares it, else the full vault path (without `.md`)."""
        return _stem(path.rsplit("/", 1)[-1]) if self.unique(path) else _stem(path)

    def unique(self, path: str) -> bool:
        """Whether no other file shares this file's name (compared as links compare it)."""
        key = name_key(_stem(path.rsplit("/", 1)[-1]))
        return self.by_name.get(key, [path]) == [path]
