"""The finding the checks of one notation each (times, years, counts in words, ranks,
lengths of time) write about a number of the report: major, on the number's span."""

from __future__ import annotations

from validation.engine.types import CheckName, Finding


def span_finding(
    check: CheckName, kind: str, message: str, start: int, end: int, text: str
) -> Finding:
    """A major finding of `check` on the report's `text` at [start, end)."""
    return Finding(
        check=check,
        kind=kind,
        severity="major",
        message=message,
        start=start,
        end=end,
        text=text,
    )
