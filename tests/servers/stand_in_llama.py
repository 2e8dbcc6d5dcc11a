"""A stand-in for `llama-server` in tests of the shared-server mechanics: answers `/health`
with 200 after `--delay` seconds (503 before, like a server loading its model), or exits with
`--fail` at once. `python tests/servers/stand_in_llama.py --port N [--delay S] [--fail CODE]`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--fail", type=int, default=0)
    args = parser.parse_args()
    if args.fail:
        print("stand-in: failing on purpose", flush=True)
        return args.fail
    ready_at = time.monotonic() + args.delay

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            status = 200 if time.monotonic() >= ready_at else 503
            body = json.dumps({"status": "ok" if status == 200 else "loading"}).encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
