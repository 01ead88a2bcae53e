"""Spans of a revision body that a fix can safely FIND.

A fix is applied by plain string replacement (docs/spec.md §11.3),
so its FIND text must occur exactly once in the body. `widen_to_unique` grows a
span word by word until it does.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# A FIND longer than this stops being "surgical"; beyond it we widen to the whole
# remaining text only as a last resort (the full body is always unique).
_MAX_STEPS = 400
# Characters searched by the exact staircase walk (candidates x body length) before a
# bisection takes over: on a long body of repeated text the walk would search the body
# hundreds of times per fix; bisection does it a few dozen times.
_STAIRCASE_WORK = 4_000_000


def occurs_once(body: str, text: str) -> bool:
    """True when `text` occurs exactly once in `body`, counting overlapping
    occurrences ("aa" occurs twice in "aaa")."""
    if not text:
        return False
    first = body.find(text)
    if first < 0:
        return False
    return body.find(text, first + 1) < 0


def _left_bounds(body: str, start: int, low: int = 0) -> list[int]:
    """Start positions reached by stepping one word at a time to the left of
    `start` (first entry is `start` itself, last is `low`)."""
    bounds = [start]
    if start > low:
        # The words to the left, read right to left: each step skips the spaces, then
        # the word before them (a regular expression over the reversed text, not a
        # character loop).
        before = body[low:start][::-1]
        for step in _STEP.finditer(before):
            if len(bounds) > _MAX_STEPS:
                break
            bounds.append(start - step.end())
    if bounds[-1] != low:
        bounds.append(low)
    return bounds


def _right_bounds(body: str, end: int, high: int | None = None) -> list[int]:
    """End positions reached by stepping one word at a time to the right of
    `end` (first entry is `end` itself, last is `high`, by default len(body))."""
    size = len(body) if high is None else high
    bounds = [end]
    for step in _STEP.finditer(body, end, size):
        if len(bounds) > _MAX_STEPS:
            break
        bounds.append(step.end())
    if bounds[-1] != size:
        bounds.append(size)
    return bounds


# One step: the spaces, then the word after them (`str.isspace` and `\s` agree).
_STEP = re.compile(r"\s*\S+")


def widen_to_unique(
    body: str, start: int, end: int, *, low: int = 0, high: int | None = None
) -> tuple[str, int]:
    """Return `(find, offset)`: the shortest text containing `body[start:end]`,
    widened whole words at a time to the left and/or right, that occurs exactly
    once in `body` (overlapping occurrences count); `offset` is where it starts.

    Raises ValueError for an empty or out-of-range span.
    """
    if not 0 <= start < end <= len(body):
        raise ValueError(f"span [{start}, {end}) is empty or outside the body (length {len(body)})")
    if occurs_once(body, body[start:end]):
        return body[start:end], start

    # Each candidate costs a search of the whole body; `low`/`high` (a window already known
    # to be unique) bound how many candidates there are, so repeated text stays cheap.
    lefts = _left_bounds(body, start, low)
    rights = _right_bounds(body, end, high)
    if len(body) * (len(lefts) + len(rights)) > _STAIRCASE_WORK:
        return _widen_by_bisection(body, lefts, rights)
    # Uniqueness is monotonic: a text containing a unique text is unique too.
    # So the minimal right step for each left step never grows as the left step
    # grows; a staircase walk finds the shortest candidate in O(len + len) checks.
    best: tuple[int, int, int] | None = None  # (length, left, right)
    j = len(rights) - 1
    for left in lefts:
        if not occurs_once(body, body[left : rights[j]]):
            continue  # only before the first hit: j is still the widest right step
        while j > 0 and occurs_once(body, body[left : rights[j - 1]]):
            j -= 1
        length = rights[j] - left
        if best is None or length < best[0]:
            best = (length, left, rights[j])
        if j == 0:
            break
    if best is None:  # pragma: no cover - the whole body is always unique
        raise ValueError("no unique text contains this span")
    _, left, right = best
    return body[left:right], left


def _widen_by_bisection(body: str, lefts: list[int], rights: list[int]) -> tuple[str, int]:
    """A unique widening found with O(log) searches: the fewest words added on both sides,
    then each side trimmed back as far as uniqueness allows. Not always the shortest text
    (the staircase walk finds that), but always unique and near it."""

    def unique(left: int, right: int) -> bool:
        return occurs_once(body, body[left:right])

    def first_true(count: int, test: Callable[[int], bool]) -> int:
        low, high = 0, count - 1  # test(count - 1) holds
        while low < high:
            middle = (low + high) // 2
            if test(middle):
                high = middle
            else:
                low = middle + 1
        return low

    steps = max(len(lefts), len(rights))

    def both(k: int) -> bool:
        return unique(lefts[min(k, len(lefts) - 1)], rights[min(k, len(rights) - 1)])

    k = first_true(steps, both)
    left_index, right_index = min(k, len(lefts) - 1), min(k, len(rights) - 1)
    right_index = first_true(right_index + 1, lambda j: unique(lefts[left_index], rights[j]))
    left_index = first_true(left_index + 1, lambda i: unique(lefts[i], rights[right_index]))
    left, right = lefts[left_index], rights[right_index]
    return body[left:right], left
