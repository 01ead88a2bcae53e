"""One line item a table writes under two headings (its current and non-current pieces),
added up by a writer: "adding the current and non-current portions, deferred contract
costs rose from $121 million to $258 million". The pair of cells of one column is summed
like any pair the sentence names; a sentence whose main clause opens with a pronoun after
an opening phrase ("Adding both pieces, they rose ...") names the rows of the sentence
before it, as one that opens with the pronoun does."""

from __future__ import annotations

from tests.engine.reports import check, flagged

CAPTIONS = """\
Balance sheet captions                          2024          2023
                                                (in millions)
Other current assets:
Deferred contract costs(1)                       $74           $96
Prepaid software                                  18            27
Other                                            233           241
                                                $325          $364
Other assets:
Deferred contract costs(1)                      $184           $25
Long-term deposits                                12            15
Other                                            150           118
                                                $346          $158
"""


def test_the_current_and_non_current_pieces_add_up() -> None:
    # 96 + 25 = 121 and 74 + 184 = 258; (258 - 121) / 121 = 113.2 %.
    body = (
        "Adding the current and non-current portions, deferred contract costs rose from "
        "$121 million to $258 million, an increase of about 113%."
    )
    assert flagged(check(body, ("filing", CAPTIONS))) == []


def test_pieces_named_by_the_sentence_before_add_up() -> None:
    body = (
        "One caption moved sharply: deferred contract costs. Adding the current and "
        "non-current portions, they rose from $121 million to $258 million, an increase "
        "of about 113%."
    )
    assert flagged(check(body, ("filing", CAPTIONS))) == []


def test_a_wrong_sum_of_the_pieces_is_flagged() -> None:
    body = (
        "Adding the current and non-current portions, deferred contract costs rose from "
        "$121 million to $268 million."
    )
    assert "$268 million" in flagged(check(body, ("filing", CAPTIONS)))


def test_a_sum_of_two_different_lines_is_not_offered_as_one_item() -> None:
    # 18 + 12 = 30: prepaid software and deposits are two line items, not one in pieces.
    body = "Adding the current and non-current portions, deposits came to $30 million."
    assert "$30 million" in flagged(check(body, ("filing", CAPTIONS)))
