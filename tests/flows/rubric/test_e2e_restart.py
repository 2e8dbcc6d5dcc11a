"""The runtime's interrupt/resume across a process restart, against the real local model.

Process 1 evaluates a note and stops at the review; process 2 (a fresh interpreter on the same
store) approves it. The evaluation is not run again: no model call is traced after the restart.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import frontmatter
import pytest

from local_llm.local_server import LocalServer
from tests.flows.rubric.test_e2e import NOTE, compact_rubric

DRIVER = Path(__file__).with_name("restart_driver.py")


def stretch(*args: str) -> dict:
    done = subprocess.run(
        [sys.executable, str(DRIVER), *args], capture_output=True, text=True, timeout=400
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.e2e
def test_a_review_survives_a_process_restart_with_the_local_model(
    local_chat_server: LocalServer, tmp_path: Path
) -> None:
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    note = root / "notes" / "Photosynthesis.md"
    note.write_text(NOTE, encoding="utf-8")
    data = tmp_path / "data"
    compact_rubric(data / "criteria")
    base_url = local_chat_server.model_config().base_url
    common = (str(data), str(root), str(base_url))

    first = stretch(*common, "start", "notes/Photosynthesis.md")
    assert first["status"] == "awaiting_review" and first["event"] == "Interrupted", first
    assert first["model_calls"] >= 1
    assert note.read_text(encoding="utf-8") == NOTE

    second = stretch(*common, "resume", first["run_id"])
    assert second["status"] == "done" and second["outcome"] == "approved", second
    assert second["model_calls"] == first["model_calls"]  # nothing re-ran after the restart
    post = frontmatter.loads(note.read_text(encoding="utf-8"))
    assert post["review_status"] == "approved" and post.content == frontmatter.loads(NOTE).content
