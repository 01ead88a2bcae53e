"""Bounded output (issue 19): findings are capped per check and per kind, the rest counted in
one finding of their kind; what a fix points at is kept; the verdict is judged on them all."""

from __future__ import annotations

from decimal import Decimal
from typing import cast

from validation.engine.caps import (
    MAX_FIND_CHARS,
    MAX_FINDINGS_PER_CHECK,
    MAX_FINDINGS_PER_KIND,
    MAX_MESSAGE_CHARS,
    MAX_NUMBERS_JUDGED,
    MAX_NUMBERS_LISTED,
    MAX_TEXT_CHARS,
    cap_findings,
    cap_numbers,
)
from validation.engine.decision import confidence_from
from validation.engine.pipeline import validate
from validation.engine.types import (
    Bundle,
    EvidenceItem,
    Finding,
    FixProposal,
    NumberMatch,
    NumbersReport,
    Severity,
)


def finding(n: int, kind: str = "orphan", check: str = "no_hallucinations", **extra) -> Finding:  # type: ignore[no-untyped-def]
    values = {"severity": "major", "message": f"number {n} is nowhere", "text": str(n)}
    values.update(extra)
    return Finding(check=check, kind=kind, start=n * 10, end=n * 10 + 2, **values)


def fix_for(index: int) -> FixProposal:
    return FixProposal(
        kind="close_number",
        find=f"find-{index}",
        replace="r",
        verified_with="evidence",
        confidence=0.9,
        offset=index,
        finding_index=index,
    )


def test_a_mistake_repeated_60000_times_lists_200_and_counts_the_rest() -> None:
    body = "# Margins\n\n" + "5% " * 60_000
    bundle = Bundle(
        query="Is ACME a buy?",
        body=body,
        evidence=[EvidenceItem(source_ref="acme", content={"revenue": 1})],
    )

    verdict = validate(bundle)

    orphans = [f for f in verdict.findings if f.kind == "orphan"]
    assert len(orphans) == MAX_FINDINGS_PER_KIND + 1
    summary = orphans[-1]
    # The first MAX_NUMBERS_JUDGED are judged; one finding counts the 50,000 left unchecked.
    judged = MAX_NUMBERS_JUDGED
    left = f"and {judged - 200:,} more like this (the first 200 are listed): "
    assert summary.message.startswith(left)
    assert (summary.start, summary.text) == (orphans[-2].start + 3, "5%")
    (limit,) = [f for f in verdict.findings if f.kind == "numbers_limit"]
    assert f"the {60_000 - judged:,} from here on unchecked" in limit.message
    assert len(verdict.issues) == len(verdict.findings) < 300
    assert len(verdict.numbers.orphan_numbers) == len(verdict.numbers.matches) == 500
    # Judged on every finding: the confidence is the one its orphans give.
    all_orphans = [finding(n) for n in range(judged)]
    assert verdict.confidence <= confidence_from(all_orphans)
    assert verdict.decision != "APPROVE"


def test_one_finding_over_the_cap_is_listed_rather_than_summarized() -> None:
    findings = [finding(n) for n in range(MAX_FINDINGS_PER_KIND + 1)]
    capped = cap_findings(findings, [])
    assert capped.findings == findings
    assert capped.left_out == 0


def test_each_kind_is_capped_on_its_own_and_summarized_at_its_first_left_out() -> None:
    orphans = [finding(n) for n in range(300)]
    years = [finding(1000 + n, kind="unsupported_year") for n in range(250)]

    capped = cap_findings(orphans + years, [], per_kind=100, per_check=10_000)

    assert [f.kind for f in capped.findings].count("orphan") == 101
    assert [f.kind for f in capped.findings].count("unsupported_year") == 101
    orphan_summary = capped.findings[100]
    assert orphan_summary.start == orphans[100].start
    assert orphan_summary.message == (
        "and 200 more like this (the first 100 are listed): number 100 is nowhere"
    )
    assert capped.left_out == 200 + 150


def test_a_check_over_its_cap_gives_each_kind_an_equal_share() -> None:
    findings = [finding(n, kind=f"k{n % 3}") for n in range(3000)]
    findings += [finding(5000, kind="rare")]

    capped = cap_findings(findings, [], per_kind=1000, per_check=301)

    listed = [f for f in capped.findings if not f.message.startswith("and ")]
    assert len(listed) <= 301
    kinds = [f.kind for f in listed]
    assert kinds.count("rare") == 1
    assert kinds.count("k0") == kinds.count("k1") == kinds.count("k2") == 100


def test_the_summary_is_as_severe_as_the_most_severe_finding_it_counts() -> None:
    severities = cast("list[Severity]", ["minor"] * 5 + ["critical"] + ["minor"] * 5)
    findings = [finding(n, severity=s) for n, s in enumerate(severities)]

    capped = cap_findings(findings, [], per_kind=3)

    summary = capped.findings[-1]
    assert summary.severity == "critical"
    assert summary.message.startswith("and 8 more like this")


def test_a_finding_a_fix_points_at_is_kept_and_the_fix_follows_it() -> None:
    findings = [finding(n) for n in range(50)]
    fix = fix_for(40)

    capped = cap_findings(findings, [fix], per_kind=5)

    (moved,) = capped.fixes
    assert capped.findings[moved.finding_index or 0] == findings[40]
    assert capped.findings[:5] == findings[:5]


def test_within_the_caps_nothing_changes() -> None:
    findings = [finding(n, kind=f"k{n % 4}") for n in range(MAX_FINDINGS_PER_CHECK)]
    fixes = [fix_for(3)]
    capped = cap_findings(findings, fixes)
    assert (capped.findings, capped.fixes) == (findings, fixes)


def test_the_numbers_report_lists_a_bounded_number_of_numbers() -> None:
    match = NumberMatch(text="5%", value=Decimal(5), start=0, end=2, status="orphan")
    report = NumbersReport(exact_matches=7, orphan_numbers=[match] * 2000, matches=[match] * 2000)

    capped = cap_numbers(report)

    assert len(capped.orphan_numbers) == len(capped.matches) == MAX_NUMBERS_LISTED
    assert capped.exact_matches == 7


def test_a_fix_whose_find_is_pages_long_is_not_proposed_but_its_finding_stays() -> None:
    findings = [finding(n) for n in range(3)]
    surgical, sprawling = fix_for(0), fix_for(1)
    sprawling = sprawling.model_copy(update={"find": "x" * (MAX_FIND_CHARS + 1)})

    capped = cap_findings(findings, [surgical, sprawling])

    assert capped.fixes == [surgical]
    assert capped.findings == findings


def test_repeated_lines_get_no_fix_that_spans_the_report() -> None:
    # The same wrong figure on 2,000 identical lines: only most of the report is unique.
    body = "# Owner earnings\n\n" + "Owner earnings were $15.1B [acme].\n" * 2_000
    bundle = Bundle(
        query="Owner earnings?",
        body=body,
        evidence=[EvidenceItem(source_ref="acme", content={"owner_earnings": 14_800_000_000})],
    )

    verdict = validate(bundle)

    assert all(len(fix.find) <= MAX_FIND_CHARS for fix in verdict.fixes)
    assert any(f.kind == "close_but_wrong" for f in verdict.findings)


def test_a_finding_about_a_200000_digit_number_quotes_its_start() -> None:
    body = "1" * 200_000
    verdict = validate(Bundle(query="Is ACME a buy?", body=body))

    orphan = next(f for f in verdict.findings if f.kind == "orphan")
    assert len(orphan.message) == MAX_MESSAGE_CHARS and orphan.message.endswith("…")
    assert len(orphan.text) == MAX_TEXT_CHARS
    assert all(len(issue) <= MAX_MESSAGE_CHARS for issue in verdict.issues)


def _many_numbers(count: int) -> str:
    return "".join(f"Stores opened: {3 + n % 5}. " for n in range(count))


def test_numbers_past_the_judged_limit_are_counted_in_one_major_finding_where_they_start() -> None:
    body = _many_numbers(MAX_NUMBERS_JUDGED + 40) + "Depots: 991."
    evidence = [EvidenceItem(source_ref="log", content="Stores opened: 3, 4, 5, 6, 7.")]

    verdict = validate(Bundle(query="How many stores opened?", body=body, evidence=evidence))

    limits = [f for f in verdict.findings if f.kind == "numbers_limit"]
    assert len(limits) == 1
    limit = limits[0]
    assert limit.severity == "major"
    first_left = len(_many_numbers(MAX_NUMBERS_JUDGED))
    assert (limit.start, limit.text) == (first_left + len("Stores opened: "), "3")
    assert f"{MAX_NUMBERS_JUDGED + 41:,} numbers" in limit.message
    assert "41 from here on unchecked" in limit.message
    # The wrong number past the limit is not judged, and the report cannot pass unread.
    assert not any(f.text == "991" for f in verdict.findings)
    assert verdict.decision != "APPROVE"


def test_a_report_within_the_judged_limit_has_no_limit_finding() -> None:
    body = _many_numbers(50) + "Depots: 991."
    evidence = [EvidenceItem(source_ref="log", content="Stores opened: 3, 4, 5, 6, 7.")]

    verdict = validate(Bundle(query="How many stores opened?", body=body, evidence=evidence))

    assert not any(f.kind == "numbers_limit" for f in verdict.findings)
    assert any(f.text == "991" for f in verdict.findings)
