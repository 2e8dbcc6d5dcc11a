"""`python -m tests.servers ollama|openai [--port N] [--api-key KEY] [--models JSON]
[--latency-ms N --slots K] [--responder NAME]`.

Prints `LISTENING <port>` once it accepts connections, then serves until killed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from http.server import ThreadingHTTPServer

from tests.servers import responders
from tests.servers.common import Pace, State
from tests.servers.ollama_server import DEFAULT_MODELS as OLLAMA_MODELS
from tests.servers.ollama_server import OllamaHandler
from tests.servers.openai_server import DEFAULT_MODELS as OPENAI_MODELS
from tests.servers.openai_server import OpenAIHandler


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.servers")
    parser.add_argument("kind", choices=["ollama", "openai"])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--api-key", default=None)
    parser.add_argument("--models", default=None, help="JSON list of model dicts")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="time of each chat answer")
    parser.add_argument("--slots", type=int, default=0, help="chats answered at once (0: any)")
    parser.add_argument(
        "--responder",
        choices=sorted(responders.RESPONDERS),
        default=None,
        help="answers chats without a scripted answer",
    )
    args = parser.parse_args(argv)
    base, models = (
        (OllamaHandler, OLLAMA_MODELS) if args.kind == "ollama" else (OpenAIHandler, OPENAI_MODELS)
    )
    if args.models is not None:
        models = json.loads(args.models)
    state = State(
        [dict(m) for m in models],
        Pace(args.latency_ms / 1000, args.slots),
        responders.RESPONDERS[args.responder] if args.responder else None,
    )
    handler = type(f"{base.__name__}Bound", (base,), {"state": state})
    if args.api_key:
        handler.api_key = args.api_key
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    server.request_queue_size = 128  # a pool's bursts wait in the server, never refused
    server.daemon_threads = True
    print(f"LISTENING {server.server_address[1]}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever(poll_interval=0.1)


if __name__ == "__main__":
    sys.exit(main())
