"""What did the writer compute this from? The closed search over the report's operands.

A number the matching and the fixpoint left unsupported gets one more look, as a
careful reader with the evidence open would give it. Its *operands* (from
:mod:`._derive_pool`) are the supported numbers of its sentence, the evidence rows its
words name, the cells beside those (other periods of the same row, the same column's
total) and every other supported number the report states.

The *operations* are a closed family, whatever the words: difference, sum (of two, or
of a whole row, column or list), ratio or multiple, share of a total, percentage
change, change in points, average (of two, or of a row's first periods), CAGR over n
periods, a ratio per unit; conversions of scale are free (operands in full units, the
claim read at its own scale or at the scale of the operands' digits, or in cents).

*Acceptance is by evidence, not by closeness.* Candidates come in tiers of how strongly a
pair is the writer's, those whose operation fits how their cells lie first. A hit in tier
t is weighed against every candidate of tiers 0..t: its chance of a coincidence is the
share of the range within a factor ``_SPREAD`` of the claim that the candidates' rounding
windows cover. Accepted below ``ACCEPT``, the formula carrying it (docs/derivations.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from functools import partial

from validation.engine.checks.numeric import _derive_shares as _shares
from validation.engine.checks.numeric._base_year import base_year, misquoted_level
from validation.engine.checks.numeric._counts_said import things_counted
from validation.engine.checks.numeric._cues import (
    CAGR,
    CHANGE,
    DIVIDE,
    MEAN,
    MULTIPLE,
    POINTS,
    SHARE,
    SUM,
    cue_of,
    header_kinds,
)
from validation.engine.checks.numeric._derive_accept import (
    Explained,
    _readings,
    _search,
    eligible,
    restated_aside,
    restated_results,
)
from validation.engine.checks.numeric._derive_bound import changes_may_hit, may_hit
from validation.engine.checks.numeric._derive_buckets import per_year
from validation.engine.checks.numeric._derive_candidates import Candidate, candidates
from validation.engine.checks.numeric._derive_counted import counted_amounts
from validation.engine.checks.numeric._derive_grossed import grossed_up
from validation.engine.checks.numeric._derive_heading import context_rows, heading_of, margin_rows
from validation.engine.checks.numeric._derive_moved import sums_in_other_periods
from validation.engine.checks.numeric._derive_own import own_multiples
from validation.engine.checks.numeric._derive_points import as_rates
from validation.engine.checks.numeric._derive_pool import (
    STATED,
    Operand,
    _own_words,
    _rows,
    around,
    direction_of,
    points_of,
    pool,
    units_of,
    wrong_base_change,
)
from validation.engine.checks.numeric._derive_rows import total_rows
from validation.engine.checks.numeric._derive_sections import (
    added_up,
    as_found,
    averaged,
    counted_runs,
    group_sums,
)
from validation.engine.checks.numeric._derive_spec import Spec, specified, specify
from validation.engine.checks.numeric._derive_taken import apart, beside_in, stated_cells
from validation.engine.checks.numeric._derive_when import (
    dated,
    dated_so,
    dates_early_year,
    mixed_period,
    relative_period,
    years_of,
)
from validation.engine.checks.numeric._derive_years import (
    dated_alone,
    over_years,
    periods_named,
    spans_years,
    years_named,
)
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._lexicon import (
    clause_before,
    names_a_margin,
    written_as_multiple,
)
from validation.engine.checks.numeric._matching import (
    Claim,
    Derivation,
    small_integer,
)
from validation.engine.checks.numeric._misquotes import _period as period_of
from validation.engine.checks.numeric._misquotes import swapped_cell
from validation.engine.checks.numeric._stated_ends import (
    ending_at,
    from_its_step,
    has_twin,
    keeping_direction,
    of_its_rate,
    stated_end,
)


def explain(
    claim: Claim,
    body: str,
    operands: Sequence[Operand],
    periods: Sequence[int],
    direction: int = 0,
    named: frozenset[str] = frozenset(),
    only_named: bool = False,
    points: bool = False,
    years: frozenset[int] = frozenset(),
    end: Operand | None = None,
    span: bool = False,
    specs: Callable[[], Sequence[Spec]] = tuple,
    share_specs: tuple[_shares.Spec, ...] = (),
    per_unit: frozenset[int] = frozenset(),
    buckets: Sequence[Candidate] = (),
    grossed: Sequence[Candidate] = (),
    based: bool = False,
    verify_own: bool = True,
    own_line: Sequence[Candidate] = (),
    guesses: list[str] | None = None,  # the hits found too likely a coincidence, said
) -> Explained | None:
    """The derivation of the claim from `operands` whose chance of a coincidence is below
    `ACCEPT`, or None. First a change to a stated level (`end`) among those alone; then the
    candidates of the operands a rate's words specify (`specs`), and a share or multiple its
    words specify (`_derive_shares`), each alone; then the operations its words name, alone
    (their candidates alone make the neighbourhood); then every operation. No look sets an
    amount per unit (`per_unit`: its cells) against one that is none in a share, multiple or
    change (`_derive_shares.unmixed`). `buckets`: an amount's averages a year over a span
    of bucketed periods (`_derive_buckets`), and `grossed`, the wholes a part and its share
    imply (`_derive_grossed`) and the totals of a counted run of equal amounts
    (`_derive_counted`), each weighed among themselves first. `based`: the words
    name a share's base ("or about 13.9% of the reported balance"), so a stated change
    over the level it reached is a share too, whatever direction the sentence says.
    `verify_own`: a hit among the operation its words name over its sentence's own numbers is
    verified when all of them land (`_derive_accept._search`); `own_line`: `_derive_own`."""
    mention = claim.mention
    if small_integer(mention) or not operands:
        return None
    if points and (not mention.is_percent or mention.unit == "pp"):
        # "narrowed by 1.1 points", "0.3 percentage points": a difference of two rates
        kind = "points"
        readings = [(abs(float(mention.written)), 10.0**-mention.decimals)]
    elif mention.is_percent:
        kind = "percent"
        readings = [(abs(float(mention.written)), 10.0**-mention.decimals)]
    elif written_as_multiple(body, mention, named=True):
        kind = "multiple"
        readings = [(abs(float(mention.written)), 10.0**-mention.decimals)]
    else:
        kind = "amount"
        readings = _readings(mention, body, operands)
    readings = [(target, width) for target, width in readings if target]
    if not readings:
        return None
    found = None

    money = kind == "amount" and mention.unit not in ("", "x")  # no ratio of two amounts

    def search(
        found: Iterator[Candidate], whole: bool = False, own: bool = False
    ) -> Explained | None:
        return _search(
            _shares.unmixed(found, per_unit, money), readings, operands, whole, own, guesses
        )

    aside = restated_aside(body, mention, claim.index, operands)  # "$1,508 thousand (about"
    if aside and (found := search(iter(aside), True)) is not None:
        return found
    if (found := search(restated_results(operands, kind, readings))) is not None:
        return found  # a result the report derives elsewhere, restated
    if kind == "amount" and (found := search(iter(of_its_rate(body, mention, operands)), True)):
        return found  # "fell by $133 million, or about 24.5%": the change the rate is of
    if kind == "multiple" and (found := search(iter(own_line), True)):
        return found  # "2.0 times its prior-year level": the line over its own earlier cell
    for own in (buckets, grossed) if kind == "amount" else ():
        # "average about $2,988 thousand a year" over 2020 through 2024; "that price points
        # to a whole-company value of $61.5 million" (an $8.0 million stake of 13 %)
        if own and (found := search(iter(own), True)) is not None:
            return found

    bound = may_hit(operands, kind, readings, periods)
    searched = partial(
        candidates, operands, kind, periods, direction, years=years, span=span, based=based
    )
    for share in share_specs if kind == "percent" else ():
        # Named lines together over their total: candidates no other look has (no bound
        # of those looks says whether one may land), a handful weighed among themselves.
        if share.operation == _shares.OF_A_SUM and (
            found := search(_shares.look_specified(searched, share, operands), True)
        ):
            return found
    keep = partial(
        keeping_direction, body=body, mention=mention, operands=operands, direction=direction
    )
    look = keep(searched)  # "fell ... to": never from the side the words rule out
    # The stated level, then its table's cell (weighed apart: no more neighbours)
    for twin in (False, True) if end is not None and kind != "multiple" else ():
        assert end is not None
        if (has_twin(operands, end) if twin else bound) and (
            found := search(ending_at(look(), end, twin, direction))
        ):
            return found
    if kind == "percent" and (bound or end is None):  # "by $20 thousand, or about 0.5%"
        stepped, step = from_its_step(look(), body, mention, claim.index, operands, end, direction)
        others = [operand for operand in operands if operand is not step]
        if stepped and (found := _search(iter(stepped), readings, others, True, False, guesses)):
            return found
    if bound:  # else no first-look hit (`_derive_bound`)
        # A number written as points names its operation by its unit: a change of rates.
        given = named or (frozenset(("points",)) if kind == "points" else named)
        if kind == "percent":  # "edged down by about 1.4%": a change of the line, not points
            given -= {"points"}
        for spec in specs() if given else ():  # the candidates its words specify, alone
            if found := search(keep(partial(specified, spec, kind, given))(), True):
                return found
        for share in share_specs:
            if share.operation in _shares.OWN_LOOKS:
                continue  # a look of its own (below)
            if found := search(_shares.look_specified(searched, share, operands), True):
                return found
        if named:
            found = search(look(named), own=verify_own)  # over its sentence's numbers: verified
            if found is not None or only_named:
                return found
        found = search(look())
    elif named and only_named:
        return None
    if found is None and kind in ("percent", "multiple"):
        if not (bound or changes_may_hit(operands, kind, readings)):
            return None  # no candidate of either look lands on the claim: no hit
        for share in share_specs:  # a named line's change over another named line's
            if share.operation == _shares.OF_A_CHANGE and (
                found := search(_shares.look_specified(searched, share, operands))
            ):
                return found
        # A second look with the changes of whole rows: their candidates join the
        # neighbourhood, so a hit among many is not taken.
        every = look(compound=True)
        found = search(every)
    return found


def rescue(
    body: str,
    claims: Sequence[Claim],
    index: EvidenceIndex,
    sentence_of: Callable[[int, int], tuple[int, int]],
) -> None:
    """Give each number still unsupported (an orphan, or a miss of the operation its
    words name) the derivation the closed search accepts, if any; its finding goes."""
    units = units_of(claims)
    budget = [_MAX_RESCUES]
    for position, claim in enumerate(claims):
        if budget[0] <= 0:
            break
        derivation = claim.derivation
        if derivation is not None and claim.hit is None:
            low, high = sentence_of(claim.mention.start, claim.mention.end)
            if wrong_base_change(
                derivation.formula, direction_of(body, claims, position, low, high)
            ):
                claim.derivation = None  # the search below may still find the writer's
            elif stated_cells(claims, position, low, high) >= 2:
                # The fixpoint's result where its sentence states operands: does the
                # writer's row take another cell in place of one of them (a wrong period)?
                claim.derivation = None
                budget[0] -= 1
                if not _rescue(body, claims, position, index, sentence_of, units, own=False):
                    claim.derivation = derivation
    for _ in range(_ROUNDS):
        changed = False
        for position, claim in enumerate(claims):
            if eligible(claim) and budget[0] > 0:
                budget[0] -= 1
                changed = _rescue(body, claims, position, index, sentence_of, units) or changed
        if not changed:
            break


# What the words name (`_cues`), as the operations of this search.
_OPERATIONS = {
    CHANGE: ("difference", "percent change", "points"),
    SUM: ("sum",),
    MEAN: ("average",),
    SHARE: ("share", "share of a change"),
    MULTIPLE: ("multiple", "share of a change"),
    POINTS: ("points",),
    CAGR: ("CAGR",),
}
_MAX_RESCUES = 300  # numbers of one report given the search (a wall stops there)
_ROUNDS = 2  # a result stated from another derived one in a later sentence


def _rescue(
    body: str,
    claims: Sequence[Claim],
    position: int,
    index: EvidenceIndex,
    sentence_of: Callable[[int, int], tuple[int, int]],
    units: dict[int, float],
    own: bool = True,  # not for the fixpoint's result, searched again for a wrong period
) -> bool:
    claim = claims[position]
    mention = claim.mention
    low, high = sentence_of(mention.start, mention.end)
    words = body[low:high]
    cue = cue_of(body, mention.start, mention.end, (low, high), low, high)
    named = frozenset(operation for kind in cue.kinds for operation in _OPERATIONS.get(kind, ()))
    if mention.in_table:  # a computed column: "Change", "Three-year total"
        headed_kinds = header_kinds(mention.label) & {CHANGE, SUM, MEAN}
        named |= frozenset(operation for kind in headed_kinds for operation in _OPERATIONS[kind])
    if {SUM, DIVIDE} <= cue.kinds:  # "add them up and divide by three": an average
        named |= frozenset(_OPERATIONS[MEAN])
    margin = (
        mention.is_percent
        and not cue.kinds & {SUM, MEAN}
        and names_a_margin(body, low, mention.start)
    )
    if margin:  # "margin widened to 34.1%": a share of revenue, whatever the verbs
        named |= frozenset(_OPERATIONS[SHARE])
    if points_of(body, mention):  # "some 83.3 points below the statutory rate": a gap
        named |= frozenset(_OPERATIONS[POINTS])
    restating = bool(claim.close) and not (named := named or _shares.share_named(cue, mention))
    if restating and not any(other.derivation for other in beside_in(claims, position, low, high)):
        return False  # close to a cell its words name, and no words of a result: a slip
    before = next(
        (claims[at] for at in range(position - 1, -1, -1) if claims[at].mention.end <= low), None
    )
    previous = sentence_of(before.mention.start, before.mention.end) if before else (0, 0)
    heading = heading_of(body, low)
    headed = context_rows(_rows(index), body, (low, high), heading, sentence_of)
    headed += margin_rows(_rows(index), body, low, mention.start, margin)
    operands = pool(position, claims, index, (low, high), words, units, previous, headed)
    operands = as_rates(operands, claims, body) if mention.is_percent else operands
    sums = group_sums(index, units, words, heading, SUM in cue.kinds)
    operands += sums
    operands += sums_in_other_periods(claims, position, index, units, (low, high), previous, words)
    means: list[Operand] = []  # "the average of the four quarterly lows": weighed alone
    if cue.kinds & {SUM, MEAN} and not mention.is_percent:  # "the four notes ... carry"
        in_play = [operand.item for operand in operands]
        runs = counted_runs(index, units, count := things_counted(words), in_play)
        means, runs = (averaged(runs, count), []) if MEAN in cue.kinds else ([], runs)
        operands += runs
    if restating:  # "$58,442 thousand, or roughly $58.4 million": its sentence's own result
        operands = [
            operand for operand in operands if operand.strength == STATED and operand.derived
        ]
    years = years_named(words)
    share = SHARE in cue.kinds or cue.of_after  # a share in the present tense: the latest
    # Its own clause's "now" or "a year earlier" over a year the sentence names for another
    # ("2.27 times its 2018 level and now offsets 64.6% of gross assets"), not its own.
    relative = relative_period(body, claims, position, low, high, share and not years)
    relative = 0 if years and cue.year else relative
    if years or relative:
        early = dates_early_year(words)
        operands = [dated(operand, index, early) for operand in operands]
        years = (years_of(operands, relative) or years) if years and relative else years
    direction = direction_of(body, claims, position, low, high)
    guesses: list[str] = []
    found = explain(
        claim,
        body,
        operands,
        periods_named(words),
        direction,
        named,
        not _shares.searched_whole(claim),
        points_of(body, mention) or mention.unit == "pp",
        years,
        stated_end(body, claims, position, operands),
        spans_years(words),
        partial(
            specify,
            claims,
            position,
            index,
            (low, high),
            words,
            operands,
            body,
            cue.count,
            bool(cue.year),
        ),
        _shares.completed(
            _shares.specs_of(cue, years or years_of(operands, relative), total_rows(index)),
            index,
            operands,
            units,
            _own_words(claims, position, (low, high), words),
            claim.index,
            clause_before(body, mention.start),  # "the current ratio eased from 0.81 to"
        )
        + _shares.parallel(claims, position, (low, high), operands),
        _shares.per_unit(index, operands),
        list(per_year(operands, index, words)) if MEAN in cue.kinds else (),
        [
            *grossed_up(operands, words),
            *counted_amounts(operands, words),
            *added_up(sums, cue),
            *as_found(means),
        ],
        mention.is_percent and cue.of_after,  # "or about 13.9% of the reported balance"
        own,
        list(own_multiples(body, mention.end, claim.index, operands, index)),
        guesses,
    )
    claim.guess = claim.guess or (guesses[0] if found is None and guesses else "")
    if found is None or _shares.restates_close(claim, found.operation, found.entries, named):
        return False
    if mixed_period(found.displaced, index, words, years, relative):
        return False  # the stated figure's own period, not the cell beside it
    beside = partial(beside_in, claims, position, low, high)
    takes_own = any(other.index in found.used for other in beside())
    multiple = written_as_multiple(body, mention)  # "2.27 times": a ratio, never an amount
    if not (takes_own or multiple) and swapped_cell(claim, index, words):
        return False  # "fell 5.7% to $7,281 million", its row's 7,821: a swap, not arithmetic
    if over_years(found.operation) and dated_alone(body, claims, position, low):
        return False  # "$11.3 billion in 2017": that year's value, not a mean over years
    year = base_year(body, mention.end)
    level = misquoted_level(claims, position, operands, found.operation, found.entries, year)
    if level is not None:  # "reached $12.7 million, 2.5 times the 2018 figure": 2018's 12.7
        level[0].other_period = index.number(level[1])
        level[0].other_period_proof = f"{mention.text} = {found.formula}"
        level[0].other_period_chance = found.chance
    if found.conflict is not None:
        stated, cell = found.conflict
        at = next(
            (at for at in around(position, len(claims)) if claims[at].index == stated.position),
            -1,
        )
        other = claims[at] if at >= 0 else None
        if other is not None and apart(claims, position, at, found.used):
            pass  # another result's operand ("... 1.6 times the $21.93 of 2018"), not this one's
        elif (
            other is not None
            and other.hit is not None
            and found.step
            and period_of(index, other.hit.number.entry) is None
        ):
            pass  # a change the row states beside its periods ("down $1,011 million"): a step
        elif (
            other is not None
            and other.hit is not None
            and any(
                c.derivation is not None and other.hit.number.entry in c.derivation.entries
                for c in beside()
            )
        ):
            pass  # "down 27.4% from $219 million, and 48.5% of the 2017 level": 27.4%'s base
        elif other is not None and other.hit is not None and dated_so(body, index, other):
            pass  # "far below the $18,494 booked in 2017": the cell of the year it names
        elif other is not None and other.hit is not None and cell.entry >= 0:
            # The stated number is another period's cell of the row the result needs.
            other.other_period = index.number(cell.entry)
            other.other_period_proof = f"{mention.text} = {found.formula}"
            other.other_period_chance = found.chance
        else:
            return False
    claim.derivation = Derivation(
        value=Decimal(repr(found.value)),
        formula=found.formula,
        source_ref="calculator",
        label=found.operation,
        entries=found.entries,
    )
    claim.miss = None
    claim.rescaled = None
    claim.close = []
    claim.depends = ()
    return True
