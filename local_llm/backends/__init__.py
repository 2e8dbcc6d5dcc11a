"""Model backends. Each is imported lazily so `import local_llm` stays cheap and offline."""

from __future__ import annotations

from local_llm.backends.base import Backend, Completion, PullProgress
from local_llm.config import ModelConfig


def backend_for(config: ModelConfig) -> Backend:
    """A fresh backend for a config's provider."""
    if config.provider == "ollama":
        from local_llm.backends.ollama_backend import OllamaBackend

        return OllamaBackend()
    from local_llm.backends.litellm_backend import LiteLLMBackend

    return LiteLLMBackend()


__all__ = ["Backend", "Completion", "PullProgress", "backend_for"]
