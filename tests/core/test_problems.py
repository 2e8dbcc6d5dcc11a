"""Every model failure a person meets says what failed, the limit hit and what to do next.

The failures are produced for real (fake servers in tests/servers, a closed port) and go
through the client as in the app; `explain()` is the one mapping the CLI and the TUI show.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from pydantic import BaseModel

import local_llm.retry as retry
from core.problems import explain, user_message
from local_llm import LLMClient, ModelConfig
from local_llm.errors import StreamCutError
from local_llm.local_server import free_port

MESSAGES = [{"role": "user", "content": "Name the concept."}]


class Label(BaseModel):
    label: str


@pytest.fixture(autouse=True)
def no_sleep(monkeypatch):
    async def skip(_delay: float) -> None:
        return None

    monkeypatch.setattr(retry, "sleep", skip)


async def failure_of(config: ModelConfig, *, stream: bool = False) -> BaseException:
    client = LLMClient({"default": config})
    try:
        if stream:
            _ = [piece async for piece in client.stream(MESSAGES)]
        else:
            await client.structured(MESSAGES, Label)
    except Exception as exc:  # noqa: BLE001 - the failure is what the test looks at
        return exc
    raise AssertionError("the call did not fail")


def assert_actionable(line: str) -> None:
    """One line, no code location, no bare exception name with nothing after it."""
    assert "\n" not in line and "(at " not in line and "Traceback" not in line, line
    assert not re.search(r"\.py\b", line), line
    assert not re.search(r"\b\w+Error:\s*($|;)", line), line
    assert "; " in line, f"no next step in: {line}"


async def test_unreachable_ollama_says_start_it_or_use_the_bundled_model():
    port = free_port()
    config = ModelConfig(
        model="ollama_chat/llama3.2", base_url=f"http://127.0.0.1:{port}", transient_retries=1
    )
    line = explain(await failure_of(config)).line
    assert f"cannot reach llama3.2 at http://127.0.0.1:{port} after 2 attempts" in line
    assert "`ollama serve`" in line and "`noema demo`" in line
    assert_actionable(line)


async def test_a_model_not_pulled_says_which_pull_to_run(fake_ollama):
    config = ModelConfig(model="ollama_chat/qwen2.5:7b", base_url=fake_ollama.url)
    line = explain(await failure_of(config)).line
    assert f"qwen2.5:7b is not installed on the Ollama server at {fake_ollama.url}" in line
    assert "run `ollama pull qwen2.5:7b`" in line
    assert "NotFoundError" not in line and "Ollama_chatException" not in line
    assert_actionable(line)


async def test_a_refused_key_names_the_variable_it_came_from(fake_openai_keyed):
    config = ModelConfig(
        model="openai/gpt-fake",
        base_url=f"{fake_openai_keyed.url}/v1",
        api_key="sk-wrong-0000",
        api_key_env="FAKE_OPENAI_KEY",
    )
    line = explain(await failure_of(config)).line
    assert "refused the API key from $FAKE_OPENAI_KEY" in line and "check the key" in line
    assert "sk-wrong-0000" not in line
    unset = explain(await failure_of(dataclasses.replace(config, api_key=None))).line
    assert "$FAKE_OPENAI_KEY is not set" in unset and "export FAKE_OPENAI_KEY=" in unset
    assert_actionable(line)


async def test_rate_limit_says_how_long_the_provider_asked_to_wait(fake_openai):
    fake_openai.fail(429, 3, headers={"retry-after": "3600"})
    config = ModelConfig(model="openai/gpt-fake", base_url=f"{fake_openai.url}/v1")
    line = explain(await failure_of(config)).line
    assert "rate-limited (HTTP 429, asking to wait 3600 s)" in line and "wait" in line
    assert_actionable(line)


async def test_server_errors_name_the_status_and_the_attempts(fake_openai):
    fake_openai.fail(500, 5)
    config = ModelConfig(
        model="openai/gpt-fake", base_url=f"{fake_openai.url}/v1", transient_retries=1
    )
    line = explain(await failure_of(config)).line
    assert "failed (HTTP 500) after 2 attempts" in line
    assert_actionable(line)


async def test_a_timeout_names_the_setting_never_a_bare_timeouterror(fake_openai):
    fake_openai.answers({"text": '{"label": "a"}', "delay_s": 2})
    config = ModelConfig(
        model="openai/gpt-fake",
        base_url=f"{fake_openai.url}/v1",
        timeout_s=0.3,
        transient_retries=0,
    )
    line = explain(await failure_of(config)).line
    assert "gave no answer within 0.3 s (models.timeout_s)" in line
    assert "raise models.timeout_s" in line and "TimeoutError" not in line
    assert_actionable(line)


async def test_invalid_answers_name_the_re_asks_spent(fake_openai):
    fake_openai.answers("no json", "still none", "{")
    config = ModelConfig(model="openai/gpt-fake", base_url=f"{fake_openai.url}/v1", retries=2)
    line = explain(await failure_of(config)).line
    assert "gave no valid answer after 3 attempts (models.retries = 2)" in line
    assert_actionable(line)


async def test_a_prompt_too_large_for_the_servers_context(fake_openai):
    body = {
        "error": {
            "message": "the request exceeds the available context size, try increasing it",
            "type": "exceed_context_size_error",
            "code": 400,
        }
    }
    fake_openai.answers({"status": 400, "body": body})
    config = ModelConfig(
        model="openai/gpt-fake",
        base_url=f"{fake_openai.url}/v1",
        context_budget=3000,
        max_tokens=500,
    )
    line = explain(await failure_of(config)).line
    assert "larger than the context" in line and "num_ctx 3500" in line
    assert "models.context_budget" in line
    assert_actionable(line)


async def test_a_prompt_over_our_own_budget_names_the_step():
    config = ModelConfig(model="scripted", context_budget=300, max_tokens=10)
    client = LLMClient({"default": config}, backend=None)
    with pytest.raises(Exception) as caught:
        await client.structured(
            [{"role": "user", "content": "word " * 2000}], Label, flow="extraction", node="extract"
        )
    line = explain(caught.value).line
    assert line.startswith("extraction/extract: a prompt of ") and "budget of 300" in line
    assert_actionable(line)


async def test_a_cut_stream_is_reported_as_cut(fake_openai):
    fake_openai.answers({"text": "a long teaching message", "drop_after": 1})
    config = ModelConfig(model="openai/gpt-fake", base_url=f"{fake_openai.url}/v1")
    error = await failure_of(config, stream=True)
    assert isinstance(error, StreamCutError)
    line = user_message(error, "continue with: noema tutor --resume abc12345")
    assert "was cut off before the server finished it" in line
    assert line.endswith("continue with: noema tutor --resume abc12345")
    assert_actionable(line)


def test_other_failures_keep_their_type_and_text_but_not_their_location():
    try:
        raise ValueError("source note has no quotes")
    except ValueError as exc:
        problem = explain(exc)
    assert problem.line == "ValueError: source note has no quotes"
    assert "test_problems.py" in problem.detail  # the location goes to the trace only
    assert explain(TimeoutError()).line == "an operation timed out; try again"
