"""The year a figure's own words name: right after it ("$816.5 for fiscal 2018") or, in its
own clause, right before it ("fiscal 2019's $13,871 million", "the 2019 balance of $12.8
billion"). Either is read only when nothing between the year and the figure could make
the year another thing's: another number, a clause's end, or a word that compares or
moves between periods ("from 2018 ...", "than in 2018", "2018 to 2019", "by"). Reads a
few dozen characters on each side: linear.
"""

from __future__ import annotations

import re

from validation.engine.checks.numeric._layout_years import _YEAR, short_fiscal_years

_AFTER = 40  # characters after a figure read for the period its words name
_BEFORE = 40  # characters before it
_STOPS = (",", ";", ":", "(", ")", "\n", "|", ". ")
_NUMBER = re.compile(r"[0-9][0-9,.]*[0-9]|[0-9]")


def year_after(body: str, end: int) -> int | None:
    """The one year the words right after a figure name, before any other number or a
    clause's end ("$816.5 for fiscal 2018."; not "... June 30, 2019")."""
    window = short_fiscal_years(body[end : end + _AFTER])  # "in F19" is in 2019
    for stop in _STOPS:
        at = window.find(stop)
        if at >= 0:
            window = window[:at]
    for number in _NUMBER.finditer(window):  # "178 in 2018 and 178 in 2017": up to the next
        if not _YEAR.fullmatch(number.group()):
            window = window[: number.start()]
            break
    years = _YEAR.findall(window)
    if len(years) != 1 or any(c.isdigit() for c in _YEAR.sub("", window)):
        return None
    if _ANOTHER_TIME.search(window.split(years[0], 1)[0]):
        return None  # "$0.43 before the fiscal 2019 rebound": the year is the rebound's
    return int(years[0])


def year_before(body: str, start: int) -> int | None:
    """The one year the words of a figure's own clause name right before it ("fiscal
    2019's $13,871 million", "the 2019 balance of $12.8 billion"), with no other number,
    and no word of comparison or change, between them."""
    window = short_fiscal_years(body[max(0, start - _BEFORE) : start])
    for stop in _STOPS:
        at = window.rfind(stop)
        if at >= 0:
            window = window[at + len(stop) :]
    years = list(_YEAR.finditer(window))
    if len(years) != 1:
        return None
    between = window[years[0].end() :]
    if any(c.isdigit() for c in window[: years[0].start()] + between):
        return None
    if _BLOCKING.search(between) or _BLOCKING_BEFORE.search(window[: years[0].start()]):
        return None
    return int(years[0].group())


# Words between a year and a figure that make the year another period's or a span's end.
_BLOCKING = re.compile(
    r"(?i)\b(?:from|than|against|versus|vs|compared|since|after|before|prior|previous|"
    r"earlier|ago|last|by|to|through|until|till|and|or|between|over|per|up|down|rose|fell|"
    r"grew|increased|decreased|declined|gained|dropped|climbed|change|growth|average|"
    r"averaged|total|cumulative|guidance|target|forecast|expected|estimate|plan|budget)\b"
)
# Words between a figure and a year after it that set the year apart from the figure's.
_ANOTHER_TIME = re.compile(
    r"(?i)\b(?:from|than|against|versus|vs|compared|since|after|before|until|till|ahead|"
    r"prior|preceding|previous|earlier|ago)\b"
)
# Words before the year that make it a comparison's base or a span's start.
_BLOCKING_BEFORE = re.compile(
    r"(?i)\b(?:from|than|against|versus|vs|compared(?: with| to)?|since|between|over|"
    r"through|after|before)\s*(?:fiscal\s*|fy\s*)?$"
)
