"""A sentence that ends in a quotation ('... as "more likely than not." The allowance ...')
ends at the stop inside the quote, as one ending in ". " does. When it did not, the next
sentence ran back to its paragraph's start, and a share in it was read as stated from a
figure three sentences before: "absorbs 70.7% of deferred tax assets before the allowance"
was "fixed" to the prior year's net assets over the allowance (76.5%)."""

from __future__ import annotations

from tests.engine.reports import check, fixes_on
from validation.engine.checks.numeric._context import _sentence

TABLE = (
    "| (In thousands) | 2019 | 2018 |\n|---|---|---|\n"
    "| Capitalized research and development expenditures | 22,230 | — |\n"
    "| Valuation allowance | (48,616) | (5,816) |\n"
    "| Total Deferred Tax Assets | 20,101 | 47,233 |\n"
    "| Net Deferred Tax Assets | $7,561 | $37,187 |\n"
)


def test_a_stop_inside_a_closing_quote_ends_the_sentence() -> None:
    body = 'It was not "more likely than not." The allowance stands at $48.6 million. It rose.'
    start = body.index("$48.6")
    low, high = _sentence(body, [], start, start + 5)

    assert body[low:high] == "The allowance stands at $48.6 million"


def test_a_share_after_a_quoted_sentence_is_not_read_from_the_paragraphs_start() -> None:
    body = (
        "Net deferred tax assets fell to $7.6 million at the end of 2019 from $37.2 million a "
        "year earlier, a drop of 79.7%. The driver is not a change in the underlying "
        "temporary differences but the valuation allowance management set up against "
        "domestic deferred tax assets in the third quarter, after weaker revenue and "
        'profitability made it impossible to support realisation as "more likely than '
        'not." The allowance now stands at $48.6 million, 8.4 times its prior-year level, '
        "and absorbs 70.7% of deferred tax assets before the allowance."
    )
    verdict = check(body, ("table", TABLE))

    assert fixes_on(verdict, "70.7%") == []
