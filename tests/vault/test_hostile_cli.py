"""Issue 15 from the command line, on the hostile vault: `noema index` says what it did not
read and why, `noema doctor` counts what is indexed, `noema search` finds quotes, and a
source that leads out of the vault is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.settings import load_settings
from tests.vault import hostile_vault as hv
from tui.cli import main
from tui.commands.doctor import check_vault, check_vault_notes


@pytest.fixture
def settings_file(tmp_path: Path) -> Path:
    vault = hv.build(tmp_path)
    path = tmp_path / "settings.toml"
    path.write_text(
        f'[vault]\npath = "{vault}"\n[data]\ndirectory = "{tmp_path / "data"}"\n', encoding="utf-8"
    )
    return path


def test_index_reads_nothing_outside_and_says_so(settings_file, capsys) -> None:
    assert main(["--settings", str(settings_file), "index"]) == 0
    out = capsys.readouterr().out
    assert f"{len(hv.INDEXED)} added" in out and "3 skipped" in out
    secret = next(line for line in out.splitlines() if "Secreto.md" in line)
    assert secret.strip().startswith("skipped: 03 - Sources/Secreto.md: symlink to")
    assert "outside the vault: not read" in secret
    assert "skipped: 00 - Inbox/Ideas enlazadas: symlinked folder" in out
    assert "excluded: 2 note(s) (excluded in Obsidian)" in out
    assert "warning: 08 - Ideas/Roto.md: malformed frontmatter" in out
    assert hv.SECRET_TEXT not in out


def test_doctor_counts_what_is_indexed_and_lists_what_needs_fixing(settings_file, capsys):
    settings = load_settings(str(settings_file))
    vault, *rest = check_vault(settings)
    # the notes noema reads (the binary one is tried, then reported), none of .trash,
    # templates, excluded files, the attachments folder or the symlinks
    assert (
        f"({len(hv.INDEXED) + 1} notes to index, 2 attachments, 4 notes excluded)" in vault.detail
    )
    skipped = next(c for c in rest if c.name == "vault skipped")
    assert "3 entries not read" in skipped.detail and "Secreto.md: symlink to" in skipped.detail
    assert check_vault_notes(settings) is None  # nothing indexed yet: nothing to report
    assert main(["--settings", str(settings_file), "index"]) == 0
    notes = check_vault_notes(settings)
    assert notes is not None and f"{len(hv.PROBLEMS)} to fix" in notes.detail
    indexed = f"({len(hv.INDEXED)} notes indexed of {len(hv.INDEXED) + 1} to read"
    assert indexed in check_vault(settings)[0].detail
    assert "08 - Ideas/Binario.md: binary content" in notes.detail


def test_search_finds_quotes_with_their_source_and_block(settings_file, capsys) -> None:
    main(["--settings", str(settings_file), "index"])
    capsys.readouterr()
    assert main(["--settings", str(settings_file), "search", "compound", "interest"]) == 0
    out = capsys.readouterr().out
    assert "quote    [[The Knowledge Project - Compounding#^kp-habits]] @00:45:10" in out


def test_extract_refuses_a_source_that_leads_out_of_the_vault(settings_file, capsys) -> None:
    assert main(["--settings", str(settings_file), "extract", "Secreto"]) == 1
    err = capsys.readouterr().err
    assert "leads outside the vault" in err and "Traceback" not in err


def test_extract_refuses_a_malformed_source_until_it_is_fixed(settings_file, capsys) -> None:
    assert main(["--settings", str(settings_file), "extract", "Mal formado"]) == 1
    err = capsys.readouterr().err
    assert "malformed frontmatter" in err and "fix the note" in err
