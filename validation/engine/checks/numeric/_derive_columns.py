"""A table's column summed, for the derived search (:mod:`._derive_candidates`): the line
items one period's column holds among the rows a sentence names or states, and the net of
a column whose lines carry both signs.

A cash-flow table writes outflows in parentheses: operating 283,710, investing
(692,999), financing 368,120. "Taken together, the three lines imply a net outflow of
$41.2 million" adds them with their signs (-41,169); read as magnitudes, no sum lands
there. A column is netted when three or more of its cells are in the search's operands and
at least one is written negative and one is not (`Operand.negative`, read from the
cell's text, or a tool's JSON number's sign, by :func:`._derive_rows.negative_cell`).
Its tier is that of its weakest cell, as for any column sum; a column of one sign adds up
as before.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from validation.engine.checks.numeric._derive_pool import NAMED, Operand
from validation.engine.checks.numeric._derive_rows import MAX_GROUP

# (tier, value, a format of its formula, operation, the operands' texts); the tier of a
# pair of cells whose operation does not fit how they lie is its pair tier + 0.5
Candidate = tuple[float, float, str, str, tuple["Operand | str", ...]]


def column_sums(
    operands: Sequence[Operand], tier: int, tiers: Mapping[int, int]
) -> Iterator[Candidate]:
    """The sum of the line items one period's column holds among the rows the sentence
    names or states ("corporate debt, asset-backed securities and commercial paper
    together total ..."): all of them, three or more, at the tier of the weakest
    (`tiers`: the tier of a group by its weakest operand's strength). Then each column's
    net, where its lines carry both signs."""
    for members in named_columns(operands):
        weakest = min(member.strength for member in members)
        if not 3 <= len(members) <= MAX_GROUP or tier != tiers[weakest]:
            continue
        members = sorted(members, key=lambda operand: operand.row)
        total = sum(member.value for member in members)
        yield tier, abs(total), " + ".join(member.text for member in members), "sum", ()
    for members, net in net_columns(operands):
        if tier == tiers[min(member.strength for member in members)]:
            yield tier, abs(net), net_formula(members), "sum", ()


def named_columns(operands: Sequence[Operand]) -> Iterator[list[Operand]]:
    """The cells of each column among the rows the sentence names or states, without the
    column's total line where it has others: "commercial paper, certificates of deposit,
    asset-backed and corporate debt together total ..." names the total line by its verb,
    but no analyst adds a total to the lines it totals."""
    columns: dict[tuple[int, int], list[Operand]] = {}
    for operand in operands:
        if operand.row >= 0 and operand.column >= 0 and operand.strength >= NAMED:
            columns.setdefault((operand.item, operand.column), []).append(operand)
    for members in columns.values():
        lines = [member for member in members if not member.total]
        yield lines if lines else members


def net_columns(operands: Sequence[Operand]) -> Iterator[tuple[list[Operand], float]]:
    """Each column of mixed signs (its cells in row order) and its signed total."""
    columns: dict[tuple[int, int], list[Operand]] = {}
    for operand in operands:
        if operand.entry >= 0 and operand.row >= 0 and operand.column >= 0:
            columns.setdefault((operand.item, operand.column), []).append(operand)
    for members in columns.values():
        if not 3 <= len(members) <= MAX_GROUP:
            continue
        if len({member.negative for member in members}) < 2:
            continue
        members = sorted(members, key=lambda operand: operand.row)
        yield members, sum(-member.value if member.negative else member.value for member in members)


def net_formula(members: Sequence[Operand]) -> str:
    """ "283710 - 692999 + 368120"."""
    written = "".join(f"{' - ' if member.negative else ' + '}{member.text}" for member in members)
    return written.removeprefix(" + ").strip()
