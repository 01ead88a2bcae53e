"""The derived search's bound (validation/engine/checks/numeric/_derive_bound.py): every
candidate the search's first look enumerates lies within it, so skipping that look when the
bound says no changes no answer; and it does say no when nothing is near."""

from __future__ import annotations

import random

import pytest

from validation.engine.checks.numeric._derive_bound import changes_may_hit, may_hit
from validation.engine.checks.numeric._derive_candidates import candidates
from validation.engine.checks.numeric._derive_pool import BESIDE, NAMED, NEAR, STATED, Operand

KINDS = ("amount", "multiple", "points", "percent")


def _pool(rng: random.Random, size: int) -> list[Operand]:
    operands = []
    for n in range(size):
        percent = rng.random() < 0.3
        scale = rng.choice((1.0, 1e3, 1e6, 1e9))
        value = round(rng.uniform(-50, 900), rng.choice((0, 1, 2))) * (1.0 if percent else scale)
        row = rng.choice((-1, 0, 1, 2))
        operands.append(
            Operand(
                value=value or 1.0,
                text=rng.choice((f"v{n}", f"${value / scale:.2f}")),  # a price, or not
                percent=percent,
                digits=1.0 if percent else scale,
                strength=rng.choice((STATED, NEAR, NAMED, BESIDE)),
                row=row,
                column=rng.randint(0, 9) if row >= 0 else -1,
                item=row,
                unit=rng.choice(("", "$", "%", "x")),
            )
        )
    return operands


@pytest.mark.parametrize("seed", range(40))
def test_every_candidate_the_search_enumerates_is_within_the_bound(seed: int) -> None:
    rng = random.Random(seed)
    operands = _pool(rng, rng.randint(2, 14))
    periods = rng.choice(([], [2], [3, 5], [4]))
    for kind in KINDS:
        for direction in (-1, 0, 1):
            for candidate in candidates(operands, kind, periods, direction):
                value = candidate[1]
                if not value:
                    continue
                # The narrowest window a written number has: its value to 9 digits.
                width = abs(value) * 1e-9
                assert may_hit(operands, kind, [(value, width)], periods), (kind, candidate)
                # Just inside the window's edge, on either side.
                for edge in (value - width / 2, value + width / 2):
                    assert may_hit(operands, kind, [(edge, width)], periods), (kind, candidate)


def test_the_bound_says_no_when_nothing_lands_near() -> None:
    # Costs of 120 and 480 (thousands): their difference, sum, average and ratio are
    # 360, 600, 300, 4 and 0.25; a claimed 7,777 is none of them.
    operands = [
        Operand(120e3, "120", False, 1e3, STATED, -1, -1),
        Operand(480e3, "480", False, 1e3, STATED, -1, -1),
    ]
    assert not may_hit(operands, "amount", [(7_777e3, 1e3)], [])
    assert may_hit(operands, "amount", [(360e3, 1e3)], [])
    assert may_hit(operands, "amount", [(4.0, 0.1)], [])
    assert may_hit(operands, "multiple", [(4.0, 0.1)], [])
    assert not may_hit(operands, "multiple", [(3.0, 0.1)], [])
    # A share (25%), a change (300% up, 75% down), a compound rate over two years (100%).
    for rate in (25.0, 300.0, 75.0, 100.0):
        assert may_hit(operands, "percent", [(rate, 0.1)], [2]), rate
    assert not may_hit(operands, "percent", [(41.0, 0.1)], [2])


def test_an_extreme_value_leaves_the_answer_to_the_search() -> None:
    operands = [
        Operand(1e300, "a", False, 1.0, STATED, -1, -1),
        Operand(1e-300, "b", False, 1.0, STATED, -1, -1),
    ]
    assert may_hit(operands, "percent", [(5e9, 1.0)], [90])


@pytest.mark.parametrize("seed", range(40))
def test_every_change_of_rows_the_second_look_adds_is_within_its_bound(seed: int) -> None:
    # The second look (compound) adds the changes of whole rows to the first look's
    # candidates; `explain` skips it when neither bound says maybe.
    rng = random.Random(seed)
    operands = _pool(rng, rng.randint(2, 14))
    for kind in ("percent", "multiple"):
        first_values = {found[1:4] for found in candidates(operands, kind, [], 0)}
        for candidate in candidates(operands, kind, [], 0, compound=True):
            value = candidate[1]
            if not value or candidate[1:4] in first_values:
                continue
            width = abs(value) * 1e-9
            for target in (value, value - width / 2, value + width / 2):
                assert changes_may_hit(operands, kind, [(target, width)]), (kind, candidate)


def test_with_no_change_of_rows_near_the_second_look_is_skipped() -> None:
    # Two rows of one item over two periods: sales 200 -> 260 (a step of 60) and costs
    # 150 -> 180 (a step of 30). Their steps' ratios are 2 and 0.5: 200% and 50%.
    def cell(value: float, row: int, column: int) -> Operand:
        return Operand(value, f"{value:g}", False, 1.0, NAMED, row, column, item=0)

    operands = [cell(260, 0, 0), cell(200, 0, 1), cell(180, 1, 0), cell(150, 1, 1)]
    assert changes_may_hit(operands, "percent", [(200.0, 0.1)])
    assert changes_may_hit(operands, "percent", [(50.0, 0.1)])
    assert not changes_may_hit(operands, "percent", [(37.0, 0.1)])
    assert changes_may_hit(operands, "multiple", [(2.0, 0.1)])
