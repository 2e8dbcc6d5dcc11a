"""`noema demo`: a copy of the sample vault, its own settings file, and a model that answers.

The configured model is used when it passes a quick connection test; otherwise, with the
`local` extra installed, the settings file says `provider = "local"`: the bundled Gemma 3 270M,
whose llama.cpp servers (chat, embeddings) any noema command started with that file starts
when it needs them and stops when it exits. So "Open it with: noema --settings ..." works for
every command afterwards, not only while the demo runs.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import time
import tomllib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from core.settings import Settings, load_settings
from tui import probe
from tui.text import clip_path

if TYPE_CHECKING:
    from local_llm import LLMClient
    from vault.embedding import Embedder

DEFAULT_PATH = Path("noema-demo-vault")
PROGRESS_EVERY_S = 1.0
CHAT_MAX_TOKENS = 512
Say = Callable[[str], None]


class DemoError(Exception):
    """The demo cannot be set up (e.g. the target folder is not empty)."""


def sample_vault() -> Path:
    """The sample vault shipped in the package."""
    return Path(str(resources.files("tui") / "sample_vault"))


def copy_sample_vault(dest: Path) -> int:
    """Copy the sample vault to `dest` (missing or empty); returns how many notes were copied."""
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise DemoError(f"{dest} exists and is not empty; choose another folder with --path")
    shutil.copytree(sample_vault(), dest, dirs_exist_ok=True)
    return sum(1 for _ in dest.rglob("*.md"))


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)


def to_toml(data: dict[str, object], prefix: str = "") -> str:
    """A TOML document for nested dicts of scalars and lists (None values are left out)."""
    scalars = [(k, v) for k, v in data.items() if v is not None and not isinstance(v, dict)]
    tables = [(k, v) for k, v in data.items() if isinstance(v, dict)]
    lines = [f"[{prefix}]"] if prefix and scalars else []
    lines += [f"{json.dumps(k)} = {_toml_value(v)}" for k, v in scalars]
    for key, table in tables:
        inner = to_toml(table, f"{prefix}.{json.dumps(key)}" if prefix else json.dumps(key))
        if inner:
            lines += ["", inner] if lines else [inner]
    return "\n".join(lines)


LOCAL_MODELS: dict[str, object] = {
    "provider": "local",
    "context_budget": 4096 - CHAT_MAX_TOKENS,
    "max_tokens": CHAT_MAX_TOKENS,
    "temperature": 0.0,
    "timeout_s": 120.0,
    "embeddings_enabled": True,
}
"""The models table of a demo on the bundled model: a 4,096-token chat context, embeddings on."""


def write_settings(target: Path, vault: Path, data_dir: Path, models: dict[str, object]) -> Path:
    """The demo's settings file: the demo vault, its data dir and the chosen models table."""
    content = {
        "vault": {"path": str(vault.resolve())},
        "data": {"directory": str(data_dir.resolve())},
        "models": models,
    }
    target.parent.mkdir(parents=True, exist_ok=True)
    header = "# Written by `noema demo`: open this vault again with `noema --settings THIS_FILE`.\n"
    target.write_text(header + to_toml(content) + "\n", encoding="utf-8")
    return target


def user_models(base: Settings) -> dict[str, object]:
    """The user's own models table, as the demo keeps it when that model answers."""
    return base.models.model_dump(mode="json", exclude_none=True)


@dataclass
class Demo:
    """What `prepare` did: paths, the effective settings, the model client it used."""

    vault: Path
    data_dir: Path
    settings_file: Path
    settings: Settings
    model_note: str = ""
    connection: probe.ProbeResult | None = None
    index_summary: str = ""
    llm: LLMClient | None = None
    """The demo's model client (holds the bundled model's servers while the demo runs)."""

    @property
    def local(self) -> bool:
        """Whether the demo runs on the bundled model."""
        return self.settings.models.provider == "local"

    def client(self) -> LLMClient:
        if self.llm is None:
            from core.models import build_client

            self.llm = build_client(self.settings, None)
        return self.llm

    def close(self) -> None:
        """Let go of the bundled model's servers (they stop when no noema process uses them)."""
        if self.llm is not None:
            self.llm.close()
            self.llm = None


async def _configured_model_answers(settings: Settings) -> probe.ProbeResult:
    from core.models import build_client

    llm = build_client(settings, None)
    try:
        reach = await probe.reachable(llm, timeout_s=2.0)
        if not reach.ok:
            return reach
        return await probe.round_trip(llm, timeout_s=30.0)
    finally:
        llm.close()


def use_local(demo: Demo, say: Say) -> None:
    """Switch the demo's settings file to the bundled model and test it (starts its server)."""
    write_settings(demo.settings_file, demo.vault, demo.data_dir, LOCAL_MODELS)
    demo.settings = load_settings(demo.settings_file)
    connect_local(demo, say)


def connect_local(demo: Demo, say: Say) -> None:
    """Say what the bundled model is and run the connection test (it starts the server)."""
    say("Using the bundled model: llama.cpp's server with Gemma 3 270M on 127.0.0.1 (a tiny")
    say("model, fine for trying the mechanics; its answers are weak). Every noema command with")
    say("this settings file starts it when needed and stops it when it exits.")
    demo.model_note = 'the bundled model (Gemma 3 270M, provider = "local")'
    say("Starting it and checking that it answers (seconds; longer on a busy machine)…")
    demo.connection = asyncio.run(probe.round_trip(demo.client(), timeout_s=60.0))
    mark = "✓" if demo.connection.ok else "✗"
    say(f"{mark} connection test: {demo.connection.detail}")


def choose_model(demo: Demo, say: Say) -> None:
    """The bundled model when the settings say so; else the configured model if it answers;
    else the bundled one when installed."""
    from local_llm.local_server import is_available

    if demo.local:
        connect_local(demo, say)
        return
    configured = demo.settings.models.model
    result = asyncio.run(_configured_model_answers(demo.settings))
    if result.ok:
        demo.model_note = f"the configured model {configured}"
        demo.connection = result
        say(f"Using the configured model {configured}: {result.detail}")
        return
    say(f"The configured model {configured} does not answer ({result.detail}).")
    if not is_available():
        say("The bundled local model is not installed either: pip install 'noema[local]'.")
        say("The demo vault opens anyway; workflows need a model (see `noema doctor`).")
        demo.model_note = "no model answers"
        return
    use_local(demo, say)


class IndexReport:
    """`progress(done, total, path)` for indexing: a line now and then, never a blank wait."""

    def __init__(self, say: Say, every_s: float = PROGRESS_EVERY_S) -> None:
        self.say, self.every_s, self.shown = say, every_s, -1.0
        self.said: tuple[int, int] | None = None

    def __call__(self, done: int, total: int, path: str) -> None:
        now = time.monotonic()
        last = (done, total) == self.said
        if not last and (self.shown < 0 or done == total or now - self.shown >= self.every_s):
            self.shown, self.said = now, (done, total)
            self.say(f"  indexing notes: {done}/{total}" + (f"  {path}" if path else ""))


class IndexBarReport:
    """`progress(done, total, path)` as a bar that moves, with its counts, in a terminal
    (`noema demo` at a prompt); a context manager (the bar closes when indexing is over)."""

    def __init__(self) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self.bar = Progress(
            TextColumn("  indexing notes"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[dim]{task.description}"),
            transient=False,
        )
        self.task = self.bar.add_task("", total=None)

    def __enter__(self) -> IndexBarReport:
        self.bar.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.bar.stop()

    def __call__(self, done: int, total: int, path: str) -> None:
        self.bar.update(self.task, completed=done, total=total, description=clip_path(path, 50))


def index_progress(say: Say) -> AbstractContextManager[IndexBarReport | IndexReport]:
    """A bar in a terminal, lines elsewhere (a log, CI): a context manager either way."""
    import contextlib
    import sys

    if sys.stdout.isatty():
        return IndexBarReport()
    return contextlib.nullcontext(IndexReport(say))


def counted_embed(embed: Embedder, say: Say) -> Embedder:
    """`embed` that says how many concept texts were embedded so far (the model works)."""
    done = [0]

    async def embed_and_say(texts: list[str]) -> list[list[float]]:
        say(f"  embedding concepts: {done[0]} done, {len(texts)} more on the way…")
        vectors = await embed(texts)
        done[0] += len(vectors)
        return vectors

    return embed_and_say


def index(demo: Demo, say: Say) -> None:
    """Index the demo vault (with embeddings when a model for them is configured), saying
    how far it is as it goes."""
    from core.ingest import index_vault
    from core.store import open_store

    say("Indexing the vault…")
    store = open_store(demo.settings)
    try:
        embed, model = None, ""
        if demo.settings.models.embeddings_enabled:
            embed = counted_embed(demo.client().embed, say)
            model = demo.settings.role("embedding").model or demo.settings.models.model
            if demo.local:
                from local_llm.config import LOCAL_MODEL

                model = LOCAL_MODEL
        with index_progress(say) as progress:
            result = index_vault(
                demo.settings, store, progress=progress, embed=embed, embed_model=model
            )
    finally:
        store.close()
    demo.index_summary = result.summary()
    say(f"Indexed the vault: {demo.index_summary}")


def previous_demo(vault: Path) -> Path | None:
    """The settings file of an earlier `noema demo` into this folder, if there is one."""
    settings_file = vault.parent / f"{vault.name}-data" / "settings.toml"
    try:
        with settings_file.open("rb") as handle:
            written = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return None
    return settings_file if written.get("vault", {}).get("path") == str(vault) else None


def prepare(path: Path, base: Settings, say: Say) -> Demo:
    """Copy the vault (or reopen an earlier demo there), write its settings, find a model,
    index. Call `close()` when done."""
    vault = path.resolve()
    data_dir = vault.parent / f"{vault.name}-data"
    settings_file = previous_demo(vault) if vault.is_dir() else None
    if settings_file is not None:
        say(f"Reopening the demo vault at {vault} (settings {settings_file})")
    else:
        count = copy_sample_vault(vault)
        say(f"Copied the sample vault ({count} notes) to {vault}")
        settings_file = write_settings(
            data_dir / "settings.toml", vault, data_dir, user_models(base)
        )
        say(f"Wrote its settings to {settings_file} (data dir {data_dir})")
    demo = Demo(vault, data_dir, settings_file, load_settings(settings_file))
    try:
        choose_model(demo, say)
        index(demo, say)
    except BaseException:
        demo.close()
        raise
    return demo
