"""A result whose sentence names evidence rows is no slip of a reading over other rows'
figures stated elsewhere in the report. "Accumulated depreciation ... now equals about
84.0% of gross cost" is the depreciation line over the gross line; the land and leasehold
figures of the bullets above it give 84.2 % by chance, and that reading may be shown as a
candidate, never proposed as a fix."""

from __future__ import annotations

from tests.engine.reports import check, fixes

FIXED_ASSETS = """\
| (in thousands) | 2024 | 2023 |
|---|---|---|
| Land | $540 | $540 |
| Machinery and equipment | 1,410 | 1,322 |
| Office and computer equipment | 4,906 | 4,870 |
| Leasehold improvements | 641 | 1,052 |
| Property and equipment, gross | $7,497 | $7,784 |
| Less accumulated depreciation and amortization | (6,298) | (6,275) |
| Property and equipment, net | $1,199 | $1,509 |
"""

BULLETS = (
    "- *Land* was carried at $540 thousand in both years.\n"
    "- *Leasehold improvements* dropped to $641 thousand.\n"
    "- *Accumulated depreciation and amortization* was almost flat, so it now equals "
    "about {share} of gross cost.\n"
)


def test_no_fix_from_other_rows_figures_on_a_share_its_words_name() -> None:
    # 6,298 / 7,497 = 84.0 %; 540 / 641 = 84.2 % is a coincidence of two other lines.
    verdict = check(BULLETS.format(share="84.0%"), ("table", FIXED_ASSETS))
    assert "84.0%" not in " ".join(fixes(verdict))
