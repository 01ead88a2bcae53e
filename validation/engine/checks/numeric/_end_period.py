"""A change's end quoted from an earlier period: "the current portion rose to $2,091
thousand", where 2,091 is the row's prior-year cell and the row's latest is 8,095.

The figure a change goes *to* is where it ended, a figure its words date to the latest
period ("$148.6 million at the latest year-end") is of it, and a figure its sentence then
compares with an earlier period ("..., down 5.1% year on year", "..., less than in 2018") is the
later side: the latest period the report speaks of.
When nothing around it names another period (no year in its sentence other than the
row's latest; its paragraph before it and the heading above it name the latest, or no
year), a figure that
restates an earlier cell of its row is that row's other period quoted by mistake, and it
is fixed to the row's one cell of the latest period. The figure is read where it stands
(the words right before it); the row and its periods come from the evidence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from validation.engine.checks.numeric._derive_carried import _PRIOR  # words of the year before
from validation.engine.checks.numeric._derive_pool import _rows, direction_of
from validation.engine.checks.numeric._evidence import EvidenceIndex, EvidenceNumber
from validation.engine.checks.numeric._layout_years import _YEAR
from validation.engine.checks.numeric._matching import Claim, Hit, small_integer
from validation.engine.checks.numeric._misquotes import _one_year, _period, row_of
from validation.engine.checks.numeric._tables import _find_tables, _Table

# "to $2,091", "to about 49.7%": the words right before a change's end.
_TO = re.compile(r"(?i)\bto (?:about |roughly |around |approximately |nearly |some )?$")
_BEFORE = 24  # characters before a figure read for "to"
_BACK = 1_500  # characters looked back for the paragraph's start and the heading
_REACH = 300  # characters of the figure's sentence read on each side of it


def end_period_of(
    body: str,
    index: EvidenceIndex,
    claims: Sequence[Claim],
    position: int,
    sentence: tuple[int, int],
) -> tuple[EvidenceNumber, int, int, str] | None:
    """For a figure a change goes to (or that its sentence compares with an earlier
    period) restating an earlier period's cell of its row, with no other period named
    around it: the row's latest cell, that period, the period of the cell quoted, and
    what its words say."""
    claim = claims[position]
    hit, mention = quoted_cell(claim), claim.mention
    if hit is None:
        return None
    # A sentence without an end (a wall of figures) is read only near the figure.
    low, high = max(sentence[0], mention.start - _REACH), min(sentence[1], mention.end + _REACH)
    compared = _compared_after(body, mention.end, high)
    how = "compare it with an earlier period" if compared is not None else "end a change there"
    if compared is not None:
        if _PRIOR.search(body[low : mention.start]):
            return None  # "in the prior year it was ..., up 3% on the year before"
        high = mention.end + compared  # the other side's own year is not the figure's
    elif _LATEST.match(body, mention.end, high):
        how = "date it to the latest period"  # "$148.6 million at the latest year-end"
    elif not _TO.search(body[max(0, mention.start - _BEFORE) : mention.start]):
        return None
    elif not direction_of(body, claims, position, low, high):
        return None  # "to" of no change ("amounts to", "close to")
    quoted = _period(index, hit.number.entry, ordered=True)
    rows = _rows(index)
    row = row_of(index, hit.number.entry)
    if quoted is None or row is None:
        return None
    periods = {
        entry: period
        for entry in rows.cells[row]
        if (period := _period(index, entry, ordered=True)) is not None
    }
    latest = max(periods.values(), default=quoted)
    if quoted >= latest or _other_year_named(body, low, high, latest):
        return None
    other = _same_place(index, periods, hit.number.entry, quoted, latest)
    if other is None:
        return None
    if other.unit != hit.number.unit or abs(other.value) == abs(hit.number.value):
        return None
    return other, latest, quoted, how


def quoted_cell(claim: Claim) -> Hit | None:
    """The evidence cell the claim restates as it stands, or None: a claim that is derived,
    part of a written calculation or an operand of one, a small integer or a range's end
    quotes no one cell a period fix could replace."""
    mention = claim.mention
    if claim.hit is None or claim.derivation is not None or claim.calculation is not None:
        return None
    if claim.operand or claim.in_expression or small_integer(mention) or mention.in_range:
        return None
    return claim.hit


def _same_place(
    index: EvidenceIndex, periods: dict[int, int], entry: int, quoted: int, latest: int
) -> EvidenceNumber | None:
    """The row's one cell of the latest period; where each period has several (a
    two-level header: "2019" over "Number | $M"), the one in the quoted cell's place
    among its period's cells, when every period has as many."""
    latest_cells = [at for at, period in periods.items() if period == latest]
    found = {index.number(at).value: index.number(at) for at in latest_cells}
    if len(found) == 1:
        return next(iter(found.values()))
    quoted_cells = [at for at, period in periods.items() if period == quoted]
    counts = {sum(1 for p in periods.values() if p == period) for period in periods.values()}
    if len(counts) != 1 or len(latest_cells) < 2 or entry not in quoted_cells:
        return None
    return index.number(latest_cells[quoted_cells.index(entry)])


def _compared_after(body: str, end: int, high: int) -> int | None:
    """Where, after a figure in its sentence, words compare it with an earlier period
    ("..., down 5.1% year on year", "..., $3.2 million less than the year before", "a
    smaller top-up than in 2018"), past another number or a word of change or comparison
    (so not "the $172.4 million posted a year earlier", which dates the figure itself):
    the offset of those words from the figure's end."""
    after = body[end:high]
    found = _COMPARED.search(after)
    if found is None:
        return None
    between = after[: found.start()]
    if any(c.isdigit() for c in between) or _CHANGE_WORD.search(between):
        return found.start()
    return None


# Words right after a figure that date it to the latest period the report speaks of.
_LATEST = re.compile(
    r"(?i)[ \t]*(?:at|as of|as at|in|for|by) (?:the )?(?:latest|most recent|current)"
    r" (?:fiscal )?(?:year[- ]end|year|period|quarter|balance sheet date)\b"
)
# Words that compare a figure with an earlier period; and words of change or comparison.
_COMPARED = re.compile(
    r"(?i)\b(?:than (?:in |at |for )?(?:the (?:prior|previous) year|the year before|a year "
    r"(?:earlier|ago|before)|last year|(?:fiscal )?(?:19|20)\d\d)|year[- ]on[- ]year|"
    r"year[- ]over[- ]year|on the (?:prior|previous) year)\b"
)
_CHANGE_WORD = re.compile(
    r"(?i)\b(?:up|down|less|more|smaller|larger|higher|lower|rose|fell|grew|declined|"
    r"increased|decreased|gained|dropped)\b"
)


def _other_year_named(body: str, low: int, high: int, latest: int) -> bool:
    """The sentence names a year other than `latest`; or its paragraph before it and the
    heading above it name other years and not `latest` ("A look back at 2019"; but
    "2019 vs. 2018" compares the latest with the one before, and a change ends in it; a
    year named only as a comparison's base, "against $61.0 million in 2018", dates no
    paragraph)."""
    if any(int(year) != latest for year in _YEAR.findall(body[low:high])):
        return True
    back = max(0, low - _BACK)
    paragraph = body.rfind("\n\n", back, low)
    heading = body.rfind("\n#", back, low)
    if heading < 0 and back == 0 and body.startswith("#"):
        heading = 0  # the report opens with its heading
    context = body[paragraph if paragraph >= 0 else low : low]
    if heading >= 0:
        line_end = body.find("\n", heading + 1, low)
        context += " " + body[heading : line_end if line_end >= 0 else low]
    years = {
        int(year.group())
        for year in _YEAR.finditer(context)
        if not _BASE.search(context, max(0, year.start() - _BASE_REACH), year.start())
    }
    return bool(years) and latest not in years


# A year the paragraph compares with ("... against $61.0 million in 2018", "up from 2018",
# "than in 2018") is the base of a change, not the period the paragraph speaks of: words
# of comparison, then at most one figure, right before the year, within one clause.
_BASE = re.compile(
    r"(?i)\b(?:against|versus|vs\.?|compared (?:with|to)|from|than)"
    r"(?: [^\d.;:\n]{0,12}?)?(?: ?[$€£]?\d[\d,.]*(?: ?%| (?:thousand|million|billion))?)?"
    r"(?: (?:in|at|for|during|of))?(?: (?:fiscal|the end of|year-end|fy))? ?$"
)
_BASE_REACH = 48  # characters before a year read for a comparison


class ColumnYears:
    """The year each column of the report's own tables names in its header ("| Line item
    | Year-end 2019 | Change vs. 2018 |"): a figure in that column is of that year."""

    def __init__(self, body: str) -> None:
        self.tables: list[tuple[_Table, dict[int, int]]] = []
        if "|" not in body:
            return
        # Only lines with a pipe, of a table row's length, can be a table's: the others are
        # blanked to letters of the same length (offsets kept), so a wall of whitespace
        # never reaches the table search (whose separator pattern is slow on one).
        masked = "\n".join(
            line if "|" in line and len(line) <= _LONGEST_ROW else "x" * len(line)
            for line in body.split("\n")
        )
        for table in _find_tables(masked):
            years: dict[int, int] = {}
            for column, (start, end) in enumerate(table.header):
                year = _one_year(body[start:end])
                if year is not None:
                    years[column] = year
            if years:
                self.tables.append((table, years))

    def year_of(self, start: int) -> int | None:
        """The year of the column a figure of the body's tables stands in, if its header
        names one (not the header row itself)."""
        for table, years in self.tables:
            if table.start <= start <= table.end:
                row, column = table.locate(start)
                return years.get(column) if row > 0 else None
        return None


_LONGEST_ROW = 2_000  # characters of a report table's row
