"""Turning a raw structured answer into a validated pydantic instance, or saying why not."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from local_llm.backends.base import Completion, JsonSchema, Message
from local_llm.json_data import JSONValue
from local_llm.schema import validate_bounded

M = TypeVar("M", bound=BaseModel)
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)
RAW_EXCERPT = 1200


class InvalidAnswer(Exception):
    """The answer cannot be used; `str()` is the message sent back to the model."""


def parse_answer(completion: Completion, model: type[M], schema: JsonSchema | None) -> M:
    """Validate a completion: not truncated, JSON, within the bounded schema, then pydantic."""
    if completion.finish_reason == "length":
        raise InvalidAnswer(
            "the answer was cut off at the token limit; answer again, shorter, with complete JSON"
        )
    data = _load_json(completion.text)
    if schema is not None:
        problems = validate_bounded(data, schema)
        if problems:
            raise InvalidAnswer("the JSON does not match the schema:\n- " + "\n- ".join(problems))
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = [
            f"{'/'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
            for err in exc.errors()[:5]
        ]
        raise InvalidAnswer("the JSON is not valid:\n- " + "\n- ".join(problems)) from exc


def _load_json(text: str) -> JSONValue:
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text.strip()
    if not body:
        raise InvalidAnswer("the answer was empty; reply with a JSON object")
    try:
        loaded: JSONValue = json.loads(body)
        return loaded
    except json.JSONDecodeError as exc:
        raise InvalidAnswer(f"the answer is not valid JSON ({exc.msg} at char {exc.pos})") from exc


def reask_messages(messages: Sequence[Message], raw_text: str, problem: str) -> list[Message]:
    """The original conversation plus the bad answer (excerpt) and the validation error."""
    excerpt = raw_text if len(raw_text) <= RAW_EXCERPT else raw_text[:RAW_EXCERPT] + " [...]"
    return [
        *messages,
        {"role": "assistant", "content": excerpt},
        {
            "role": "user",
            "content": f"Your previous answer was invalid: {problem}\n"
            "Reply again with only a JSON object that matches the schema.",
        },
    ]
