"""The local env file `make run` writes and `manage.py` reads (issue 11, point 4)."""

from __future__ import annotations

from pathlib import Path

from project import localenv


def test_ensure_writes_development_settings_and_a_new_key_once(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    assert localenv.ensure(path) is True
    first = localenv.read(path)
    assert first["REDLINE_DEBUG"] == "1"
    assert len(first["REDLINE_SECRET_KEY"]) >= 50
    assert localenv.ensure(path) is False
    assert localenv.read(path) == first
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    other = tmp_path / "other.env"
    localenv.ensure(other)
    assert localenv.read(other)["REDLINE_SECRET_KEY"] != first["REDLINE_SECRET_KEY"]


def test_the_file_lies_beneath_the_environment(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_text("# comment\n\nREDLINE_LOCALENV_A=1\nREDLINE_LOCALENV_B=from-file\n")

    merged = localenv.beneath({"REDLINE_LOCALENV_B": "from-environment"}, path)

    assert merged == {"REDLINE_LOCALENV_A": "1", "REDLINE_LOCALENV_B": "from-environment"}


def test_a_missing_file_loads_nothing(tmp_path: Path) -> None:
    assert localenv.read(tmp_path / "absent.env") == {}
