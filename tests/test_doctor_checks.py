"""`noema doctor` says what the model setup is worth (issue 16): what an embedding model would
add when none is configured, and when one model serves every lesson judge role."""

from __future__ import annotations

import asyncio

from core.settings import Settings
from tui.commands.doctor import OK, SKIP, check_judges, check_models


def test_one_model_for_every_judge_role_is_said(tmp_path) -> None:
    single = Settings(data={"directory": tmp_path}, models={"model": "ollama_chat/qwen2.5:7b"})
    check = check_judges(single)
    assert check.mark == SKIP and "one model serves every judge role" in check.detail
    assert "tie-break is skipped" in check.detail and "judge_secondary" in check.detail


def test_distinct_judge_models_pass(tmp_path) -> None:
    roles = {"judge_secondary": {"model": "ollama_chat/llama3.1:8b"}}
    two = Settings(
        data={"directory": tmp_path}, models={"model": "ollama_chat/qwen2.5:7b", "roles": roles}
    )
    check = check_judges(two)
    assert check.mark == OK and "llama3.1:8b" in check.detail


def test_without_embeddings_doctor_says_what_they_would_add(tmp_path) -> None:
    settings = Settings(
        data={"directory": tmp_path},
        models={"base_url": "http://127.0.0.1:9", "transient_retries": 0, "timeout_s": 2},
    )
    checks = {c.name: c for c in asyncio.run(check_models(settings, timeout_s=2))}
    detail = checks["embeddings"].detail
    assert checks["embeddings"].mark == SKIP
    assert "name matching" in detail and "meaning" in detail and "paraphrase" in detail
    assert checks["judges"].mark == SKIP
