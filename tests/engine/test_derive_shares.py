"""A share or a multiple whose words say what was divided by what, and when (issue 25,
point 3): its chance of a coincidence is counted among the candidates of that
specification alone (the named rows, the named period, the named operation), not among
every pair of the pool's weaker tiers. The figures and sentences are ours."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import partial

from tests.engine.reports import NUMBERS_ONLY, cell, flagged
from tests.engine.reports import check as verdict_on
from validation.engine.checks.numeric._cues import CHANGE, MEAN, MULTIPLE, SHARE, Cue
from validation.engine.checks.numeric._derive_candidates import candidates
from validation.engine.checks.numeric._derive_pool import BESIDE, NAMED, NEAR, STATED, Operand
from validation.engine.checks.numeric._derive_shares import (
    OF_A_CHANGE,
    OF_A_SUM,
    Spec,
    a_share,
    look_specified,
    share_named,
    specified,
    specs_of,
)
from validation.engine.checks.numeric._extract import extract
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, Verdict

# ------------------------------------------------------------------ what the words specify


def test_a_percentage_of_something_is_a_share_of_the_year_it_names() -> None:
    specs = specs_of(Cue(of_after=True, year=2020), frozenset({2020, 2021}))

    years = frozenset({2020, 2021})
    assert specs == (
        Spec("share", 2020, NEAR, years),
        Spec("share", 2020, NAMED, years),
        Spec(OF_A_SUM, 2020, NAMED),  # or named lines of that year together over their total
    )


def test_the_one_year_of_the_sentence_dates_a_share_that_names_none_itself() -> None:
    first, *_ = specs_of(Cue(frozenset({SHARE})), frozenset({2019}))

    assert (first.operation, first.year, first.strength) == ("share", 2019, NEAR)


def test_times_makes_a_multiple_and_no_word_of_a_share_or_multiple_makes_nothing() -> None:
    assert specs_of(Cue(frozenset({MULTIPLE})), frozenset())[0] == Spec("multiple", 0, NEAR)
    assert specs_of(Cue(frozenset({MEAN})), frozenset())[0] == Spec("average", 0, NEAR)
    assert specs_of(Cue(frozenset({CHANGE})), frozenset({2019})) == ()


def test_a_percentage_followed_by_of_is_named_a_share_and_an_amount_is_not() -> None:
    rate, amount = extract("It equalled 61.4% of the benchmark and $3.2 million of sales.")

    assert share_named(Cue(of_after=True), rate) == frozenset({"share"})
    assert share_named(Cue(of_after=True), amount) == frozenset()
    assert share_named(Cue(), rate) == frozenset()


# ------------------------------------------------------------------ the specified candidates

SALES_2020 = cell(79126.0, NAMED, 0, 1, 2020)
SALES_2019 = cell(71402.0, NAMED, 0, 2, 2019)
MARKETING_2020 = cell(2991.0, NEAR, 3, 1, 2020)
MARKETING_2019 = cell(2245.0, NEAR, 3, 2, 2019)
UNNAMED_2020 = cell(6512.0, BESIDE, 5, 1, 2020)
POOL = [MARKETING_2020, MARKETING_2019, SALES_2020, SALES_2019, UNNAMED_2020]


def _specified(spec: Spec, kind: str = "percent") -> set[str]:
    found = specified(candidates(POOL, kind, [], 0), spec)
    return {
        formula.format(*(o.text if isinstance(o, Operand) else o for o in used))
        for _, _, formula, _, used in found
    }


def test_only_shares_of_named_rows_in_the_named_period_are_the_specifications() -> None:
    assert _specified(Spec("share", 2020)) == {"2991 / 79126 * 100", "79126 / 2991 * 100"}


def test_a_clause_that_names_the_rows_itself_narrows_them_further() -> None:
    assert _specified(Spec("share", 2020, NEAR)) == set()
    assert _specified(Spec("share", 2019)) == {"2245 / 71402 * 100", "71402 / 2245 * 100"}


def test_with_no_period_named_the_two_cells_share_a_column() -> None:
    assert _specified(Spec("share", 0)) == {
        "2991 / 79126 * 100",
        "79126 / 2991 * 100",
        "2245 / 71402 * 100",
        "71402 / 2245 * 100",
    }


def test_a_multiple_may_be_of_one_line_over_time_with_a_cell_of_the_year_named() -> None:
    found = _specified(Spec("multiple", 2019), "multiple")

    assert "2991 / 2245" in found  # 2020's marketing over 2019's
    assert "79126 / 2991" not in found  # no cell of 2019


def test_an_average_is_of_one_lines_periods_among_the_years_named() -> None:
    assert _specified(Spec("average", 0, NAMED, frozenset({2019, 2020})), "amount") >= {
        "(2991 + 2245) / 2",
        "(79126 + 71402) / 2",
    }
    assert "(2991 + 79126) / 2" not in _specified(Spec("average", 0), "amount")


def test_a_line_over_time_leaves_no_level_its_sentence_states_aside() -> None:
    written = Operand(
        value=2245.0,
        text="$2.2 million",
        percent=False,
        digits=1.0,
        strength=STATED,
        row=3,
        column=2,
        item=0,
        position=4,
        year=2019,
    )
    other_line = replace(written, value=71402.0, text="$71.4 million", row=0, position=6)
    pool = [written, other_line, MARKETING_2020, SALES_2020]
    found = specified(candidates(pool, "multiple", [], 0), Spec("multiple", 2019), pool)
    rows = [{o.row for o in candidate[4] if isinstance(o, Operand)} for candidate in found]

    assert rows and {3} not in rows  # two lines of 2019, never marketing's two years


# ------------------------------------------------------------------ end to end

TABLE = (
    "| ($ in thousands) | 2021 | 2020 | 2019 |\n|---|---|---|---|\n"
    "| Net sales | 84,310 | 79,126 | 71,402 |\n"
    "| Cost of sales | 51,877 | 49,502 | 44,915 |\n"
    "| Gross profit | 32,433 | 29,624 | 26,487 |\n"
    "| Marketing expense | 3,606 | 2,991 | 2,245 |\n"
    "| Research expense | 4,118 | 3,870 | 3,392 |\n"
    "| General and administrative expense | 6,904 | 6,512 | 6,188 |\n"
    "| Operating income | 18,205 | 16,251 | 14,162 |\n"
    "| Interest expense | 1,114 | 1,209 | 1,318 |\n"
    "| Income before taxes | 17,091 | 15,042 | 12,844 |"
)
REPORT = (
    "Net sales grew 6.6% to $84.3 million in 2021, and gross profit reached $32.4 million. "
    "Operating income was $18.2 million, up 12.0%, and interest expense fell to $1.1 "
    "million. Marketing expense came to about {} of net sales in 2020."
)


def check(body: str) -> Verdict:
    return verdict_on(body, ("table", TABLE), query="How did costs move?")


def test_a_share_of_two_named_lines_in_the_named_year_passes_among_many_numbers() -> None:
    assert flagged(check(REPORT.format("3.8%"))) == []


def test_another_years_share_or_a_slip_is_still_flagged() -> None:
    for written in ("4.3%", "3.1%", "3.5%"):  # 2021's, 2019's, and no year's share
        assert written in flagged(check(REPORT.format(written)))


PARALLEL = (
    "Net sales grew 6.6% to $84.3 million in 2021, and gross profit reached $32.4 million. "
    "Operating income was $18.2 million, up 12.0%, and interest expense fell to $1.1 "
    "million. Marketing expense came to 4.3% of net sales in 2021, against {} a year earlier."
)


def test_the_same_share_in_the_period_beside_the_stated_one_passes() -> None:
    assert flagged(check(PARALLEL.format("3.8%"))) == []  # 2,991 / 79,126 in 2020


def test_a_share_of_a_period_further_off_or_a_slip_is_still_flagged() -> None:
    for written in ("3.1%", "3.5%"):  # 2019's share; no period's
        assert written in flagged(check(PARALLEL.format(written)))


# ------------------------------------------------------------------ a close figure of many digits

RECONCILIATION = json.dumps(
    {
        "table_title": "Years ended June 30,",
        "line_items": {
            "Operating income (GAAP)": {"2021": 184512, "2020": 120377, "2019": 35120},
            "Impairment of assets": {"2021": 2210, "2020": -640},
            "Integration costs": {"2021": 9405, "2020": 312},
            "Share-based compensation": {"2021": 13108, "2020": 8114},
            "Restructuring charges": {"2021": 7562, "2020": 12905},
            "Litigation expenses": {"2021": 4871, "2020": 5930},
            "Facility relocation": {"2021": -733, "2020": 1044},
            "Adjusted operating income (non-GAAP)": {"2021": 220935, "2020": 148042},
        },
    }
)
BRIDGE = (
    "| Metric | FY2021 | FY2020 |\n|---|---|---|\n"
    "| Operating income (GAAP) | 184,512 | 120,377 |\n"
    "| Total non-GAAP adjustments | {} | 27,665 |\n"
    "| Adjusted operating income | 220,935 | 148,042 |\n\n"
    "Adjusted operating income grew strongly."
)


def bridge(written: str) -> Verdict:
    evidence = [{"source_ref": "financials_tool", "content": RECONCILIATION}]
    body = BRIDGE.format(written)
    return validate(Bundle(query="How did it go?", body=body, evidence=evidence), NUMBERS_ONLY)


def test_a_five_digit_difference_near_an_unrelated_cell_is_searched_as_any_result() -> None:
    # 36,423 lies within 4% of the 2019 operating income, 35,120: close to a cell of
    # a row its words name, yet five digits that two named rows' difference gives.
    assert flagged(bridge("36,423")) == []


def test_a_close_figure_of_many_digits_that_nothing_gives_is_still_flagged() -> None:
    for written in ("36,432", "35,210"):
        assert written in flagged(bridge(written))


# ------------------------------------------------------------------ a line over time, in a layout

LAYOUT = (
    "                           December 31, 2021December 31, 2020January 1, 2020\n"
    "                                        $             $             $\n"
    "Sales taxes receivable             41,302         4,118           905\n"
    "Unbilled fees                      27,480        11,006         6,921\n"
    "Customer receivables               8,844        10,377         6,602\n"
    "Interest receivable                4,918         4,463         1,874\n"
    "Sundry receivables                 7,129         9,045         3,968\n"
    "                                   89,673        38,009        20,270\n"
)
RECEIVABLES = (
    "Total receivables climbed to $89.7 million from $38.0 million. Sales taxes receivable "
    "rose to $41.3 million, about 10.0 times the prior year-end level. Unbilled fees reached "
    "$27.5 million, {} times the 2020 figure, driven by fees not yet billed."
)


def receivables(written: str) -> Verdict:
    evidence = [{"source_ref": "filing_table", "content": LAYOUT}]
    body = RECEIVABLES.format(written)
    return validate(Bundle(query="How did it go?", body=body, evidence=evidence), NUMBERS_ONLY)


def test_a_multiple_of_a_stated_line_over_its_earlier_figure_passes() -> None:
    assert flagged(receivables("2.5")) == []


def test_a_multiple_no_earlier_figure_of_the_line_gives_is_flagged() -> None:
    assert "2.7" in flagged(receivables("2.7"))


# ---------------------------------------------------- a per-share amount is no part of a count

SHARES = (
    "(in thousands, except per share amounts)\n\n"
    "|  | 2020 | 2019 |\n|---|---|---|\n"
    "| Net income | $188,402 | $221,917 |\n"
    "| Weighted-average shares, basic | 69,310 | 68,544 |\n"
    "| Dilutive effect of stock options | 1,882 | 2,029 |\n"
    "| Weighted-average shares, diluted | 71,192 | 70,573 |\n"
    "| Net income per diluted share | $2.64 | $3.12 |"
)
PER_SHARE = (
    "Net income per diluted share was $2.64 in 2020. Set against the $3.12 a year before, it "
    "moved by -$0.48, equal to {} of the 2019 base."
)


def per_share(written: str) -> Verdict:
    evidence = [{"source_ref": "table", "content": SHARES}]
    body = PER_SHARE.format(written)
    return validate(Bundle(query="How did EPS move?", body=body, evidence=evidence), NUMBERS_ONLY)


def test_a_per_share_amount_over_a_count_of_shares_is_no_share() -> None:
    # -0.15% is the change as a ratio written as a percentage (-15.4% is right); it also
    # lies on $3.12 / 2,029 thousand options: a dollar amount per share over a count.
    assert "-0.15%" in flagged(per_share("-0.15%"))
    assert flagged(per_share("-15.4%")) == []


# ---------------------------------------------------- a named line's share of a named change

MIX = (
    "| (in thousands) | 2021 | 2020 |\n|---|---|---|\n"
    "| Licences | $4,812 | $3,905 |\n"
    "| Support | 1,377 | 1,240 |\n"
    "| Training | 402 | 455 |\n"
    "| Total revenue | $6,591 | $5,600 |"
)
MIX_REPORT = (
    "Total revenue rose to $6,591 thousand from $5,600 thousand, up 17.7%. Licences grew "
    "23.2% to $4,812 thousand, support rose 11.0% to $1,377 thousand, and training slipped "
    "to $402 thousand from $455 thousand. Licences made up 73.0% of total revenue in 2021, "
    "and licences explain roughly {} of the total revenue increase."
)


def mix(written: str) -> Verdict:
    return verdict_on(MIX_REPORT.format(written), ("table", MIX), query="What drove revenue?")


def test_a_named_lines_share_of_a_named_total_change_is_weighed_among_those_lines() -> None:
    # (4,812 - 3,905) / (6,591 - 5,600) = 91.5%: licences' change over the total's.
    assert flagged(mix("92%")) == []


def test_a_share_of_a_change_is_specified_by_words_of_a_share_and_of_a_change() -> None:
    assert Spec(OF_A_CHANGE, 0, NAMED) in specs_of(Cue(frozenset({SHARE, CHANGE})), frozenset())
    assert all(s.operation != OF_A_CHANGE for s in specs_of(Cue(frozenset({SHARE})), frozenset()))


def test_its_candidates_are_a_named_lines_change_over_a_named_totals() -> None:
    # Sales (row 0) is the total; marketing (NEAR) and sales (NAMED) are named. Neither the
    # unnamed line's change nor the total's change over a line's is a candidate.
    unnamed_2019 = cell(6188.0, BESIDE, 5, 2, 2019)
    pool = [*POOL, unnamed_2019]
    look = partial(candidates, pool, "percent", [], 0)
    spec = Spec(OF_A_CHANGE, 0, NAMED, totals=frozenset({0}))

    assert {c[2] for c in look_specified(look, spec, pool)} == {
        "(2991 - 2245) / (79126 - 71402) * 100"
    }
    assert list(look_specified(look, Spec(OF_A_CHANGE, 0, NAMED), pool)) == []  # no total


# ---------------------------------------------------- a stated share, whichever search found it


def test_a_stated_share_is_one_cell_over_another_as_a_percentage_whoever_named_it() -> None:
    # This search names its operation; the open search writes its formula as the label.
    assert a_share("share", "9587 / 67314 * 100 (chance 0.3%)")
    assert a_share("12,491 / 68,000 * 100", "12,491 / 68,000 * 100")
    assert not a_share("(12,491 - 9,587) / 9,587 * 100", "(12,491 - 9,587) / 9,587 * 100")
    assert not a_share("12,491 / 68,000", "12,491 / 68,000")  # a ratio, not a percentage
