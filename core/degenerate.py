"""Visibly degenerate model output, caught by code before a user sees it (no model call).

A small model under a bounded schema always returns valid JSON, and the JSON can still be
garbage: a schema's field names as values (`"reasons": "reasons"`), one sentence said twenty
times, a remark that quotes a term the evaluated note does not contain. Each check here is
cheap, deterministic and has no false positive on ordinary prose; a flow turns a finding into
a validation error of the answer (`grounded`), so the client re-asks the model with the
problem named, and an answer still degenerate after the re-asks fails like any invalid one.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Generic, TypeVar

from pydantic import BaseModel, model_validator

M = TypeVar("M", bound=BaseModel)
S = TypeVar("S")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?…。！？])\s+|\n+")
_QUOTED = re.compile(
    r"(?<![\w])(?:\"([^\"\n]{3,120})\"|“([^”\n]{3,120})”|«([^»\n]{3,120})»|‘([^’\n]{3,120})’"
    r"|'([^'\n]{3,120})')(?![\w])"
)


def fold(text: str) -> str:
    """Accents stripped, case folded, every run of non-word characters one space."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(_WORD.findall(bare.casefold()))


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def field_names_as_values(values: Mapping[str, object], names: Iterable[str]) -> list[str]:
    """Fields whose text is made only of the schema's field names (`reasons: reasons`)."""
    vocabulary = {_singular(w) for name in names for w in fold(name.replace("_", " ")).split()}

    def named(word: str) -> bool:  # `reasons` is `reasoning`'s: a shared stem of 5+ letters
        return word in vocabulary or (
            len(word) >= 5
            and any(v.startswith(word) or word.startswith(v) for v in vocabulary if len(v) >= 5)
        )

    bad = []
    for field, value in values.items():
        if not isinstance(value, str) or not value.strip():
            continue
        words = [_singular(w) for w in fold(value).split()]
        if words and all(named(w) for w in words):
            bad.append(field)
    return bad


def drop_repeats(text: str, min_words: int = 3) -> str:
    """The text with every sentence (of `min_words` words or more) said again removed."""
    seen: set[str] = set()
    kept = []
    for sentence in sentences(text):
        key = fold(sentence)
        if len(key.split()) >= min_words and key in seen:
            continue
        seen.add(key)
        kept.append(sentence)
    return " ".join(kept)


_LETTER_RUN = re.compile(r"[^\W\d_]{2,}")
_JSON_MARK = re.compile(r"[{}]|[\"']\s*:|:\s*[{\[]|:\s*$")


def wordless(text: str) -> bool:
    """A remark that says nothing: no run of two letters in any script (`=0.0`, `1.0`,
    `${},`), or a JSON fragment around two words at most (`accuracies: {`, `"score":`).
    Blank text is not a remark at all (False)."""
    if not text.strip():
        return False
    words = _LETTER_RUN.findall(text)
    return not words or (len(words) <= 2 and bool(_JSON_MARK.search(text)))


def echoes(text: str, instructions: str, min_words: int = 7) -> bool:
    """Whether `text` repeats a run of at least `min_words` consecutive words of
    `instructions` (case and accents folded): the bundled model answered the tutor's turn with
    its own system prompt ("You are the tutor talking to a learner. Teach the current step...").
    Word runs are compared as sets, in time linear in the text (it runs once a tutor turn)."""

    def runs(words: list[str]) -> set[tuple[str, ...]]:
        return {tuple(words[i : i + min_words]) for i in range(len(words) - min_words + 1)}

    return not runs(fold(text).split()).isdisjoint(runs(fold(instructions).split()))


def said_before(text: str, earlier: str, min_words: int = 3) -> bool:
    """Whether every sentence of `text` (at least `min_words` words in all) is already in
    `earlier`, case and accents folded: the bundled model's feedback on an answer was the
    tutor's own question said back ("I'm going to ask you a question.")."""
    said = f" {fold(earlier)} "
    parts = [fold(sentence) for sentence in sentences(text)]
    words = sum(len(part.split()) for part in parts)
    return words >= min_words and all(f" {part} " in said for part in parts if part)


_PLACEHOLDER = re.compile(r"<[^<>\n]{2,40}>")


def placeholders(values: Mapping[str, object]) -> list[str]:
    """Fields that still hold a template slot of the prompt (`<what is wrong>`)."""
    return [f for f, v in values.items() if isinstance(v, str) and _PLACEHOLDER.search(v)]


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def repeated_sentence(text: str, times: int = 3, min_words: int = 3) -> str:
    """A sentence of at least `min_words` words said `times` times or more, or twice in a
    row ('' when none): what a looping model writes, never what a teacher does."""
    said = [(s, fold(s)) for s in sentences(text)]
    said = [(s, f) for s, f in said if len(f.split()) >= min_words]
    for (s, f), (_, g) in zip(said, said[1:], strict=False):
        if f == g:
            return s
    counts = Counter(f for _, f in said)
    return next((s for s, f in said if counts[f] >= times), "")


class RepeatWatch:
    """`repeated_sentence(text, times=2)` over a text that streams in, in time linear in it.

    Each piece is folded once when its sentence ends (only the unfinished sentence is folded
    again as it grows): the whole text again on every streamed token made a long message's
    checks grow with its square, 40 ms of the event loop for 750 characters in 4-character
    tokens."""

    def __init__(self, min_words: int = 3) -> None:
        self.min_words = min_words
        self._tail = ""
        """What follows the last sentence end: the sentence being written."""
        self._said: dict[str, str] = {}
        """The finished sentences of `min_words` or more, folded: as first written."""
        self.repeated = ""
        """The first sentence said twice ('' while none is)."""

    def feed(self, piece: str) -> str:
        """Add a piece of the text; the sentence it has now said twice, or ''."""
        if self.repeated:
            return self.repeated
        self._tail += piece
        *finished, self._tail = _SENTENCE_END.split(self._tail)
        for sentence in finished:
            if self._said_again(sentence.strip(), keep=True):
                return self.repeated
        self._said_again(self._tail.strip(), keep=False)
        return self.repeated

    def _said_again(self, sentence: str, keep: bool) -> bool:
        folded = fold(sentence)
        if len(folded.split()) < self.min_words:
            return False
        if folded in self._said:
            self.repeated = self._said[folded]
            return True
        if keep:
            self._said[folded] = sentence
        return False


_TOKEN = re.compile(r"\S+")


def looping(text: str, times: int = 3, max_gram: int = 4) -> str:
    """A run of 1 to `max_gram` words said `times` times or more in a row that makes up most
    of the text ('' when none): `100% (100% (100% (100% (` ends no sentence, so
    `repeated_sentence` cannot see it; prose never repeats itself like this."""
    words = _TOKEN.findall(text)
    for n in range(1, max_gram + 1):
        for start in range(0, max(0, len(words) - n * times) + 1):
            gram = words[start : start + n]
            if len(gram) < n:
                break
            run = start
            while words[run : run + n] == gram:
                run += n
            said = (run - start) // n
            if said >= times and run - start >= 0.6 * len(words):
                return " ".join(gram)
    return ""


def quoted(text: str) -> list[str]:
    """Fragments the text puts in quotation marks (straight, curly or angle quotes)."""
    return [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]


def quotes_not_in(text: str, source: str) -> list[str]:
    """Quoted fragments of `text` that `source` does not contain (case and accents aside)."""
    body = f" {fold(source)} "
    return [q for q in quoted(text) if fold(q) and f" {fold(q)} " not in body]


def grounded(model: type[M], check: Callable[[M], list[str]]) -> type[M]:
    """`model` with `check` as an after-validator: its problems make the answer invalid, so
    the model client re-asks with them (and fails typed when they persist)."""

    def validate(self: M) -> M:
        problems = check(self)
        if problems:
            raise ValueError("; ".join(problems))
        return self

    namespace = {"_grounded": model_validator(mode="after")(validate), "__module__": __name__}
    return type(model.__name__, (model,), namespace)


class GroundedOn(Generic[M, S]):
    """`grounded` for a check that also reads what the answer is about (the learner's answer
    an evaluation must not hand back), given per call: the model class is built once, not on
    every call (building a pydantic class costs a millisecond or more, on every tutor turn).

        with GROUNDED.about(subject) as schema:
            answer = await client.structured(messages, schema)
    """

    def __init__(self, model: type[M], check: Callable[[M, S], list[str]]) -> None:
        self._subject: ContextVar[S] = ContextVar(f"{model.__name__}_subject")
        self.model = grounded(model, lambda answer: check(answer, self._subject.get()))

    @contextmanager
    def about(self, subject: S) -> Iterator[type[M]]:
        """The grounded model, checked against `subject` while the block runs (in this task
        and what it awaits)."""
        token = self._subject.set(subject)
        try:
            yield self.model
        finally:
            self._subject.reset(token)
