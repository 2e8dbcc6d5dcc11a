"""The normalization screen in the real app shell with a scripted model: Pilot and snapshots."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from types import SimpleNamespace

import frontmatter
from textual.widgets import Static

from core.events import Progress
from core.flows.normalization.accumulate import make_merge
from core.flows.normalization.graph import SPEC
from core.ingest import index_vault
from core.merges.reviews import ReviewsRepo
from core.services import open_services
from core.settings import Settings
from local_llm import TransientModelError
from local_llm.testing import ScriptedBackend
from tests.flows.normalization.script import by_node, is_generator, propose, weak_when
from tests.merges.merge_vault import SAMPLE, snapshot
from tests.tui.helpers import wait_for
from tui.app import NoemaApp
from tui.screens.normalization import DiffModal, NormalizationScreen, RenameModal
from tui.widgets.normalization_live import NormalizationLive
from tui.widgets.normalization_proposals import ProposalsView

IDEAS = "08 - Ideas"


class GatedBackend(ScriptedBackend):
    """Holds every call after the first evaluation until `gate` is set (a run stays running)."""

    gate: asyncio.Event | None = None

    async def _wait(self) -> None:
        if any(not is_generator(c) for c in self.calls[:-1]):
            self.gate = self.gate or asyncio.Event()
            await self.gate.wait()
        await super()._wait()


def make_app(
    tmp_path: Path,
    seed_review: bool = False,
    backend_class: type = ScriptedBackend,
    evaluator=None,
) -> tuple[NoemaApp, Path]:
    root = tmp_path / "vault"
    shutil.copytree(SAMPLE, root)
    settings = Settings(
        vault={"path": root},
        data={"directory": tmp_path / "data"},
        models={"transient_retries": 0, "retries": 1},
    )
    generator = propose(("ZDP", "Zona de desarrollo próximo"), ("Hábitos atómicos", "Deep Work"))
    evaluator = evaluator or weak_when("Deep Work")
    backend = backend_class(answer=by_node(generator, evaluator))
    services = open_services(settings, {"normalization": SPEC}, backend=backend)
    index_vault(settings, services.store)
    if seed_review:
        ids = {r[0]: r[1] for r in services.store.query("SELECT title, entity_id FROM concepts")}
        pairs = [
            ("Zona de desarrollo próximo", "ZDP"),
            ("Metacognición", "metacognicion"),
            ("Repetición espaciada", "Aprendizaje espaciado"),
        ]
        merges = [make_merge(ids[a], ids[b], a, b, "same idea") for a, b in pairs]
        ReviewsRepo(services.store).create("f" * 32, "f" * 32, merges, [3, 1, 0])
    app = NoemaApp(settings, services=services, watch=False)
    app.animation_level = "none"
    return app, root


def rows(app: NoemaApp) -> list:
    return app.screen.query_one(ProposalsView).rows


async def test_run_live_view_then_review_apply_and_undo(tmp_path: Path) -> None:
    app, root = make_app(tmp_path)
    files = snapshot(root)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        await pilot.press("n")
        screen = app.screen
        assert isinstance(screen, NormalizationScreen)
        await pilot.press("s")
        await wait_for(pilot, lambda: len(rows(app)) == 3)
        live = screen.query_one(NormalizationLive)
        assert live.data["phase"] == "complete" and live.data["weak_count"] == 1
        assert any(not ok and "Deep Work" in line for ok, line in live.latest)
        assert list(screen.query_one("#live-trend").data) == [1.0, 0.0]
        assert {r.canonical for r in rows(app)} >= {"Zona de desarrollo próximo"}

        first = rows(app)[0]
        await pilot.press("r")  # reject the highlighted merge: weak for future runs
        # the row stays where it was (no re-sort) and so does the cursor
        await wait_for(pilot, lambda: rows(app)[0].status == "rejected")
        assert (
            rows(app)[0].key == first.key
            and screen.query_one(ProposalsView).current() == rows(app)[0]
        )
        weak = app.services.store.query("SELECT key FROM normalization_weak_merges")
        assert first.key in {r[0] for r in weak}
        await pilot.press("A")  # accept all remaining
        await wait_for(pilot, lambda: all(r.status != "pending" for r in rows(app)))
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffModal))
        assert "99 - Archive" in app.screen.diff
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.review_status == "applied")
        assert snapshot(root) != files
        await pilot.press("u")
        await wait_for(pilot, lambda: screen.review_status == "pending")
        assert snapshot(root) == files


async def test_choose_and_rename_the_canonical(tmp_path: Path) -> None:
    app, root = make_app(tmp_path, seed_review=True)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        await pilot.press("n")
        await wait_for(pilot, lambda: len(rows(app)) == 3)
        key = next(r.key for r in rows(app) if "ZDP" in (r.canonical, r.variants))

        def row():
            return next(r for r in rows(app) if r.key == key)

        table = app.screen.query_one("#proposals")
        table.move_cursor(row=rows(app).index(row()))
        before = row().canonical
        await pilot.press("c")
        await wait_for(pilot, lambda: row().canonical != before)
        table.move_cursor(row=rows(app).index(row()))
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, RenameModal))
        app.screen.query_one("#rename-input").value = "Zona proxima"
        await pilot.press("enter")
        await wait_for(pilot, lambda: row().canonical == "Zona proxima")
        table.move_cursor(row=rows(app).index(row()))
        await pilot.press("a", "p")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffModal))
        await pilot.press("y")
        await wait_for(pilot, lambda: (root / IDEAS / "Zona proxima.md").exists())
        post = frontmatter.loads((root / IDEAS / "Zona proxima.md").read_text(encoding="utf-8"))
        assert before in post["aliases"]


async def test_running_run_opened_from_the_runs_table_is_followed_live(tmp_path: Path) -> None:
    """Enter on a running normalization run opens the screen following it: what the run did
    so far (iteration, merges, weak merges) is replayed, the rest arrives live, once."""
    app, _root = make_app(tmp_path, backend_class=GatedBackend)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        run = app.services.runtime.start("normalization", {})
        app.drive_run(run.id)

        def weak_logged() -> bool:
            return any(
                isinstance(e, Progress) and e.data.get("latest_weak") for e in app.run_log(run.id)
            )

        await wait_for(pilot, weak_logged)
        assert app.services.runtime.runs.get(run.id).status == "running"
        app.open_run(app.services.runtime.runs.get(run.id))
        await wait_for(pilot, lambda: isinstance(app.screen, NormalizationScreen))
        screen = app.screen
        await pilot.pause(0.1)
        live = screen.query_one(NormalizationLive)
        assert live.data.get("iteration", 0) >= 1 and live.data["phase"] != "complete"
        assert any(not ok and "Deep Work" in line for ok, line in live.latest)
        assert any(ok and "ZDP" in line for ok, line in live.latest)
        assert "Following run" in str(screen.query_one("#status-line").render())
        backend = app.services.llm.backend()
        assert isinstance(backend, GatedBackend) and backend.gate is not None
        backend.gate.set()
        await wait_for(pilot, lambda: len(rows(app)) == 3 and screen.review_id == run.id)
        assert live.data["phase"] == "complete"
        assert list(screen.query_one("#live-trend").data) == [1.0, 0.0]
        lines = [line for _ok, line in live.latest]
        assert len(lines) == len(set(lines))  # the replayed events are not shown twice


# -- issue 12: the cursor stays on its merge; an applied review reads right --------------------


async def test_the_cursor_stays_on_the_merge_it_changed(tmp_path: Path) -> None:
    app, _root = make_app(tmp_path, seed_review=True)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        await pilot.press("n")
        await wait_for(pilot, lambda: len(rows(app)) == 3)
        view = app.screen.query_one(ProposalsView)
        order = [r.key for r in rows(app)]
        await pilot.press("down")  # the middle merge
        middle = view.current().key
        for key, status in (("a", "accepted"), ("r", "rejected"), ("a", "accepted")):
            await pilot.press(key)
            await wait_for(pilot, lambda s=status: view.current().status == s)
            assert view.current().key == middle and [r.key for r in rows(app)] == order
        await pilot.press("up")  # the first merge: accept it, then switch its canonical
        first = view.current()
        await pilot.press("a")
        await wait_for(pilot, lambda: view.current().status == "accepted")
        await pilot.press("c")
        await wait_for(pilot, lambda: view.current().canonical != first.canonical)
        assert view.current().key == first.key and [r.key for r in rows(app)] == order


async def test_a_new_review_starts_on_its_first_merge(tmp_path: Path) -> None:
    """Stop-24 walk: right after a run finished, the cursor had followed the merge highlighted
    in the previous review to its place in the new one (row 3), so the first key changed merge
    3 of a review the user had not looked at yet. A new review starts on merge 1, the keys act
    on the merge the definitions show."""
    app, _root = make_app(tmp_path, seed_review=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        await pilot.press("n")
        await wait_for(pilot, lambda: len(rows(app)) == 3)
        view = app.screen.query_one(ProposalsView)
        old = [r.key for r in rows(app)]
        highlighted = view.current()
        await pilot.press("s")
        await wait_for(pilot, lambda: [r.key for r in rows(app)] != old)
        assert highlighted.key in [r.key for r in rows(app)][1:]  # the same merge, moved down
        first = rows(app)[0]
        assert view.current() == first
        assert first.canonical in str(view.query_one("#def-canonical", Static).render())
        await pilot.press("a")
        await wait_for(pilot, lambda: rows(app)[0].status == "accepted")
        assert [r.status for r in rows(app)[1:]] == ["pending", "pending"]


async def test_after_apply_the_review_keeps_its_canonicals_and_shows_no_ids(
    tmp_path: Path,
) -> None:
    import re

    app, _root = make_app(tmp_path, seed_review=True)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        await pilot.press("n")
        await wait_for(pilot, lambda: len(rows(app)) == 3)
        await pilot.press("A")
        await wait_for(pilot, lambda: all(r.status == "accepted" for r in rows(app)))
        before = [(r.canonical, r.variants) for r in rows(app)]
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffModal))
        await pilot.press("y")
        screen = app.screen
        await wait_for(
            pilot,
            lambda: isinstance(screen, NormalizationScreen) and screen.review_status == "applied",
        )
        await pilot.pause(0.2)
        assert [(r.canonical, r.variants) for r in rows(app)] == before
        table = screen.query_one("#proposals")
        cells = " ".join(str(c) for i in range(table.row_count) for c in table.get_row_at(i))
        view = screen.query_one(ProposalsView)
        for n in range(len(rows(app))):
            table.move_cursor(row=n)
            await pilot.pause()
            cells += str(view.query_one("#def-canonical").render())
            cells += str(view.query_one("#def-variant").render())
        assert not re.search(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}|[0-9a-f]{32}", cells)
        assert "archived" in cells


class Down:
    """An evaluator whose server is down while `down`; then it answers like `weak_when`."""

    def __init__(self) -> None:
        self.down, self.answer = True, weak_when("Deep Work")

    def __call__(self, messages, schema):
        if self.down:
            raise TransientModelError("Connection refused")
        return self.answer(messages, schema)


async def test_a_failed_run_is_said_and_s_resumes_it_from_the_failed_step(tmp_path: Path) -> None:
    """Main caught the evaluator's failure, ended 'Done: no merges to propose.'"""
    evaluator = Down()
    app, _root = make_app(tmp_path, evaluator=evaluator)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        await pilot.press("n")
        screen = app.screen
        await pilot.press("s")
        status = screen.query_one("#status-line")
        await wait_for(pilot, lambda: "Failed" in str(status.render()))
        assert "s resumes the run" in str(status.render())
        run_id = screen.run_id
        assert app.services.runtime.runs.get(run_id).status == "failed"
        evaluator.down = False
        await pilot.press("s")
        await wait_for(pilot, lambda: len(rows(app)) == 3)
        assert screen.run_id == run_id  # the same run, resumed
        assert len(app.services.runtime.list_runs(flow="normalization")) == 1


async def test_invalid_answers_end_the_run_partial_with_what_is_missing(tmp_path: Path) -> None:
    app, _root = make_app(tmp_path, evaluator=lambda m, s: {"weak_merges": "nonsense"})
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        await pilot.press("n")
        screen = app.screen
        await pilot.press("s")
        status = screen.query_one("#status-line")
        await wait_for(pilot, lambda: "Partial" in str(status.render()))
        text = str(status.render())
        assert "model call(s) gave invalid answers" in text and "[validation]" in text
        assert "Done: no merges to propose" not in text


def test_rejecting_a_merge_keeps_the_canonical_it_showed() -> None:
    """The walkthrough's merge listed as `metacognicion = Metacognición` (the less linked
    first): pending it showed Metacognición as canonical, rejected it flipped to metacognicion."""
    from dataclasses import replace

    from core.merges.catalog import ConceptInfo
    from core.merges.clusters import build_clusters
    from core.merges.reviews import ReviewItem
    from tui.widgets.normalization_proposals import build_rows

    less_linked = ConceptInfo("a", "metacognicion")
    more_linked = ConceptInfo("b", "Metacognición", links=3)
    concepts = {"a": less_linked, "b": more_linked}
    item = ReviewItem("k", "a", "b", "metacognicion", "Metacognición", "accents", "code", "pending")
    shown = []
    for status in ("pending", "rejected", "accepted"):
        items = [replace(item, status=status)]
        row = build_rows(SimpleNamespace(items=items), build_clusters(items, concepts), concepts)[0]
        shown.append((row.canonical, row.variants))
    assert shown == [("Metacognición", "metacognicion")] * 3


async def test_the_review_footer_keeps_quit_at_100_columns(tmp_path: Path) -> None:
    """In the walk at 100x30 the review's footer ended `u Undo  esc▏^p palette`: Back, Help,
    Home and Quit were cut. Rename and Accept rest live in help (`?`)."""
    from textual.widgets._footer import FooterKey

    from tests.tui.test_keys_help_palette import cut_footer_keys

    app, _root = make_app(tmp_path, seed_review=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        await pilot.press("n")
        await wait_for(pilot, lambda: len(rows(app)) == 3)
        await pilot.pause(0.2)
        assert not cut_footer_keys(app.screen), cut_footer_keys(app.screen)
        assert {"a", "r", "c", "p", "q"} <= {k.key for k in app.screen.query(FooterKey)}
