"""LocalServer process management, exercised with a stand-in server script."""

from __future__ import annotations

import sys
import textwrap
import time
from pathlib import Path

import pytest

import local_llm.local_server as local_server
from local_llm.local_server import LocalServer, LocalServerError

FAKE_SERVER = textwrap.dedent(
    """
    #!{python}
    import http.server, sys, time
    args = sys.argv[1:]
    port = int(args[args.index("--port") + 1])
    mode = "{mode}"
    print("fake llama-server", " ".join(args), flush=True)
    if mode == "crash":
        print("error: model file is corrupt", flush=True)
        sys.exit(3)
    started = time.monotonic()
    class Health(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            ready = mode == "ok" and time.monotonic() - started > 0.5
            self.send_response(200 if ready else 503)
            self.end_headers()
        def log_message(self, *a):
            pass
    http.server.HTTPServer(("127.0.0.1", port), Health).serve_forever()
    """
)


def _fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str) -> Path:
    script = tmp_path / "llama-server"
    script.write_text(FAKE_SERVER.format(python=sys.executable, mode=mode).lstrip())
    script.chmod(0o755)
    monkeypatch.setattr(local_server, "binary_path", lambda: script)
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    return model


def test_starts_waits_for_health_and_stops(tmp_path, monkeypatch):
    model = _fake(tmp_path, monkeypatch, "ok")
    server = LocalServer("embedding", model=model, ctx_size=1024, log_path=tmp_path / "s.log")
    with server:
        assert server.running and server.health() == 200
        assert 1024 <= server.port <= 65535
        process = server._process
    assert not server.running and process.poll() is not None
    logged = (tmp_path / "s.log").read_text()
    for flag in ("--embeddings --pooling mean", "--alias gemma3-270m", "--host 127.0.0.1"):
        assert flag in logged
    assert "-ub 1024" in logged and "--threads" in logged


def test_a_crashing_server_reports_its_log(tmp_path, monkeypatch):
    model = _fake(tmp_path, monkeypatch, "crash")
    server = LocalServer("chat", model=model, log_path=tmp_path / "c.log")
    with pytest.raises(LocalServerError, match="model file is corrupt"):
        server.start()
    assert not server.running


def test_a_server_that_never_gets_healthy_times_out_and_is_stopped(tmp_path, monkeypatch):
    model = _fake(tmp_path, monkeypatch, "loading")
    server = LocalServer("chat", model=model, startup_timeout_s=1.5, log_path=tmp_path / "t.log")
    started = time.monotonic()
    with pytest.raises(LocalServerError, match="not healthy"):
        server.start()
    assert time.monotonic() - started < 10
    assert not server.running


def test_model_config_reaches_the_server_by_alias(tmp_path, monkeypatch):
    model = _fake(tmp_path, monkeypatch, "ok")
    server = LocalServer("chat", model=model, ctx_size=4096, port=45678, alias="tiny")
    config = server.model_config(max_tokens=96, retries=1)
    assert (config.provider, config.model) == ("litellm", "openai/tiny")
    assert config.base_url == "http://127.0.0.1:45678/v1"
    assert config.context_budget + config.max_tokens == 4096 and config.retries == 1
    assert "--ctx-size 4096" in " ".join(server.command())


def test_the_chat_server_keeps_a_full_sliding_window_cache_for_prefix_reuse(tmp_path, monkeypatch):
    model = _fake(tmp_path, monkeypatch, "ok")
    chat = LocalServer("chat", model=model).command()
    embedding = LocalServer("embedding", model=model).command()
    assert "--swa-full" in chat
    assert "--swa-full" not in embedding


def test_missing_extra_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(local_server, "is_available", lambda: False)
    with pytest.raises(LocalServerError, match=r"noema\[local\]"):
        local_server.model_path()
