"""An Ollama-compatible server for tests: /api/version, /api/tags, /api/show, /api/chat (with and
without streaming), /api/embed, /api/pull (progress lines). Every request is recorded.

Models are dicts: `{"name": "llama3.2:latest", "size": 2019393189, "parameter_size": "3.2B",
"context_length": 131072, "family": "llama", "quantization": "Q4_K_M"}` (all but `name`
optional). A request for a model the server does not have answers 404 the way Ollama does.
"""

from __future__ import annotations

import json
import time
from typing import Any

from tests.servers.common import (
    Answer,
    FakeHandler,
    answer_for,
    count_tokens,
    embedding_of,
)

DEFAULT_MODELS = [
    {
        "name": "llama3.2:latest",
        "size": 2019393189,
        "parameter_size": "3.2B",
        "context_length": 131072,
        "family": "llama",
        "quantization": "Q4_K_M",
    },
    {
        "name": "nomic-embed-text:latest",
        "size": 274302450,
        "parameter_size": "137M",
        "context_length": 2048,
        "family": "nomic-bert",
        "quantization": "F16",
    },
]


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000000000Z", time.gmtime())


class OllamaHandler(FakeHandler):
    routes = {
        ("GET", "/api/version"): "version",
        ("GET", "/api/tags"): "tags",
        ("POST", "/api/show"): "show",
        ("POST", "/api/chat"): "chat",
        ("POST", "/api/generate"): "generate",
        ("POST", "/api/embed"): "embed",
        ("POST", "/api/pull"): "pull",
    }
    paced = frozenset({"/api/chat", "/api/generate"})

    def error_body(self, status: int) -> Any:
        return {"error": f"fake ollama error {status}"}

    def find(self, name: str) -> dict[str, Any] | None:
        wanted = name if ":" in name else f"{name}:latest"
        with self.state.lock:
            return next((m for m in self.state.models if m["name"] in (name, wanted)), None)

    def missing(self, name: str) -> None:
        self.send_json({"error": f'model "{name}" not found, try pulling it first'}, 404)

    # -- the API --------------------------------------------------------------------------

    def version(self, _body: dict[str, Any]) -> None:
        self.send_json({"version": "0.6.5"})

    def tags(self, _body: dict[str, Any]) -> None:
        with self.state.lock:
            models = [self.describe(m) for m in self.state.models]
        self.send_json({"models": models})

    @staticmethod
    def describe(model: dict[str, Any]) -> dict[str, Any]:
        return {
            "name": model["name"],
            "model": model["name"],
            "modified_at": _now(),
            "size": model.get("size", 1000),
            "digest": "sha256:" + "0" * 64,
            "details": {
                "format": "gguf",
                "family": model.get("family", "llama"),
                "families": [model.get("family", "llama")],
                "parameter_size": model.get("parameter_size", "1B"),
                "quantization_level": model.get("quantization", "Q4_K_M"),
            },
        }

    def show(self, body: dict[str, Any]) -> None:
        name = body.get("model") or body.get("name") or ""
        model = self.find(name)
        if model is None:
            self.missing(name)
            return
        family = model.get("family", "llama")
        self.send_json(
            {
                "modelfile": f"FROM {name}",
                "parameters": 'stop "<|eot_id|>"',
                "template": "{{ .Prompt }}",
                "details": self.describe(model)["details"],
                "model_info": {
                    "general.architecture": family,
                    f"{family}.context_length": model.get("context_length", 4096),
                    "general.parameter_count": model.get("parameter_count", 1_000_000),
                },
                "capabilities": model.get("capabilities", ["completion"]),
                "modified_at": _now(),
            }
        )

    def chat(self, body: dict[str, Any]) -> None:
        name = body.get("model", "")
        if self.find(name) is None:
            self.missing(name)
            return
        answer = answer_for(self.state, body.get("format"), body.get("messages"))
        if not self.before_answer(answer):
            return
        prompt = count_tokens(body.get("messages"))
        if body.get("stream", True):
            self.stream_chat(name, answer, prompt)
            return
        self.send_json(
            {
                "model": name,
                "created_at": _now(),
                "message": {"role": "assistant", "content": answer.text},
                "done": True,
                "done_reason": answer.finish or "stop",
                "prompt_eval_count": prompt,
                "eval_count": len(answer.text.split()),
            }
        )

    def generate(self, body: dict[str, Any]) -> None:
        """`/api/generate` (litellm's `ollama/` route): a prompt in, `response` text out."""
        name = body.get("model", "")
        if self.find(name) is None:
            self.missing(name)
            return
        answer = answer_for(self.state, body.get("format"))
        if not self.before_answer(answer):
            return
        prompt = count_tokens(body.get("prompt"))
        if body.get("stream", True):
            self.stream_chat(name, answer, prompt, generate=True)
            return
        self.send_json(
            {
                "model": name,
                "created_at": _now(),
                "response": answer.text,
                "done": True,
                "done_reason": answer.finish or "stop",
                "prompt_eval_count": prompt,
                "eval_count": len(answer.text.split()),
            }
        )

    def stream_chat(self, name: str, answer: Answer, prompt: int, generate: bool = False) -> None:
        def content(piece: str) -> dict[str, Any]:
            if generate:
                return {"response": piece}
            return {"message": {"role": "assistant", "content": piece}}

        self.start_stream("application/x-ndjson")
        for index, piece in enumerate(answer.pieces()):
            if answer.drop_after is not None and index >= answer.drop_after:
                self.drop_connection()
                return
            line = {"model": name, "created_at": _now(), "done": False, **content(piece)}
            self.send_chunk(json.dumps(line).encode() + b"\n")
        if answer.finish is None:
            self.end_stream()
            return
        last = {
            "model": name,
            "created_at": _now(),
            "done": True,
            "done_reason": answer.finish,
            **content(""),
            "prompt_eval_count": prompt,
            "eval_count": len(answer.text.split()),
        }
        self.send_chunk(json.dumps(last).encode() + b"\n")
        self.end_stream()

    def embed(self, body: dict[str, Any]) -> None:
        name = body.get("model", "")
        if self.find(name) is None:
            self.missing(name)
            return
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts or [])
        self.send_json(
            {
                "model": name,
                "embeddings": [embedding_of(t) for t in texts],
                "prompt_eval_count": count_tokens(" ".join(texts)),
            }
        )

    def pull(self, body: dict[str, Any]) -> None:
        name = body.get("model") or body.get("name") or ""
        if name.startswith("no-such"):
            self.send_json({"error": "pull model manifest: file does not exist"}, 500)
            return
        self.start_stream("application/x-ndjson")
        steps = [{"status": "pulling manifest"}]
        steps += [
            {
                "status": "pulling 6a0746a1ec1a",
                "digest": "sha256:6a07",
                "total": 1000,
                "completed": done,
            }
            for done in (0, 250, 500, 1000)
        ]
        steps += [{"status": "verifying sha256 digest"}, {"status": "success"}]
        for step in steps:
            self.send_chunk(json.dumps(step).encode() + b"\n")
        self.end_stream()
        full = name if ":" in name else f"{name}:latest"
        if self.find(full) is None:
            with self.state.lock:
                self.state.models.append({"name": full})
