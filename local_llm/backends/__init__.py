"""Model backends. Each is imported lazily so `import local_llm` stays cheap and offline."""

from __future__ import annotations

from local_llm.backends.base import Backend, Completion, PullProgress
from local_llm.config import ModelConfig


def backend_for(config: ModelConfig) -> Backend:
    """A fresh backend for a config's provider (`local` with the default registry directory;
    core passes one in the data directory instead); a pool of deployments gets the pool's."""
    if config.is_pool:
        from local_llm.backends.pool_backend import PoolBackend

        return PoolBackend()
    if config.provider == "local":
        from local_llm.backends.local_backend import LocalBackend
        from local_llm.local_server import default_model_dir

        return LocalBackend(default_model_dir().parent / "local-model")
    if config.provider == "ollama":
        from local_llm.backends.ollama_backend import OllamaBackend

        return OllamaBackend()
    from local_llm.backends.litellm_backend import LiteLLMBackend

    return LiteLLMBackend()


__all__ = ["Backend", "Completion", "PullProgress", "backend_for"]
