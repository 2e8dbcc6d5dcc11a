"""The lesson as markdown: assembling, replacing sections, deterministic fixes, the note.

What code can do without a model lives here: the assembler (plan + drafts -> markdown), the
hygiene fixes the heuristics know exactly how to make (chatbot artifacts, a few stray foreign
letters), and the note with its frontmatter.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

import frontmatter

from core import diffs
from core.flows.lesson.heuristics.chatter import strip_chatter
from core.flows.lesson.heuristics.language import strip_stray_letters
from core.flows.lesson.heuristics.parse import FENCE, parse_lesson
from core.flows.lesson.heuristics.placeholders import strip_dangling_labels
from vault.titles import note_title

SECTION_HEADING = re.compile(r"(?m)^##\s+")


def strip_heading(text: str) -> str:
    """A drafted section without a leading heading the model may have added anyway."""
    lines = text.strip().splitlines()
    while lines and lines[0].lstrip().startswith("#"):
        lines.pop(0)
    return "\n".join(lines).strip()


def assemble(title: str, section_titles: list[str], drafts: Mapping[str, str]) -> str:
    """The lesson body: `# title`, then one `## heading` per section in plan order. Titles are
    the model's: cleaned as every title that reaches a note (`note_title`), so none can bring
    a line break, a `---` or a link into the note."""
    parts = [f"# {note_title(title)}"]
    for n, name in enumerate(section_titles):
        parts.append(f"## {note_title(name)}")
        parts.append(strip_heading(str(drafts.get(str(n), ""))))
    return "\n\n".join(p for p in parts if p) + "\n"


def split_sections(body: str) -> tuple[str, list[tuple[str, str]]]:
    """(preamble, [(heading, text)]) split at `## ` headings outside code."""
    lesson = parse_lesson(body)
    lines = body.splitlines()
    starts = [s.line_no for s in lesson.sections if s.title]
    preamble = "\n".join(lines[: starts[0]] if starts else lines).strip()
    out = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        out.append((lines[start][3:].strip(), "\n".join(lines[start + 1 : end]).strip()))
    return preamble, out


def join_sections(preamble: str, sections: list[tuple[str, str]]) -> str:
    parts = [preamble] if preamble else []
    for heading, text in sections:
        parts.append(f"## {heading}")
        if text:
            parts.append(text)
    return "\n\n".join(parts) + "\n"


def add_transitions(body: str, transitions: list[str]) -> str:
    """Open each section after the first with the smoother's linking sentence."""
    preamble, sections = split_sections(body)
    for n, sentence in enumerate(transitions[: max(0, len(sections) - 1)]):
        heading, text = sections[n + 1]
        sentence = sentence.strip()
        if sentence and sentence not in text:
            sections[n + 1] = (heading, f"{sentence}\n\n{text}" if text else sentence)
    return join_sections(preamble, sections)


def apply_terminology(body: str, fixes: list[tuple[str, str]]) -> tuple[str, list[str]]:
    """Replace a term by the lesson's other term for the same thing, outside code; only when
    the term to keep already appears in the lesson (so the model cannot bring in new words)."""
    applied: list[str] = []
    for use, instead in fixes:
        use, instead = use.strip(), instead.strip()
        if not use or not instead or use.lower() == instead.lower() or use not in body:
            continue
        pattern = re.compile(rf"(?<!\w){re.escape(instead)}(?!\w)")

        def swap(line: str, pattern: re.Pattern[str] = pattern, use: str = use) -> str:
            parts = re.split(r"(`[^`]*`)", line)
            return "".join(p if p.startswith("`") else pattern.sub(use, p) for p in parts)

        fixed = _outside_code(body, swap)
        if fixed != body:
            applied.append(f"{instead} -> {use}")
            body = fixed
    return body, applied


def _outside_code(body: str, fix: Callable[[str], str]) -> str:
    out: list[str] = []
    in_code = False
    for line in body.split("\n"):
        if FENCE.match(line):
            in_code = not in_code
            out.append(line)
            continue
        out.append(line if in_code else fix(line))
    return "\n".join(out)


def deterministic_fixes(body: str, language: str) -> tuple[str, list[str]]:
    """Remove what the checks found and code knows how to remove, outside code: the chatbot's
    talk (whole blocks or sentences, see `heuristics.chatter`), stray foreign letters and bare
    labels that introduce nothing (`heuristics.placeholders`)."""
    applied: list[str] = []
    fixed, removed = strip_chatter(body, language)
    if removed:
        applied.append("removed a chatbot phrase")
    fixed, labels = strip_dangling_labels(fixed)
    if labels:
        applied.append("removed a label that introduced nothing")
    cleaned = _outside_code(fixed, lambda line: strip_stray_letters(line, language))
    if cleaned != fixed:
        applied.append("removed stray foreign characters")
    return re.sub(r"\n{3,}", "\n\n", cleaned), applied


def unified_diff(old: str, new: str, name: str = "lesson.md") -> str:
    """The lesson's change as a unified diff (core.diffs, with the lesson's argument order)."""
    return diffs.unified_diff(name, old, new)


def render_note(body: str, meta: Mapping[str, object], existing: str | None = None) -> str:
    """The note text: frontmatter (unknown fields of an existing note kept) and the body."""
    post = frontmatter.loads(existing) if existing else frontmatter.Post("")
    post.content = body.strip() + "\n"
    for key, value in meta.items():
        post.metadata[key] = value
    return frontmatter.dumps(post, sort_keys=False) + "\n"


def section_index(body: str, location: str) -> int:
    """The 0-based line of the section or phrase an issue's location names (-1: unknown)."""
    needle = location.strip().strip("\"'«»").lower()
    if not needle:
        return -1
    lines = body.splitlines()
    for n, line in enumerate(lines):
        if line.startswith("#") and needle in line.lower():
            return n
    return next((n for n, line in enumerate(lines) if needle[:40] in line.lower()), -1)
