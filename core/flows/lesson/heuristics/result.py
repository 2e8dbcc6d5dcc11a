"""Results of the free checks and the table of spec 001 that turns them into an action.

| check | FAIL | WARN |
|---|---|---|
| language consistency (5.1) | REGENERATE (a passage or paragraph in another language) | SELF_FIX (1-3 stray foreign characters: phase 2 hygiene, code removes them) |
| content truncation (5.2) | PARTIAL_REGEN (the cut section; REGENERATE with several cuts) | - |
| min section length | PARTIAL_REGEN (empty section) | FLAG_TO_JUDGE (short section) |
| placeholders (phase 1: empty/placeholder fields) | PARTIAL_REGEN (the sections holding them) | - |
| chatbot artifacts (phase 2: hygiene) | - | SELF_FIX (code removes them) |

Each finding carries its own action; a check's action is its worst finding's, the report's
the worst check's.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field


class CheckStatus(StrEnum):
    PASS = "PASS"
    WARN = "WARN"
    FAIL = "FAIL"


class HeuristicAction(StrEnum):
    """What the router does with a check's result (ordered by severity)."""

    NONE = "NONE"
    FLAG_TO_JUDGE = "FLAG_TO_JUDGE"
    SELF_FIX = "SELF_FIX"
    PARTIAL_REGEN = "PARTIAL_REGEN"
    REGENERATE = "REGENERATE"


SEVERITY = {action: n for n, action in enumerate(HeuristicAction)}


class Finding(BaseModel):
    """One thing a check found, with where it is and what it calls for."""

    section: str = ""
    """Title of the section it is in ('' for the preamble or the whole lesson)."""
    line: int = -1
    """0-based line in the lesson body, -1 when not tied to a line."""
    message: str
    sample: str = ""
    """A short excerpt of the offending text."""
    action: HeuristicAction = HeuristicAction.NONE
    """What this finding alone calls for; the check's action is the worst of its findings'."""

    @property
    def acts(self) -> bool:
        """Whether it asks for more than a flag to the judge (a fix or a regeneration)."""
        return SEVERITY[self.action] > SEVERITY[HeuristicAction.FLAG_TO_JUDGE]


class CheckResult(BaseModel):
    """The outcome of one check."""

    name: str
    """`language_consistency`, `content_truncation`, `min_section_length`, `placeholders`,
    `chatbot_artifacts`."""
    status: CheckStatus = CheckStatus.PASS
    action: HeuristicAction = HeuristicAction.NONE
    findings: list[Finding] = Field(default_factory=list)
    metrics: dict[str, float] = Field(default_factory=dict)
    """Counts the check measured (e.g. `foreign_characters`)."""

    @property
    def passed(self) -> bool:
        return self.status == CheckStatus.PASS

    @classmethod
    def of(cls, name: str, findings: list[Finding], **metrics: float) -> CheckResult:
        """The result its findings make: the worst finding's action; FAIL when that action
        regenerates, WARN when it fixes or flags, PASS without findings."""
        action = max(
            (f.action for f in findings), key=SEVERITY.__getitem__, default=HeuristicAction.NONE
        )
        status = (
            CheckStatus.FAIL
            if action in (HeuristicAction.PARTIAL_REGEN, HeuristicAction.REGENERATE)
            else CheckStatus.WARN
            if action != HeuristicAction.NONE
            else CheckStatus.PASS
        )
        return cls(name=name, status=status, action=action, findings=findings, metrics=metrics)


class HeuristicReport(BaseModel):
    """Every check's result and the action the worst of them calls for."""

    checks: list[CheckResult]
    duration_ms: float = 0.0

    @property
    def action(self) -> HeuristicAction:
        return max(
            (c.action for c in self.checks), key=SEVERITY.__getitem__, default=HeuristicAction.NONE
        )

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    def check(self, name: str) -> CheckResult:
        return next(c for c in self.checks if c.name == name)

    def failed(self) -> list[CheckResult]:
        return [c for c in self.checks if c.status == CheckStatus.FAIL]

    def warned(self) -> list[CheckResult]:
        return [c for c in self.checks if c.status == CheckStatus.WARN]

    def sections_to_regenerate(self) -> list[str]:
        """Titles of the sections a PARTIAL_REGEN would rewrite."""
        titles = [
            f.section
            for c in self.checks
            if c.action == HeuristicAction.PARTIAL_REGEN
            for f in c.findings
            if f.section and f.action == HeuristicAction.PARTIAL_REGEN
        ]
        return list(dict.fromkeys(titles))

    def summary(self) -> str:
        """One line per non-passing check, for prompts and frontmatter."""
        lines = []
        for c in self.checks:
            if c.passed:
                continue
            what = "; ".join(f.message for f in c.findings[:3])
            lines.append(f"{c.name}: {c.status} -> {c.action} ({what})")
        return "\n".join(lines) or "all checks passed"
