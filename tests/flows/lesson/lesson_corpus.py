"""The independent lesson corpus (tests/data/lesson_corpus): loading, checking, counting.

The lessons were written by hand by helpers who did not read the checks (see the corpus
README). This module only reads them: `load_corpus()` gives every lesson with its labels, each
label checked against its file (an excerpt that is not on its line is an error, so a label that
drifted from its lesson cannot silently skew a measurement), and `composition()` counts what
the corpus holds (`python -m tests.flows.lesson.lesson_corpus` prints it for the README).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

CORPUS_DIR = Path(__file__).resolve().parents[2] / "data" / "lesson_corpus"
FAMILIES = ("placeholder", "chatter", "truncation", "language_drift", "empty_section")
SCRIPTS = {
    "en": "Latin",
    "es": "Latin",
    "fr": "Latin",
    "de": "Latin",
    "it": "Latin",
    "pt": "Latin",
    "ru": "Cyrillic",
    "uk": "Cyrillic",
    "zh": "CJK",
    "ja": "CJK",
}


class LabelError(ValueError):
    """A label that does not match its lesson file."""


@dataclass(frozen=True)
class Defect:
    """One labelled defect: its family and where it is (`line` 1-based, as in the labels)."""

    type: str
    section: str
    line: int
    excerpt: str
    where: str = ""
    block: str = ""
    into: str = ""
    note: str = ""


@dataclass
class CorpusLesson:
    """One lesson file and its labels."""

    file: str
    language: str
    subject: str
    clean: bool
    hard_negative: bool
    body: str
    hard_features: list[str] = field(default_factory=list)
    defects: list[Defect] = field(default_factory=list)

    @property
    def lines(self) -> list[str]:
        return self.body.splitlines()


def _defect(raw: dict) -> Defect:
    known = {k: raw[k] for k in Defect.__dataclass_fields__ if k in raw}
    return Defect(**known)


def _check(lesson: CorpusLesson) -> None:
    if lesson.clean == bool(lesson.defects):
        raise LabelError(f"{lesson.file}: clean={lesson.clean} but {len(lesson.defects)} defects")
    lines = lesson.lines
    for d in lesson.defects:
        if d.type not in FAMILIES:
            raise LabelError(f"{lesson.file}: unknown defect type {d.type!r}")
        if not 1 <= d.line <= len(lines):
            raise LabelError(f"{lesson.file}: line {d.line} outside the file")
        if d.excerpt.strip() not in lines[d.line - 1]:
            raise LabelError(f"{lesson.file}:{d.line}: excerpt {d.excerpt!r} is not on that line")


def load_language(language: str, root: Path = CORPUS_DIR) -> list[CorpusLesson]:
    """Every lesson of one language, labels checked against the files."""
    folder = root / language
    lessons = []
    for row in (folder / "labels.jsonl").read_text(encoding="utf-8").splitlines():
        if not row.strip():
            continue
        raw = json.loads(row)
        lesson = CorpusLesson(
            file=raw["file"],
            language=raw["language"],
            subject=raw.get("subject", ""),
            clean=raw["clean"],
            hard_negative=raw.get("hard_negative", False),
            body=(root / raw["file"]).read_text(encoding="utf-8"),
            hard_features=list(raw.get("hard_features", [])),
            defects=[_defect(d) for d in raw.get("defects", [])],
        )
        _check(lesson)
        lessons.append(lesson)
    files = {p.relative_to(root).as_posix() for p in folder.glob("*.md") if p.name != "NOTES.md"}
    if missing := files - {lesson.file for lesson in lessons}:
        raise LabelError(f"{language}: lessons without a label: {sorted(missing)}")
    return lessons


def languages(root: Path = CORPUS_DIR) -> list[str]:
    """The languages present (folders with a labels.jsonl), sorted."""
    return sorted(p.parent.name for p in root.glob("*/labels.jsonl"))


def load_corpus(langs: list[str] | None = None, root: Path = CORPUS_DIR) -> list[CorpusLesson]:
    """The lessons of `langs` (default: every language present)."""
    return [lesson for lang in (langs or languages(root)) for lesson in load_language(lang, root)]


def lesson_by_file(file: str, root: Path = CORPUS_DIR) -> CorpusLesson:
    """One lesson by its `<lang>/<name>.md` path (for tests built from a corpus lesson)."""
    lang = file.split("/", 1)[0]
    return next(lesson for lesson in load_language(lang, root) if lesson.file == file)


def composition(lessons: list[CorpusLesson]) -> dict[str, object]:
    """What the corpus holds: counts per language, family, subject and hard feature."""
    per_language: dict[str, Counter[str]] = {}
    for lesson in lessons:
        c = per_language.setdefault(lesson.language, Counter())
        c["lessons"] += 1
        c["clean"] += lesson.clean
        c["hard_negatives"] += lesson.hard_negative and lesson.clean
        c["defective"] += not lesson.clean
        for d in lesson.defects:
            c[d.type] += 1
    detail: dict[str, Counter[str]] = {"where": Counter(), "block": Counter(), "into": Counter()}
    for d in (d for lesson in lessons for d in lesson.defects):
        for key in detail:
            if value := getattr(d, key):
                detail[key][value] += 1
    return {
        "total": sum(per_language.values(), Counter()),
        "per_language": per_language,
        "subjects": Counter(lesson.subject for lesson in lessons),
        "hard_features": Counter(
            f for lesson in lessons if lesson.clean for f in lesson.hard_features
        ),
        **detail,
    }


def _table(comp: dict[str, object]) -> str:
    cols = ["lessons", "clean", "hard_negatives", "defective", *FAMILIES]
    rows = ["| language | script | " + " | ".join(cols) + " |", "|---" * (len(cols) + 2) + "|"]
    per = comp["per_language"]
    for lang, c in sorted(per.items()):  # type: ignore[union-attr]
        rows.append(
            f"| {lang} | {SCRIPTS.get(lang, '?')} | " + " | ".join(str(c[k]) for k in cols) + " |"
        )
    total = comp["total"]
    rows.append("| all | | " + " | ".join(str(total[k]) for k in cols) + " |")  # type: ignore[index]
    return "\n".join(rows)


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counter.most_common())


def main() -> None:
    lessons = load_corpus(sys.argv[1:] or None)
    comp = composition(lessons)
    print(_table(comp))
    for key in ("subjects", "where", "block", "into", "hard_features"):
        print(f"\n{key}: {_counts(comp[key])}")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
