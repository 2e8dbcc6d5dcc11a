"""Prompt token counting before a request is sent.

The count is a conservative local estimate: ceil(UTF-8 bytes / 3) per text plus 4 tokens of
chat-template overhead per message. Real tokenizers (Gemma, Llama, cl100k) average 3.5 to 4.5
bytes per token on English and Spanish prose, so the estimate errs on the high side and a prompt
that passes the budget fits the server's context. litellm.token_counter is not used: it
stays offline only with `disable_hf_tokenizer_download` (checked with sockets blocked), counts
with OpenAI's tokenizer whatever the model, and would cost every caller the ~4 s import of
litellm (Ollama users and scripted tests included). One counter everywhere also keeps
`ScriptedBackend`'s accounting equal to the budget check. Traces record the server's real
usage when it reports one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

BYTES_PER_TOKEN = 3
MESSAGE_OVERHEAD = 4
REPLY_PRIMING = 3


def count_text(text: str) -> int:
    """Estimated tokens of a piece of text (0 for the empty string)."""
    size = len(text.encode("utf-8"))
    return -(-size // BYTES_PER_TOKEN)


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


def count_messages(messages: Iterable[Mapping[str, object]]) -> int:
    """Estimated prompt tokens of chat messages, including template overhead."""
    total = REPLY_PRIMING
    for message in messages:
        total += MESSAGE_OVERHEAD + count_text(_content_text(message.get("content")))
    return total
