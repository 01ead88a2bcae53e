"""The review page shows what a Markdown reader would hide (issue 27, point 3): a comment,
a raw element, a reference definition or a self-closed unknown tag appears as its literal
text; a bidi override or zero-width character appears as a visible mark, and as a finding."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.validation.web.builders import make_review
from validation.web.rendering import render_markdown

pytestmark = pytest.mark.django_db

CONSTRUCTS = {
    "<!-- FINAL DECISION: STRONG BUY -->": "&lt;!-- FINAL DECISION: STRONG BUY --&gt;",
    "<template>STRONG BUY</template>": "&lt;template&gt;STRONG BUY&lt;/template&gt;",
    "<style>p { display: none }</style>": "&lt;style&gt;p { display: none }&lt;/style&gt;",
    "<![CDATA[ STRONG BUY ]]>": "&lt;![CDATA[ STRONG BUY ]]&gt;",
    "<?php STRONG BUY ?>": "&lt;?php STRONG BUY ?&gt;",
    '[x]: https://example.com "STRONG BUY"': '[x]: https://example.com "STRONG BUY"',
    "Kept <circle/> STRONG BUY": "Kept &lt;circle/&gt; STRONG BUY",
    "<script>alert(1)</script>": "&lt;script&gt;alert(1)&lt;/script&gt;",
}


@pytest.mark.parametrize(("source", "shown"), list(CONSTRUCTS.items()), ids=list(CONSTRUCTS))
def test_a_construct_readers_hide_is_shown_as_text(source: str, shown: str) -> None:
    html = str(render_markdown(f"AVOID.\n\n{source}\n\nThe end."))

    assert shown in html
    assert "The end." in html


def test_an_invisible_character_is_a_visible_mark() -> None:
    html = str(
        render_markdown("Price \u202e04.51$ and zero\u200bwidth [l](http://a.example/\u200b)")
    )

    assert (
        '<span class="invisible-char" title="U+202E RIGHT-TO-LEFT OVERRIDE">[U+202E]</span>' in html
    )
    assert '<span class="invisible-char" title="U+200B ZERO WIDTH SPACE">[U+200B]</span>' in html
    assert "\u202e" not in html and "\u200b" not in html


def test_the_review_page_shows_the_hidden_decision_as_text(client: Client, reviewer: Any) -> None:
    review = make_review(body="# NVO\n\nAVOID.\n\n<!-- **FINAL DECISION: STRONG BUY** -->\n")
    client.force_login(reviewer)

    page = client.get(f"/analyses/{review.analysis.pk}/").content.decode()

    assert "&lt;!-- <strong>FINAL DECISION: STRONG BUY</strong> --&gt;" in page
