"""Spans of a revision body that a fix can safely FIND.

A fix is applied by plain string replacement (seed: validator-driven refinement),
so its FIND text must occur exactly once in the body. `widen_to_unique` grows a
span word by word until it does.
"""

from __future__ import annotations

# A FIND longer than this stops being "surgical"; beyond it we widen to the whole
# remaining text only as a last resort (the full body is always unique).
_MAX_STEPS = 400


def occurs_once(body: str, text: str) -> bool:
    """True when `text` occurs exactly once in `body`, counting overlapping
    occurrences ("aa" occurs twice in "aaa")."""
    if not text:
        return False
    first = body.find(text)
    if first < 0:
        return False
    return body.find(text, first + 1) < 0


def _left_bounds(body: str, start: int) -> list[int]:
    """Start positions reached by stepping one word at a time to the left of
    `start` (first entry is `start` itself, last is 0)."""
    bounds = [start]
    pos = start
    while pos > 0 and len(bounds) <= _MAX_STEPS:
        while pos > 0 and body[pos - 1].isspace():
            pos -= 1
        while pos > 0 and not body[pos - 1].isspace():
            pos -= 1
        bounds.append(pos)
    if bounds[-1] != 0:
        bounds.append(0)
    return bounds


def _right_bounds(body: str, end: int) -> list[int]:
    """End positions reached by stepping one word at a time to the right of
    `end` (first entry is `end` itself, last is len(body))."""
    size = len(body)
    bounds = [end]
    pos = end
    while pos < size and len(bounds) <= _MAX_STEPS:
        while pos < size and body[pos].isspace():
            pos += 1
        while pos < size and not body[pos].isspace():
            pos += 1
        bounds.append(pos)
    if bounds[-1] != size:
        bounds.append(size)
    return bounds


def widen_to_unique(body: str, start: int, end: int) -> tuple[str, int]:
    """Return `(find, offset)`: the shortest text containing `body[start:end]`,
    widened whole words at a time to the left and/or right, that occurs exactly
    once in `body` (overlapping occurrences count); `offset` is where it starts.

    Raises ValueError for an empty or out-of-range span.
    """
    if not 0 <= start < end <= len(body):
        raise ValueError(f"span [{start}, {end}) is empty or outside the body (length {len(body)})")
    if occurs_once(body, body[start:end]):
        return body[start:end], start

    lefts = _left_bounds(body, start)
    rights = _right_bounds(body, end)
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
