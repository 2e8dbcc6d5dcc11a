"""Placeholders: text standing for content that was never written.

Shapes, in any language:
- a template variable: `{{example}}`, `{worked_example}`, `<<name>>`, `${name}`;
- an instruction in brackets: `[Insert a diagram: ...]`, `<ejemplo>`, `【示例】` alone: bracketed
  words that are not a link, a citation (`[1]`), an interval (`[a, b]`), an elision (`[…]`) or
  an editorial insertion inside a quotation;
- a label with nothing after it: `Example: …`, `Beispiel 2:` followed by a heading;
- a bare label that introduces nothing it could name: `Exemplos:` alone, then a paragraph of
  prose (a label announces a list, code, a formula, a table or a quotation); a self-fix, the
  label is dropped (`strip_dangling_labels`), as the prose may be the example itself. A label
  in bold or italics (`**Example:**`) is a run-in heading and is left alone;
- a stand-in: `???`, `XXX`, `TODO`, `TBD`, `FIXME`, "Lorem ipsum", a line of only `...`;
- a text deferring its own writing ("This section will be written later", "à compléter"),
  found by the metatextual words in `lexicon`, when it stands alone or names itself.
Code, inline code and formulas are not read (a `# TODO` in code is code).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from core.flows.lesson.heuristics.lexicon import deferral, self_reference
from core.flows.lesson.heuristics.notation import INLINE_CODE, INLINE_MATH, QUOTED, URL
from core.flows.lesson.heuristics.parse import LIST_ITEM, Block, ParsedLesson, parse_lesson
from core.flows.lesson.heuristics.result import CheckResult, Finding, HeuristicAction
from core.flows.lesson.heuristics.scripts import words

TEMPLATE = re.compile(
    r"\{\{[^{}\n]{0,80}\}\}|\{[A-Za-z]+(?:_[A-Za-z0-9]+)+\}|<<[^<>\n]{1,60}>>|\$\{[A-Za-z_]\w*\}"
    r"|(?<![\w\\$^_{])\{[^\W\d_]{3,}\}|<!--[^>]*?\b(?:TODO|FIXME|TBD)\b"
)
"""Template variables left unfilled (`{{example}}`, `{worked_example}`, `{ejemplo}`), and a TODO
left in an HTML comment."""
BRACKET = re.compile(r"(?<![!\w\]])[\[［]([^\[\]［］\n]{2,200})[\]］](?![(\[:])")
ANGLE = re.compile(r"(?<![\w<])<([^<>\n/!=\s][^<>\n]{0,80}?)>(?![\w>])")
CJK_BRACKET = re.compile(r"【([^】\n]{1,60})】")
STAND_IN = re.compile(
    r"(?<![\w?¿])\?{3,}(?![\w?])|(?<![\w?¿])\?\?(?=\s|$)|(?<![A-Za-z])X{3,}(?![A-Za-z])"
    r"|[○◯●△□■]{2,}|×{2,}|\b(?:TBD|TBA)\b|(?:^\s*(?:[-*+]\s+|\d+[.)]\s+)?|(?<=[.!?。！？]\s)|(?<=[\[(<]))(?:\*\*)?(?:TODO|FIXME)\b"
    r"|\b(?:TODO|FIXME)\s*[:：-]|(?i:lorem ipsum)"
)
"""Stand-ins for missing text: `???`, `XXX`, `○○` (the Japanese "so-and-so"), `TBD`, a TODO
that opens a line or a sentence (not "the TODO in the code below"), Lorem ipsum."""
ELLIPSIS_LINE = re.compile(r"^\s*(?:[-*+]\s+)?(?:\.{3,}|…)\s*$")
LABEL = re.compile(
    r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\*\*|__)?(?P<label>[^\W\d_][^:：.!?\n]{0,48}?)\s*(?:\*\*|__)?"
    r"\s*[:：]\s*(?:\*\*|__)?\s*(?P<stand>\.{2,}|…+|_{3,}|\?{2,}|[-–—]{1,3})?\s*(?:\*\*|__)?\s*$"
)
HTML_TAGS = words(
    "a abbr b br blockquote code del details div em hr i img ins kbd li mark ol p pre q s small "
    "span strong sub summary sup table td th tr u ul"
)
WORD = re.compile(r"[^\W\d_]{2,}")
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
MATHLIKE = re.compile(r"[+=|<>/^]")
IPA = re.compile(r"[\u0250-\u02af\u02c8\u02cc\u02d0]")
QUOTE_MARK = re.compile(r"^\s*>\s?")
SHAPE_HINT = re.compile(r"[\[［<【{?X○◯●△□■×…]|\.\.\.|TODO|TBD|TBA|FIXME|(?i:lorem)")
"""A character or word every inline shape needs: blocks without one are not scanned line by
line."""
SCANNED = ("paragraph", "list", "quote", "table", "heading")
ITEM_WORDS = 12
"""A list item this short that defers its writing is nothing but the deferral."""
SHORT_BLOCK = 30
"""A deferral in a block this short (in words) is the block's whole content."""
EMPHASIS = re.compile(r"\*\*|__|^\s*[*_]\S")
BARE_LABEL_WORDS = 3
"""A label this short, alone on its line, names what follows (`Examples:`, `Beispiel 2:`);
longer ones are sentences introducing what follows (`Compare these two sentences:`)."""


def _masked(line: str) -> str:
    """A line without inline code, math, URLs and quotations (their brackets are not ours)."""
    for pattern in (INLINE_CODE, INLINE_MATH, URL, QUOTED):
        line = pattern.sub(" ", line)
    return line


def _instruction(content: str, whole: bool) -> bool:
    """Whether bracketed text reads as an instruction or a description of missing content."""
    text = content.strip()
    if not text or text in ("…", "...", "sic") or IPA.search(text):
        return False  # an elision, [sic], a phonetic transcription
    words = len(WORD.findall(text)) + len(CJK.findall(text)) // 2
    if MATHLIKE.search(text) and words < 3:
        return False  # [x + 1], [a = b]: notation
    return words >= 3 or (words >= 1 and (":" in text or "：" in text)) or (whole and words >= 1)


def _angle_placeholder(content: str) -> bool:
    """`<ejemplo>`, `<insert a figure>`; not an HTML tag, `<stdio.h>`, an address or `<Enter>`."""
    words = content.split()
    if words[0].lower().strip("/") in HTML_TAGS or re.search(r"[@/=\\]|::|\.\w", content):
        return False
    if len(words) == 1:
        return content.islower() and bool(WORD.search(content))  # <Enter>, <Tab> are keys
    return bool(WORD.search(content))


def _inline(line: str, whole: bool, quoted: bool = False) -> str | None:
    """The first placeholder shape on one (masked) line; in a quotation, brackets are the
    editor's insertions unless one stands alone on its line."""
    if match := TEMPLATE.search(line) or STAND_IN.search(line):
        return match.group()
    for match in BRACKET.finditer(line):
        if (whole or not quoted) and _instruction(match.group(1), whole):
            return match.group()
    for match in ANGLE.finditer(line):
        if _angle_placeholder(match.group(1)):
            return match.group()
    if (match := CJK_BRACKET.search(line)) and whole:
        return match.group()
    return None


def _is_label(block: Block) -> re.Match[str] | None:
    return LABEL.match(block.lines[-1]) if len(block.lines) <= 2 else None


def _label_without_content(block: Block, following: Block | None) -> str | None:
    """`Example: …`, or a bare `Example:` that nothing follows but a heading or another label."""
    match = _is_label(block)
    if match is None or len(match.group("label").split()) > 6:
        return None
    if match.group("stand"):
        return block.lines[-1].strip()
    if (
        following is None
        or following.kind == "heading"
        or (following.kind == "paragraph" and _is_label(following))
    ):
        return block.lines[-1].strip()
    return None


def _word_count(text: str) -> int:
    """Words, counting two CJK characters as one (CJK writes no spaces: `例子` is one)."""
    cjk = len(CJK.findall(text))
    return len(CJK.sub(" ", text).split()) + (cjk + 1) // 2


def _label_before_prose(block: Block, following: Block | None) -> str | None:
    """A bare `Examples:` alone on its line, followed by a paragraph of prose: what it
    announced (a list, code, a formula...) is not there."""
    match = _is_label(block)
    if match is None or match.group("stand") or len(block.lines) != 1:
        return None
    if EMPHASIS.search(block.lines[0]) or _word_count(match.group("label")) > BARE_LABEL_WORDS:
        return None  # `**Example:**` is a run-in heading: the paragraph after it is the example
    if following is None or following.kind != "paragraph" or _is_label(following):
        return None
    return block.lines[0].strip()


def dangling_label_lines(lesson: ParsedLesson) -> list[int]:
    """0-based lines of the bare labels followed by prose (see `_label_before_prose`)."""
    found = []
    for section in lesson.sections:
        for n, block in enumerate(section.blocks):
            following = section.blocks[n + 1] if n + 1 < len(section.blocks) else None
            if block.kind == "paragraph" and _label_before_prose(block, following):
                found.append(block.line_no)
    return found


def strip_dangling_labels(body: str) -> tuple[str, int]:
    """The body without its bare labels followed by prose, and how many were removed."""
    drop = set(dangling_label_lines(parse_lesson(body)))
    if not drop:
        return body, 0
    lines = body.split("\n")
    kept = [line for n, line in enumerate(lines) if n not in drop]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)), len(drop)


def _deferral(block: Block, alone: bool, language: str) -> str | None:
    """A sentence deferring the text's own writing, when it stands alone or names itself."""
    pattern = deferral(language)
    if pattern is None or not (match := pattern.search(block.prose)):
        return None
    if block.text.rstrip().endswith((":", "：")):
        return None  # "Phrases à compléter :" introduces an exercise
    short = len(block.prose.split()) <= SHORT_BLOCK
    names_itself = (ref := self_reference(language)) is not None and ref.search(block.prose)
    return match.group() if alone or short or names_itself else None


def _deferred_item(line: str, language: str) -> str | None:
    """A short list item that defers its own writing (`3. Exercise on the mode: to be done.`)."""
    pattern = deferral(language)
    item = LIST_ITEM.sub("", line)
    if pattern is None or len(item.split()) > ITEM_WORDS or not (match := pattern.search(item)):
        return None
    return match.group()


def _alone_on_line(masked: str) -> bool:
    """The line is one bracketed span (`[Insert a map]`, `【示例】`)."""
    text = masked.strip()
    return len(text) > 2 and text[0] in "[<【{［" and text[-1] in "]>】}］"


def _block_findings(
    block: Block, following: Block | None, alone: bool, language: str
) -> Iterator[tuple[int, str, str, HeuristicAction]]:
    """(line, message, sample, action) of each placeholder in one block."""
    regen = HeuristicAction.PARTIAL_REGEN
    shapes = block.kind == "list" or SHAPE_HINT.search(block.text)
    for n, line in enumerate(block.lines if shapes else ()):
        masked = _masked(line)
        if block.kind != "table" and ELLIPSIS_LINE.match(masked):
            yield block.line_no + n, "a line standing for missing text", line.strip(), regen
            return
        whole = _alone_on_line(QUOTE_MARK.sub("", LIST_ITEM.sub("", masked)))
        if found := _inline(masked, whole, quoted=block.kind == "quote"):
            if block.kind == "table" and found == "??":
                continue  # a cell for the learner to fill in
            yield block.line_no + n, "placeholder", found, regen
            return
        if block.kind == "list" and (found := _deferred_item(masked, language)):
            yield block.line_no + n, "the text defers its own writing", found, regen
            return
    if block.kind == "paragraph":
        if found := _label_without_content(block, following):
            yield block.last_line_no, "a label with nothing after it", found, regen
        elif found := _label_before_prose(block, following):
            message = "a label that introduces nothing (prose follows)"
            yield block.line_no, message, found, HeuristicAction.SELF_FIX
        elif found := _deferral(block, alone, language):
            yield block.line_no, "the text defers its own writing", found, regen


def check_placeholders(lesson: ParsedLesson, language: str = "en") -> CheckResult:
    """Every placeholder shape outside code and formulas: FAIL, the sections are rewritten
    (a dangling bare label: WARN, the self-fix drops it)."""
    findings: list[Finding] = []
    for section in lesson.sections:
        blocks = section.blocks
        content = [b for b in blocks if b.kind != "heading"]
        for n, block in enumerate(blocks):
            if block.kind not in SCANNED:
                continue
            following = blocks[n + 1] if n + 1 < len(blocks) else None
            alone = len(content) == 1 and bool(section.title)
            for line, message, sample, action in _block_findings(block, following, alone, language):
                findings.append(
                    Finding(
                        section=section.title,
                        line=line,
                        message=message,
                        sample=sample[:80],
                        action=action,
                    )
                )
    return CheckResult.of("placeholders", findings, placeholders=len(findings))
