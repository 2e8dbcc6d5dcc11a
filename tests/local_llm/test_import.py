"""Importing local_llm (and loading litellm through it) makes no network request."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BLOCK_SOCKETS = textwrap.dedent(
    """
    import json, os, socket, sys
    attempts = []
    def refuse(*args, **kwargs):
        attempts.append(repr(args[:2]))
        raise OSError("network blocked by test")
    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.getaddrinfo = refuse
    socket.create_connection = refuse
    os.environ.pop("LITELLM_LOCAL_MODEL_COST_MAP", None)
    """
)


def _run(body: str) -> dict:
    code = BLOCK_SOCKETS + textwrap.dedent(body)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_is_offline_and_does_not_load_litellm():
    result = _run(
        """
        import local_llm
        from local_llm import LLMClient, ModelConfig, bounded_schema
        print(json.dumps({
            "attempts": attempts,
            "litellm": "litellm" in sys.modules,
            "ollama": "ollama" in sys.modules,
            "cost_map": os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP"),
        }))
        """
    )
    assert result == {"attempts": [], "litellm": False, "ollama": False, "cost_map": "True"}


def test_loading_litellm_through_the_backend_is_offline():
    result = _run(
        """
        import local_llm
        from local_llm.backends.litellm_backend import load_litellm
        litellm = load_litellm()
        print(json.dumps({"attempts": attempts, "loaded": "litellm" in sys.modules}))
        """
    )
    assert result == {"attempts": [], "loaded": True}
