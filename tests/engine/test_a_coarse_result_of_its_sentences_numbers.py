"""A result its words name over the numbers its own sentence states is the writer's
arithmetic when every such candidate lands on it, however coarse: "the current ratio
eased from 0.81 in 2018 to 0.78 in 2019, a decline of roughly 0.03". One significant
digit leaves a wide window ("0.03" covers 0.025 to 0.035), so as a search its chance of
a coincidence is high, and the right difference was flagged. But the words fix the
operation and the sentence the operands: there is one value to try, and it lands. A
result that misses it is still flagged."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

TABLE = (
    "| Parent | 2019 | 2018 |\n|---|---|---|\n"
    "| | US$'000 | US$'000 |\n"
    "| Total current assets | 121,041 | 73,202 |\n"
    "| Total current liabilities | 154,619 | 90,392 |\n"
)
BODY = (
    "Current assets rose from 73,202 to 121,041 while current liabilities grew to "
    "154,619. The current ratio eased from 0.81 in 2018 to 0.78 in 2019, a decline of "
    "roughly {step}."
)


def test_the_difference_of_the_two_ratios_it_follows_is_derived() -> None:
    verdict = check(BODY.format(step="0.03"), ("table", TABLE))

    assert status(verdict, "0.03") == "derived"
    assert flagged(verdict) == []


def test_a_difference_that_misses_them_is_flagged() -> None:
    verdict = check(BODY.format(step="0.05"), ("table", TABLE))

    assert flagged(verdict) == ["0.05"]
