"""Model access for noema: structured output, streaming, embeddings, token budget, local server.

Importing this package is cheap and offline: litellm is imported only when a litellm backend
first makes a request, and its cost map is then read from the installed package
(`LITELLM_LOCAL_MODEL_COST_MAP`), never downloaded. This package imports nothing of noema's.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_TELEMETRY", "False")

from local_llm.activity import ActivitySink, CallActivity  # noqa: E402
from local_llm.backends import Backend, Completion, PullProgress  # noqa: E402
from local_llm.client import LLMClient  # noqa: E402
from local_llm.config import ModelConfig, Provider  # noqa: E402
from local_llm.errors import (  # noqa: E402
    ContextBudgetError,
    LLMError,
    ModelUnavailableError,
    StructuredOutputError,
    TransientModelError,
)
from local_llm.prose import ProseShape  # noqa: E402
from local_llm.schema import bounded_schema, validate_bounded  # noqa: E402
from local_llm.trace import CallTrace, TraceSink  # noqa: E402

__all__ = [
    "ActivitySink",
    "Backend",
    "CallActivity",
    "CallTrace",
    "Completion",
    "ContextBudgetError",
    "LLMClient",
    "LLMError",
    "ModelConfig",
    "ProseShape",
    "ModelUnavailableError",
    "Provider",
    "PullProgress",
    "StructuredOutputError",
    "TraceSink",
    "TransientModelError",
    "bounded_schema",
    "validate_bounded",
]
