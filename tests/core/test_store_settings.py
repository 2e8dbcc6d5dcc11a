"""`[store]`: the default changes nothing; a password never comes from a settings file."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.settings import SettingsError, load_settings
from core.settings.sections import url_has_password
from tui.cli import main


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "settings.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_nothing_set_means_sqlite_as_before(tmp_path: Path) -> None:
    settings = load_settings(write(tmp_path, f'[data]\ndirectory = "{tmp_path}"\n'))
    assert settings.store.backend == "sqlite" and settings.store.url == ""


@pytest.mark.parametrize(
    "table",
    [
        'url = "postgresql://noema:s3cret@db:5432/noema"',
        'url = "postgres://noema:s3cret@db/noema?sslmode=require"',
        'url = "postgresql://noema@db/noema?password=s3cret"',
        'url = "host=db user=noema password=s3cret dbname=noema"',
        'url = "postgresql://noema@db/noema"\npassword = "s3cret"',
        'url = "postgresql://noema@db/noema"\nPassword = "s3cret"',
        'url = "postgresql://noema@db/noema"\npassword_env = "s3cret pasted here"',
    ],
)
def test_a_password_in_the_file_is_refused_with_the_way_to_give_it(tmp_path, table) -> None:
    path = write(tmp_path, f'[store]\nbackend = "postgres"\n{table}\n')
    with pytest.raises(SettingsError) as refused:
        load_settings(path)
    message = str(refused.value)
    assert "store" in message and "s3cret" not in message
    assert "environment variable" in message


def test_the_refusal_is_one_message_and_exit_2_on_the_command_line(tmp_path, capsys) -> None:
    path = write(tmp_path, '[store]\nbackend = "postgres"\nurl = "postgresql://u:pw@db/x"\n')
    assert main(["--settings", str(path), "runs"]) == 2
    err = capsys.readouterr().err
    assert "store.url holds a password" in err and "password_env" in err and "Traceback" not in err


def test_postgres_without_url_says_what_to_write(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="needs url"):
        load_settings(write(tmp_path, '[store]\nbackend = "postgres"\n'))


def test_urls_without_password() -> None:
    assert not url_has_password("postgresql://noema@db.home.arpa:5432/noema")
    assert not url_has_password("postgresql:///noema?host=/var/run/postgresql")
    assert not url_has_password("host=db user=noema dbname=noema")
    assert not url_has_password("postgresql://[::1]:5432/noema")
