"""ARCHITECTURE.md tells the truth: every path it names exists.

A path is a backticked name with a slash or a file extension. In the table of folders and
modules a name is also read relative to its row's folder (`views.py` in the row of
`validation/web/views.py`, or an indented row under `validation/web/`); elsewhere a name
short of its folders (`services/jobs.py`) is any path that ends so."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAP = ROOT / "ARCHITECTURE.md"
PATHLIKE = re.compile(r"^(?!/)[\w.{},/-]*(/|\.(py|sh|js|md|html|toml|json))$|^[\w.-]+/[\w./-]*$")


def _expand(token: str) -> list[str]:
    """`validation/{services,tasks}/` is two paths."""
    match = re.search(r"\{([^}]*)\}", token)
    if not match:
        return [token]
    return [
        expanded
        for part in match.group(1).split(",")
        for expanded in _expand(token[: match.start()] + part + token[match.end() :])
    ]


def _exists(token: str, base: Path | None) -> bool:
    if (ROOT / token).exists() or (base is not None and (base / token).exists()):
        return True
    if base is not None and "/" in token.rstrip("/"):
        return False
    # Elsewhere, a name without its folders (`services/jobs.py`, `types.py`): any such path.
    tail = token.rstrip("/")
    return any(
        path.as_posix().endswith("/" + tail)
        for path in ROOT.rglob(tail.rsplit("/", 1)[-1])
        if ".venv" not in path.parts and ".git" not in path.parts
    )


def _named_paths() -> list[tuple[str, Path | None]]:
    named: list[tuple[str, Path | None]] = []
    folder: Path | None = None  # the folder indented rows sit in
    for line in MAP.read_text("utf-8").splitlines():
        base: Path | None = None
        if line.startswith("| "):
            cells = line.split(" | ")
            first = re.findall(r"`([^`]*)`", cells[0])
            if first and not first[0].startswith(" "):
                head = ROOT / first[0]
                base = head if first[0].endswith("/") else head.parent
                if first[0].endswith("/"):
                    folder = head
            elif first:
                base = folder
        for token in re.findall(r"`([^`]*)`", line):
            token = token.strip()
            if PATHLIKE.match(token):
                named += [(path, base) for path in _expand(token)]
    return named


def test_the_map_names_paths() -> None:
    names = [token for token, _ in _named_paths()]

    assert "validation/web/" in names and "redline_errors.py" in names


def test_every_path_the_map_names_exists() -> None:
    missing = sorted({token for token, base in _named_paths() if not _exists(token, base)})

    assert missing == []


# ---------------------------------------------------------------- the design notes

CITING = ("project", "analyses", "validation", "tests", "bench", "templates")


def _django_side_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", ROOT / "redline_errors.py"]
    for folder in CITING:
        files += [
            path
            for path in (ROOT / folder).rglob("*")
            if path.suffix in (".py", ".html", ".md")
            and "engine" not in path.relative_to(ROOT).parts  # the engine's are its own
            and "migrations" not in path.parts
        ]
    return files


def test_every_design_note_the_code_cites_is_in_docs() -> None:
    cited = {
        name
        for path in _django_side_files() + list((ROOT / "validation" / "engine").rglob("*.py"))
        for name in re.findall(r"docs/([\w.-]+\.md)", path.read_text("utf-8"))
    }

    assert cited, "the code cites the design notes as docs/<name>.md"
    assert sorted(name for name in cited if not (ROOT / "docs" / name).is_file()) == []


def test_outside_the_engine_no_comment_cites_a_seed_section() -> None:
    citing = sorted(
        f"{path.relative_to(ROOT)}:{number}"
        for path in _django_side_files()
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if re.search("seed" + r"('s)? §", line)
    )

    assert citing == []
