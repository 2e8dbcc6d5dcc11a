"""Notation removed before the language, chatter and ending checks.

Lessons legitimately hold what is not natural language: inline code, LaTeX (`$...$`,
`\\(...\\)`, display math on one line), URLs and link targets, HTML tags, footnote marks, emoji.
`prose()` keeps only the natural-language text; `own_voice()` also removes what the writer
cites rather than says (quotations in any quotation marks, and *italic* spans, the
typographic convention for examples, titles and foreign terms).
"""

from __future__ import annotations

import re

INLINE_CODE = re.compile(r"`+[^`\n]*`+")
INLINE_MATH = re.compile(
    r"\$\$[^$]+\$\$"  # display math written inline
    r"|(?<![\\$])\$(?=[^\s$])(?:[^$\n\\]|\\.)*?(?<=[^\s\\])\$(?!\$)"  # $x^2$, not "$5 and $10"
    r"|\\\(.+?\\\)"
)
IMAGE = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)")
LINK = re.compile(r"\[([^\]\n]*)\]\([^)\s]*(?:\s+\"[^\"\n]*\")?\)")
WIKILINK = re.compile(r"\[\[([^\]|#\n]*)(?:[#|]([^\]\n]*))?\]\]")
URL = re.compile(r"<?(?:https?://|www\.)[^\s<>)\]]+>?")
HTML = re.compile(r"<!--.*?-->|</?[A-Za-z][\w-]*(?:\s[^<>\n]*)?/?>", re.DOTALL)
FOOTNOTE = re.compile(r"\[\^?\d+(?:\s*[,–-]\s*\d+)*\]")
EMOJI = re.compile(
    "[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u2300-\u23ff\ufe0f\u200d\u20e3]"
)
QUOTED = re.compile(
    r"«[^»\n]*»|„[^“”\n]*[“”]|“[^”\n]*”|‹[^›\n]*›|「[^」\n]*」|『[^』\n]*』|‚[^‘’\n]*[‘’]"
    r"|(?<![\w\"])\"[^\"\n]+\"(?![\w\"])"
)
ITALIC = re.compile(
    r"(?<![*\w])\*(?!\*)(?=\S)(?:\*\*[^*\n]+\*\*|[^*\n])+?(?<=\S)\*(?!\*)"  # *text **bold** text*
    r"|\*\*\*(?=\S)[^*\n]+?(?<=\S)\*\*\*"  # ***bold italic***
    r"|(?<![_\w])_(?=\S)[^_\n]+?(?<=\S)_(?!\w)"
)


def _wikilink(match: re.Match[str]) -> str:
    return match.group(2) or match.group(1)


def prose(text: str) -> str:
    """Natural-language text of markdown: code, math, URLs, tags, marks and emoji removed
    (link labels kept)."""
    text = INLINE_CODE.sub(" ", text)
    text = INLINE_MATH.sub(" ", text)
    text = IMAGE.sub(" ", text)
    text = LINK.sub(r"\1", text)
    text = WIKILINK.sub(_wikilink, text)
    text = URL.sub(" ", text)
    text = HTML.sub(" ", text)
    text = FOOTNOTE.sub("", text)
    return EMOJI.sub(" ", text)


def own_voice(text: str) -> str:
    """The writer's own words: `prose()` without quotations and italic spans."""
    return own_voice_of_prose(prose(text))


def own_voice_of_prose(text: str) -> str:
    """`own_voice` of text `prose()` already cleaned."""
    return ITALIC.sub(" ", QUOTED.sub(" ", text))
