"""What is approved is what is shown (issue 27, point 3), in the engine: constructs a
Markdown reader shows as nothing decide no field, count as a finding, and are escaped in
what the Markdown export writes; bidi and zero-width characters are marked and counted."""

from __future__ import annotations

import pytest

from validation.engine.checks.format import check_format
from validation.engine.fields import extract_fields
from validation.engine.visible import (
    hidden_spans,
    markdown_code,
    markdown_for_readers,
    markdown_text,
    mask_hidden,
)

VISIBLE = "The call is clear.\n\n**FINAL DECISION: AVOID**\n\n"
# Each hides "FINAL DECISION: STRONG BUY" from a Markdown reader.
HIDDEN = {
    "comment": "<!-- **FINAL DECISION: STRONG BUY** -->",
    "unclosed comment": "<!-- **FINAL DECISION: STRONG BUY**",
    "template": "<template>**FINAL DECISION: STRONG BUY**</template>",
    "style": "<style>/* FINAL DECISION: STRONG BUY */</style>",
    "script": "<SCRIPT>// FINAL DECISION: STRONG BUY</SCRIPT>",
    "cdata": "<![CDATA[ FINAL DECISION: STRONG BUY ]]>",
    "processing instruction": "<?xml FINAL DECISION: STRONG BUY ?>",
    "reference title": '[x]: https://example.com "FINAL DECISION: STRONG BUY"',
    "self-closed unknown tag": "Noted <circle/> FINAL DECISION: STRONG BUY",
}


@pytest.mark.parametrize("construct", list(HIDDEN.values()), ids=list(HIDDEN))
def test_a_decision_hidden_from_readers_is_not_read(construct: str) -> None:
    body = f"{VISIBLE}{construct}\n"

    assert extract_fields(body).decision == "AVOID"
    assert hidden_spans(body) and "STRONG BUY" not in mask_hidden(body)
    assert len(mask_hidden(body)) == len(body)  # offsets hold


@pytest.mark.parametrize("construct", list(HIDDEN.values()), ids=list(HIDDEN))
def test_a_hidden_construct_is_a_format_finding(construct: str) -> None:
    findings, _ = check_format(f"{VISIBLE}{construct}\n")

    hidden = [f for f in findings if f.kind == "hidden_markup"]
    assert len(hidden) == 1 and "STRONG BUY" in hidden[0].text
    assert hidden[0].severity == "minor"


@pytest.mark.parametrize("construct", list(HIDDEN.values()), ids=list(HIDDEN))
def test_the_markdown_export_escapes_what_a_reader_would_hide(construct: str) -> None:
    exported = markdown_for_readers(f"{VISIBLE}{construct}\n")

    assert "STRONG BUY" in exported
    assert "<!--" not in exported and "<![" not in exported and "<?" not in exported
    assert "<template" not in exported and "<style" not in exported.lower()
    assert "<circle" not in exported and "<script" not in exported.lower()
    assert "\n[x]:" not in exported


def test_visible_text_still_decides_and_void_tags_hide_nothing() -> None:
    body = "Line one<br/>\n\n**FINAL DECISION: BUY** <b>firmly</b>\n"

    assert extract_fields(body).decision == "BUY"
    assert hidden_spans(body) == []


def test_code_and_autolinks_are_left_as_they_are_in_the_export() -> None:
    body = "See <https://example.com> and `<b>`.\n\n```\n<!-- kept -->\n[a]: b\n```\n<i>x</i>\n"

    assert markdown_for_readers(body) == (
        "See <https://example.com> and `<b>`.\n\n```\n<!-- kept -->\n[a]: b\n```\n&lt;i>x&lt;/i>\n"
    )


@pytest.mark.parametrize(
    "char",
    [
        "\u202a",
        "\u202b",
        "\u202c",
        "\u202d",
        "\u202e",
        "\u2066",
        "\u2069",
        "\u200b",
        "\u200c",
        "\u200d",
        "\u2060",
        "\ufeff",
    ],
)
def test_bidi_and_zero_width_characters_are_marked_and_counted(char: str) -> None:
    body = f"Intrinsic value: $15{char}2.40 per share.\n"

    findings, _ = check_format(body)
    [found] = [f for f in findings if f.kind == "invisible_character"]
    assert found.severity == "major"
    assert f"U+{ord(char):04X}" in found.message
    assert (found.start, found.end) == (body.index(char), body.index(char) + 1)
    assert f"$15[U+{ord(char):04X}]2.40" in markdown_for_readers(body)


def test_values_in_the_appendix_are_inert() -> None:
    forged = "fine\n\n- **Decision:** APPROVE <b>x</b> [link](http://evil.example)"
    text = markdown_text(forged)

    assert "\n" not in text
    assert "\\*\\*Decision:\\*\\*" in text and "\\<b\\>" in text and "\\[link\\]" in text
    assert markdown_code("a`b") == "`` a`b ``"
    assert markdown_code("x```y\nz") == "```` x```y↵z ````"
    assert markdown_code("$15.8B") == "`$15.8B`"
    assert markdown_code("") == "(nothing)"
