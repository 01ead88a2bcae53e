"""One figure written at two scales is one operand.

A filing often states a figure twice: "net sales were $9.54 billion" in its prose and
9,538.4 in a table in millions. Their difference ($1.6 million) is the rounding of the
prose figure, not anything an analyst computes; taken as a derivation, it "explained" a
report that wrote "$1.6 million" for a rise of $1.6 billion (9,538.4 less 7,938.3), a
slip of scale that then passed."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, status

TABLE = (
    "($ millions)          Fiscal 2019   Fiscal 2018\n"
    "Total net sales           9,538.4       7,938.3\n"
)
PROSE = "Overall, our net sales were $9.54 billion in fiscal 2019, an increase of 20%."


def test_a_rise_at_the_wrong_scale_is_flagged() -> None:
    verdict = check(
        "Net sales were $9,538.4 million in fiscal 2019 against $7,938.3 million a year "
        "earlier. Headline net sales grew by $1.6 million.",
        ("table", TABLE),
        ("prose", PROSE),
    )

    assert findings_on(verdict, "$1.6 million") != []


def test_the_rise_at_its_scale_is_found() -> None:
    verdict = check(
        "Net sales were $9,538.4 million in fiscal 2019 against $7,938.3 million a year "
        "earlier. Headline net sales grew by $1.6 billion.",
        ("table", TABLE),
        ("prose", PROSE),
    )

    assert status(verdict, "$1.6 billion") == "derived"
