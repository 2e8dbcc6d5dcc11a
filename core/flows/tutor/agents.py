"""The tutor's agents by name, in a module that imports nothing heavy.

`noema --help` lists them as the choices of `noema tutor logs --agent`; importing the tutor's
state (pydantic models) for a tuple of names cost `--help` about 0.2 s.
"""

from __future__ import annotations

from typing import Literal, get_args

Agent = Literal["planner", "executor", "evaluator", "finish"]
AGENTS: tuple[Agent, ...] = get_args(Agent)
