"""Links in every form Obsidian writes, and rewriting them when a note is renamed or merged.

Forms: `[[A]]`, `[[A|shown]]`, `[[A#Heading]]`, `[[A#^block]]`, `[[folder/A]]`, embeds `![[A]]`,
markdown links `[t](A.md)` / `[t](<A B.md>)` (URL-encoded), and links quoted in frontmatter
values. Nothing inside fenced or inline code counts.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote, unquote

from vault.markdown import code_mask, frontmatter_span

WIKI = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
MARKDOWN = re.compile(r"(!?)\[([^\[\]\n]*)\]\((<[^<>\n]+>|[^()\s<>]+)((?:[ \t]+\"[^\"\n]*\")?)\)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class Link:
    """One outgoing link as written."""

    kind: str
    """"wiki" or "markdown"."""
    embed: bool
    target: str
    """Note path or name as written (URL-decoded, without `#...`); may end in `.md`."""
    subpath: str
    """`#Heading` or `#^block`, or empty."""
    alias: str | None
    """Shown text: the `|alias` of a wikilink, the `[text]` of a markdown link."""
    start: int
    end: int
    in_frontmatter: bool = False

    @property
    def name(self) -> str:
        """The target's note name: last path part without `.md`."""
        return note_name(self.target)

    @property
    def block(self) -> str | None:
        """The block id this link points to, if any."""
        return self.subpath[2:] if self.subpath.startswith("#^") else None


def note_name(target: str) -> str:
    """`folder/A.md` -> `A`."""
    base = target.rsplit("/", 1)[-1]
    return base[:-3] if base.lower().endswith(".md") else base


def _wiki(match: re.Match[str], offset: int, in_fm: bool) -> Link | None:
    inner = match.group(2)
    target, sep, alias = inner.partition("|")
    if target.endswith("\\"):
        target = target[:-1]
    target, hash_, sub = target.partition("#")
    if not target.strip() and not hash_:
        return None
    return Link(
        "wiki",
        bool(match.group(1)),
        target.strip(),
        (hash_ + sub) if hash_ else "",
        alias if sep else None,
        match.start() + offset,
        match.end() + offset,
        in_fm,
    )


def _markdown(match: re.Match[str], offset: int) -> Link | None:
    href = match.group(3)
    if href.startswith("<"):
        href = href[1:-1]
    if _SCHEME.match(href) or href.startswith("#"):
        return None
    path, hash_, sub = href.partition("#")
    path = unquote(path)
    if not path.lower().endswith(".md"):
        return None
    return Link(
        "markdown",
        bool(match.group(1)),
        path,
        ("#" + unquote(sub)) if hash_ else "",
        match.group(2),
        match.start() + offset,
        match.end() + offset,
    )


def parse_links(text: str, body_start: int | None = None) -> list[Link]:
    """Every link of a note's full text, frontmatter included, in order of position."""
    if body_start is None:
        span = frontmatter_span(text)
        body_start = span[2] if span else 0
    links: list[Link] = []
    if body_start and "[[" in text[:body_start]:
        for m in WIKI.finditer(text, 0, body_start):
            link = _wiki(m, 0, True)
            if link is not None:
                links.append(link)
    body = text[body_start:]
    if "[" not in body:
        return links
    masked = code_mask(body)
    if "[[" in masked:
        links.extend(x for m in WIKI.finditer(masked) if (x := _wiki(m, body_start, False)))
    if "](" in masked:
        links.extend(x for m in MARKDOWN.finditer(masked) if (x := _markdown(m, body_start)))
        links.sort(key=lambda link: link.start)
    return links


# -- rewriting ---------------------------------------------------------------------------


def target_matcher(old_rel: str) -> Callable[[str], bool]:
    """Whether a written link target refers to the note at `old_rel` (Obsidian matches names
    case-insensitively; a path-qualified target must match the path's tail)."""
    stem = old_rel[:-3] if old_rel.lower().endswith(".md") else old_rel
    stem_l = stem.lower()
    name_l = stem_l.rsplit("/", 1)[-1]

    def matches(target: str) -> bool:
        t = target.strip().lstrip("/").lower()
        if t.endswith(".md"):
            t = t[:-3]
        if not t:
            return False
        return t in (name_l, stem_l) or stem_l.endswith("/" + t)

    return matches


@dataclass(frozen=True)
class LinkEdit:
    """One link replaced in a text."""

    start: int
    end: int
    before: str
    after: str


def _new_target(written: str, new_rel: str) -> str:
    """The new target written the way the old one was (bare name, or path, with or without .md)."""
    new_stem = new_rel[:-3] if new_rel.lower().endswith(".md") else new_rel
    has_ext = written.lower().endswith(".md")
    value = new_stem if "/" in written else new_stem.rsplit("/", 1)[-1]
    return value + ".md" if has_ext else value


def _in_table_row(text: str, link: Link) -> bool:
    """Whether the link sits in a Markdown table row, where an alias pipe must be `\\|`."""
    if link.in_frontmatter:
        return False
    line_start = text.rfind("\n", 0, link.start) + 1
    return text[line_start : link.start].lstrip().startswith("|")


def _rewrite_wiki(text: str, link: Link, new_rel: str) -> str:
    original = text[link.start : link.end]
    inner = original[3:-2] if link.embed else original[2:-2]
    target_part = inner.split("|", 1)[0]
    escaped_pipe = target_part.endswith("\\")
    written = link.target
    new_target = _new_target(written, new_rel)
    new_inner = new_target + link.subpath
    if link.alias is not None:
        new_inner += ("\\|" if escaped_pipe else "|") + link.alias
    elif not link.embed and note_name(new_target) != note_name(written):
        shown = written  # the note name the reader saw, without the heading or block
        new_inner += ("\\|" if _in_table_row(text, link) else "|") + shown
    return ("![[" if link.embed else "[[") + new_inner + "]]"


def _rewrite_markdown(text: str, link: Link, new_rel: str) -> str:
    original = text[link.start : link.end]
    m = MARKDOWN.fullmatch(original)
    assert m is not None
    new_path = _new_target(link.target, new_rel)
    href_old = m.group(3)
    if href_old.startswith("<"):
        href = "<" + new_path + ((link.subpath) if link.subpath else "") + ">"
    else:
        href = quote(new_path, safe="/")
        if link.subpath:
            href += "#" + quote(link.subpath[1:], safe="^")
    return f"{m.group(1)}[{m.group(2)}]({href}{m.group(4)})"


def _relative_target(target: str, old_rel: str, new_rel: str, source_rel: str) -> str | None:
    """For a link written relative to its note (`../A.md`, `./A`): the new relative path when
    it resolves to `old_rel`, else None."""
    folder = posixpath.dirname(source_rel)
    resolved = posixpath.normpath(posixpath.join(folder, target.strip())).lower()
    old = old_rel.lower()
    if resolved not in (old, old.removesuffix(".md")):
        return None
    return posixpath.relpath(new_rel, folder or ".")


def rewrite_links(
    text: str, old_rel: str, new_rel: str, source_rel: str | None = None
) -> tuple[str, list[LinkEdit]]:
    """The text with every link to `old_rel` pointing at `new_rel`; bytes elsewhere untouched.

    Headings, block refs and shown text are kept: `[[Old]]` becomes `[[New|Old]]` where the
    shown text would otherwise change. Links relative to the note (`../Ideas/Old.md`) are
    resolved and rewritten when `source_rel`, the note's own path, is given.
    """
    matches = target_matcher(old_rel)
    edits: list[LinkEdit] = []
    last_end = -1
    for link in parse_links(text):
        if link.start < last_end:
            continue
        target_rel = new_rel
        if link.target.strip().startswith(("./", "../")):
            relative = _relative_target(link.target, old_rel, new_rel, source_rel or "")
            if source_rel is None or relative is None:
                continue
            target_rel = relative
        elif not matches(link.target):
            continue
        if link.kind == "wiki":
            after = _rewrite_wiki(text, link, target_rel)
        else:
            after = _rewrite_markdown(text, link, target_rel)
        before = text[link.start : link.end]
        if after != before:
            edits.append(LinkEdit(link.start, link.end, before, after))
            last_end = link.end
    if not edits:
        return text, []
    pieces, pos = [], 0
    for edit in edits:
        pieces.append(text[pos : edit.start])
        pieces.append(edit.after)
        pos = edit.end
    pieces.append(text[pos:])
    return "".join(pieces), edits
