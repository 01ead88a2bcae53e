"""Sources (docs/spec.md §4.2, §4.5): URLs come from the evidence, cited refs exist, numeric
claims carry a source reference."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from validation.engine.checks.sources import check_sources, reference_spans
from validation.engine.fixes import FixToApply, apply_fixes
from validation.engine.types import Citations, EvidenceItem, Finding, NumberMatch

EVIDENCE = [
    EvidenceItem(
        source_ref="quote-NVO",
        kind="workflow_result",
        url="https://finance.example.com/quote/NVO",
        content={"price": 104.2},
    ),
    EvidenceItem(
        source_ref="§4.2 gurufocus-NVO-cashflow",
        kind="workflow_result",
        content="Operating cash flow 15.5 billion; see https://www.gurufocus.com/stock/NVO/cf",
    ),
    EvidenceItem(source_ref="memory-nvo: prior note", kind="context", content="Sales +16%."),
]


def _claims(body: str) -> list[tuple[int, int]]:
    """Stand-in for the numbers engine's claim spans: every $-amount and percentage."""
    return [m.span() for m in re.finditer(r"\$\d[\d,]*(?:\.\d+)?[BM]?|\d+(?:\.\d+)?%", body)]


def _check(body: str, evidence: list[EvidenceItem] = EVIDENCE) -> list[Finding]:
    """The findings about the report's spans; the once-per-report policy finding
    (``uncited_claims``) has tests of its own below."""
    findings, _ = check_sources(body, evidence, _claims(body))
    return [finding for finding in findings if finding.kind != "uncited_claims"]


def _policy(body: str, citations: Citations) -> list[tuple[str, str, str]]:
    findings, _ = check_sources(body, EVIDENCE, _claims(body), citations=citations)
    return [(f.kind, f.severity, f.message) for f in findings if f.kind == "uncited_claims"]


def _summary(body: str, evidence: list[EvidenceItem] = EVIDENCE) -> list[tuple[str, str, str]]:
    return [(f.check, f.kind, f.text) for f in _check(body, evidence)]


# ---------------------------------------------------------------- URLs


def test_a_link_to_an_evidence_url_is_fine_in_any_spelling() -> None:
    body = (
        "Price $104.20 ([quote](https://finance.example.com/quote/NVO)). "
        "Cash flow $15.5B (<http://www.gurufocus.com/stock/NVO/cf/>)."
    )

    assert _check(body) == []


def test_a_link_no_evidence_returned_is_an_invented_url() -> None:
    body = "Price $104.20 ([quote](https://made-up.example.com/NVO))."

    (finding,) = _check(body)

    assert (finding.check, finding.kind, finding.severity) == (
        "no_hallucinations",
        "unknown_url",
        "major",
    )
    assert finding.text == "[quote](https://made-up.example.com/NVO)"
    assert finding.message == "URL https://made-up.example.com/NVO does not appear in any evidence"


def test_raw_and_reference_urls_are_checked_against_the_evidence_too() -> None:
    body = "See https://nowhere.example.com/x and [ref][r].\n\n[r]: https://else.example.com/y\n"

    assert [f.kind for f in _check(body)] == ["unknown_url", "unknown_url"]


def test_a_url_merely_mentioned_inside_evidence_content_counts() -> None:
    assert _check("Cash flow [GF](https://www.gurufocus.com/stock/NVO/cf).") == []


def test_a_different_page_on_an_evidence_host_is_still_unknown() -> None:
    assert [f.kind for f in _check("[q](https://finance.example.com/quote/NVO/history)")] == [
        "unknown_url"
    ]


# ---------------------------------------------------------------- cited refs


def test_recognised_citation_syntaxes_that_resolve() -> None:
    for cited in (
        "Price $104.20 [quote-NVO].",
        "Price $104.20 [Quote-NVO].",
        "Price $104.20 [§4.2].",
        "Price $104.20 [§4.2 gurufocus-NVO-cashflow].",
        "Price $104.20 [quote-NVO; §4.2].",
        "Price $104.20 [source: quote-NVO].",
        "Price $104.20 (source: quote-NVO).",
        "Price $104.20 (Sources: quote-NVO, memory-nvo).",
        "Price $104.20. Source: quote-NVO",
        "Price $104.20 (ref: gurufocus-NVO-cashflow).",
        "Price $104.20 per §4.2 data.",
        "Price $104.20 [^1].\n\n[^1]: quote-NVO",
        "Price $104.20 [1].\n\n[1] Yahoo quote",
        "Price $104.20 ([quote](https://finance.example.com/quote/NVO)).",
    ):
        assert _check(cited) == [], cited


def test_a_cited_ref_that_no_evidence_has_is_an_unknown_ref() -> None:
    for cited, text in (
        ("Price $104.20 [tool-7].", "[tool-7]"),
        ("Price $104.20. Source: quote-XYZ", "Source: quote-XYZ"),
        ("Price $104.20 (source: bloomberg).", "(source: bloomberg)"),
        ("Price $104.20 per §9.1 data.", "§9.1"),
        ("Price $104.20 [^2].", "[^2]"),
        ("Price $104.20 [3].", "[3]"),
    ):
        findings = _check(cited)
        assert [(f.check, f.kind, f.severity, f.text) for f in findings] == [
            ("source_metadata_present", "unknown_ref", "major", text)
        ], cited


def test_an_unknown_ref_message_lists_the_known_refs() -> None:
    (finding,) = _check("Price $104.20 [tool-7].")

    assert finding.message == (
        '"tool-7" is not a source_ref of any evidence (known refs: quote-NVO, '
        "§4.2 gurufocus-NVO-cashflow, memory-nvo: prior note)"
    )


def test_only_the_unknown_part_of_a_ref_list_is_named() -> None:
    (finding,) = _check("Price $104.20 [quote-NVO; tool-7].")

    assert finding.message.startswith('"tool-7" is not a source_ref')


def test_prose_in_brackets_is_not_a_citation() -> None:
    assert _summary("Price $104.20 [sic].") == [
        ("source_metadata_present", "missing_source", "Price $104.20 [sic].")
    ]
    assert _check("- [ ] todo item\n- [x] done item") == []


def test_section_marks_are_citations_only_when_the_evidence_uses_them() -> None:
    plain = [EvidenceItem(source_ref="quote-NVO", content="price 104.2")]

    assert _check("As §3 below explains, the price is fair.", plain) == []
    assert [f.kind for f in _check("As §3 below explains, the price is fair.")] == ["unknown_ref"]


# ---------------------------------------------------------------- missing sources


def test_each_uncited_sentence_with_a_numeric_claim_is_one_minor_finding() -> None:
    body = "Novo trades at $104.20 today. Margins are 41%. The moat is wide."

    findings = _check(body)

    assert [(f.kind, f.severity, f.text) for f in findings] == [
        ("missing_source", "minor", "Novo trades at $104.20 today."),
        ("missing_source", "minor", "Margins are 41%."),
    ]
    assert findings[0].message == 'sentence with numeric claim "$104.20" has no source reference'
    assert (findings[0].start, findings[0].end) == (0, 29)


# ---------------------------------------------------------------- citation policy


def test_under_the_claims_policy_uncited_claims_fail_the_check_once() -> None:
    body = "Novo trades at $104.20 today. Margins are 41% [quote-NVO]. Growth 16%."

    assert _policy(body, "claims") == [
        (
            "uncited_claims",
            "major",
            "2 of 3 sentences with numeric claims cite no source "
            "(policy: every numeric claim carries a source reference)",
        )
    ]
    assert [(f.kind, f.severity) for f in _check(body)] == [
        ("missing_source", "minor"),
        ("missing_source", "minor"),
    ]


def test_the_claims_policy_is_the_default_and_is_met_when_every_claim_cites() -> None:
    body = "Novo trades at $104.20 [quote-NVO]. Margins are 41% [quote-NVO]."
    findings, _ = check_sources("Novo trades at $104.20.", EVIDENCE, [(15, 22)])

    assert [f.kind for f in findings] == ["uncited_claims", "missing_source"]
    assert _policy(body, "claims") == []


def test_under_the_report_policy_one_citation_anywhere_is_enough() -> None:
    cited_once = "Novo trades at $104.20. Margins are 41%.\n\nSource: quote-NVO"
    uncited = "Novo trades at $104.20. Margins are 41%."

    findings, _ = check_sources(cited_once, EVIDENCE, _claims(cited_once), citations="report")
    assert findings == []
    assert _policy(uncited, "report") == [
        (
            "uncited_claims",
            "major",
            "the report makes 2 numeric claims and cites none of its sources "
            "(policy: the report cites its sources)",
        )
    ]
    findings, _ = check_sources(uncited, EVIDENCE, _claims(uncited), citations="report")
    assert [f.kind for f in findings] == ["uncited_claims"]  # no per-sentence nagging


def test_under_no_citation_policy_nothing_need_be_cited() -> None:
    body = "Novo trades at $104.20. Margins are 41%."

    assert check_sources(body, EVIDENCE, _claims(body), citations="none") == ([], [])


@pytest.mark.parametrize("citations", ["none", "report", "claims"])
def test_a_citation_that_is_given_must_be_real_under_every_policy(citations: Citations) -> None:
    body = "Price $104.20 [tool-7] ([quote](https://made-up.example.com/NVO))."

    findings, _ = check_sources(body, EVIDENCE, _claims(body), citations=citations)

    assert {(f.kind, f.severity) for f in findings} == {
        ("unknown_ref", "major"),
        ("unknown_url", "major"),
    }


def test_without_evidence_or_claims_there_is_nothing_to_cite() -> None:
    assert check_sources("Novo trades at $104.20.", [], [(15, 22)]) == ([], [])
    assert check_sources("The moat is wide.", EVIDENCE, []) == ([], [])


def test_several_claims_in_one_sentence_give_one_finding() -> None:
    findings = _check("Price $104.20 and margin 41% and growth 16%.")

    assert len(findings) == 1
    assert findings[0].message == (
        'sentence with numeric claims "$104.20", "41%", "16%" has no source reference'
    )


def test_a_source_line_cites_its_whole_paragraph() -> None:
    body = "Owner Earnings: $14.8B\nOCF $15.5B less capex $0.7B.\nSource: §4.2\n\nMargin 41%."

    assert [f.text for f in _check(body)] == ["Margin 41%."]


def test_a_table_is_one_unit_cited_by_a_caption_line() -> None:
    table = "| Metric | Value |\n|---|---|\n| Price | $104.20 |\n| Margin | 41% |"

    uncited = _check(table + "\n\nThe end.")
    assert [(f.kind, f.text) for f in uncited] == [("missing_source", table)]
    assert uncited[0].message.startswith("table with numeric claims")
    assert _check(table + "\n\n*Source: quote-NVO*\n") == []
    assert _check("Source: quote-NVO\n\n" + table) == []
    assert _check(table.replace("| Price |", "| Price [quote-NVO] |")) == []


def test_sentence_splitting_respects_decimals_and_abbreviations() -> None:
    body = "Novo Nordisk Inc. trades at $104.20, e.g. below peers [quote-NVO]. Growth 16%."

    assert [f.text for f in _check(body)] == ["Growth 16%."]


def test_a_wrapped_sentence_is_one_sentence() -> None:
    body = "The company trades at $104.20, which is\nwell below value [quote-NVO]."

    assert _check(body) == []


@pytest.mark.parametrize(
    "body",
    [
        "Owner earnings of $14.8B rest on operating cash flow of\n$15.5B less capex [§4.2].",
        "Novo Nordisk trades at $104.20\nper share (source: quote-NVO).",
        "- Price: Novo trades at $104.20, a\n  discount to peers [quote-NVO].",
        "Margins held at 41%\nAnd the price is $104.20 [quote-NVO].",
    ],
)
def test_a_single_line_break_inside_a_paragraph_is_a_space(body: str) -> None:
    assert _check(body) == []


@pytest.mark.parametrize(
    ("body", "uncited"),
    [
        ("Margins are 41%.\n\nThe price is $104.20 [quote-NVO].", "Margins are 41%."),
        ("Margins are 41%\n- The price is $104.20 [quote-NVO].", "Margins are 41%"),
        ("Margins are 41%\n## Price $104.20 [quote-NVO]", "Margins are 41%"),
        ("Margins are 41%\n| Price | $104.20 [quote-NVO] |", "Margins are 41%"),
    ],
)
def test_a_blank_line_list_item_heading_or_table_row_ends_a_sentence(
    body: str, uncited: str
) -> None:
    assert [f.text for f in _check(body)] == [uncited]


def test_without_evidence_nothing_can_be_cited_so_nothing_is_missing() -> None:
    assert _check("Price $104.20.", []) == []


def test_an_unresolved_citation_is_reported_once_not_also_as_missing() -> None:
    assert [f.kind for f in _check("Price $104.20 [tool-7].")] == ["unknown_ref"]


def test_code_is_never_read_for_citations() -> None:
    assert _check("Run `curl https://x.example.com [tool-9]` to refresh.") == []


# ---------------------------------------------------------------- fixes


def _match(body: str, text: str, ref: str, status: str = "exact") -> NumberMatch:
    start = body.index(text)
    return NumberMatch(
        text=text,
        value=Decimal("104.20"),
        start=start,
        end=start + len(text),
        label="price",
        status=status,
        evidence_value=Decimal("104.2"),
        source_ref=ref,
        evidence_label="price",
    )


def test_an_uncited_sentence_whose_numbers_match_one_item_gets_a_citation_fix() -> None:
    body = "Novo trades at $104.20 today. The moat is wide."
    match = _match(body, "$104.20", "quote-NVO")

    findings, fixes = check_sources(body, EVIDENCE, [(match.start, match.end)], [match])

    (fix,) = fixes
    assert fix.kind == "missing_source"
    assert fix.finding_index is not None
    assert findings[fix.finding_index].kind == "missing_source"
    assert findings[fix.finding_index].text == "Novo trades at $104.20 today."
    assert fix.confidence == 0.85
    assert fix.verified_with == "evidence: $104.20 = 104.2 (quote-NVO, price)"
    assert fix.evidence[0].source_ref == "quote-NVO"
    assert fix.evidence[0].url == "https://finance.example.com/quote/NVO"
    result = apply_fixes(body, [FixToApply(1, fix.find, fix.replace)])
    assert result.body == "Novo trades at $104.20 today [quote-NVO]. The moat is wide."
    assert check_sources(result.body, EVIDENCE, [(15, 22)]) == ([], [])


def test_no_citation_fix_when_a_number_of_the_sentence_is_unsupported() -> None:
    body = "Novo trades at $104.20 with 97,271 options."
    match = _match(body, "$104.20", "quote-NVO")
    other = body.index("97,271")

    _, fixes = check_sources(
        body, EVIDENCE, [(match.start, match.end), (other, other + 6)], [match]
    )

    assert fixes == []


def test_a_derived_number_gives_a_less_confident_citation_fix() -> None:
    body = "Margin of safety 25%."
    match = _match(body, "25%", "quote-NVO", status="derived")

    _, (fix,) = check_sources(body, EVIDENCE, [(match.start, match.end)], [match])

    assert fix.confidence == 0.80
    assert fix.replace == "Margin of safety 25% [quote-NVO]."


def test_reference_spans_are_the_parts_that_only_name_a_source() -> None:
    body = (
        "Price $104.20 [§4.2] and [q](https://finance.example.com/quote/NVO), see §4.2, "
        "[^1].\n\nSource: quote-NVO shows 104.2\n\n[^1]: note"
    )

    spans = [body[start:end] for start, end in reference_spans(body, EVIDENCE)]

    assert spans == ["[§4.2]", "https://finance.example.com/quote/NVO", "§4.2", "[^1]"]


@given(
    st.lists(
        st.sampled_from(
            [
                "a",
                " ",
                ".",
                "\n",
                "$5",
                "[",
                "]",
                "(",
                ")",
                "§4.2",
                "[tool-7]",
                "Source: ",
                "^1",
                "https://finance.example.com/quote/NVO",
                "|",
                "`",
            ]
        ),
        max_size=40,
    ).map("".join)
)
def test_any_text_gives_findings_inside_the_body(body: str) -> None:
    findings, fixes = check_sources(body, EVIDENCE, _claims(body))

    for finding in findings:
        assert 0 <= finding.start <= finding.end <= len(body)
    assert fixes == []  # no number matches given, so no citation can be proven
