"""Coherent format (docs/spec.md §4.4): well-formed Markdown, clickable links, not truncated."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from validation.engine.checks.format import RAW_URL_VERIFIED_WITH, check_format
from validation.engine.fixes import FixToApply, apply_fixes
from validation.engine.types import Finding


def _kinds(body: str) -> list[str]:
    findings, _ = check_format(body)
    return [finding.kind for finding in findings]


def _only(body: str, kind: str) -> Finding:
    findings, _ = check_format(body)
    matching = [finding for finding in findings if finding.kind == kind]
    assert len(matching) == 1, findings
    return matching[0]


WELL_FORMED = """# NVO quick screen

Novo Nordisk trades at **$104.20** ([quote](https://finance.example.com/quote/NVO)).
Owner earnings are _solid_ and the intrinsic_value field is set.

| Metric | Value |
|:-------|------:|
| Price | $104.20 |
| IV | $139.00 |

- one point
* another point

```python
x = a_b * 2  # **not emphasis**, https://not.a.link
```

Reference: <https://www.sec.gov/> and [sec][1].

[1]: https://www.sec.gov/cgi-bin/browse-edgar

**FINAL DECISION: BUY**
"""


def test_a_well_formed_report_has_no_findings() -> None:
    assert check_format(WELL_FORMED) == ([], [])


def test_an_empty_report_is_critical() -> None:
    finding = _only("  \n\t", "empty")

    assert finding.severity == "critical"
    assert finding.check == "coherent_format"


def test_unclosed_bold_is_found_with_its_span() -> None:
    body = "Revenue was **$10.5B in 2024.\n\nNext paragraph is **fine**."

    finding = _only(body, "unbalanced_emphasis")

    assert finding.severity == "minor"
    assert (finding.start, finding.end) == (12, body.index("\n"))
    assert finding.text == "**$10.5B in 2024."
    assert finding.message == '"**" emphasis is opened but never closed'


def test_underscore_and_single_star_emphasis_are_checked_too() -> None:
    assert _kinds("This is __strong without end.") == ["unbalanced_emphasis"]
    assert _kinds("This is *odd without end.") == ["unbalanced_emphasis"]
    assert _kinds("This is _odd without end.") == ["unbalanced_emphasis"]


def test_emphasis_look_alikes_are_not_emphasis() -> None:
    body = (
        "The intrinsic_value and fair_value fields; 2 * 3 = 6; a \\* literal.\n\n"
        "* a bullet\n\n***\n\nSee [docs](https://example.com/a_b_c*d) and `a*b`.\n\n"
        "***bold italic*** works."
    )

    assert _kinds(body) == []


def test_emphasis_does_not_span_paragraphs() -> None:
    assert _kinds("Opened **here.\n\nClosed** there.") == [
        "unbalanced_emphasis",
        "unbalanced_emphasis",
    ]


def test_an_unclosed_code_fence_is_major_and_names_its_line() -> None:
    finding = _only("Intro.\n\n```python\nx = 1\n", "unclosed_code_fence")

    assert finding.severity == "major"
    assert finding.message == "the code fence opened on line 3 is never closed"
    assert finding.text == "```python"


def test_a_closed_fence_with_a_longer_closer_is_fine() -> None:
    assert _kinds("Intro.\n\n~~~~\ncode\n~~~~~\n\nEnd.") == []


def test_a_table_without_separator_row_is_found() -> None:
    finding = _only("Intro.\n\n| A | B |\n| 1 | 2 |\n\nEnd.", "table")

    assert "no separator row" in finding.message
    assert finding.text == "| A | B |\n| 1 | 2 |"


def test_table_rows_must_have_the_header_cell_count() -> None:
    body = "| A | B |\n|---|---|\n| 1 | 2 | 3 |\n| 4 |\n\nEnd."

    findings, _ = check_format(body)

    assert [f.message for f in findings] == [
        "table row 3 has 3 cells, the header has 2",
        "table row 4 has 1 cells, the header has 2",
    ]
    assert findings[0].text == "| 1 | 2 | 3 |"


def test_a_separator_with_the_wrong_cell_count_is_found() -> None:
    findings, _ = check_format("| A | B |\n|---|\n| 1 | 2 |\n\nEnd.")

    assert [f.message for f in findings] == ["table separator row has 1 cells, the header has 2"]


def test_escaped_pipes_and_code_do_not_split_cells() -> None:
    assert _kinds("| A | B |\n|---|---|\n| a \\| b | `x | y` |\n\nEnd.") == []


def test_a_heading_without_a_space_is_found_and_fixed() -> None:
    body = "##Valuation\n\nThe price is fair."

    findings, fixes = check_format(body)

    assert [f.kind for f in findings] == ["heading"]
    assert fixes[0].find == "##Valuation"
    assert fixes[0].replace == "## Valuation"
    assert fixes[0].finding_index == 0
    assert _kinds("#1 in its market.") == []  # a number sign, not a heading


def test_an_empty_heading_is_found() -> None:
    assert _kinds("Intro.\n\n## \n\nEnd.") == ["heading"]


def test_a_raw_url_is_a_minor_finding_with_a_link_fix() -> None:
    body = "See https://www.sec.gov/cgi-bin/browse-edgar?company=novo for filings."

    findings, fixes = check_format(body)

    assert [(f.kind, f.severity, f.check) for f in findings] == [
        ("raw_url", "minor", "coherent_format")
    ]
    assert findings[0].text == "https://www.sec.gov/cgi-bin/browse-edgar?company=novo"
    (fix,) = fixes
    assert fix.kind == "raw_url"
    assert fix.confidence == 0.97
    assert fix.verified_with == RAW_URL_VERIFIED_WITH
    assert fix.find == "https://www.sec.gov/cgi-bin/browse-edgar?company=novo"
    assert fix.replace == (
        "[sec.gov/cgi-bin/browse-edgar](https://www.sec.gov/cgi-bin/browse-edgar?company=novo)"
    )
    assert fix.offset == 4


def test_trailing_punctuation_and_an_unbalanced_paren_are_not_part_of_a_raw_url() -> None:
    findings, _ = check_format("Filings (https://example.com/a_(b)/c).")

    assert findings[0].text == "https://example.com/a_(b)/c"


def test_a_repeated_raw_url_gets_a_find_widened_until_unique() -> None:
    body = "Quote: https://q.example.com/NVO today.\nAgain: https://q.example.com/NVO later."

    _, fixes = check_format(body)

    assert len(fixes) == 2
    for fix in fixes:
        assert body.count(fix.find) == 1
        assert "https://q.example.com/NVO" in fix.find
        assert body[fix.offset : fix.offset + len(fix.find)] == fix.find
    result = apply_fixes(
        body, [FixToApply(i, fix.find, fix.replace) for i, fix in enumerate(fixes)]
    )
    assert result.conflicts == {}
    assert result.body == (
        "Quote: [q.example.com/NVO](https://q.example.com/NVO) today.\n"
        "Again: [q.example.com/NVO](https://q.example.com/NVO) later."
    )


def test_links_autolinks_and_reference_definitions_are_not_raw() -> None:
    body = (
        "A [link](https://a.example.com). An <https://b.example.com>.\n"
        "![chart](https://c.example.com/x.png)\n\n[d]: https://d.example.com\n"
    )

    assert _kinds(body) == []


def test_urls_inside_code_are_not_judged() -> None:
    assert _kinds("Run `curl https://api.example.com`.\n\n```\nhttps://x.example.com\n```\n") == []


def test_a_report_ending_mid_sentence_is_truncated() -> None:
    finding = _only("# Report\n\nThe margin of safety is", "truncated")

    assert finding.severity == "major"
    assert finding.text == "The margin of safety is"
    assert 'it ends with "is"' in finding.message


def test_truncation_signals() -> None:
    assert _kinds("Revenue rose 12% and margins,") == ["truncated"]
    assert _kinds("Revenue rose 12% (see the") == ["truncated"]
    assert _kinds("Revenue rose 12% while margins expand") == ["truncated"]
    assert _kinds("- first point\n- and the second point with") == ["truncated"]


def test_complete_endings_are_not_truncated() -> None:
    for ending in (
        "Revenue rose 12%.",
        "Is it cheap?",
        "**FINAL DECISION: BUY**",
        "Decision: BUY",
        "- a list item without a full stop",
        "## Appendix",
        "| a | b |\n|---|---|\n| 1 | 2 |",
        "Done.\n\n```\ncode\n```",
        'He said "cheap."',
        "Total current liabilities were $5,466,312",
        "The average is (15.0% + 4.5% + 11.4%) / 3 = 10.3%",
        "Net working capital = 12,900 - 7,082 = $5,818",
    ):
        assert "truncated" not in _kinds(ending), ending


def test_only_the_last_word_decides_whether_a_line_ends_on_a_connective() -> None:
    # "as" is the last word made of letters, but the line ends on its result.
    assert _kinds("The 3-year average is calculated as (15.0% + 4.5%) / 2 = 9.75%") == []
    assert _kinds("The 3-year average is calculated as") == ["truncated"]
    assert _kinds("Revenue was $5 and") == ["truncated"]


def test_a_long_wall_of_text_is_found() -> None:
    body = ("The company grew revenue and margins in every segment this year. " * 30).strip()

    assert _kinds(body) == ["wall_of_text"]
    assert _kinds("# Heading\n\n" + body) == []


def test_findings_are_in_report_order_and_fix_indices_follow_them() -> None:
    body = "##Top\n\nSee https://a.example.com and **bold.\n\nEnd with"

    findings, fixes = check_format(body)

    assert [f.kind for f in findings] == ["heading", "raw_url", "unbalanced_emphasis", "truncated"]
    assert [(fix.kind, fix.finding_index) for fix in fixes] == [("heading", 0), ("raw_url", 1)]


MARKDOWNISH = st.lists(
    st.sampled_from(
        ["a", " ", "\n", "*", "_", "`", "#", "|", "-", "[", "]", "(", ")", "1.5", "https://x.io/a"]
    ),
    max_size=50,
).map("".join)


@given(MARKDOWNISH)
def test_any_text_gives_findings_with_valid_spans_and_applicable_fixes(body: str) -> None:
    findings, fixes = check_format(body)

    for finding in findings:
        assert 0 <= finding.start <= finding.end <= len(body)
    for fix in fixes:
        assert body[fix.offset : fix.offset + len(fix.find)] == fix.find
        assert body.count(fix.find) == 1
        assert fix.finding_index is not None and findings[fix.finding_index].kind == fix.kind


def test_a_repeated_mistake_is_listed_a_bounded_number_of_times_and_counted() -> None:
    from validation.engine.checks.format import MAX_FINDINGS_PER_KIND

    findings, _ = check_format("Intro.\n\n" + "##x\n" * 50_000)

    headings = [f for f in findings if f.kind == "heading"]
    assert len(headings) == MAX_FINDINGS_PER_KIND + 1
    assert headings[-1].message.startswith("49,800 more headings like the ones above")
