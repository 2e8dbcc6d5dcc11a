"""Prompt token counting before a request is sent.

The count is a conservative local estimate: ceil(UTF-8 bytes / 3) per text plus 4 tokens of
chat-template overhead per message. Real tokenizers (Gemma, Llama, cl100k) average 3.5 to 4.5
bytes per token on English and Spanish prose, so the estimate errs on the high side and a prompt
that passes the budget fits the server's context. litellm.token_counter is not used: for
non-OpenAI models it may fetch a Hugging Face tokenizer over the network, and it costs the
import of litellm. Real usage reported by the server is what traces record when present.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

BYTES_PER_TOKEN = 3
MESSAGE_OVERHEAD = 4
REPLY_PRIMING = 3


def count_text(text: str) -> int:
    """Estimated tokens of a piece of text (0 for the empty string)."""
    size = len(text.encode("utf-8"))
    return -(-size // BYTES_PER_TOKEN)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


def count_messages(messages: Iterable[Mapping[str, Any]]) -> int:
    """Estimated prompt tokens of chat messages, including template overhead."""
    total = REPLY_PRIMING
    for message in messages:
        total += MESSAGE_OVERHEAD + count_text(_content_text(message.get("content")))
    return total
