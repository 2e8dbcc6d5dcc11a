"""The flow through the real runtime: SQLite checkpoints, a process restart, a crash between
the store commit and the vault write followed by repair, parallel calls bounded by settings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import frontmatter

from core.events import Done, Failed, Interrupted
from core.flows.extraction.graph import SPEC
from core.repair import repair
from core.services import open_services
from core.settings import Settings
from tests.flows.extraction.notes import EXISTING, SOURCE, SOURCE_TEXT
from tests.flows.extraction.script import ConcurrencyBackend, FlowScript, concept, enum_of

DRIVER = Path(__file__).with_name("driver.py")


def make_vault(tmp_path: Path) -> tuple[Path, Path]:
    root, data = tmp_path / "vault", tmp_path / "data"
    (root / "03 - Sources").mkdir(parents=True)
    (root / "08 - Ideas").mkdir()
    (root / SOURCE).write_text(SOURCE_TEXT, encoding="utf-8")
    (root / "08 - Ideas/Práctica de recuperación.md").write_text(EXISTING, encoding="utf-8")
    return root, data


def drive(root: Path, data: Path, action: str, arg: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(DRIVER), str(root), str(data), action, arg],
        capture_output=True,
        text=True,
        timeout=120,
    )


def open_app(root: Path, data: Path, script: FlowScript | None = None):
    settings = Settings(vault={"path": root}, data={"directory": data})
    from tests.flows.extraction.script import candidates, relations

    script = script or FlowScript(candidates=candidates, relations=relations)
    return open_services(settings, {"extraction": SPEC}, backend=ConcurrencyBackend(script))


async def paused_run(app) -> str:
    """A run of the source started and driven to its review; its id."""
    app.vault.index.sync_files()
    run = app.runtime.start("extraction", {"source": SOURCE}, target=SOURCE)
    events = await app.runtime.run_until_pause(run.id)
    assert isinstance(events[-1], Interrupted)
    return run.id


def consistent(app, root: Path) -> None:
    """Every concept note on disk is in the store with the same relations, both ways."""
    for path in (root / "08 - Ideas").glob("*.md"):
        post = frontmatter.loads(path.read_text(encoding="utf-8"))
        row = app.store.query_one(
            "SELECT path FROM concepts WHERE entity_id=?", (post["entity_id"],)
        )
        assert row is not None and row[0] == f"08 - Ideas/{path.name}"
        for rel_type, targets in (post.get("concept_relations") or {}).items():
            for target in targets:
                assert app.store.query_one(
                    "SELECT 1 FROM concept_relations WHERE source_id=? AND type=? AND target_id=?",
                    (post["entity_id"], rel_type, target),
                ), (path.name, rel_type, target)
    assert app.store.query_one("SELECT COUNT(*) FROM notes WHERE hash='pending'")[0] == 0


async def test_review_survives_a_process_restart(tmp_path: Path) -> None:
    root, data = make_vault(tmp_path)
    started = drive(root, data, "start", SOURCE)
    assert started.returncode == 0, started.stderr
    run_id, last = started.stdout.split()
    assert last == "Interrupted"
    async with open_app(root, data) as app:
        assert app.runtime.runs.get(run_id).status == "awaiting_review"
        pending = await app.runtime.pending_interrupt(run_id)
        assert len(pending.payload["concepts"]) == 2
        events = await app.runtime.run_until_pause(run_id, {"action": "approve"}, resume=True)
        assert isinstance(events[-1], Done) and events[-1].output["outcome"] == "committed"
        # nothing before the review ran again in this process
        assert app.llm.backend().calls == []
        consistent(app, root)


async def test_crash_between_store_commit_and_vault_then_repair(tmp_path: Path) -> None:
    root, data = make_vault(tmp_path)
    run_id = drive(root, data, "start", SOURCE).stdout.split()[0]
    crashed = drive(root, data, "crash", run_id)
    assert crashed.returncode == 3, crashed.stderr
    assert sorted(p.name for p in (root / "08 - Ideas").glob("*.md")) == [
        "Práctica de recuperación.md"
    ]
    async with open_app(root, data) as app:
        row = app.store.query_one("SELECT status FROM extraction_commits WHERE run_id=?", (run_id,))
        assert row[0] == "pending"
        assert (
            app.store.query_one("SELECT COUNT(*) FROM concepts")[0] == 3
        )  # committed to the store
        app.recover_interrupted()
        report = repair(app)
        assert report.finished == [run_id] and not report.errors
        names = sorted(p.name for p in (root / "08 - Ideas").glob("*.md"))
        assert names == [
            "Efecto del espaciado.md",
            "Práctica de recuperación.md",
            "Práctica intercalada.md",
        ]
        assert frontmatter.loads((root / SOURCE).read_text(encoding="utf-8"))["processed_date"]
        assert app.runtime.runs.get(run_id).status == "done"
        consistent(app, root)
        snapshot = {p: p.read_bytes() for p in root.rglob("*.md")}
        again = repair(app)
        assert again.finished == [] and {p: p.read_bytes() for p in root.rglob("*.md")} == snapshot


async def test_failed_vault_write_leaves_a_pending_plan_that_repair_finishes(
    tmp_path: Path,
) -> None:
    root, data = make_vault(tmp_path)
    async with open_app(root, data) as app:
        run_id = await paused_run(app)
        real_create = app.vault.writer.create
        calls = []

        def flaky(rel, text):
            calls.append(rel)
            if len(calls) == 2:
                raise OSError("disk full")
            return real_create(rel, text)

        app.vault.writer.create = flaky
        events = await app.runtime.run_until_pause(run_id, "approve", resume=True)
        assert isinstance(events[-1], Failed) and "noema repair" in events[-1].error
        app.vault.writer.create = real_create
        report = repair(app)
        assert report.finished == [run_id]
        # the note written before the failure was not written twice
        created = sorted(p.name for p in (root / "08 - Ideas").glob("*.md"))
        assert len(created) == 3 and calls[0].endswith(created[0])
        consistent(app, root)


async def test_duplicate_detection_runs_in_parallel_within_the_limit(tmp_path: Path) -> None:
    root, data = make_vault(tmp_path)

    def many(messages, schema):
        ids = enum_of(schema, "concepts", "[]", "quote_ids")
        return {
            "concepts": [concept(f"Idea número {i} de práctica", [ids[i % 3]]) for i in range(6)],
            "notes": "",
        }

    settings = Settings(
        vault={"path": root},
        data={"directory": data},
        flows={
            "extraction": {
                "concurrency": 3,
                "max_critique_iterations": 0,
                "language": "es",
                "duplicate_checks": "per_candidate",  # the fan-out of one call per candidate
            }
        },
        models={"max_tokens": 4096},
    )
    backend = ConcurrencyBackend(FlowScript(candidates=many), latency_s=0.05)
    async with open_services(settings, {"extraction": SPEC}, backend=backend) as app:
        app.vault.index.sync_files()
        run = app.runtime.start("extraction", {"source": SOURCE})
        await app.runtime.run_until_pause(run.id)
        assert backend.max_in_flight == 3
        assert sum(1 for c in backend.calls if "Candidate:" in str(c.messages)) == 6


def _with_existing(messages, schema):
    """A new concept and a duplicate of the existing note (which then gains a quote)."""
    ids = enum_of(schema, "concepts", "[]", "quote_ids")
    return {
        "concepts": [
            concept("Efecto del espaciado", [ids[1]]),
            concept("Práctica de recuperación", [ids[0]]),
        ],
        "notes": "",
    }


async def test_repair_of_a_plan_already_written_writes_nothing_twice(tmp_path: Path) -> None:
    """A crash after every vault write but before the plan is marked done: repair applies the
    whole plan again (block ids, new notes, the existing note's edit, processed_date) and
    every step finds its work done."""
    from core.repair import load_plan
    from tests.flows.extraction.script import relations

    root, data = make_vault(tmp_path)
    script = FlowScript(candidates=_with_existing, relations=relations)
    async with open_app(root, data, script) as app:
        app.vault.index.sync_files()
        run = app.runtime.start("extraction", {"source": SOURCE}, target=SOURCE)
        assert isinstance((await app.runtime.run_until_pause(run.id))[-1], Interrupted)
        events = await app.runtime.run_until_pause(run.id, "approve", resume=True)
        assert isinstance(events[-1], Done)
        plan = load_plan(app.store, run.id)
        assert plan.create and plan.edit and plan.block_ids  # every kind of write is replayed
        snapshot = {p: p.read_bytes() for p in root.rglob("*.md")}
        app.store.execute(
            "UPDATE extraction_commits SET status='pending' WHERE run_id=?", (run.id,)
        )
        again = repair(app)
        assert again.finished == [run.id] and again.written == [] and not again.errors
        assert {p: p.read_bytes() for p in root.rglob("*.md")} == snapshot
        consistent(app, root)
