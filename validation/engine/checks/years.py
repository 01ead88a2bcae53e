"""Years and dates as claims: a year the report states that neither the evidence nor
the query mentions is unsupported ("revenue rose in 2021" over a transcript about
2022). Years are skipped by the number extractor (they are not amounts), so this
check reads them on its own.

Linear: one regex pass without nested quantifiers over the body; then, for each of
the (at most 200) distinct years that date a figure, substring searches over the
query and each evidence item (JSON evidence as its serialized text, keys included).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections.abc import Sequence

from validation.engine.checks._spans import span_finding
from validation.engine.types import EvidenceItem, Finding

# A year standing alone or after "FY": not part of a longer number, an amount, a
# percentage or a decimal ("2,019", "$2019", "2019%", "2019.5").
_REPORT_YEAR = re.compile(
    r"(?:(?<=FY)|(?<=FY )|(?<![\w.,$\u20ac\u00a3%/-]))((?:19|20)\d\d)(?![\w%$]|[.,]\d)"
)


def _evidence_texts(evidence: Sequence[EvidenceItem]) -> list[str]:
    texts: list[str] = []
    for item in evidence:
        content = item.content
        texts.append(content if isinstance(content, str) else json.dumps(content))
        texts.append(item.source_ref)
    return texts


def _mentions(text: str, year: str) -> bool:
    """`year` stands in `text` as four digits of their own ("Dec2022", "2022-12-31")."""
    position = text.find(year)
    while position >= 0:
        before = text[position - 1] if position else " "
        after = text[position + 4] if position + 4 < len(text) else " "
        if not before.isdigit() and not after.isdigit():
            return True
        position = text.find(year, position + 1)
    return False


def check_years(
    body: str,
    query: str,
    evidence: Sequence[EvidenceItem],
    claim_spans: Sequence[tuple[int, int]],
) -> list[Finding]:
    """A finding for each year of the body that dates a figure (it stands in a
    sentence with a numeric claim) and that the evidence and the query never mention
    (one per distinct year: its first such mention carries it). A year in prose
    without a figure ("as of early 2023") is context, not a claim about the data."""
    if not evidence:
        return []
    texts = [query, *_evidence_texts(evidence)]
    years = _unsupported_years(body, texts, claim_spans)
    flagged = {finding.start for finding in years}
    quarters = [
        finding for finding in _unsupported_quarters(body, texts) if finding.start not in flagged
    ]
    return years + quarters + _moved_dates(body, texts)


def _unsupported_years(
    body: str, texts: Sequence[str], claim_spans: Sequence[tuple[int, int]]
) -> list[Finding]:
    if not claim_spans:
        return []
    starts = [start for start, _ in claim_spans]
    stated = [
        (match.start(1), match.end(1), match.group(1)) for match in _REPORT_YEAR.finditer(body)
    ]
    if not stated:
        return []
    candidates = [
        (start, end, year)
        for start, end, year in stated
        if _dates_a_figure(body, start, end, starts)
    ]
    if not candidates:
        return []
    findings: list[Finding] = []
    decided: dict[str, bool] = {}
    for start, end, year in candidates:
        if year in decided:
            continue
        decided[year] = any(_mentions(text, year) for text in texts)
        if decided[year]:
            continue
        findings.append(
            span_finding(
                "no_hallucinations",
                "unsupported_year",
                f"the year {year} appears in no evidence item and not in the query",
                start,
                end,
                year,
            )
        )
    return findings


# A quarter of a year: "Q3 2020", "third quarter of 2020", "2020 third quarter",
# "fourth-quarter fiscal 2021", "Q4 FY2021" (the year is group "year" or "year2").
_ORDINAL = r"(?P<nth>first|second|third|fourth|1st|2nd|3rd|4th)"
_QUARTER_YEAR = re.compile(
    r"(?i:\bQ(?P<q>[1-4])[ ]?(?:of[ ])?(?:fiscal[ ](?:year[ ])?|FY[ ]?)?'?(?P<year>(?:19|20)\d\d)\b"
    rf"|\b{_ORDINAL}[ -]quarter[ ](?:of[ ])?(?:the[ ])?(?:fiscal[ ](?:year[ ])?|FY[ ]?)?"
    r"(?P<year2>(?:19|20)\d\d)\b"
    rf"|\b(?P<year3>(?:19|20)\d\d)[ ](?:fiscal[ ])?(?:{_ORDINAL.replace('nth', 'nth3')}[ -]quarter"
    r"|Q(?P<q3>[1-4]))\b)"
)
_QUARTER_WORD = re.compile(r"(?i:\bQ(?P<q>[1-4])\b|\b" + _ORDINAL + r"[ -]quarter\b)")
_Q_DIGIT = re.compile(r"[Qq][1-4]")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_NTH = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
_NEAR = 40  # characters between a quarter and the year that dates it, in the evidence


def _quarter_of(match: re.Match[str]) -> int:
    for group in ("q", "q3"):
        digit = match.groupdict().get(group)
        if digit:
            return int(digit)
    nth = match.groupdict().get("nth") or match.groupdict().get("nth3") or ""
    return _NTH[nth.lower()]


def _quarters(text: str) -> list[tuple[int, str, int, int]]:
    """(quarter, year, start, end) of each quarter of a year written in `text`."""
    found = []
    for match in _QUARTER_YEAR.finditer(text):
        year = match.group("year") or match.group("year2") or match.group("year3")
        found.append((_quarter_of(match), year, match.start(), match.end()))
    return found


# A line of a quarterly table's header: quarters by name or tag, perhaps with their year
# ("First  Second  Third  Fourth", "| (in thousands) | Q1 | Q2 | Q3 |", "First Quarter 2019").
_QUARTER_WORDS = frozenset({"quarter", "quarters", "qtr"})
_FISCAL_WORDS = frozenset({"fiscal", "fy"})
_ASIDE = re.compile(r"\([^()\n]*\)")
_TAG = re.compile(r"(?i:q([1-4]))")


def _header_quarters(line: str) -> set[int]:
    """The quarters a table's header line heads, or none: a line of nothing but quarter
    names ("quarter" words, years and an aside allowed). Ordinals alone head quarters only
    three or more in order ("First  Second" heads two columns of anything)."""
    named: list[int] = []
    worded = False
    for word in _ASIDE.sub(" ", line).replace("|", " ").replace("-", " ").split():
        lower = word.lower().rstrip(":")
        if lower in _NTH:
            named.append(_NTH[lower])
        elif (tag := _TAG.fullmatch(lower)) is not None:
            named.append(int(tag.group(1)))
            worded = True
        elif lower in _QUARTER_WORDS:
            worded = True
        elif lower not in _FISCAL_WORDS and not _YEAR.fullmatch(lower):
            return set()
    if len(set(named)) < 2 or (not worded and (len(named) < 3 or named != sorted(named))):
        return set()
    return set(named)


def _table_quarters(text: str) -> set[tuple[int, str]]:
    """Every quarter a quarterly table's header heads, paired with every year the table
    lays out (its rows or section lines: "2019" above a block of lines)."""
    quarters: set[int] = set()
    for line in text.splitlines():
        if len(line) < 200:  # a header, not a paragraph
            quarters |= _header_quarters(line)
    if not quarters:
        return set()
    return {(quarter, year) for year in set(_YEAR.findall(text)) for quarter in quarters}


def _dated_quarters(text: str) -> set[tuple[int, str]]:
    """Every (quarter, year) the text pairs: written together, or a quarter with a year
    close by ("the third quarter. In 2020 ...", "Q3 results ... 2020"), or a quarterly
    table's columns and the years it lays out (`_table_quarters`)."""
    tabled = _table_quarters(text)
    if text.isascii() and "quarter" not in text.lower() and not _Q_DIGIT.search(text):
        return tabled  # every quarter is "Q" and its digit, or the word (a JSON tool's rows)
    pairs = tabled | {(quarter, year) for quarter, year, _, _ in _quarters(text)}
    for match in _QUARTER_WORD.finditer(text):
        quarter = _quarter_of(match)
        window = text[max(0, match.start() - _NEAR) : match.end() + _NEAR]
        pairs.update((quarter, year) for year in _YEAR.findall(window))
    return pairs


def _unsupported_quarters(body: str, texts: Sequence[str]) -> list[Finding]:
    """A quarter of a year ("Q4 2019") that no evidence item dates: the report moved a
    figure to another period, even when the year itself is named somewhere."""
    stated = _quarters(body)
    if not stated:
        return []
    known: set[tuple[int, str]] = set()
    for text in texts:
        known |= _dated_quarters(text)
    findings: list[Finding] = []
    seen: set[tuple[int, str]] = set()
    for quarter, year, start, end in stated:
        if (quarter, year) in known or (quarter, year) in seen:
            continue
        seen.add((quarter, year))
        year_start = body.rfind(year, start, end)
        findings.append(
            span_finding(
                "no_hallucinations",
                "unsupported_year",
                f'the period "{body[start:end]}" appears in no evidence item and not in the query',
                year_start,
                year_start + 4,
                year,
            )
        )
    return findings


# "June 21", "Jan. 19", "August 30th", "21 June", "21st of June" (months capitalized).
_MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_MONTH_NUMBER = {name[:3]: number for number, name in enumerate(_MONTH_NAMES, 1)}
_MONTH = r"(?P<month>(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]{0,6})"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_MONTH_DAY = re.compile(rf"\b{_MONTH}\.?[ ]{_DAY}(?![\d%.,]\d|\d|%)")
_DAY_MONTH = re.compile(rf"\b{_DAY}[ ](?:of[ ])?{_MONTH}\b")
# The end of a day range after a month and day ("Dec 3-6", "Apr. 18\u201326", "Oct. 9
# through 19"); an end with its own month name is a date of its own.
_RANGE_END = re.compile(
    r"(?:[ ]?[-\u2013\u2014][ ]?|[ ](?:to|through|thru|until|and)[ ])(?P<last>[0-3]?\d)"
    r"(?![\d%:]|[.,]\d)"
)
_NUMERIC_DATE = re.compile(
    r"\b(?:(?P<m1>[01]?\d)/(?P<d1>[0-3]?\d)/\d{2,4}|(?:19|20)\d\d-(?P<m2>[01]\d)-(?P<d2>[0-3]\d))\b"
)


def _month_days(text: str) -> list[tuple[int, int, int, int]]:
    """(month, day, start, end) of each date written with a month name in `text`."""
    found: list[tuple[int, int, int, int]] = []
    if not any(name[:3] in text for name in _MONTH_NAMES):
        return found  # every such date writes a month's first three letters, capitalized
    for pattern in (_MONTH_DAY, _DAY_MONTH):
        for match in pattern.finditer(text):
            name = match.group("month")
            month = _MONTH_NUMBER.get(name[:3])
            day = int(match.group("day"))
            if month is None or not 1 <= day <= 31:
                continue
            if len(name) > 3 and name not in _MONTH_NAMES and name != "Sept":
                continue  # "Marching", "Decade"
            found.append((month, day, match.start(), match.end()))
            last = _RANGE_END.match(text, match.end())
            if last is not None and day < int(last.group("last")) <= 31:
                # the end of a day range: "Dec 3-6", "April 18 through 26" dates Dec 6
                found.append((month, int(last.group("last")), last.start("last"), last.end()))
    return found


def _moved_dates(body: str, texts: Sequence[str]) -> list[Finding]:
    """A date of the report that the evidence does not hold, in a month the evidence
    gives other days of ("on June 21" over a text that says "June 26"): a date moved.
    A date in a month the evidence never dates is not judged (a filing's period end
    may lie outside the page quoted)."""
    stated = _month_days(body)
    if not stated:
        return []
    known: set[tuple[int, int]] = set()
    for text in texts:
        known.update((month, day) for month, day, _, _ in _month_days(text))
        for match in _NUMERIC_DATE.finditer(text):
            month, day = (
                match.group("m1") or match.group("m2"),
                match.group("d1") or match.group("d2"),
            )
            known.add((int(month), int(day)))
    months = {month for month, _ in known}
    findings: list[Finding] = []
    seen: set[tuple[int, int]] = set()
    for month, day, start, end in sorted(stated, key=lambda date: date[2]):
        if (month, day) in known or month not in months or (month, day) in seen:
            continue
        seen.add((month, day))
        findings.append(
            span_finding(
                "no_hallucinations",
                "unsupported_date",
                f'the date "{body[start:end]}" appears in no evidence item and not in the '
                "query, which give other days of that month",
                start,
                end,
                body[start:end],
            )
        )
    return findings


def _dates_a_figure(body: str, start: int, end: int, claim_starts: Sequence[int]) -> bool:
    low = max(
        body.rfind(". ", max(0, start - 300), start), body.rfind("\n", max(0, start - 300), start)
    )
    high_candidates = [
        found
        for found in (body.find(". ", end, end + 300), body.find("\n", end, end + 300))
        if found >= 0
    ]
    high = min(high_candidates) if high_candidates else min(len(body), end + 300)
    position = bisect_left(claim_starts, max(low, 0))
    return position < len(claim_starts) and claim_starts[position] < high
