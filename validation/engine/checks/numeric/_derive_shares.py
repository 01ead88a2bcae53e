"""A share or a multiple the claim's words specify (:mod:`._derive`), judged among its own
kind of candidates only.

"Interest cost came to about 3.8% of the opening obligation in 2019" says what was
divided by what, and when: two line items the sentence names, of the one period it
names, in a share. Such a derivation is no pair picked from a crowd: its chance of a
coincidence is counted over the candidates of that specification alone (the same
operation over two cells of rows the sentence names or states, of the period it names),
not over every pair of the pool's weaker tiers. Where the sentence names no period, the
two cells must lie in one column of one table (one period's line items).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from itertools import combinations

from validation.engine.checks.numeric._cues import CHANGE, MEAN, MULTIPLE, SHARE, Cue
from validation.engine.checks.numeric._derive_candidates import Candidate
from validation.engine.checks.numeric._derive_like import _NOT_CURRENCY
from validation.engine.checks.numeric._derive_naming import named_rows
from validation.engine.checks.numeric._derive_pool import (
    BESIDE,
    NAMED,
    NEAR,
    STATED,
    Operand,
    _evidence_operand,
    _rows,
    around,
    bare,
)
from validation.engine.checks.numeric._derive_rows import MAX_GROUP
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._lexicon import named_ratio
from validation.engine.checks.numeric._matching import Claim
from validation.engine.checks.numeric._types import NumberMention


@dataclass(frozen=True, slots=True)
class Spec:
    """What the words fix: the operation, the period (0 when they name none), and how
    plainly the sentence names the operands' rows (`Operand.strength`, at least)."""

    operation: str
    year: int
    strength: int = NAMED
    years: frozenset[int] = frozenset()  # every year the sentence names (an average's)
    # A share of these two rows (numerator, denominator) in the period beside the one of
    # the stated share's cells `skip` (`parallel`: of its numerator's `beside` year and
    # column), or (-1, -1).
    rows: tuple[int, int] = (-1, -1)
    skip: frozenset[int] = frozenset()
    beside: tuple[int, int] = (0, -1)
    totals: frozenset[int] = frozenset()  # a share of a change: the rows that are totals
    # A share of a sum: the cells of the total rows of the named lines' tables.
    wholes: tuple[Operand, ...] = ()
    # The rows the phrase after "X% of" or "N times" names: the denominator is one of them.
    bottoms: frozenset[int] = frozenset()
    tops: frozenset[int] = frozenset()  # a named ratio's numerator rows ("current assets")
    base_year: int = 0  # the year after "N times" ("1.6 times the 2018 level"): the base's
    # The claim's place among the report's numbers: a cell stated after it is another
    # clause's ("... simply because the $400.0 million of notes ..."), -1 when unknown.
    place: int = -1


def specs_of(
    cue: Cue, years: frozenset[int], totals: frozenset[int] = frozenset()
) -> tuple[Spec, ...]:
    """The specifications a claim's words give: "X% of", "accounts for", "a share" make a
    percentage a share; "times" makes a multiple one; "averaged" makes an amount an
    average of two periods of one line. The period is the claim's own year ("... in
    2018"), else the one year its sentence names. Rows its own clause names or states
    first (`NEAR`), then any the sentence names."""
    operations = [SHARE] if SHARE in cue.kinds or cue.of_after else []
    # An amount its words date to one year ("2019: $0.5 million") is that year's figure,
    # not an average of years.
    operations += [kind for kind in (MULTIPLE, MEAN) if kind in cue.kinds]
    if cue.year:
        operations = [kind for kind in operations if kind != MEAN]
    year = cue.year or (next(iter(years)) if len(years) == 1 else 0)
    found = tuple(
        Spec(_OPERATION[kind], year, strength, years)
        for strength in (NEAR, NAMED)
        for kind in operations
    )
    if SHARE in operations and CHANGE in cue.kinds:
        found += (Spec(OF_A_CHANGE, 0, NAMED, totals=totals),)  # "95% of the increase"
    if SHARE in operations:  # "X and Y (together) account for 75.6% of ..."
        found += (Spec(OF_A_SUM, year, NAMED, totals=totals),)
    return found


def completed(
    specs: tuple[Spec, ...],
    index: EvidenceIndex,
    operands: Sequence[Operand],
    units: dict[int, float],
    clause: tuple[str, str],
    place: int = -1,
    reach: str = "",
) -> tuple[Spec, ...]:
    """The specifications with what the evidence and the claim's own words add: a share's
    denominator among the rows the phrase after "of" names (the claim's `clause` after it:
    "just under 64% of total net receivables"), a multiple's among those after "times"
    ("2.7 times the size of JPKO"), a ratio's that its clause names before it among the
    lines it is of ("the current ratio": current assets over current liabilities), and a
    share of a sum the cells of the total rows of the tables its named lines lie in ("the
    year-end balance" names no row, and the report need not state it). A ratio is named
    in the number's own clause, or within `reach`, its words before it past a number they
    also hold ("the current ratio eased from 0.81 in 2018 to 0.78")."""
    if not specs:
        return specs
    rows = _rows(index)
    bottoms: frozenset[int] = frozenset()
    before, after = clause
    words = after.split()
    tops: frozenset[int] = frozenset()
    base_year = 0
    if (ratio := named_ratio(before) or named_ratio(reach)) is not None:
        tops, bottoms = (frozenset(named_rows(rows, "", lines)[1]) for lines in ratio)
    elif words and words[0].lower() in _BASE_WORDS:
        if words[0].lower() == "times":  # "2.5 times the 2018 figure": a year, no row
            years = [word for word in words[1:4] if _A_YEAR.fullmatch(word.strip(".,;'s"))]
            base_year = int(years[0].strip(".,;'s")) if years else 0
            words = [word for word in words if not _A_YEAR.fullmatch(word.strip(".,;'s"))]
        _, named = named_rows(rows, "", " ".join(words[1:]))
        bottoms = frozenset(named)
    wholes: tuple[Operand, ...] = ()
    if any(spec.operation == OF_A_SUM for spec in specs):
        items = {o.item for o in operands if o.row >= 0 and o.strength >= NAMED and not o.percent}
        wholes = tuple(
            _evidence_operand(index, rows, units, entry, BESIDE)
            for item in sorted(items)
            for row in rows.totals.get(item, ())
            for entry in rows.cells[row][:MAX_GROUP]
        )
    return tuple(
        replace(
            spec,
            wholes=wholes if spec.operation == OF_A_SUM else (),
            bottoms=bottoms,
            tops=tops,
            base_year=base_year,
            place=place,
        )
        for spec in specs
    )


OF_A_CHANGE = "share of a change"
OF_A_SUM = "share of a sum"
# The looks of their own: candidates no other look has, weighed among themselves.
OWN_LOOKS = frozenset((OF_A_CHANGE, OF_A_SUM))
_OPERATION = {SHARE: "share", MULTIPLE: "multiple", MEAN: "average"}  # the candidates' names
_KIND = {
    "share": "percent",
    "multiple": "multiple",
    "average": "amount",
    "per unit": "amount",
    "percent change": "percent",
    OF_A_CHANGE: "percent",
    OF_A_SUM: "percent",
}
# The word after a share ("64% of total net receivables") or a multiple ("2.7 times the
# size of JPKO") that the rows named next follow: the denominator is one of them.
_BASE_WORDS = ("of", "times")
_BASED = ("share", "multiple")
_A_YEAR = re.compile(r"(?:19|20)\d\d")
_MAX_PARTS = 4  # named lines whose groups of two or more a share of a sum is taken over


def share_named(cue: Cue, mention: NumberMention) -> frozenset[str]:
    """A percentage followed by "of" ("about 68.6% of the benchmark rate") is a share by its
    words: close to an evidence cell, it is still searched as one."""
    return frozenset(("share",)) if cue.of_after and mention.is_percent else frozenset()


def look_specified(
    look: partial[Iterator[Candidate]], spec: Spec, operands: Sequence[Operand]
) -> Iterator[Candidate]:
    """`specified` over the candidates `look` (a partial `candidates` over `operands`) gives
    of the cells that may meet the specification and its operation only: the same
    candidates, in the same order, for a fraction of the pairs."""
    if look.args[1] != _KIND[spec.operation]:
        return iter(())  # a share is of a percentage's search, an average of an amount's
    kept = [o for o in operands if o.row >= 0 and o.strength >= spec.strength]
    if spec.operation == OF_A_CHANGE:
        return _of_a_total(kept, spec.totals)
    if spec.operation == OF_A_SUM:
        return _sum_of_a_total(kept, operands, spec)
    if spec.rows != (-1, -1):
        kept = [o for o in kept if o.row in spec.rows]
    elif spec.strength < NEAR and all(o.strength >= NEAR for o in kept):
        return iter(())  # the same cells as the look over its own clause's rows
    if len(kept) < 2:
        return iter(())
    only = frozenset((spec.operation,))
    return specified(look.func(kept, *look.args[1:], only, **look.keywords), spec, operands)


def specified(
    found: Iterator[Candidate], spec: Spec, operands: Sequence[Operand] = ()
) -> Iterator[Candidate]:
    """The candidates that meet the specification: its operation, over two cells of rows
    the sentence names or states (with `Spec.strength` NEAR, rows its own clause names or
    states), of its period (or of one column when it names none). A line over time takes
    every cell its sentence states before it ("from $36,974 thousand to $12,186 thousand,
    about 5.4 times the 2017 level" is of those two levels, not of a cell in place of one);
    a cell stated after it ("..., simply because the $400.0 million of notes ...") is
    another clause's."""
    stated = [
        o.position
        for o in operands
        if o.strength == STATED and o.row >= 0 and (spec.place < 0 or o.position < spec.place)
    ]
    for candidate in found:
        used = candidate[4]
        if candidate[3] != spec.operation or len(used) != 2:
            continue
        first, second = used
        if not (isinstance(first, Operand) and isinstance(second, Operand)):
            continue
        if spec.rows != (-1, -1):
            if (first.row, second.row) == spec.rows and _other_period(first, second, spec):
                yield candidate
        elif (
            min(first.strength, second.strength) >= spec.strength
            and first.row >= 0
            and second.row >= 0
            and (not spec.bottoms or spec.operation not in _BASED or second.row in spec.bottoms)
            and (not spec.tops or first.row in spec.tops)
            and _one_period(first, second, spec)
            and (first.row != second.row or set(stated) <= {first.position, second.position})
        ):
            yield candidate


def parallel(
    claims: Sequence[Claim], position: int, sentence: tuple[int, int], operands: Sequence[Operand]
) -> tuple[Spec, ...]:
    """A percentage whose sentence states a share of two evidence cells ("the margin fell
    to roughly 10.5% from 12.7%", the 10.5% 34.4 / 328.8) may be that share in the period
    beside: the same two rows' cells of the year (or column) next to the stated share's,
    the few candidates it is weighed among. So may an amount beside an amount per unit
    ("per restaurant sold, $342 thousand in 2018, compared with about $214 thousand in
    2017"). And a percentage beside a percentage change of one line its sentence derives
    ("up 2.5% in 2018, then down 0.7% in 2019") may be that line's change over the next
    step: two of its cells next to each other, one of them the stated change's."""
    percent = claims[position].mention.is_percent
    operations = ("share", "percent change") if percent else ("per unit",)
    low, high = sentence
    rows = {operand.entry: operand for operand in operands if operand.row >= 0}
    found: list[Spec] = []
    for at in around(position, len(claims)):
        derivation = claims[at].derivation
        if not low <= claims[at].mention.start < high or derivation is None:
            continue
        cells = derivation.entries
        operation = _operation(derivation.label, derivation.formula)
        if operation in operations and len(cells) == 2 and all(c in rows for c in cells):
            top, bottom = rows[cells[0]], rows[cells[1]]
            if operation == "percent change" and top.row != bottom.row:
                continue  # a change of one line over time has a next step
            place = (top.year, top.column)
            found += [
                Spec(
                    operation,
                    0,
                    BESIDE,
                    frozenset(),
                    (top.row, bottom.row),
                    frozenset(cells),
                    place,
                )
            ]
    return tuple(found)


def _of_a_total(cells: Sequence[Operand], totals: frozenset[int]) -> Iterator[Candidate]:
    """A named line's change over the change of a named total of its table, between the
    same two columns (next to each other, or one apart): "explains roughly 95% of the
    total increase"."""
    rows: dict[tuple[int, int], dict[int, Operand]] = {}
    for cell in cells:
        if not cell.percent and cell.column >= 0 and not cell.repeat:
            rows.setdefault((cell.item, cell.row), {}).setdefault(cell.column, cell)
    for (item, row), whole in rows.items():
        if row not in totals:
            continue
        for (other, part_row), part in rows.items():
            if other != item or part_row == row:
                continue
            for first in sorted(whole):
                for second in (first + 1, first + 2):
                    if first not in part or second not in part or second not in whole:
                        continue
                    a1, a2, b1, b2 = part[first], part[second], whole[first], whole[second]
                    step, of = a1.value - a2.value, b1.value - b2.value
                    if step and of:
                        formula = f"({a1.text} - {a2.text}) / ({b1.text} - {b2.text}) * 100"
                        yield (1, abs(step / of * 100), formula, OF_A_CHANGE, ())


def _sum_of_a_total(
    named: Sequence[Operand], operands: Sequence[Operand], spec: Spec
) -> Iterator[Candidate]:
    """Named lines taken together over their table's total, in one column (of the year the
    words name, where they name one): "indirect taxes receivable and unbilled revenues
    together account for about 75.6% of the balance" is (36,821 + 31,629) / 90,529. The
    parts are two or more of the rows the sentence names; the total is a cell of a total
    row of their table (named or not: "the balance", "the book")."""
    parts: dict[tuple[int, int], dict[int, Operand]] = {}
    for cell in named:
        if not (cell.percent or cell.repeat) and cell.column >= 0 and cell.row not in spec.totals:
            parts.setdefault((cell.item, cell.row), {}).setdefault(cell.column, cell)
    wholes: dict[tuple[int, int], Operand] = {}
    for cell in sorted((*operands, *spec.wholes), key=lambda cell: cell.reported):
        if cell.row in spec.totals and not cell.percent and cell.column >= 0:
            wholes.setdefault((cell.item, cell.column), cell)
    if len(parts) < 2 or len(parts) > _MAX_PARTS or not wholes:
        return
    for size in range(2, len(parts) + 1):
        for group in combinations(sorted(parts), size):
            items = {item for item, _ in group}
            if len(items) != 1:
                continue  # the lines of one table
            item = items.pop()
            columns = set.intersection(*(set(parts[key]) for key in group))
            for column in sorted(columns):
                whole = wholes.get((item, column))
                cells = [parts[key][column] for key in group]
                if whole is None or not whole.value:
                    continue
                if spec.year and any(c.year and c.year != spec.year for c in (*cells, whole)):
                    continue
                top = " + ".join(cell.text for cell in cells)
                value = abs(sum(cell.value for cell in cells) / whole.value * 100)
                yield (1, value, f"({top}) / {whole.text} * 100", OF_A_SUM, ())


def per_unit(index: EvidenceIndex, operands: Sequence[Operand]) -> frozenset[int]:
    """The cells of an amount per unit: of a row whose line says so ("per diluted share",
    "per unit", "EPS")."""
    return frozenset(
        o.entry for o in operands if o.entry >= 0 and _PER_UNIT.search(index.line_before(o.entry))
    )


# "per share", "per diluted share", "per unit", "EPS"; never "per cent" or "per annum".
_PER_UNIT = re.compile(r"\bper[ \t]+(?!cent\b|annum\b)[a-z]|\beps\b", re.IGNORECASE)
# The operations that compare two quantities of one kind: never an amount per unit with a
# total or a count ("$4.33 / 2,291 thousand shares" is no share of anything).
_LIKE_KINDS = frozenset(("share", "multiple", "percent change", "share of a change"))


def unmixed(
    found: Iterator[Candidate], per_unit: frozenset[int], money: bool = False
) -> Iterator[Candidate]:
    """The candidates, less a share, multiple or change that sets an amount per unit against
    a cell of the same evidence item that is none (a dollar amount per share over a count
    of shares): the item's labels tell its two kinds apart. (A cell of another item, a
    passage's "$31,560", may be a rate per day its words do not call one.) With `money` (the
    claim is an amount of a currency), less an amount of money over another: a ratio."""
    for candidate in found:
        if money and candidate[3] == "per unit" and _of_money(candidate[4]):
            continue  # "$2.45 million" is no $2,035.5 million over $830.6 million
        if per_unit and candidate[3] in _LIKE_KINDS:
            kinds: dict[int, set[bool]] = {}
            for o in candidate[4]:
                if isinstance(o, Operand) and o.entry >= 0:
                    kinds.setdefault(o.item, set()).add(o.entry in per_unit)
            if any(len(both) == 2 for both in kinds.values()):
                continue
        yield candidate


def _of_money(used: Sequence[Operand | str]) -> bool:
    return all(isinstance(o, Operand) and o.unit not in _NOT_CURRENCY for o in used)


def a_share(label: str, formula: str) -> bool:
    """A derivation that divides one cell by another, as a percentage: this search's share,
    or the open search's "12,491 / 68,000 * 100" (`_search`, which names it by its formula)."""
    return label == "share" or _SHARE_FORMULA.fullmatch(bare(formula)) is not None


_SHARE_FORMULA = re.compile(r"[^-+*/()]+ / [^-+*/()]+ \* 100")
# "(a - b) / b * 100": a percentage change, as the open search writes it.
_CHANGE_FORMULA = re.compile(r"\(([^-+*/()]+) - ([^-+*/()]+)\) / \2 \* 100")


def _operation(label: str, formula: str) -> str:
    """What a derivation computes: this search's name for it, or the open search's
    formula read as one ("share", "percent change")."""
    if a_share(label, formula):
        return "share"
    return "percent change" if _CHANGE_FORMULA.fullmatch(bare(formula)) else label


def _other_period(first: Operand, second: Operand, spec: Spec) -> bool:
    """Two cells of one period (one year, or one column when undated) next to the stated
    share's, not the cells it takes; for a change, two cells next to each other of which
    one is the stated change's and the other not."""
    if spec.operation == "percent change":
        shared = {first.entry, second.entry} & spec.skip
        if len(shared) != 1 or first.item != second.item:
            return False
        if first.year and second.year:
            return abs(first.year - second.year) == 1
        return abs(first.column - second.column) == 1
    if {first.entry, second.entry} & spec.skip:
        return False
    year, column = spec.beside
    if first.year and year:
        return first.year == second.year and abs(first.year - year) == 1
    same = first.item == second.item and first.column == second.column
    return same and abs(first.column - column) == 1


def _one_period(first: Operand, second: Operand, spec: Spec) -> bool:
    """Two line items of the period the words name (each cell dated to it), or, with no
    period named, two rows of one column of one table. An average is of one line item's
    periods (of the years the sentence names, where they are known); a multiple may be
    too ("2.5 times the 2018 figure": one of the cells of that year, where it is known),
    unless its words name another row as its base and no year."""
    if first.row == second.row:
        dated = [cell.year for cell in (first, second) if cell.year]
        if spec.operation == "average":
            return not (first.percent or second.percent) and set(dated) <= spec.years
        if spec.operation == "multiple":
            if spec.bottoms and not spec.years:
                return False  # "2.7 times the size of JPKO": another row is its base
            if spec.base_year and second.year:  # "1.6 times the 2018 level": over 2018's
                return second.year == spec.base_year != first.year
            return not (spec.year and dated) or spec.year in dated
        return False  # one line item over time: a change, not a share of a period
    if spec.operation == "average":
        return False
    if spec.year:
        return first.year == second.year == spec.year
    return first.item == second.item >= 0 and first.column == second.column >= 0


def searched_whole(claim: Claim) -> bool:
    """Every operation is searched for the claim, not only those its words name: unless it
    is close to an evidence cell its words name (a slip of that cell, most often) and
    written with fewer than four significant digits. A derivation landing on four digits
    or more is rarely chance ("36,386" beside a cell of 34,968: two named rows' difference)."""
    return not claim.close or claim.mention.significant_digits >= _MANY_DIGITS


_MANY_DIGITS = 4


def restates_close(
    claim: Claim, operation: str, entries: Sequence[int], named: frozenset[str]
) -> bool:
    """A derivation its words do not name that takes the very cell the claim is close to
    ("$138.00" as 139.00 - 1 beside that 139.00): the cell slipped, not a result."""
    close = {hit.number.entry for hit in claim.close}
    return bool(close) and operation not in named and not close.isdisjoint(entries)
