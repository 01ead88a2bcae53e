"""The project's pages in `docs/` are its own, and everything that cites them is right.

- Every citation of a page, `docs/spec.md` or `docs/spec.md §4.2` (also `§4.2, §4.5` and
  `§4-§8`), anywhere in the repository names a page that exists and sections that exist
  in it; a section is a numbered heading (`## 4 The five checks`, `### 4.2 ...`).
- Inside the pages, every relative link names a file that exists (and a heading, when it
  has an anchor), and every bare `§N` of the specification names one of its sections.
- No line of `docs/` repeats a line of the documents Redline was first built from
  (`../shared/seeds/`, when they are beside the checkout): the pages say it in our words.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SEEDS = ROOT.parent / "shared" / "seeds"

TEXT_SUFFIXES = (".py", ".md", ".html", ".txt", ".toml", ".cfg", ".yml", ".yaml", ".json")
SKIPPED_DIRS = {".git", ".venv", "var", "node_modules", "staticfiles", "test-artifacts"}

_SECTION_RUN = r"(§\s*\d+(?:\.\d+)*(?:(?:\s*[-\u2013]\s*|,\s*|\s+and\s+)§?\s*\d+(?:\.\d+)*)*)"
CITATION = re.compile(r"docs/([\w.-]+\.md)`?\)?(?:,?[ \t]+" + _SECTION_RUN + ")?")
HEADING = re.compile(r"^#{2,4}\s+(\d+(?:\.\d+)*)\b", re.MULTILINE)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _text_files() -> Iterator[Path]:
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [name for name in dirs if name not in SKIPPED_DIRS]
        for name in files:
            if name.endswith(TEXT_SUFFIXES) or name == "Makefile":
                yield Path(folder) / name


def _sections(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text("utf-8"), flags=re.DOTALL | re.MULTILINE)
    return set(HEADING.findall(text))


def _numbers(run: str) -> list[str]:
    return re.findall(r"\d+(?:\.\d+)*", run)


def _citations() -> list[tuple[str, str, str]]:
    """(where, page, section or "") for every citation of a page of docs/."""
    found = []
    for path in _text_files():
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            where = f"{path.relative_to(ROOT)}:{number}"
            for match in CITATION.finditer(line):
                page, run = match.group(1), match.group(2) or ""
                found += [(where, page, section) for section in _numbers(run)] or [
                    (where, page, "")
                ]
    return found


def test_the_code_cites_the_specification_by_section() -> None:
    cited = {(page, section) for _, page, section in _citations()}

    assert ("spec.md", "4.2") in cited
    assert ("spec.md", "7") in cited


def test_every_citation_names_a_page_and_a_section_that_exist() -> None:
    sections = {page.name: _sections(page) for page in DOCS.glob("*.md")}

    wrong = sorted(
        f"{where}: docs/{page}" + (f" §{section}" if section else "")
        for where, page, section in _citations()
        if page not in sections or (section and section not in sections[page])
    )

    assert wrong == []


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    kept = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return kept.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = page.read_text("utf-8")
    return {_anchor(title) for title in re.findall(r"^#{1,6}\s+(.+)$", text, re.MULTILINE)}


def test_every_link_of_the_pages_and_the_readme_resolves() -> None:
    wrong = []
    for page in [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *DOCS.glob("*.md")]:
        for target in LINK.findall(page.read_text("utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            name, _, anchor = target.partition("#")
            linked = (page.parent / name).resolve()
            if not linked.exists():
                wrong.append(f"{page.name}: {target} (no such file)")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                wrong.append(f"{page.name}: {target} (no such heading)")

    assert wrong == []


def test_the_specification_refers_only_to_its_own_sections() -> None:
    spec = DOCS / "spec.md"
    sections = _sections(spec)
    # Outside code blocks and tables, where "§4" is a section of a pipeline's context.md.
    prose = re.sub(r"```.*?```", "", spec.read_text("utf-8"), flags=re.DOTALL)
    prose = "\n".join(line for line in prose.splitlines() if not line.startswith("|"))
    cited = {n for run in re.findall(_SECTION_RUN, prose) for n in _numbers(run)}
    design = (DOCS / "design.md").read_text("utf-8")
    cited |= {n for run in re.findall(r"spec " + _SECTION_RUN, design) for n in _numbers(run)}

    assert sorted(cited - sections) == []
    assert {"4.1", "4.5", "5.2", "6.1", "7.3", "8.2", "9.1", "11.1", "12.3", "13", "14.2"} <= (
        sections
    )


def _seed_lines() -> set[str]:
    lines = set()
    for seed in SEEDS.glob("*.md"):
        for line in seed.read_text("utf-8").splitlines():
            line = " ".join(line.split())
            if len(line) >= 40 and not line.startswith(("|", "```", "#")):
                lines.add(line)
    return lines


def _runs(text: str, size: int = 12) -> set[str]:
    words = re.findall(r"\w+", text.lower())
    return {" ".join(words[i : i + size]) for i in range(len(words) - size + 1)}


@pytest.mark.skipif(not SEEDS.is_dir(), reason="../shared/seeds is not beside this checkout")
def test_docs_holds_no_sentence_of_the_seed_documents() -> None:
    seed_lines = _seed_lines()
    seed_runs = set().union(*(_runs(seed.read_text("utf-8")) for seed in SEEDS.glob("*.md")))
    assert seed_lines and seed_runs

    copied = sorted(
        f"{page.name}: {line.strip()[:80]}"
        for page in DOCS.glob("*.md")
        for line in page.read_text("utf-8").splitlines()
        if " ".join(line.split()) in seed_lines or _runs(line) & seed_runs
    )

    assert copied == []


@pytest.mark.skipif(not SEEDS.is_dir(), reason="../shared/seeds is not beside this checkout")
def test_no_file_repeats_a_long_line_of_the_seed_documents() -> None:
    long_lines = {line for line in _seed_lines() if len(line) >= 70}

    copied = sorted(
        str(path.relative_to(ROOT))
        for path in _text_files()
        if path.suffix in (".md", ".py", ".html", ".txt")
        and long_lines & {" ".join(line.split()) for line in _read(path).splitlines()}
    )

    assert copied == []


def _read(path: Path) -> str:
    try:
        return path.read_text("utf-8")
    except UnicodeDecodeError:
        return ""


def test_the_readme_is_a_guide_of_at_most_300_lines() -> None:
    lines = (ROOT / "README.md").read_text("utf-8").splitlines()

    assert len(lines) <= 300, f"README.md has {len(lines)} lines; details belong in docs/"
