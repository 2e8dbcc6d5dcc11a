"""An OpenAI-compatible server for tests: /v1/models, /v1/chat/completions (with and without
streaming, server-sent events), /v1/embeddings. Every request is recorded.

With `--api-key KEY`, a request without `Authorization: Bearer KEY` gets 401 as OpenAI answers.
Scripted answers can fail with any status (429 with `retry-after`, 500), answer hostile or
invalid text, drop the connection mid-stream (`drop_after`) or kill the server (`die`).
"""

from __future__ import annotations

import json
import time
from typing import Any

from tests.servers.common import Answer, FakeHandler, answer_for, count_tokens, embedding_of

DEFAULT_MODELS = [{"name": "gpt-fake"}, {"name": "embed-fake"}]


class OpenAIHandler(FakeHandler):
    api_key: str | None = None
    routes = {
        ("GET", "/v1/models"): "models",
        ("POST", "/v1/chat/completions"): "chat",
        ("POST", "/v1/embeddings"): "embeddings",
    }
    paced = frozenset({"/v1/chat/completions"})

    def error_body(self, status: int) -> Any:
        kinds = {401: "invalid_api_key", 429: "rate_limit_exceeded", 500: "server_error"}
        return {
            "error": {
                "message": f"fake error {status}",
                "type": "api_error",
                "code": kinds.get(status, "error"),
            }
        }

    def _dispatch(self, method: str) -> None:
        keyed = self.api_key and not self.path.startswith("/_fake/")
        if keyed and self.headers.get("Authorization") != f"Bearer {self.api_key}":
            headers = {k.lower(): v for k, v in self.headers.items()}
            self.state.record(method, self.path, headers, self._read_json())
            self.send_json(
                {
                    "error": {
                        "message": "Incorrect API key provided: sk-***.",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                    }
                },
                401,
            )
            return
        super()._dispatch(method)

    def models(self, _body: dict[str, Any]) -> None:
        with self.state.lock:
            data = [
                {"id": m["name"], "object": "model", "created": 1700000000, "owned_by": "fake"}
                for m in self.state.models
            ]
        self.send_json({"object": "list", "data": data})

    def chat(self, body: dict[str, Any]) -> None:
        fmt = body.get("response_format") or {}
        schema = (fmt.get("json_schema") or {}).get("schema") if isinstance(fmt, dict) else None
        answer = answer_for(self.state, schema, body.get("messages"))
        if not self.before_answer(answer):
            return
        model = body.get("model", "")
        prompt = count_tokens(body.get("messages"))
        if body.get("stream"):
            self.stream_chat(model, answer)
            return
        self.send_json(
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": answer.text},
                        "finish_reason": answer.finish or "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": len(answer.text.split()),
                    "total_tokens": prompt + len(answer.text.split()),
                },
            }
        )

    def _chunk(self, model: str, delta: dict[str, Any], finish: str | None) -> bytes:
        data = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return b"data: " + json.dumps(data).encode() + b"\n\n"

    def stream_chat(self, model: str, answer: Answer) -> None:
        self.start_stream("text/event-stream")
        self.send_chunk(self._chunk(model, {"role": "assistant", "content": ""}, None))
        for index, piece in enumerate(answer.pieces()):
            if answer.drop_after is not None and index >= answer.drop_after:
                self.drop_connection()
                return
            self.send_chunk(self._chunk(model, {"content": piece}, None))
        if answer.finish is not None:
            self.send_chunk(self._chunk(model, {}, answer.finish))
            self.send_chunk(b"data: [DONE]\n\n")
        self.end_stream()

    def embeddings(self, body: dict[str, Any]) -> None:
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts or [])
        data = [
            {"object": "embedding", "index": i, "embedding": embedding_of(str(t))}
            for i, t in enumerate(texts)
        ]
        tokens = count_tokens(" ".join(map(str, texts)))
        self.send_json(
            {
                "object": "list",
                "data": data,
                "model": body.get("model", ""),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )
