"""Links in every form Obsidian writes, and rewriting them when a note is renamed or merged.

Forms: `[[A]]`, `[[A|shown]]`, `[[A#Heading]]`, `[[A#^block]]`, `[[folder/A]]`, embeds `![[A]]`,
markdown links `[t](A.md)`, `[t](Three%20laws%20of%20motion)` (no `.md`, URL-encoded, as
Obsidian's help writes them), `[t](<A B.md>)`, `![alt](diagram.png)`, and links quoted in
frontmatter values. Nothing inside fenced, indented or inline code counts. Which file a link
points to is `vault.resolve`'s business.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote, unquote

from vault.linkformat import encode_href
from vault.markdown import code_mask, frontmatter_span
from vault.resolve import LinkResolver, name_key

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
    """Note path or name as written (URL-decoded, without `#...`); may end in `.md`, or name
    another file (`diagram.png`)."""
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
    if not path.strip():
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
    """Whether a written link target names the note at `old_rel` (names compared as Obsidian
    does: case-insensitively, in NFC; a path-qualified target must match the path's tail).
    Without the vault's other files this cannot tell two same-named notes apart: rewriting
    with a `LinkResolver` can."""
    stem = old_rel[:-3] if old_rel.lower().endswith(".md") else old_rel
    stem_l = name_key(stem)
    name_l = stem_l.rsplit("/", 1)[-1]

    def matches(target: str) -> bool:
        t = name_key(target.strip().lstrip("/"))
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


def _new_target(written: str, new_rel: str, source_rel: str, after: LinkResolver | None) -> str:
    """The new target written the way the old one was (bare name, vault path or relative
    path, with or without .md). A bare name is kept only when, after the change, it resolves
    to `new_rel` (`after`); otherwise the vault path is written."""
    new_stem = new_rel[:-3] if new_rel.lower().endswith(".md") else new_rel
    has_ext = written.lower().endswith(".md")
    plain = written.strip()
    if plain.startswith(("./", "../")):
        value = posixpath.relpath(new_stem, posixpath.dirname(source_rel) or ".")
        if plain.startswith("./") and not value.startswith("../"):
            value = "./" + value
    elif "/" in written:
        value = ("/" if plain.startswith("/") else "") + new_stem
    else:
        value = new_stem.rsplit("/", 1)[-1]
        if after is not None and after.resolve(value, source_rel) != new_rel:
            value = new_stem
    return value + ".md" if has_ext else value


def _in_table_row(text: str, link: Link) -> bool:
    """Whether the link sits in a Markdown table row, where an alias pipe must be `\\|`."""
    if link.in_frontmatter:
        return False
    line_start = text.rfind("\n", 0, link.start) + 1
    return text[line_start : link.start].lstrip().startswith("|")


def _rewrite_wiki(text: str, link: Link, new_target: str) -> str:
    original = text[link.start : link.end]
    inner = original[3:-2] if link.embed else original[2:-2]
    target_part = inner.split("|", 1)[0]
    escaped_pipe = target_part.endswith("\\")
    written = link.target
    new_inner = new_target + link.subpath
    if link.alias is not None:
        new_inner += ("\\|" if escaped_pipe else "|") + link.alias
    elif not link.embed and note_name(new_target) != note_name(written):
        shown = written  # the note name the reader saw, without the heading or block
        new_inner += ("\\|" if _in_table_row(text, link) else "|") + shown
    return ("![[" if link.embed else "[[") + new_inner + "]]"


_ENCODED_UTF8 = re.compile(r"%[89A-Fa-f][0-9A-Fa-f]")


def _encode_all(path: str) -> str:
    return quote(path, safe="/^")


def _rewrite_markdown(text: str, link: Link, new_path: str) -> str:
    original = text[link.start : link.end]
    m = MARKDOWN.fullmatch(original)
    assert m is not None
    href_old = m.group(3)
    if href_old.startswith("<"):
        href = "<" + new_path + ((link.subpath) if link.subpath else "") + ">"
    else:
        # keep the written style: every non-ASCII letter percent-encoded, or only what must be
        encode = _encode_all if _ENCODED_UTF8.search(href_old) else encode_href
        href = encode(new_path)
        if link.subpath:
            href += "#" + encode(link.subpath[1:])
    return f"{m.group(1)}[{m.group(2)}]({href}{m.group(4)})"


def rewrite_links(
    text: str,
    old_rel: str,
    new_rel: str,
    source_rel: str | None = None,
    *,
    before: LinkResolver | None = None,
    after: LinkResolver | None = None,
) -> tuple[str, list[LinkEdit]]:
    """The text with every link to `old_rel` pointing at `new_rel`; bytes elsewhere untouched.

    Headings, block refs and shown text are kept: `[[Old]]` becomes `[[New|Old]]` where the
    shown text would otherwise change. With `before` (the vault's files now) exactly the links
    Obsidian resolves to `old_rel` from `source_rel` are rewritten, and with `after` (the
    vault's files after the change) a bare name is written only where it will resolve to
    `new_rel`. Without them a target matches by name, and relative links (`../Ideas/Old.md`)
    only when `source_rel` is given.
    """
    source = source_rel or ""
    matches = target_matcher(old_rel)
    edits: list[LinkEdit] = []
    last_end = -1
    for link in parse_links(text):
        if link.start < last_end or not link.target.strip():
            continue
        if before is not None:
            if before.resolve(link.target, source) != old_rel:
                continue
        elif link.target.strip().startswith(("./", "../")):
            if source_rel is None or not _relative_hit(link.target, old_rel, source):
                continue
        elif not matches(link.target):
            continue
        new_target = _new_target(link.target, new_rel, source, after)
        if link.kind == "wiki":
            after_text = _rewrite_wiki(text, link, new_target)
        else:
            after_text = _rewrite_markdown(text, link, new_target)
        before_text = text[link.start : link.end]
        if after_text != before_text:
            edits.append(LinkEdit(link.start, link.end, before_text, after_text))
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


def _relative_hit(target: str, old_rel: str, source_rel: str) -> bool:
    """Whether a link written relative to its note (`../A.md`, `./A`) names `old_rel`."""
    folder = posixpath.dirname(source_rel)
    resolved = name_key(posixpath.normpath(posixpath.join(folder, target.strip())))
    old = name_key(old_rel)
    return resolved in (old, old.removesuffix(".md"))
