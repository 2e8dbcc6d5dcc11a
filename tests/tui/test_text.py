"""Text cut to a width: at a word boundary with an ellipsis, and the full text within reach."""

from __future__ import annotations

from pathlib import Path

from rich.cells import cell_len

from core.wording import plural
from tests.tui.helpers import wait_for
from tests.tui.test_extraction_screen import make_app as make_extraction_app
from tui.text import clip, clip_path
from tui.widgets.normalization_proposals import ProposalsView


def test_clip_cuts_at_a_word_boundary_with_an_ellipsis():
    reason = "Ambos describen la recuperación activa de la memoria como estrategia de estudio"
    cut = clip(reason, 40)
    assert cut == "Ambos describen la recuperación activa…" and cell_len(cut) <= 40
    assert clip("corto", 40) == "corto"
    assert clip("línea\nrota   con  espacios", 40) == "línea rota con espacios"


def test_clip_keeps_wide_characters_and_emoji_within_the_width():
    for text in (
        "学习的最好方法是主动回忆，而不是反复阅读课本内容",
        "🧠 Memoria 🧠 y 📚 estudio 🎯 diario",
    ):
        for width in (5, 9, 14, 21):
            cut = clip(text, width)
            assert cell_len(cut) <= width and cut.endswith("…")


def test_a_single_long_word_is_cut_inside_it_rather_than_vanishing():
    assert clip("Donaudampfschifffahrtsgesellschaftskapitän", 12) == "Donaudampfs…"
    assert clip("x", 1) == "x" and clip("xy", 1) == "…"


def test_clip_path_keeps_the_file_name():
    path = "03 - Sources/Libros de psicología/Pensar rápido, pensar despacio.md"
    cut = clip_path(path, 40)
    assert cut.startswith("…") and cut.endswith("pensar despacio.md") and cell_len(cut) <= 40


async def test_a_cut_source_name_is_shown_in_full_beside_the_list(tmp_path: Path) -> None:
    app, root, _script = make_extraction_app(tmp_path)
    long = "03 - Sources/Una fuente con un título larguísimo que no cabe en la lista.md"
    source = next((root / "03 - Sources").glob("*.md")).read_text(encoding="utf-8")
    (root / long).write_text(source, encoding="utf-8")
    app._injected.vault.index.sync_files()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        await pilot.press("x")
        table = app.screen.query_one("#sources")
        await wait_for(pilot, lambda: long in table.rows_by_path)
        table.move_cursor(row=table.get_row_index(long))
        await pilot.pause()
        cell = str(table.get_row(long)[0])
        stem = Path(long).stem
        assert cell.endswith("…") and stem.startswith(cell[:-1])
        assert stem[len(cell) - 1] == " "  # cut after a whole word
        assert long in str(app.screen.query_one("#source-detail").render()).replace("\n", "")


async def test_the_proposals_table_cuts_the_reason_and_the_detail_shows_it_whole():
    from textual.app import App

    from core.merges.reviews import Review, ReviewItem
    from tui.widgets.normalization_proposals import build_rows

    reason = "Los dos conceptos describen exactamente la misma estrategia de estudio " * 3
    item = ReviewItem(
        "k", "a", "b", "Recuperación activa", "Práctica de recuperación", reason, "llm", "pending"
    )
    review = Review("r", "r", "pending", [], "", [item])

    class Host(App):
        def compose(self):
            yield ProposalsView()

    async with Host().run_test(size=(100, 30)) as pilot:
        view = pilot.app.query_one(ProposalsView)
        view.show(build_rows(review, [], {}))
        await pilot.pause()
        cells = [str(c) for c in pilot.app.query_one("#proposals").get_row_at(0)]
        assert cells[-1].endswith("…") and cell_len(cells[-1]) < len(reason)
        assert reason.strip() in str(view.query_one("#def-variant").render()).replace("\n", " ")


def test_plural_says_one_source_and_many_sources():
    assert [plural(n, "source") for n in (0, 1, 2)] == ["0 sources", "1 source", "2 sources"]
