"""A flag says what the search found. "Operating cash flow covered only 0.41x of 2018
investing outflows" is 283,710 / 692,999, and the closed search finds that pair; but at two
significant digits, among the many pairs of a cash-flow table and its prose, such a hit
would come by chance too often (7.8 %) to be proof. The number is still flagged, with no fix,
and the flag names the pair and its chance, so the reviewer checks one division instead of
being told the figure cannot be derived. A number no candidate lands on keeps the plain
message."""

from __future__ import annotations

from pathlib import Path

from tests.engine.reports import check, check_record, fixes_on

WRITER_I = Path(__file__).resolve().parents[2] / "bench/data/notes-extra17.jsonl"


def _messages(verdict: object, text: str) -> list[str]:
    return [
        finding.message
        for finding in verdict.findings  # type: ignore[attr-defined]
        if finding.text == text
    ]


def test_a_flag_names_the_derivation_too_likely_a_coincidence() -> None:
    verdict = check_record(WRITER_I, "notes-extra17-d087-c")

    (message,) = _messages(verdict, "0.41x")
    assert "283710 / 692999 (chance 7.8%)" in message
    assert "too likely a coincidence" in message and "not a fix" in message
    assert fixes_on(verdict, "0.41x") == []


def test_a_number_nothing_lands_on_keeps_the_plain_message() -> None:
    table = "| | 2019 | 2018 |\n|---|---|---|\n| Revenue | 1,200 | 1,000 |\n"
    verdict = check("Revenue rose to $1,200 million, a gain of 7.3 times.", ("table", table))

    (message,) = _messages(verdict, "7.3")
    assert "cannot be derived from the evidence numbers" in message
