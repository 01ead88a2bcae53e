"""A gap between two lines the sentence names, in the one year its clause names: "diluted
earnings per share sat just $0.09 below basic in fiscal 2024" is the difference of those
two cells of 2024 and nothing else. Weighed among the gaps its words specify, a figure of
one or two digits is no pick from the crowd of every small difference a table offers.
Figures are ours."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

EPS = (
    "(in millions, except per share amounts)\n\n"
    "| | Fiscal 2024 | Fiscal 2023 | Fiscal 2022 |\n|---|---|---|---|\n"
    "| Net income | $ 1,212 | $ 131 | $ 502 |\n"
    "| Shares used in basic computation | 262 | 271 | 280 |\n"
    "| Dilutive impact of employee equity award plans | 4 | 7 | 6 |\n"
    "| Shares used in diluted computation | 266 | 278 | 286 |\n"
    "| Basic | $ 4.63 | $ 0.48 | $ 1.79 |\n"
    "| Diluted | $ 4.56 | $ 0.47 | $ 1.76 |\n"
)


def test_a_gap_between_two_named_lines_of_the_named_year_passes() -> None:
    verdict = check(
        "Dilution is small: diluted EPS sat just $0.07 below basic in fiscal 2024.",
        ("eps", EPS),
    )

    assert status(verdict, "$0.07") == "derived"


def test_a_wrong_gap_between_them_is_flagged() -> None:
    verdict = check(
        "Dilution is small: diluted EPS sat just $0.17 below basic in fiscal 2024.",
        ("eps", EPS),
    )

    assert any("0.17" in text for text in flagged(verdict))


def test_the_gap_of_another_year_is_flagged() -> None:
    """$0.03 is fiscal 2022's gap (1.79 - 1.76), not 2024's."""
    verdict = check(
        "Dilution is small: diluted EPS sat just $0.03 below basic in fiscal 2024.",
        ("eps", EPS),
    )

    assert any("0.03" in text for text in flagged(verdict))
