"""The Content-Security-Policy allows no inline style (style-src 'self'): no template and no
module that writes HTML carries a style attribute or a <style> element, so no page can
cause a violation (tests/browser/test_review_screens.py checks every page and action in
Chromium)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INLINE_STYLE = re.compile(r"""\sstyle\s*=\s*["'{]|<style[\s>]""", re.IGNORECASE)


def test_no_template_or_html_writer_has_an_inline_style() -> None:
    sources = [*(ROOT / "templates").rglob("*.html"), *(ROOT / "validation").rglob("*.py")]
    sources += list((ROOT / "static" / "js").glob("*.js"))
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sources
        if "migrations" not in path.parts and path.name != "htmx.min.js"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if INLINE_STYLE.search(line)
    ]
    assert found == []
