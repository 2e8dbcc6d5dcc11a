"""What both fake model servers share: the request log, the script, the control API, answers.

A fake server is a real process on 127.0.0.1 (stdlib `http.server`). Tests drive it over HTTP
through `/_fake/...` (see `tests/servers/handle.py`), never by reaching into its memory:

- `GET /_fake/requests`: every request received so far (method, path, headers, JSON body).
- `POST /_fake/answers`: append scripted chat answers (see `Answer.from_json`).
- `POST /_fake/fail`: the next `count` requests (optionally only to `paths`) fail with `status`.
- `POST /_fake/models`: replace the models the server has.
- `POST /_fake/reset`: clear the log, the script and failures.

A chat request with an empty script gets a default answer: the server's responder's (see
`tests/servers/responders.py`) when it was started with one, else for a JSON schema the smallest
instance of it (`example_of`) and for free text `DEFAULT_TEXT`.

Started with `--latency-ms N --slots K`, a server paces its chat answers as a real one does:
each takes N ms and at most K are worked on at once, the others wait their turn in the server
(llama.cpp's `--parallel` slots, Ollama's `OLLAMA_NUM_PARALLEL`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

DEFAULT_TEXT = "Hello from the fake server."


@dataclass
class Answer:
    """One scripted chat answer (or a way to fail that request)."""

    text: str = DEFAULT_TEXT
    finish: str | None = "stop"
    """The finish reason sent at the end (`stop`, `length`); None sends none."""
    status: int = 200
    """An HTTP error status to answer with instead (with `body` and `headers`)."""
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    drop_after: int | None = None
    """Streaming: close the connection after this many pieces, without the final chunk."""
    die: bool = False
    """The server process exits as soon as this request arrives (no answer at all)."""
    delay_s: float = 0.0
    """Wait this long before answering."""
    chunk: int = 6
    """Characters per streamed piece."""

    @classmethod
    def from_json(cls, data: Any) -> Answer:
        """A str is the answer text; a dict sets any field (`{"status": 500}`, ...)."""
        if isinstance(data, str):
            return cls(text=data)
        known = {k: v for k, v in dict(data).items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def pieces(self) -> list[str]:
        size = max(1, self.chunk)
        return [self.text[i : i + size] for i in range(0, len(self.text), size)] or [""]


@dataclass
class Failure:
    """Fail the next `count` requests (whose path starts with one of `paths`, if given)."""

    status: int
    count: int = 1
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    paths: list[str] = field(default_factory=list)

    def applies(self, path: str) -> bool:
        return self.count > 0 and (not self.paths or any(path.startswith(p) for p in self.paths))


Responder = Callable[[Any, Any], Any]
"""`responder(messages, schema)` -> the answer (a dict is sent as JSON, a str as it is)."""


@dataclass(frozen=True)
class Pace:
    """How fast a server answers chats: `latency_s` each, at most `slots` at once."""

    latency_s: float = 0.0
    slots: int = 0
    """0: no limit (every request is answered at once)."""


class State:
    """Everything a server remembers, behind one lock (the server is threaded)."""

    def __init__(
        self,
        models: list[dict[str, Any]],
        pace: Pace | None = None,
        responder: Responder | None = None,
    ):
        self.lock = threading.Lock()
        self.pace = pace or Pace()
        self.responder = responder
        self._slots = threading.BoundedSemaphore(self.pace.slots) if self.pace.slots else None
        self.busy = 0
        """Chat requests being worked on right now (within the slots)."""
        self.most_busy = 0
        """The most chat requests worked on at once so far."""
        self.requests: list[dict[str, Any]] = []
        self.answers: list[Answer] = []
        self.failures: list[Failure] = []
        self.models = models
        self.initial_models = [dict(m) for m in models]

    def record(self, method: str, path: str, headers: dict[str, str], body: Any) -> None:
        with self.lock:
            self.requests.append({"method": method, "path": path, "headers": headers, "json": body})

    def next_answer(self) -> Answer | None:
        with self.lock:
            return self.answers.pop(0) if self.answers else None

    def failure_for(self, path: str) -> Failure | None:
        with self.lock:
            for failure in self.failures:
                if failure.applies(path):
                    failure.count -= 1
                    return failure
        return None

    @contextlib.contextmanager
    def paced(self) -> Iterator[None]:
        """Hold one of the server's slots for `latency_s` (waiting for a free one first)."""
        if self._slots is not None:
            self._slots.acquire()
        with self.lock:
            self.busy += 1
            self.most_busy = max(self.most_busy, self.busy)
        try:
            if self.pace.latency_s:
                time.sleep(self.pace.latency_s)
            yield
        finally:
            with self.lock:
                self.busy -= 1
            if self._slots is not None:
                self._slots.release()

    def reset(self) -> None:
        with self.lock:
            self.requests.clear()
            self.answers.clear()
            self.failures.clear()
            self.models = [dict(m) for m in self.initial_models]


class FakeHandler(BaseHTTPRequestHandler):
    """Routing, the control API, recording and JSON helpers; subclasses add the model API."""

    protocol_version = "HTTP/1.1"
    state: State  # set on the subclass by the launcher
    routes: dict[tuple[str, str], str] = {}
    """(method, path) -> handler method name, for the model API."""
    paced: frozenset[str] = frozenset()
    """Paths whose answers take the server's pace (its chat routes)."""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self._dispatch("GET")

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        path = self.path.split("?", 1)[0]
        body = self._read_json()
        if path.startswith("/_fake/"):
            self._control(method, path, body)
            return
        self.state.record(method, path, {k.lower(): v for k, v in self.headers.items()}, body)
        failure = self.state.failure_for(path)
        if failure is not None:
            self.send_json(
                failure.body or self.error_body(failure.status), failure.status, failure.headers
            )
            return
        handler = self.routes.get((method, path))
        if handler is None:
            self.send_json({"error": f"no route {method} {path}"}, 404)
            return
        if path in self.paced:
            with self.state.paced():
                getattr(self, handler)(body or {})
            return
        getattr(self, handler)(body or {})

    def _read_json(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            return {"_raw": raw.decode("utf-8", "replace")}

    def _control(self, method: str, path: str, body: Any) -> None:
        state = self.state
        if path == "/_fake/requests":
            with state.lock:
                self.send_json(list(state.requests))
            return
        if path == "/_fake/load":
            with state.lock:
                self.send_json(
                    {
                        "busy": state.busy,
                        "most_busy": state.most_busy,
                        "chats": sum(1 for r in state.requests if r["path"] in self.paced),
                    }
                )
            return
        if path == "/_fake/answers":
            with state.lock:
                state.answers.extend(Answer.from_json(a) for a in body.get("answers", []))
        elif path == "/_fake/fail":
            with state.lock:
                state.failures.append(Failure(**body))
        elif path == "/_fake/models":
            with state.lock:
                state.models = list(body.get("models", []))
        elif path == "/_fake/reset":
            state.reset()
        else:
            self.send_json({"error": f"unknown control {path}"}, 404)
            return
        self.send_json({"ok": True})

    def error_body(self, status: int) -> Any:
        """The error body a status gets when the script gives none (subclasses override)."""
        return {"error": f"HTTP {status}"}

    # -- writing --------------------------------------------------------------------------

    def send_json(self, data: Any, status: int = 200, headers: dict[str, str] | None = None):
        raw = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(raw)

    def start_stream(self, content_type: str) -> None:
        """Headers of a streamed answer: chunked, so a dropped connection is visible."""
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def send_chunk(self, raw: bytes) -> None:
        self.wfile.write(f"{len(raw):x}\r\n".encode() + raw + b"\r\n")
        self.wfile.flush()

    def end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def drop_connection(self) -> None:
        """Close the socket mid-answer, the way a crashing or reset server does."""
        self.wfile.flush()
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(2)

    def before_answer(self, answer: Answer) -> bool:
        """Apply `die`, `delay_s` and `status`; False when the request is already answered."""
        if answer.die:
            os._exit(3)
        if answer.delay_s:
            threading.Event().wait(answer.delay_s)
        if answer.status != 200:
            self.send_json(
                answer.body or self.error_body(answer.status), answer.status, answer.headers
            )
            return False
        return True


def answer_for(state: State, schema: Any, messages: Any = None) -> Answer:
    """The next scripted answer, or the default one for this request."""
    answer = state.next_answer()
    if answer is not None:
        return answer
    if state.responder is not None:
        found = state.responder(messages, schema)
        return Answer(text=found if isinstance(found, str) else json.dumps(found))
    if isinstance(schema, dict):
        return Answer(text=json.dumps(example_of(schema)))
    return Answer()


def example_of(schema: dict[str, Any], root: dict[str, Any] | None = None) -> Any:
    """The smallest instance of a JSON schema (first enum/const, minimal lengths, refs)."""
    root = root or schema
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return example_of((root.get("$defs") or root.get("definitions") or {})[name], root)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return example_of(schema[key][0], root)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties") or {}
        return {name: example_of(props[name], root) for name in schema.get("required", props)}
    if kind == "array":
        return [
            example_of(schema.get("items") or {}, root) for _ in range(schema.get("minItems", 0))
        ]
    if kind == "string":
        return "x" * max(1, schema.get("minLength", 1))
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    return None


def embedding_of(text: str, dim: int = 16) -> list[float]:
    """A deterministic unit vector for a text."""
    digest = hashlib.sha256(text.encode()).digest()
    vector = [(digest[i % len(digest)] - 127.5) for i in range(dim)]
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


def count_tokens(messages: Any) -> int:
    """A rough prompt size: words in every message."""
    if isinstance(messages, list):
        return sum(len(str(m.get("content", "")).split()) + 4 for m in messages)
    return len(str(messages).split())
