"""The support fixpoint searches a claim again only when a number within its reach became
supported: its reach is the `_SCAN` claims nearest it (by where they start; of two as near,
the one before it, then the one nearer in order), which always make one run of consecutive
claims."""

from __future__ import annotations

import random

from validation.engine.checks.numeric._support import _SCAN, Grounding


def reach(starts: list[int], position: int) -> tuple[int, int]:
    grounding = Grounding("", [], None, lambda start, end: (start, end))  # type: ignore[arg-type]
    grounding.starts = starts
    return grounding.reach(position)


def nearest(starts: list[int], position: int) -> set[int]:
    """The plain definition: every other claim by distance; on a tie, one before it first,
    then the one nearer in order."""
    others = sorted(
        (abs(starts[other] - starts[position]), other > position, abs(other - position), other)
        for other in range(len(starts))
        if other != position
    )
    return {other for *_, other in others[:_SCAN]}


def test_evenly_spaced_claims_reach_as_far_on_each_side() -> None:
    starts = [10 * at for at in range(200)]
    assert reach(starts, 100) == (100 - _SCAN // 2, 100 + _SCAN // 2)


def test_a_claim_near_the_start_reaches_further_after_it() -> None:
    starts = [10 * at for at in range(200)]
    assert reach(starts, 3) == (0, _SCAN)
    assert reach(starts, 199) == (199 - _SCAN, 199)


def test_a_dense_cluster_on_one_side_is_reached_before_a_far_claim_on_the_other() -> None:
    starts = [0, *range(1000, 1000 + 2 * _SCAN)]  # one far claim, then a tight run
    assert reach(starts, 1) == (1, 1 + _SCAN)  # claim 0 is 1,000 characters away


def test_a_report_with_fewer_claims_than_the_scan_reaches_all_of_them() -> None:
    starts = [0, 5, 9]
    assert [reach(starts, at) for at in range(3)] == [(0, 2)] * 3


def test_the_reach_is_the_span_of_the_nearest_claims_on_any_spacing() -> None:
    draw = random.Random(26)
    for _ in range(200):
        size = draw.choice([2, 40, _SCAN, _SCAN + 1, 150])
        starts = sorted(draw.randint(0, draw.choice([30, 5000])) for _ in range(size))
        for position in range(size):
            first, last = reach(starts, position)
            assert set(range(first, last + 1)) - {position} == nearest(starts, position)
