"""Real processes over a copy of the sample vault: the CLI, killed or held at chosen steps.

Used by the crash-sweep and race tests and by bench/crash_sweep.py. A `Workspace` is a vault,
a data directory and a settings file naming both; `clone` copies all three (the store and
the checkpoints included) so one prepared state can be killed at many points.

Kill points come from the hook in vault/crashpoints.py: `NOEMA_CRASH_AT=N` makes the process
SIGKILL itself at its Nth crash point; a sweep tries N = 1, 2, ... until the process gets
through (`sweep_points`). `NOEMA_STALL_AT=NAME:DIR` holds a process at a named point until the
test lets it go (`Stall`).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tui" / "sample_vault"
DRIVER = REPO / "tests" / "flows" / "extraction" / "driver.py"
SOURCE = "03 - Sources/Make It Stick.md"
KILLED = -signal.SIGKILL


@dataclass
class Workspace:
    """A vault, a data directory and the settings file that names them (and, with `store`,
    the shared PostgreSQL store its processes use: tests/fixtures/postgres.py)."""

    home: Path
    store: dict[str, str] = field(default_factory=dict)

    @property
    def vault(self) -> Path:
        return self.home / "vault"

    @property
    def data(self) -> Path:
        return self.home / "data"

    @property
    def settings(self) -> Path:
        return self.home / "settings.toml"

    @classmethod
    def create(cls, home: Path, store: dict[str, str] | None = None) -> Workspace:
        from tests.flows.extraction.notes import SOURCE_TEXT

        shutil.copytree(SAMPLE, home / "vault")
        (home / "vault" / SOURCE).write_text(SOURCE_TEXT, encoding="utf-8")
        workspace = cls(home, dict(store or {}))
        workspace.write_settings()
        return workspace

    def write_settings(self) -> None:
        text = f'[vault]\npath = "{self.vault}"\n\n[data]\ndirectory = "{self.data}"\n'
        if self.store:
            text += "\n[store]\n" + "".join(f'{k} = "{v}"\n' for k, v in self.store.items())
        self.settings.write_text(text, encoding="utf-8")

    def another_machine(self, home: Path) -> Workspace:
        """A second machine on the same shared store: its own data directory and its own
        copy of the vault (as a sync would have brought it), nothing else in common."""
        shutil.copytree(self.vault, home / "vault", symlinks=True)
        other = Workspace(home, dict(self.store))
        other.write_settings()
        return other

    def clone(self, home: Path) -> Workspace:
        """A copy of everything (no process may be using this workspace meanwhile)."""
        shutil.copytree(self.vault, home / "vault", symlinks=True)
        if self.data.exists():
            shutil.copytree(self.data, home / "data")
        clone = Workspace(home)
        clone.write_settings()
        return clone

    # -- processes -------------------------------------------------------------------------

    def env(self, **extra: str) -> dict[str, str]:
        from tests.fixtures.postgres import store_env

        env = {k: v for k, v in os.environ.items() if not k.startswith("NOEMA_")}
        env.update(PYTHONPATH=str(REPO), LITELLM_LOCAL_MODEL_COST_MAP="True", **extra)
        env.update(store_env(self.store))  # the driver reads its store from NOEMA_STORE__*
        return env

    def command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "tui.cli", "--settings", str(self.settings), *args]

    def cli(self, *args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess:
        """Run `noema ARGS` to its end (env: extra NOEMA_ variables such as NOEMA_CRASH_AT)."""
        return subprocess.run(
            self.command(*args),
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=REPO,
            env=self.env(**env),
            stdin=subprocess.DEVNULL,
        )

    def start(self, *args: str, **env: str) -> Running:
        """Start `noema ARGS` without waiting; its output goes to files (readable meanwhile)."""
        logs = self.home / "logs"
        logs.mkdir(exist_ok=True)
        n = len(list(logs.iterdir())) // 2
        out, err = logs / f"{n}.out", logs / f"{n}.err"
        with open(out, "w") as stdout, open(err, "w") as stderr:
            process = subprocess.Popen(
                self.command(*args),
                stdout=stdout,
                stderr=stderr,
                text=True,
                cwd=REPO,
                env=self.env(**env),
                stdin=subprocess.DEVNULL,
            )
        return Running(process, out, err)

    def drive(self, action: str, arg: str, **env: str) -> subprocess.CompletedProcess:
        """The extraction driver (scripted model): `start SOURCE` runs to the review."""
        return subprocess.run(
            [sys.executable, str(DRIVER), str(self.vault), str(self.data), action, arg],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=REPO,
            env=self.env(**env),
        )

    # -- state -----------------------------------------------------------------------------

    def files(self) -> dict[str, bytes]:
        """Every file of the vault, hidden ones included, with its bytes."""
        return {
            p.relative_to(self.vault).as_posix(): p.read_bytes()
            for p in sorted(self.vault.rglob("*"))
            if p.is_file() or p.is_symlink()
        }

    def folders(self) -> set[str]:
        return {p.relative_to(self.vault).as_posix() for p in self.vault.rglob("*") if p.is_dir()}

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Rows from the store ([] while it does not exist or is being created)."""
        import contextlib
        import sqlite3

        if self.store and (self.data / "noema.sqlite3").exists():
            return self._query_shared(sql, params)
        path = self.data / "noema.sqlite3"
        if not path.exists():
            return []
        with contextlib.closing(sqlite3.connect(path, timeout=30)) as conn:
            try:
                return [tuple(r) for r in conn.execute(sql, params).fetchall()]
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):
                    return []
                raise

    def _query_shared(self, sql: str, params: tuple) -> list[tuple]:
        from core.settings import Settings
        from core.store import open_store
        from tests.fixtures.postgres import PASSWORD, PASSWORD_ENV

        os.environ.setdefault(PASSWORD_ENV, PASSWORD)
        store = open_store(Settings(data={"directory": self.data}, store=self.store))
        try:
            return [tuple(r) for r in store.query(sql, params)]
        finally:
            store.close()


@dataclass
class Running:
    """A started process and the files its output goes to."""

    process: subprocess.Popen
    out: Path
    err: Path

    def stderr(self) -> str:
        return self.err.read_text(encoding="utf-8")

    def finish(self, timeout: float = 300) -> subprocess.CompletedProcess:
        code = self.process.wait(timeout)
        return subprocess.CompletedProcess(
            self.process.args, code, self.out.read_text(encoding="utf-8"), self.stderr()
        )

    def wait_for_stderr(self, needle: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while needle not in self.stderr():
            if self.process.poll() is not None:
                raise AssertionError(f"ended without printing {needle!r}: {self.stderr()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"{needle!r} not printed in {timeout}s")
            time.sleep(0.05)


def prepare_extraction(home: Path, store: dict[str, str] | None = None) -> tuple[Workspace, str]:
    """A workspace whose extraction of SOURCE waits at its review (scripted model); run id."""
    workspace = Workspace.create(home, store)
    started = workspace.drive("start", SOURCE)
    assert started.returncode == 0, started.stderr
    run_id, last = started.stdout.split()
    assert last == "Interrupted", started.stdout
    return workspace, run_id


PLANTED = [
    ("Hábitos atómicos", "Hábito atómico"),
    ("Metacognición", "metacognicion"),
    ("Zona de desarrollo próximo", "ZDP"),
    ("Repetición espaciada", "Aprendizaje espaciado"),
]
REVIEW = "rev1"


def prepare_merges(home: Path) -> Workspace:
    """A workspace with the vault indexed and a review accepting the planted duplicates."""
    from core.flows.normalization.accumulate import make_merge
    from core.merges.reviews import ReviewsRepo
    from core.store import Store
    from vault.index import VaultIndex
    from vault.layout import VaultLayout

    workspace = Workspace.create(home)
    store = Store(workspace.data / "noema.sqlite3")
    try:
        VaultIndex(store, workspace.vault, VaultLayout()).sync_files()
        ids = {r[0]: r[1] for r in store.query("SELECT title, entity_id FROM concepts")}
        repo = ReviewsRepo(store)
        merges = [make_merge(ids[a], ids[b], a, b, "same") for a, b in PLANTED]
        review = repo.create(REVIEW, "run", merges, [len(merges)])
        for item in review.items:
            repo.set_item(review.id, item.key, "accepted")
    finally:
        store.close()
    return workspace


def sweep_points(start: int = 1) -> Iterator[int]:
    """1, 2, 3, ...: the caller stops when the victim gets through without being killed."""
    n = start
    while True:
        yield n
        n += 1


class Stall:
    """Holds processes at named crash points (NOEMA_STALL_AT) until `go(name)`."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)

    def env(self, name: str) -> dict[str, str]:
        return {"NOEMA_STALL_AT": f"{name}:{self.directory}"}

    def reached(self, name: str) -> bool:
        return (self.directory / f"{name}.reached").exists()

    def wait_reached(self, name: str, running: Running, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while not self.reached(name):
            if running.process.poll() is not None:
                raise AssertionError(f"ended before {name}: {running.stderr()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"{name} not reached in {timeout}s")
            time.sleep(0.05)

    def go(self, name: str) -> None:
        (self.directory / f"{name}.go").touch()


def assert_one_approval_won(
    won: subprocess.CompletedProcess, lost: subprocess.CompletedProcess, workspace: Workspace
) -> None:
    """Two approvals of one review: the first committed, the second says it was done by the
    other, and the store holds one finished run and one finished commit."""
    assert won.returncode == 0 and "Committed" in won.stdout, won.stderr
    assert lost.returncode == 0, lost.stderr
    assert "answered by another process meanwhile; it is done" in lost.stdout
    assert "IntegrityError" not in lost.stdout + lost.stderr
    assert workspace.query("SELECT status FROM runs") == [("done",)]
    assert workspace.query("SELECT status FROM extraction_commits") == [("done",)]
    assert not (workspace.vault / "08 - Ideas" / "Efecto del espaciado 2.md").exists()
