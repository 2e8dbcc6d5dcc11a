"""Writing links the way the vault is set to: `[[wikilinks]]` or `[text](path.md)`, and the
target named by the shortest unique path, relative to the note, or from the vault root.

Obsidian's "Files and links" settings (`.obsidian/app.json`: `useMarkdownLinks`,
`newLinkFormat`) decide it unless noema's settings say otherwise; see `VaultLayout`.
Frontmatter links are always `[[...]]`: Obsidian's Properties read no other form.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from vault.resolve import LinkResolver

_ENCODE = {
    "%": "%25",
    " ": "%20",
    "\t": "%09",
    "(": "%28",
    ")": "%29",
    "#": "%23",
    "<": "%3C",
    ">": "%3E",
    "[": "%5B",
    "]": "%5D",
    "\\": "%5C",
}


def encode_href(path: str) -> str:
    """A vault path as a Markdown link destination: spaces as `%20` (as Obsidian writes it),
    and the characters that would end or split the destination escaped; the rest kept."""
    return "".join(_ENCODE.get(ch, ch) for ch in path)


def _stem(path: str) -> str:
    return path[:-3] if path.endswith(".md") else path


def _as_note(path: str) -> str:
    return path if path.endswith(".md") else path + ".md"


def _name(path: str) -> str:
    return _stem(path.rsplit("/", 1)[-1])


@dataclass(frozen=True)
class Linker:
    """Writes links in one vault's style."""

    markdown: bool = False
    """`[text](path.md)` instead of `[[path]]`."""
    format: str = "shortest"
    """"shortest" (the bare name when no other file shares it, else the vault path),
    "relative" (from the linking note's folder) or "absolute" (from the vault root)."""
    resolver: LinkResolver | None = None
    """The vault's files, to know which names are unique (shortest format)."""

    def target(self, path: str, source: str = "") -> str:
        """How a link from the note at `source` names the file at `path` (notes without
        `.md`)."""
        if self.format == "absolute":
            return _stem(path)
        if self.format == "relative" and source:
            return posixpath.relpath(_stem(path), posixpath.dirname(source) or ".")
        if self.resolver is None or self.resolver.unique(path):
            return _name(path)
        return _stem(path)

    def link(
        self, path: str, source: str = "", *, subpath: str = "", alias: str | None = None
    ) -> str:
        """A link to the note at `path` (a vault path; a bare note name is taken as
        `name.md`) written in the note at `source`. `subpath` is `#Heading` or `#^block`."""
        path = _as_note(path)
        target = self.target(path, source)
        if self.markdown:
            shown = alias if alias is not None else _name(path)
            href = encode_href(target + ".md")
            if subpath:
                href += "#" + encode_href(subpath[1:]).replace("%23", "#")
            return f"[{shown}]({href})"
        return f"[[{target}{subpath}{'|' + alias if alias is not None else ''}]]"

    def property_link(self, path: str, source: str = "") -> str:
        """The `[[...]]` form a frontmatter property holds (whatever the body's link style)."""
        return f"[[{self.target(_as_note(path), source)}]]"
