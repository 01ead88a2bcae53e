"""A table "(dollars in thousands)" that also counts things: its "Restaurants sold" row is a
number of restaurants, not of thousands of dollars. "Per restaurant sold, 2018 gains came
to roughly $342 thousand" divides the gains (46,164 thousand) by 135 restaurants; read at
the dollars' scale, the count made every quotient a thousand times too small. A row the
words "per ..." name is a count, read as written; its cells keep their other reading too."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

TABLE = (
    "Refranchisings (dollars in thousands):\n"
    "                                          2019        2018        2017\n"
    "Restaurants sold to franchisees              —         135         178\n"
    "New restaurants opened by franchisees       19          11          18\n"
    "Gains on the sale of restaurants        $1,366     $46,164     $38,034\n"
)


def test_an_amount_per_counted_thing_divides_by_the_count_as_written() -> None:
    body = (
        "Gains on the sale of restaurants fell to $1,366 thousand in 2019. Per restaurant "
        "sold, 2018 gains came to roughly $342 thousand, compared with about $214 thousand "
        "in 2017."
    )
    verdict = check(body, ("filing_table", TABLE))

    assert flagged(verdict) == []
    assert status(verdict, "$342 thousand") == "derived"
    assert status(verdict, "$214 thousand") == "derived"


def test_a_wrong_amount_per_counted_thing_is_flagged() -> None:
    body = (
        "Gains on the sale of restaurants fell to $1,366 thousand in 2019. Per restaurant "
        "sold, 2018 gains came to roughly $392 thousand."
    )
    verdict = check(body, ("filing_table", TABLE))

    assert "$392 thousand" in flagged(verdict)


FULL = (
    "Refranchisings (dollars in thousands):\n"
    "                                          2019        2018        2017\n"
    "Restaurants sold to franchisees              —         135         178\n"
    "New restaurants opened by franchisees       19          11          18\n"
    "Proceeds from the sale of restaurants:\n"
    "Cash                                    $1,280     $26,486     $99,591\n"
    "Notes receivable                             —      70,461           —\n"
    "                                        $1,280     $96,947     $99,591\n"
    "Net assets sold                             $—   $(21,329)   $(30,597)\n"
    "Other                                       88    (24,791)     (9,161)\n"
    "Gains on the sale of restaurants        $1,366     $46,164     $38,034\n"
)


def test_the_same_amount_per_unit_in_the_year_beside_is_weighed_with_few_others() -> None:
    """ "$214 thousand in 2017" beside "$342 thousand" of 2018 (46,164 / 135): the same two
    rows' cells in the year beside, 38,034 / 178, among a table of other figures."""
    body = (
        "Gains fell to $1,366 thousand in 2019 from $46,164 thousand in 2018, a drop of "
        "$44,798 thousand, or about 97%. No restaurants were sold in 2019, after 135 in "
        "2018 and 178 in 2017. Cash proceeds were about 93.7% of the 2019 gain.\n\n"
        "The 2018 gain was $8.1 million, or 21.4%, above the 2017 figure. Per restaurant "
        "sold, 2018 gains came to roughly $342 thousand, compared with about $214 thousand "
        "in 2017. Notes receivable made up about 72.7% of 2018 proceeds.\n\n"
        "Franchisees opened 19 new restaurants in 2019."
    )
    verdict = check(body, ("filing_table", FULL))

    assert status(verdict, "$342 thousand") == "derived"
    assert status(verdict, "$214 thousand") == "derived"
