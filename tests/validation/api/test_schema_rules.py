"""The schema's patterns say what the rules say (issue 19: the URL, non-empty and NUL rules
were missing from the schema). Each documented pattern is checked against the rule it
documents, both ways: what the pattern admits the rule accepts (schema-valid requests are
never refused), and what the rule accepts the pattern admits (nothing accepted is outside
the schema)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from validation.api import schema as api_schema
from validation.engine.limits import FIELD_LABEL_RE, _is_http_url, field_number


def not_blank(value: str) -> bool:
    return "\x00" not in value and bool(value.strip())


def trimmed(value: str) -> bool:
    return "\x00" not in value and value == value.strip()


def http_url(value: str) -> bool:  # EvidenceItem._http_url: blank is "no URL"
    return "\x00" not in value and (not value.strip() or _is_http_url(value.strip()))


def field_label(value: str) -> bool:  # types.field_problems
    return bool(FIELD_LABEL_RE.match(value.strip().upper()))


def number_text(value: str) -> bool:
    return field_number(value) is not None


RULES: list[tuple[str, Callable[[str], bool], str]] = [
    ("NOT_BLANK", not_blank, " \t\n\x00\x1c\x1f\x85\u00a0\u2003\ufeffab"),
    ("TRIMMED", trimmed, " \t\n\x00\x1c\x85\u00a0ab"),
    ("HTTP_URL", http_url, "hHtTpPsS:/?#.a1 \t\x00\x1f\x7f@[]%é"),
    # Not "ß" nor the ligatures: they upper-case to two letters, which no pattern of a sane
    # size counts, and the schema leaves them out (the rule would take "ß" as "SS").
    ("FIELD_LABEL", field_label, "aBz09 _-\t\u0131\u017f.é"),
    ("NUMBER_TEXT", number_text, "0123456789,._eE+- \t\u0661nNaIfy"),
]


@pytest.mark.parametrize(("name", "rule", "alphabet"), RULES, ids=[r[0] for r in RULES])
def test_what_a_pattern_admits_its_rule_accepts(
    name: str, rule: Callable[[str], bool], alphabet: str
) -> None:
    pattern = getattr(api_schema, name)

    @settings(max_examples=400, deadline=None)
    @given(st.from_regex(pattern, fullmatch=True))
    def check(value: str) -> None:
        assert rule(value), repr(value)

    check()


@pytest.mark.parametrize(("name", "rule", "alphabet"), RULES, ids=[r[0] for r in RULES])
def test_what_a_rule_accepts_its_pattern_admits(
    name: str, rule: Callable[[str], bool], alphabet: str
) -> None:
    pattern = re.compile(getattr(api_schema, name))

    @settings(max_examples=1500, deadline=None)
    @given(st.text(alphabet=alphabet, max_size=12))
    def check(value: str) -> None:
        assert rule(value) == bool(pattern.search(value)), repr(value)

    check()


def test_urls_the_rule_accepts_are_admitted() -> None:
    pattern = re.compile(api_schema.HTTP_URL)
    for url in [
        "https://www.gurufocus.com/stock/NVO/financials",
        "HTTP://example.com:8080/a?b=c#d",
        "  https://example.com  ",
        "",
        "   ",
        "http://example.com:0",
        "http://example.com:65535/",
    ]:
        assert http_url(url) and pattern.search(url), url
    for url in ["javascript:alert(1)", "http://a b.com/", "https:///x", "http://x:65536/"]:
        assert not http_url(url) and not pattern.search(url), url


def test_the_whitespace_the_patterns_name_is_what_strip_strips() -> None:
    spaces = re.compile(f"[{api_schema._WS}]")
    assert all(bool(spaces.fullmatch(chr(code))) == chr(code).isspace() for code in range(0x110000))


def test_the_digits_the_patterns_name_are_decimals_reads_in_the_multilingual_plane() -> None:
    digits = re.compile(f"[{api_schema._DIGIT}]")
    assert all(
        bool(digits.fullmatch(chr(code))) == chr(code).isdecimal() for code in range(0x10000)
    )
