"""Free-text answers held to a shape (local_llm.prose): what the grammar accepts, the token
limit derived from it, and the request the local backend sends for a shaped stream.

The samples are answers Gemma 3 270M gave to the tutor's executor prompt (the rejected ones,
before the grammar) and answers written by hand in several scripts (the accepted ones)."""

from __future__ import annotations

from pathlib import Path

import pytest

from local_llm import LLMClient, ModelConfig, ProseShape
from local_llm.backends.local_backend import LocalBackend
from local_llm.prose import DRY_SAMPLING
from local_llm.testing import ScriptedBackend
from tests.local_llm.test_gbnf import to_regex

SHAPE = ProseShape(max_chars=120, line_prefix="Hint: ", max_lines=2, max_line_chars=40)


@pytest.mark.parametrize(
    "answer",
    [
        "Recordar sin mirar fortalece la memoria. ¿Qué harías antes de un examen?",
        "Recordar sin mirar fortalece la memoria. ¿Qué harías?\nHint: Piensa en tarjetas.",
        "¿Por qué releer engaña?\nHint: La fluidez no es memoria.\nHint: Prueba a recordar.",
        "思い出す練習は記憶を強くします。試験の前に何をしますか？",
        "Вспоминать полезнее, чем перечитывать. Почему?",
        "E = mc² relates energy and mass 🙂. What does c stand for?",
    ],
)
def test_a_paragraph_and_its_hint_lines_are_accepted(answer):
    assert to_regex(SHAPE.grammar()).fullmatch(answer)


@pytest.mark.parametrize(
    "answer",
    [
        "<|im_start|>user\n<|im_end|>user",  # a chat-template marker as the answer
        "- [PREPARE]\n- [PREPARE]\n- [PREPARE]",  # a placeholder loop
        "student: I'm going to the library.",  # a prompt label continued
        "",  # nothing
        "Too short.",
        "Recordar sin mirar fortalece la memoria sin fin y sin punto final",  # no sentence end
        "A" + "a" * 130 + ".",  # longer than the paragraph allows
        "Una idea.  Bien hecho, ahora sigue.\nHint: a\nHint: b\nHint: c",  # three hints
        "Una idea corta y clara.\nHint:\xa0\u2003\u2003",  # exotic spaces as a hint
    ],
)
def test_markers_loops_labels_and_overlong_answers_are_refused(answer):
    assert not to_regex(SHAPE.grammar()).fullmatch(answer)


def test_the_token_limit_covers_the_longest_answer_of_the_shape():
    longest = "A" + "a" * 118 + "." + ("\nHint: " + "B" * 40) * 2
    assert to_regex(SHAPE.grammar()).fullmatch(longest)
    assert SHAPE.longest == len(longest)
    assert SHAPE.max_tokens >= len(longest)  # a token per character at worst


async def test_a_shaped_stream_goes_to_the_local_server_with_its_grammar_and_dry_sampling():
    inner = ScriptedBackend(["Una idea clara. ¿Y tú?\nHint: piensa."])
    backend = LocalBackend(Path("/nonexistent"), inner=lambda: inner)
    backend.resolved = lambda config, mode: config  # type: ignore[method-assign]
    backend.prepare = _nothing  # type: ignore[method-assign]
    config = ModelConfig(provider="local", model="gemma3-270m", max_tokens=64)
    client = LLMClient({"default": config}, backends={"local": backend})
    text = "".join([p async for p in client.stream([_user("x")], shape=SHAPE)])
    assert text.startswith("Una idea clara.")
    (call,) = inner.calls
    assert call.extra_body is not None and call.extra_body["grammar"] == SHAPE.grammar()
    assert {k: call.extra_body[k] for k in DRY_SAMPLING} == DRY_SAMPLING
    assert call.config is not None and call.config.max_tokens == SHAPE.max_tokens


async def test_other_providers_get_the_derived_token_limit_and_no_grammar():
    backend = ScriptedBackend(["Una idea clara. ¿Y tú?"])
    config = ModelConfig(provider="ollama", model="llama3.2", max_tokens=64)
    client = LLMClient({"default": config}, backends={"ollama": backend})
    assert "".join([p async for p in client.stream([_user("x")], shape=SHAPE)])
    (call,) = backend.calls
    assert call.extra_body is None
    assert call.config is not None and call.config.max_tokens == SHAPE.max_tokens


def _user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


async def _nothing(*_args, **_kwargs):
    return None
