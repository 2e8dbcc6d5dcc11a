"""Chatbot artifacts: the assistant talking to the requester instead of teaching.

Shapes first, words second:
- Anything written above the `# ` title is not the lesson (a lesson starts with its title).
- A short text after a rule (`---`) that closes the lesson is a sign-off when it carries any
  cue of a speaker addressing the requester (see `voice`).
- Anywhere else, a sentence is chatter when its cues weigh `voice.CHATTER_SCORE` or more.

Found chatter is self-fixable: `strip_chatter` removes it (whole blocks when every sentence of
the block is the assistant's, else the sentences), outside code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.flows.lesson.heuristics.notation import own_voice
from core.flows.lesson.heuristics.parse import Block, ParsedLesson, parse_lesson
from core.flows.lesson.heuristics.result import CheckResult, Finding, HeuristicAction
from core.flows.lesson.heuristics.voice import CHATTER_SCORE, has_cue, score

SENTENCE = re.compile(r"[^.!?。！？…]*(?:[.!?。！？…]+[»”\"')\]]*|$)\s*")
LETTER = re.compile(r"[^\W\d_]")
VOICED = ("paragraph", "list")
EPILOGUE_WORDS = 80
"""A sign-off after the closing rule is short; a longer text there is lesson content."""


@dataclass(frozen=True)
class Chatter:
    """One piece of chatter: the block it is in and, unless the whole block is, its sentences."""

    block: Block
    section: str
    why: str
    sentences: tuple[str, ...] = ()


def sentences(text: str) -> list[str]:
    return [s for s in (m.group() for m in SENTENCE.finditer(text)) if s.strip()]


def _epilogue(lesson: ParsedLesson) -> list[Block]:
    """Blocks after a rule that only prose follows, at the end of the lesson."""
    blocks = [b for s in lesson.sections for b in s.blocks]
    for n in range(len(blocks) - 1, -1, -1):
        if blocks[n].kind == "rule":
            tail = blocks[n + 1 :]
            words = sum(len(b.prose.split()) for b in tail)
            if tail and all(b.kind in VOICED for b in tail) and words <= EPILOGUE_WORDS:
                return tail
            return []
        if blocks[n].kind not in VOICED:
            return []
    return []


def _block_chatter(
    block: Block, language: str, threshold: int, opening: bool = False
) -> tuple[list[str], list[str], bool]:
    """(chatter sentences, cues found, whether every sentence carries some cue)."""
    found: list[str] = []
    cues: list[str] = []
    if not has_cue(block.voice, language):
        return found, cues, False
    every = True
    for n, sentence in enumerate(sentences(block.voice)):
        weight, names = score(sentence, language, first=n == 0, opening=opening)
        every = every and weight > 0
        if weight >= threshold:
            found.append(sentence.strip())
            cues += names
    return found, cues, every


def find_chatter(lesson: ParsedLesson, language: str) -> list[Chatter]:
    """Every piece of chatter in the lesson."""
    out: list[Chatter] = []
    before = set(map(id, lesson.before_title()))
    epilogue = set(map(id, _epilogue(lesson)))
    opening = next((b for b in lesson.blocks() if id(b) not in before and b.kind in VOICED), None)
    for section in lesson.sections:
        for block in section.blocks:
            if id(block) in before:
                if LETTER.search(block.prose):
                    out.append(Chatter(block, section.title, "text before the lesson's title"))
                continue
            if block.kind not in VOICED:
                continue
            threshold = 1 if id(block) in epilogue else CHATTER_SCORE
            found, cues, every = _block_chatter(block, language, threshold, block is opening)
            if found:
                why = "assistant talk (" + ", ".join(dict.fromkeys(cues)) + ")"
                out.append(Chatter(block, section.title, why, () if every else tuple(found)))
    return out


def check_chatbot_artifacts(lesson: ParsedLesson, language: str) -> CheckResult:
    """Text before the title, a sign-off after the end, assistant talk anywhere: WARN, the
    self-fix removes it."""
    findings = [
        Finding(
            section=c.section,
            line=c.block.line_no,
            message=c.why,
            sample=(c.sentences[0] if c.sentences else c.block.text)[:80],
            action=HeuristicAction.SELF_FIX,
        )
        for c in find_chatter(lesson, language)
    ]
    return CheckResult.of("chatbot_artifacts", findings, artifacts=len(findings))


def _squash(text: str) -> str:
    return " ".join(text.split())


def _without(line: str, chatter: tuple[str, ...]) -> str:
    """The line without its sentences whose own words are one of the chatter sentences."""
    wanted = {_squash(s) for s in chatter}
    kept = [s for s in sentences(line) if _squash(own_voice(s)) not in wanted]
    return "".join(kept).rstrip()


def strip_chatter(body: str, language: str) -> tuple[str, int]:
    """The body without its chatter, and how many pieces were removed."""
    lesson = parse_lesson(body)
    found = find_chatter(lesson, language)
    if not found:
        return body, 0
    lines = body.split("\n")
    drop: set[int] = set()
    for chatter in found:
        block = chatter.block
        span = range(block.line_no, block.last_line_no + 1)
        if not chatter.sentences:
            drop.update(span)
            continue
        for n in span:
            lines[n] = _without(lines[n], chatter.sentences)
            if not lines[n].strip():
                drop.add(n)
    kept = [line for n, line in enumerate(lines) if n not in drop]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip("\n")
    text = re.sub(r"\n\s{0,3}(?:-{3,}|\*{3,}|_{3,})\s*$", "", text)  # a rule left closing nothing
    return text + "\n", len(found)
