"""Criteria files: the shipped ones validate; every kind of problem is reported with its field."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from core.evaluation import (
    BUILTIN_DIR,
    CriteriaError,
    available_criteria,
    load_criteria,
    load_criteria_file,
    validate_criteria_files,
)

SHIPPED = [
    "default",
    "research",
    "solution",
    "connection_pairs",
    "problem_statement",
    "lesson",
    "concept_extraction",
]


def guidelines() -> dict[str, str]:
    return {
        band: f"{band} work" for band in ("excellent", "good", "adequate", "poor", "inadequate")
    }


def valid_data() -> dict:
    return {
        "id": "sample",
        "name": "Sample",
        "version": "1.0",
        "passing_threshold": 0.7,
        "criteria": [
            {
                "id": "a",
                "name": "A",
                "description": "first",
                "weight": 0.6,
                "is_critical": True,
                "passing_threshold": 0.5,
                "scoring_guidelines": guidelines(),
            },
            {
                "id": "b",
                "name": "B",
                "description": "second",
                "weight": 0.4,
                "is_critical": False,
                "passing_threshold": 0.5,
                "scoring_guidelines": guidelines(),
            },
        ],
    }


def write(tmp_path: Path, data: object, name: str = "sample.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_file_is_valid(name: str) -> None:
    criteria = load_criteria_file(BUILTIN_DIR / f"{name}.json")
    assert criteria.id == name
    assert abs(sum(c.weight for c in criteria.criteria) - 1) <= 0.01


def test_validate_without_arguments_checks_all_shipped_files() -> None:
    assert validate_criteria_files() == []
    assert set(SHIPPED) <= set(available_criteria())


def test_valid_file_loads(tmp_path: Path) -> None:
    criteria = load_criteria_file(write(tmp_path, valid_data()))
    assert criteria.ids == ["a", "b"]
    assert criteria.by_id("a").is_critical


def test_every_problem_is_reported_with_its_field(tmp_path: Path) -> None:
    data = valid_data()
    data["criteria"][0]["passing_threshold"] = 1.5
    data["criteria"][1]["weight"] = 0.9  # sum 1.5
    del data["criteria"][1]["scoring_guidelines"]["poor"]
    data["criteria"].append(copy.deepcopy(data["criteria"][0]))  # duplicate id "a"
    data["criteria"][2]["passing_threshold"] = 0.5
    data["passing_threshold"] = -0.1
    problems = validate_criteria_files([write(tmp_path, data)])
    text = "\n".join(problems)
    assert "criteria[0].passing_threshold" in text
    assert "criteria[1].scoring_guidelines.poor" in text
    assert "duplicate criterion id 'a'" in text
    assert "weights sum to 2.1" in text
    assert "passing_threshold: Input should be greater than or equal to 0" in text
    assert all(line.startswith(str(tmp_path / "sample.json")) for line in problems)


def test_weights_within_tolerance_are_accepted(tmp_path: Path) -> None:
    data = valid_data()
    data["criteria"][1]["weight"] = 0.395  # sum 0.995
    assert validate_criteria_files([write(tmp_path, data)]) == []


def test_weights_outside_tolerance_are_rejected_alone(tmp_path: Path) -> None:
    data = valid_data()
    data["criteria"][1]["weight"] = 0.3  # sum 0.9
    problems = validate_criteria_files([write(tmp_path, data)])
    assert len(problems) == 1 and "weights sum to 0.9" in problems[0]


def test_unknown_field_and_bad_json_are_reported(tmp_path: Path) -> None:
    data = valid_data()
    data["criteria"][0]["isCritical"] = True
    assert any(
        "criteria[0].isCritical" in p for p in validate_criteria_files([write(tmp_path, data)])
    )
    broken = write(tmp_path, '{"id": "x",', "broken.json")
    (problem,) = validate_criteria_files([broken])
    assert "not valid JSON at line 1" in problem
    latin = tmp_path / "latin.json"
    latin.write_bytes('{"id": "café"}'.encode("latin-1"))
    (problem,) = validate_criteria_files([latin])
    assert "latin.json" in problem and "not UTF-8" in problem


def test_invalid_file_raises_with_all_problems(tmp_path: Path) -> None:
    data = valid_data()
    data["criteria"][0]["weight"] = 0
    data["criteria"][1]["id"] = "Not An Id"
    with pytest.raises(CriteriaError) as info:
        load_criteria_file(write(tmp_path, data))
    assert len(info.value.problems) >= 2


def test_missing_file_falls_back_to_default_and_says_so() -> None:
    loaded = load_criteria("no_such_type", "no_such_type")
    assert loaded.fallback and loaded.criteria.id == "default"
    assert "no_such_type" in loaded.warnings[0] and "default criteria" in loaded.warnings[0]


def test_name_resolves_in_caller_directories_first(tmp_path: Path) -> None:
    data = valid_data()
    data["id"] = "lesson"
    write(tmp_path, data, "lesson.json")
    loaded = load_criteria("lesson", "lesson", [tmp_path])
    assert loaded.path == tmp_path / "lesson.json" and loaded.criteria.ids == ["a", "b"]
    assert load_criteria("lesson").criteria.ids[0] == "objective_alignment"


def test_existing_invalid_file_is_not_silently_replaced(tmp_path: Path) -> None:
    data = valid_data()
    data["criteria"] = []
    path = write(tmp_path, data)
    with pytest.raises(CriteriaError):
        load_criteria(path, "sample")


def test_a_file_written_as_the_spec_shows_it_is_accepted(tmp_path: Path) -> None:
    """Spec 003 3.3 spells the fields in camelCase; both spellings are read (issue 16)."""
    spec_file = {
        "id": "research",
        "name": "Research",
        "version": "2.0",
        "passingThreshold": 0.65,
        "criteria": [
            {
                "id": "depth",
                "name": "Depth",
                "description": "goes beyond the obvious",
                "weight": 0.5,
                "isCritical": True,
                "passingThreshold": 0.6,
                "scoringGuidelines": guidelines(),
            },
            {
                "id": "sources",
                "name": "Sources",
                "description": "cites what it uses",
                "weight": 0.5,
                "isCritical": False,
                "passingThreshold": 0.5,
                "scoringGuidelines": guidelines(),
            },
        ],
    }
    path = write(tmp_path, spec_file)
    assert validate_criteria_files([path]) == []
    criteria = load_criteria_file(path)
    assert criteria.passing_threshold == 0.65
    assert criteria.criteria[0].is_critical and criteria.criteria[0].passing_threshold == 0.6
    assert criteria.criteria[1].scoring_guidelines.poor == "poor work"


def test_unknown_fields_are_still_rejected_in_either_spelling(tmp_path: Path) -> None:
    typo = valid_data()
    typo["criteria"][0]["weigth"] = 0.6
    assert any("criteria[0].weigth" in p for p in validate_criteria_files([write(tmp_path, typo)]))
    camel_typo = valid_data()
    del camel_typo["criteria"][1]["is_critical"]
    camel_typo["criteria"][1]["isCritcal"] = True
    problems = validate_criteria_files([write(tmp_path, camel_typo, "camel.json")])
    assert any("isCritcal" in p for p in problems)


def test_every_shipped_criteria_file_has_a_user() -> None:
    """A shipped rubric is used by a flow, is one of spec 003's example files, or is named by
    the sample vault (main shipped merge_batch.json, which nothing used, for a claim the docs
    made about normalization)."""
    import re

    root = Path(__file__).resolve().parents[2]
    code = "\n".join(p.read_text(encoding="utf-8") for p in (root / "core").rglob("*.py"))
    used = set(re.findall(r'content_type="([a-z_-]+)"', code)) | {"default"}
    spec_examples = {"research", "solution", "connection_pairs", "problem_statement"}
    vault = root / "tui" / "sample_vault"
    named = set(
        re.findall(
            r"^rubric: *(\S+)",
            "\n".join(p.read_text(encoding="utf-8") for p in vault.rglob("*.md")),
            flags=re.M,
        )
    )
    from core.evaluation import BUILTIN_DIR

    for path in BUILTIN_DIR.glob("*.json"):
        assert path.stem in used | spec_examples | named, f"{path.name} is used by nothing"
    docs = (root / "docs" / "evaluation.md").read_text(encoding="utf-8")
    assert "merge_batch" not in docs
