"""Source notes as core.domain Source and Quote."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from core.sources import is_processed, quotes_from_note, read_source, source_from_note
from vault.note import parse_note

SAMPLE = Path(__file__).resolve().parents[2] / "tui" / "sample_vault"


def test_sample_sources():
    source, quotes = read_source(SAMPLE, "03 - Sources/Apréndetelo.md")
    assert source.title == "Apréndetelo: la ciencia del aprendizaje eficaz"
    assert source.category == "libro" and source.author.startswith("Peter C. Brown")
    assert source.processed_date == datetime(2026, 10, 10)
    assert [q.id for q in quotes][:3] == ["ap-recuperacion", "ap-espaciado", "ap-intercalado"]
    assert all(q.source == Path("03 - Sources/Apréndetelo.md") for q in quotes)
    assert quotes[0].text.startswith("Intentar recordar algo de memoria")
    assert "location" not in quotes[0].text

    pending, quotes = read_source(SAMPLE, "03 - Sources/Pensar rápido, pensar despacio.md")
    assert pending.processed_date is None and len(quotes) == 4
    assert "readwise" not in quotes[0].text


def test_title_falls_back_to_file_name_and_dates_parse():
    note = parse_note(
        "03 - Sources/My Article.md", b"---\nprocessed_date: 2026-03-04T05:06:07\n---\n"
    )
    source = source_from_note(note)
    assert source.title == "My Article"
    assert source.processed_date == datetime(2026, 3, 4, 5, 6, 7)
    assert is_processed(note)
    bad = parse_note("s.md", b"---\nprocessed_date: someday\n---\n## Quotes\n> q\n")
    assert source_from_note(bad).processed_date is None
    assert [q.text for q in quotes_from_note(bad)] == ["q"]
