"""Evaluation criteria (spec 003, 3.3): the models, the loader and the file validator.

A criteria file is JSON with snake_case fields (the spec's camelCase spellings, such as
`isCritical`, `passingThreshold` and `scoringGuidelines`, are read too)::

    {"id": "lesson", "name": "Lesson", "version": "1.0", "passing_threshold": 0.7,
     "criteria": [{"id": "clarity", "name": "Clarity", "description": "...", "weight": 0.3,
                   "is_critical": false, "passing_threshold": 0.6,
                   "scoring_guidelines": {"excellent": "...", "good": "...", "adequate": "...",
                                          "poor": "...", "inadequate": "..."}}, ...]}

Weights are relative importances in 0..1 and must sum to 1 within `WEIGHT_TOLERANCE`. The
overall score divides by the actual sum (`scoring.weighted_mean`), so a file whose weights sum
to 0.995 is normalized exactly; a sum further from 1 is an authoring mistake and is rejected.
The file's `passing_threshold` may be omitted: the evaluation node's option (default 0.7) is
used then.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

BUILTIN_DIR = Path(__file__).parent / "criteria"
"""The criteria files shipped with noema."""
DEFAULT_NAME = "default"
"""The criteria set used when a content type has no file of its own."""
WEIGHT_TOLERANCE = 0.01
"""How far the sum of the weights may be from 1."""
BANDS = ("excellent", "good", "adequate", "poor", "inadequate")
"""The five scoring-guideline bands, best first."""
ID_PATTERN = r"^[a-z][a-z0-9_-]{0,63}$"

_STRICT = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)


def either(name: str) -> AliasChoices:
    """A field read under its snake_case name or the spec's camelCase one (`isCritical`);
    both at once, or any other name, is still an unknown field."""
    return AliasChoices(name, to_camel(name))


class ScoringGuidelines(BaseModel):
    """What each score band means for one criterion."""

    model_config = _STRICT

    excellent: str = Field(min_length=1)
    """A score of 0.9-1.0."""
    good: str = Field(min_length=1)
    """A score of 0.7-0.89."""
    adequate: str = Field(min_length=1)
    """A score of 0.5-0.69."""
    poor: str = Field(min_length=1)
    """A score of 0.3-0.49."""
    inadequate: str = Field(min_length=1)
    """A score of 0.0-0.29."""


class Criterion(BaseModel):
    """One criterion of a rubric."""

    model_config = _STRICT

    id: str = Field(pattern=ID_PATTERN)
    """Unique id within the file (lowercase letters, digits, `_`, `-`; the model answers under it)."""
    name: str = Field(min_length=1, max_length=120)
    """Human-readable name."""
    description: str = Field(min_length=1)
    """What the criterion judges."""
    weight: float = Field(gt=0, le=1)
    """Relative importance, 0 < weight <= 1."""
    is_critical: bool = Field(False, validation_alias=either("is_critical"))
    """If true, a score below this criterion's threshold fails the whole evaluation."""
    passing_threshold: float = Field(ge=0, le=1, validation_alias=either("passing_threshold"))
    """Minimum score to pass this criterion."""
    scoring_guidelines: ScoringGuidelines = Field(validation_alias=either("scoring_guidelines"))
    """The five score bands."""


class EvaluationCriteria(BaseModel):
    """A rubric: a set of weighted criteria and an overall passing threshold."""

    model_config = _STRICT

    id: str = Field(pattern=ID_PATTERN)
    """Unique id of the configuration."""
    name: str = Field(min_length=1, max_length=120)
    """Human-readable name."""
    version: str = Field(min_length=1, max_length=32)
    """Version, bumped when the rubric changes."""
    description: str = ""
    """What kind of content this rubric is for (optional)."""
    criteria: list[Criterion] = Field(min_length=1, max_length=20)
    """The criteria, in the order they are shown."""
    passing_threshold: float | None = Field(
        default=None, ge=0, le=1, validation_alias=either("passing_threshold")
    )
    """Overall threshold to pass; None means the evaluation node's option."""

    @model_validator(mode="after")
    def _consistent(self) -> EvaluationCriteria:
        problems = semantic_problems(self.model_dump())
        if problems:
            raise ValueError("; ".join(f"{where}: {what}" for where, what in problems))
        return self

    @property
    def ids(self) -> list[str]:
        """The criterion ids in order."""
        return [criterion.id for criterion in self.criteria]

    def by_id(self, criterion_id: str) -> Criterion:
        """The criterion with this id."""
        for criterion in self.criteria:
            if criterion.id == criterion_id:
                return criterion
        raise KeyError(criterion_id)


def semantic_problems(data: object) -> list[tuple[str, str]]:
    """Cross-field problems of raw criteria data: (location, message) pairs.

    Tolerant of malformed input so that the loader can report these together with the
    field errors pydantic finds.
    """
    if not isinstance(data, Mapping):
        return []
    items = data.get("criteria")
    if not isinstance(items, list):
        return []
    problems: list[tuple[str, str]] = []
    ids = [item.get("id") for item in items if isinstance(item, Mapping)]
    for dup, count in Counter(i for i in ids if isinstance(i, str)).items():
        if count > 1:
            problems.append(("criteria", f"duplicate criterion id {dup!r} ({count} times)"))
    weights = [item.get("weight") for item in items if isinstance(item, Mapping)]
    numbers = [w for w in weights if isinstance(w, int | float) and not isinstance(w, bool)]
    if numbers and len(numbers) == len(items):
        total = sum(numbers)
        if abs(total - 1.0) > WEIGHT_TOLERANCE:
            problems.append(
                (
                    "criteria.*.weight",
                    f"weights sum to {total:.4g}; they must sum to 1 ± {WEIGHT_TOLERANCE}",
                )
            )
    return problems


@dataclass(frozen=True)
class LoadedCriteria:
    """The criteria an evaluation uses, where they came from, and any warnings."""

    criteria: EvaluationCriteria
    path: Path
    warnings: list[str] = field(default_factory=list)
    """E.g. that the default criteria stand in for a missing file."""
    fallback: bool = False
    """True when the default criteria were used because the requested file does not exist."""


class CriteriaError(ValueError):
    """A criteria file cannot be read or does not validate; `problems` lists every issue."""

    def __init__(self, path: Path, problems: list[str]):
        self.path = path
        self.problems = problems
        super().__init__(f"invalid criteria file {path}:\n  " + "\n  ".join(problems))


def _location(loc: Iterable[int | str]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(file)"


def check_criteria_data(data: object) -> list[str]:
    """Every problem of already-parsed criteria data, as 'field: message' lines."""
    problems: list[str] = []
    try:
        EvaluationCriteria.model_validate(data)
    except ValidationError as exc:
        for error in exc.errors():
            if tuple(error["loc"]) == ():  # the cross-field validator; reported below
                continue
            problems.append(f"{_location(error['loc'])}: {error['msg']}")
    problems.extend(f"{where}: {what}" for where, what in semantic_problems(data))
    return problems


def read_criteria_file(path: Path) -> tuple[EvaluationCriteria | None, list[str]]:
    """Parse and validate one file: (criteria or None, every problem found)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        return None, [f"(file): cannot be read: {exc.strerror or exc}"]
    except UnicodeDecodeError as exc:
        return None, [f"(file): not UTF-8 text (byte {exc.start}); save it as UTF-8"]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [f"(file): not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"]
    problems = check_criteria_data(data)
    if problems:
        return None, problems
    return EvaluationCriteria.model_validate(data), []


def load_criteria_file(path: Path) -> EvaluationCriteria:
    """Load one criteria file; raises `CriteriaError` listing every problem."""
    criteria, problems = read_criteria_file(path)
    if criteria is None:
        raise CriteriaError(Path(path), problems)
    return criteria


def resolve_criteria_path(name_or_path: str | Path, search_dirs: Iterable[Path] = ()) -> Path:
    """Where a criteria reference points: an existing path, else `<dir>/<name>.json`.

    Directories are searched in order (the caller's first, the shipped ones last). A
    reference that resolves nowhere returns the path in the shipped directory, which does
    not exist; `load_criteria` then falls back to the default set.
    """
    candidate = Path(name_or_path)
    if candidate.suffix == ".json" and (candidate.is_absolute() or candidate.exists()):
        return candidate
    name = candidate.name if candidate.suffix == ".json" else f"{candidate.name}.json"
    for directory in (*search_dirs, BUILTIN_DIR):
        path = Path(directory) / name
        if path.is_file():
            return path
    return BUILTIN_DIR / name


def load_criteria(
    name_or_path: str | Path, content_type: str = "", search_dirs: Iterable[Path] = ()
) -> LoadedCriteria:
    """The criteria for a content type; the default set (with a warning) when the file is missing.

    A file that exists but is invalid is never replaced silently: `CriteriaError` is raised.
    """
    path = resolve_criteria_path(name_or_path, search_dirs)
    if path.is_file():
        return LoadedCriteria(load_criteria_file(path), path)
    default = BUILTIN_DIR / f"{DEFAULT_NAME}.json"
    what = f"content type {content_type!r}" if content_type else f"{name_or_path!s}"
    warning = f"no criteria file for {what} ({path.name} not found); using the default criteria"
    return LoadedCriteria(load_criteria_file(default), default, [warning], fallback=True)


def available_criteria(search_dirs: Iterable[Path] = ()) -> list[str]:
    """Names of every criteria file found (the caller's directories first, then shipped ones)."""
    names: dict[str, None] = {}
    for directory in (*search_dirs, BUILTIN_DIR):
        if Path(directory).is_dir():
            for path in sorted(Path(directory).glob("*.json")):
                names.setdefault(path.stem, None)
    return list(names)


def validate_criteria_files(paths: Iterable[Path | str] = ()) -> list[str]:
    """Problems of the given files (every shipped file when none are given), one line each.

    Each line reads `FILE: field: message`. An empty list means every file is valid.
    """
    files = [Path(p) for p in paths] or sorted(BUILTIN_DIR.glob("*.json"))
    problems: list[str] = []
    for path in files:
        _, found = read_criteria_file(path)
        problems.extend(f"{path}: {problem}" for problem in found)
    return problems
