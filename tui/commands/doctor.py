"""`noema doctor`: one line per check, ✓ or ✗ with a reason; non-zero exit when one fails."""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from core.settings import SettingsError
from tui.commands import plain, run_async

if TYPE_CHECKING:
    from core.model_health import HealthCheck
    from core.settings import Settings
    from core.store import Store
    from local_llm import LLMClient

Found = TypeVar("Found")
"""What `_from_index` reads from the index."""

OK, FAIL, SKIP = "✓", "✗", "-"


@dataclass
class Check:
    """One line of the report."""

    name: str
    mark: str
    detail: str

    @property
    def failed(self) -> bool:
        return self.mark == FAIL

    def line(self) -> str:
        """The check's line (a detail of several lines is indented under it)."""
        return f"{self.mark} {self.name:<18} " + self.detail.replace("\n", "\n" + " " * 21)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="check settings, vault, data dir, store and model",
        description=plain(__doc__),
    )
    parser.add_argument(
        "--timeout", type=float, default=60.0, help="seconds for one model request (default 60)"
    )
    parser.set_defaults(func=run)


def check_vault(settings: Settings) -> list[Check]:
    """The vault folder, what noema reads of it, what it leaves out and why."""
    from core.ingest import layout_from_settings, obsidian_config
    from vault.scan import scan_vault

    path = settings.vault.path
    if path is None:
        return [Check("vault", FAIL, "vault.path is not set (run `noema demo` for a sample vault)")]
    if not path.is_dir():
        return [Check("vault", FAIL, f"{path} is not a folder")]
    scan = scan_vault(path, layout_from_settings(settings))
    attachments = sum(1 for kind in scan.files.values() if kind == "attachment")
    excluded = sum(scan.excluded.values())
    indexed = _indexed_notes(settings)
    notes = (
        f"{len(scan.notes)} notes to index"
        if indexed is None
        else f"{indexed} notes indexed of {len(scan.notes)} to read"
    )
    checks = [
        Check(
            "vault", OK, f"{path} ({notes}, {attachments} attachments, {excluded} notes excluded)"
        )
    ]
    problems = obsidian_config(settings).problems
    if problems:
        checks.append(Check("obsidian settings", SKIP, "\n".join(problems)))
    if scan.skipped:
        lines = [f"{e.path}: {e.reason}" for e in scan.skipped]
        checks.append(
            Check("vault skipped", SKIP, f"{len(lines)} entries not read\n" + "\n".join(lines))
        )
    return checks


def _from_index(settings: Settings, read: Callable[[Store], Found]) -> Found | None:
    """`read(store)` on the index of an earlier `noema index`, or None when there is none."""
    from core.store import Store, StoreError

    if settings.vault.path is None or not settings.store_path.exists():
        return None
    try:
        store = Store(settings.store_path)
    except (StoreError, OSError):
        return None
    try:
        return read(store)
    finally:
        store.close()


def _indexed_notes(settings: Settings) -> int | None:
    """How many notes the index holds (None before the first `noema index`)."""
    from core.overview import note_counts

    count = _from_index(settings, lambda store: note_counts(store).notes)
    return count or None


def check_vault_notes(settings: Settings) -> Check | None:
    """Notes the last index could not take as they are (kept out of the workflows); None
    when there are none."""
    from core.ingest import vault_problems

    problems = _from_index(settings, vault_problems)
    if not problems:
        return None
    lines = [
        message if message.startswith(path) else f"{path}: {message}" for path, message in problems
    ]
    return Check(
        "vault notes",
        SKIP,
        f"{len(problems)} to fix (kept out of the workflows)\n" + "\n".join(lines),
    )


def check_data_dir(settings: Settings) -> Check:
    data = settings.data_dir
    vault = settings.vault.path
    if vault is not None and (
        data.resolve() == vault.resolve() or vault.resolve() in data.resolve().parents
    ):
        return Check("data dir", FAIL, f"{data} is inside the vault")
    try:
        data.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=data, prefix=".doctor-"):
            pass
    except OSError as exc:
        return Check("data dir", FAIL, f"{data} is not writable: {exc.strerror or exc}")
    return Check("data dir", OK, f"{data} (writable, outside the vault)")


def check_store(settings: Settings) -> Check:
    from core.store import StoreError, open_store
    from core.store.db import migrations  # core.store.migrations: the folder, once a Store opened

    try:
        store = open_store(settings)
    except (StoreError, OSError) as exc:
        return Check("store", FAIL, str(exc))
    try:
        latest = migrations()[-1][0]
        version = store.version
    finally:
        store.close()
    if version != latest:
        return Check("store", FAIL, f"schema version {version}, expected {latest}")
    shared = (
        f"; shared state in PostgreSQL at {settings.store.url}"
        if settings.store.backend == "postgres"
        else ""
    )
    return Check("store", OK, f"{settings.store_path} (schema version {version}){shared}")


CHECK_NAMES = {"server": "model server", "model": "model", "api key": "api key"}


def _as_check(health: HealthCheck, role: str) -> Check:
    name = CHECK_NAMES.get(health.name, health.name)
    if role == "embedding" and health.name in ("server", "model"):
        name = f"embedding {health.name}"
    mark = {"ok": OK, "failed": FAIL, "skipped": SKIP}[health.status]
    return Check(name, mark, health.line)


async def check_models(
    settings: Settings, timeout_s: float, llm: LLMClient | None = None
) -> list[Check]:
    """Server, model and answer of the default role (and the embedding role when enabled),
    each failed check with its one-line fix."""
    from core.model_health import check_model
    from core.models import build_client
    from tui import probe

    llm = llm or build_client(settings, None)
    try:
        described = probe.describe(llm.config("default"))
        checks = [_as_check(h, "default") for h in await check_model(llm, timeout_s=timeout_s)]
        if settings.models.embeddings_enabled:
            found = await check_model(llm, "embedding", timeout_s=timeout_s)
            checks += [_as_check(h, "embedding") for h in found if h.name != "api key"]
        else:
            checks.append(Check("embeddings", SKIP, NO_EMBEDDINGS))
    finally:
        llm.close()
    return [Check("model config", OK, described), *checks, check_judges(settings)]


NO_EMBEDDINGS = (
    "off (models.embeddings_enabled = false): search is full-text, and duplicate detection adds "
    "name matching (case, accents, plurals, acronyms, near spellings); an embedding model adds "
    "meaning: a paraphrase that shares no word with a concept still reaches duplicate "
    "detection and relation search, and normalization groups synonyms"
)


def check_judges(settings: Settings) -> Check:
    """Whether the lesson judges are really several models (a note, never a failure)."""
    from core.flows.lesson.cascade import ONE_MODEL_NOTE, one_judge_model

    if one_judge_model(settings):
        return Check("judges", SKIP, ONE_MODEL_NOTE)
    roles = ", ".join(f"{r}: {settings.role(r).model}" for r in ("judge", "judge_secondary"))
    return Check("judges", OK, roles)


def run_checks(settings: Settings, timeout_s: float, emit: Callable[[Check], None]) -> list[Check]:
    """Every check after settings, each reported through `emit` as soon as it is known."""
    from core.models import build_client

    llm = build_client(settings, None)
    llm.warm()  # the backend's import (litellm: seconds) overlaps the checks below
    checks: list[Check] = []
    found = [*check_vault(settings), check_data_dir(settings), check_store(settings)]
    for check in [*found, check_vault_notes(settings)]:
        if check is None:
            continue
        emit(check)
        checks.append(check)
    for check in run_async(check_models(settings, timeout_s, llm)):
        emit(check)
        checks.append(check)
    return checks


def run(args: argparse.Namespace) -> int:
    from core.settings import load_settings, user_settings_path

    source = user_settings_path(args.settings)
    try:
        settings = load_settings(args.settings)
    except SettingsError as exc:
        print(Check("settings", FAIL, str(exc).replace("\n", "; ")).line())
        return 2
    origin = str(source) if Path(source).is_file() else "defaults (no settings file)"
    print(Check("settings", OK, origin).line())
    checks = run_checks(settings, args.timeout, lambda check: print(check.line(), flush=True))
    failed = [check.name for check in checks if check.failed]
    if failed:
        print(f"\n{len(failed)} check(s) failed: {', '.join(failed)}")
        return 1
    return 0
