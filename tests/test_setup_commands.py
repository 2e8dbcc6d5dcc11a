"""README's two set-up commands: one ends in `noema demo`, one in the test run, which `.ci/run` runs."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if "venv" in line]


def test_readme_names_a_demo_command_and_a_test_command() -> None:
    commands = readme_commands()
    assert any(c.startswith("python3 -m venv") and c.endswith("noema demo") for c in commands)
    assert any(c.startswith("python3 -m venv") and c.endswith("/pytest") for c in commands)


def test_ci_runs_exactly_the_readme_test_command() -> None:
    test_command = next(c for c in readme_commands() if c.endswith("/pytest"))
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = [line.strip() for line in ci if line.strip() and not line.lstrip().startswith("#")]
    assert test_command in commands


def pinned() -> dict[str, str]:
    lines = (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines()
    pins = [line.split("==") for line in lines if line and not line.startswith("#")]
    return {normalized(name): version for name, version in pins}


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_dependency_is_installed_at_a_tested_version() -> None:
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [*project["dependencies"]]
    for extra in ("dev", "local"):
        wanted += project["optional-dependencies"][extra]
    names = {normalized(re.split(r"[\[<>=!~; ]", spec, maxsplit=1)[0]) for spec in wanted}
    missing = sorted(names - set(pinned()))
    assert not missing, f"not in constraints.txt: {missing}"
    for command in readme_commands():
        assert "-c constraints.txt" in command
