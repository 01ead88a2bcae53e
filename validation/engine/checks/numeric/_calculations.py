"""Calculations written in prose, read as a small graph.

A report is read as a *calculation graph*: an **expression** is a run of numbers
joined by operators (``(13,535 + 13,264 + 12,913) / 3``; label words may stand
between them: ``Operating Cash Flow $15.5B - CapEx $0.7B``); a **link** ties an
expression to its result, in any order and in the usual phrasings::

    a - b = c            c, calculated as a - b        a - b, which equals c
    c = a + b            (a - b) / b x 100% = c%       a / b = 0.54 or 54%
    = a + b              (continuation lines of a chain)
    \n= c

Chains are read side by side: in ``E1 = E2 = c`` each neighbouring pair is one
check. Every side is parsed by a real (precedence-climbing) parser over the
numbers the extractor found and the operator text between them - not by one
pattern per phrasing - and evaluated exactly with fractions.

The module only *reads*: it returns :class:`Link` objects (an expression, its
result mention, whether the link is approximate) and :class:`Expression` trees
whose values, and the values of their sub-expressions, the numeric check uses to
judge results and to accept operands "computed earlier in the report".

Linear: every gap between two neighbouring numbers is classified once, and a
gap longer than ``MAX_GAP`` characters is never a link or an operator.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

from validation.engine.checks.numeric._expressions import _Parser
from validation.engine.checks.numeric._types import Expression, Link, NumberMention

MAX_GAP = 120  # characters between two numbers of one expression or link
MAX_OPERANDS = 40  # a longer run of operators is not a calculation someone wrote
MAX_LABEL_WORDS = 4  # label words allowed between two operands ("- CapEx")


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that end a calculation: prose connectives, not labels of an operand.
_STOP_WORDS = _wordset(
    """and or to from up down by was were is are of in for with than vs versus while but
    a an the which that this these those it its at on as per each if then so"""
)
# Words that may stand in a link between an expression and its result.
_LINK_WORDS = _wordset(
    """which that is equals equal equaling equalling to approximately approx about roughly
    around gives giving yields yielding we get gets results resulting result in calculated
    computed derived obtained given determined as by i.e ie so thus therefore hence comes
    amounts amounting of this the total value figure answer be would will"""
)
_LINK_VERBS = _wordset(
    """equals equal equaling equalling is gives giving yields yielding get gets results
    resulting calculated computed derived obtained given determined comes amounts
    amounting"""
)
_APPROX_WORDS = _wordset("approximately approx about roughly around")
_ALTERNATE = frozenset(("or", "i.e", "ie", "that is", "which is", "or about", "or roughly"))
_WORD_OPERATORS = (
    ("multiplied by", "*"),
    ("divided by", "/"),
    ("times", "*"),
    ("plus", "+"),
    ("minus", "-"),
)
_OPERATOR_CHARS = str.maketrans(
    {
        "\u00d7": "*",  # multiplication sign
        "\u00f7": "/",  # ÷
        "\u2212": "-",  # minus sign
        "\u2013": "-",  # en dash
        "\u2014": "-",  # em dash
        "\u00b7": "*",  # middle dot
        "\u22c5": "*",  # dot operator
        "[": "(",
        "]": ")",
        "{": "(",
        "}": ")",
    }
)
_ALLOWED = frozenset("+-*/^() \t")
_LETTERS_AND_DOTS = re.compile(r"[^\W\d_]|\.")


@dataclass(slots=True)
class _Side:
    indices: list[int] = field(default_factory=list)
    operators: list[str] = field(default_factory=list)  # len(indices) + 1: lead, gaps, trail


@dataclass(frozen=True, slots=True)
class _Gap:
    kind: str  # "op", "link", "alt", "none"
    operators: str = ""  # for "op"
    trail: str = ""  # closing parentheses that end the previous side
    lead: str = ""  # opening parentheses / minus that start the next side
    approx: bool = False
    labelled: bool = False  # a label stands before the "=" ("\nEBITDA = $1,832m")


@dataclass(frozen=True, slots=True)
class Reading:
    """What `read` finds: the links, and every expression (linked or not)."""

    links: list[Link]
    expressions: list[Expression]


def read(body: str, mentions: Sequence[NumberMention]) -> Reading:
    """Every link of `body` between a written expression and its result, and every
    expression written (an unlinked one still computes values a later step may use)."""
    if len(mentions) < 2:
        return Reading([], [])
    gaps = [_classify(body, mentions, i) for i in range(len(mentions) - 1)]
    sides: list[_Side] = []
    links_between: list[_Gap] = []  # the gap after each side (last one: "none")
    side = _Side([0], [_lead(body, mentions, 0)])
    for i, gap in enumerate(gaps):
        if gap.kind == "op" and len(side.indices) < MAX_OPERANDS:
            side.operators.append(gap.operators)
            side.indices.append(i + 1)
            continue
        linked = gap.kind in ("link", "alt")
        side.operators.append(gap.trail if linked else _trail(body, mentions, i))
        sides.append(side)
        links_between.append(gap)
        lead = gap.lead if gap.kind in ("link", "alt") else _lead(body, mentions, i + 1)
        side = _Side([i + 1], [lead])
    side.operators.append(_trail(body, mentions, len(mentions) - 1))
    sides.append(side)
    links_between.append(_Gap("none"))

    parsed = [_parse_side(mentions, s) for s in sides]
    expressions = [expression for expression in parsed if expression is not None]
    links: list[Link] = []
    for position in range(len(sides) - 1):
        gap = links_between[position]
        if gap.kind not in ("link", "alt"):
            continue
        left, right = parsed[position], parsed[position + 1]
        left_single = len(sides[position].indices) == 1
        right_single = len(sides[position + 1].indices) == 1
        if gap.kind == "alt":
            # "0.54 or 54%": the second is another reading of the first one's expression.
            if left_single and right_single:
                for link in reversed(links):
                    if link.result == sides[position].indices[0]:
                        links.append(Link(link.expression, sides[position + 1].indices[0], True))
                        break
            continue
        if left is not None and right_single:
            links.append(Link(left, sides[position + 1].indices[0], gap.approx))
        elif gap.labelled:
            continue  # "Revenue: $12,868 million Margin = a / b": a label, not a result
        elif right is not None and left_single:
            # "the price of $134.22 is (152.40 - 134.22) / 152.40 * 100 = 11.93%": an
            # expression that states its own result makes the number before it its
            # subject, not its result.
            own_result = (
                position + 2 < len(sides)
                and links_between[position + 1].kind == "link"
                and len(sides[position + 2].indices) == 1
            )
            if (
                not own_result
                and not _operator_before(body, mentions[sides[position].indices[0]].start)
                and not _operator_after(body, mentions[sides[position + 1].indices[-1]].end)
            ):
                links.append(Link(right, sides[position].indices[0], gap.approx))
        elif left is not None and right is not None:
            # "a / b = c * 100 = 65%": the left side computes the first operand of the right.
            first = right.indices[0]
            links.append(Link(left, first, gap.approx, strict=False))
    return Reading(links, expressions)


# ------------------------------------------------------------------ gaps


def _operator_before(body: str, start: int) -> bool:
    """An operator just before a number ("... / 2 = ..."): it ends an expression
    that could not be read, it is no result."""
    position = start - 1
    floor = max(0, start - 8)
    while position >= floor and body[position] in " \t":
        position -= 1
    return position >= floor and body[position] in "+-*/^\u00d7\u00f7\u2212xX"


def _operator_after(body: str, end: int) -> bool:
    """An operator right after an expression's last number (closing parentheses
    aside): "(2.5 + 2.4 + 3.2) / (2019 - 2017 + 1)" goes on with numbers that could
    not be read (years), so what was read is not the whole expression."""
    position = end
    ceiling = min(len(body), end + 8)
    while position < ceiling and body[position] in " \t)":
        position += 1
    return position < ceiling and body[position] in "+-*/^\u00d7\u00f7\u2212"


def _normalize(text: str) -> str:
    text = text.translate(_OPERATOR_CHARS).lower()
    if "x" in text:
        text = _times_x(text)
    for word, operator in _WORD_OPERATORS:
        if word in text:
            text = text.replace(word, f" {operator} ")
    return text.replace("**", "^")


def _times_x(text: str) -> str:
    """A standalone "x" between numbers is a multiplication sign."""
    out = []
    for position, char in enumerate(text):
        if char == "x":
            before = text[position - 1] if position else " "
            after = text[position + 1] if position + 1 < len(text) else " "
            if not before.isalpha() and not after.isalpha():
                out.append("*")
                continue
        out.append(char)
    return "".join(out)


def _words(text: str) -> list[str]:
    return [word for word in (match.strip(".") for match in _WORD.findall(text)) if word]


_WORD = re.compile(r"[^\W\d_][^\W\d_.]*(?:\.[^\W\d_]+)*\.?")
_DIGIT = re.compile(r"\d")


def _classify(body: str, mentions: Sequence[NumberMention], i: int) -> _Gap:
    first, second = mentions[i], mentions[i + 1]
    if second.start - first.end > MAX_GAP:
        return _Gap("none")
    if first.in_range and second.in_range:
        return _Gap("none")  # "4-6%", "$80 million to $100 million"
    return _gap_of(body[first.end : second.start])


@lru_cache(maxsize=4096)
def _gap_of(raw: str) -> _Gap:
    """What the text between two numbers is. Pure in that text, and reports repeat a
    few gaps (" + ", " = ", ", "), so it is read once per distinct gap."""
    if _DIGIT.search(raw):
        return _Gap("none")
    text = _normalize(raw)
    operator = _operator_gap(text)
    if operator is not None:
        return _Gap("op", operators=operator)
    return _link_gap(text)


@lru_cache(maxsize=8192)
def exact(value: Decimal) -> Fraction:
    """A written number as an exact fraction, once per value: Fraction(Decimal) costs
    microseconds, and a report reuses its numbers in every calculation."""
    return Fraction(value)


def clear_cache() -> None:
    """Forget remembered gaps (for cold-start benchmarks)."""
    _gap_of.cache_clear()
    exact.cache_clear()


def _operator_gap(text: str) -> str | None:
    if "\n" in text or len(text) > 60:
        return None
    words = _words(text)
    if len(words) > MAX_LABEL_WORDS or any(word in _STOP_WORDS for word in words):
        return None
    symbols = _LETTERS_AND_DOTS.sub("", text)
    if not set(symbols) <= _ALLOWED:
        return None
    operators = "".join(symbols.split())
    if not any(char in "+-*/^" for char in operators.replace("(", "").replace(")", "")):
        return None
    return operators


def _link_gap(text: str) -> _Gap:
    # Closing parentheses right after the previous number end its side; opening ones
    # (and a minus) right before the next number start the next side.
    stripped = text.strip(" \t")
    trail_length = len(stripped) - len(stripped.lstrip(")"))
    trail = stripped[:trail_length]
    middle = stripped[trail_length:]
    lead_text = middle.rstrip(" \t")
    lead_length = len(lead_text) - len(lead_text.rstrip("(-"))
    lead = lead_text[len(lead_text) - lead_length :].replace("-", "")
    middle = lead_text[: len(lead_text) - lead_length]
    equals = "=" in middle or "\u2248" in middle or "~" in middle
    approx = "\u2248" in middle or "~" in middle
    labelled = False
    if "\n" in middle and not equals:
        return _Gap("none")
    if equals:
        # "... * 100 EBITDA Margin ≈ 16.52%", "...\nUnadjusted EBITDA = $1,832 million":
        # the label of a chain's next line may stand before its "=".
        sign = min(
            position
            for position in (middle.find("="), middle.find("\u2248"), middle.find("~"))
            if position >= 0
        )
        label = _words(middle[:sign])
        if label and len(label) <= MAX_LABEL_WORDS and not (set(label) & _STOP_WORDS):
            middle = middle[sign:]
            labelled = True
    symbols = set(middle) - set(" \t\n,;:()=\u2248~.")
    words = _words(middle)
    if any(not (char.isalpha()) for char in symbols):
        return _Gap("none")
    phrase = " ".join(words)
    if not equals and phrase in _ALTERNATE and "\n" not in middle:
        return _Gap("alt", trail=trail, lead=lead)
    if len(words) > 6 or any(word not in _LINK_WORDS for word in words):
        return _Gap("none")
    if not equals and not any(word in _LINK_VERBS for word in words):
        return _Gap("none")
    approx = approx or any(word in _APPROX_WORDS for word in words)
    return _Gap("link", trail=trail, lead=lead, approx=approx, labelled=labelled)


def _lead(body: str, mentions: Sequence[NumberMention], i: int) -> str:
    """Opening parentheses just before mention `i` ("((85,123 - ...")."""
    start = mentions[i].start
    low = max(0, start - 12, mentions[i - 1].end if i else 0)
    text = body[low:start].translate(_OPERATOR_CHARS)
    opened = ""
    for char in reversed(text):
        if char == "(":
            opened += "("
        elif char not in " \t":
            break
    return opened


def _trail(body: str, mentions: Sequence[NumberMention], i: int) -> str:
    """Closing parentheses just after mention `i`."""
    end = mentions[i].end
    high = min(len(body), end + 12)
    if i + 1 < len(mentions):
        high = min(high, mentions[i + 1].start)
    closed = ""
    for char in body[end:high].translate(_OPERATOR_CHARS):
        if char == ")":
            closed += ")"
        elif char not in " \t":
            break
    return closed


# ------------------------------------------------------------------ parsing


def _parse_side(mentions: Sequence[NumberMention], side: _Side) -> Expression | None:
    """The side's expression tree, or None for a single number or what does not parse."""
    if len(side.indices) < 2:
        return None
    tokens: list[str | int] = []
    for position, index in enumerate(side.indices):
        tokens.extend(side.operators[position])
        tokens.append(index)
    tokens.extend(side.operators[-1])
    tokens = _balanced(tokens)
    parser = _Parser(tokens)
    tree = parser.parse()
    if tree is None:
        return None
    indices = tuple(sorted(tree.operands()))
    if len(indices) < 2:
        return None
    return Expression(
        tree=tree,
        indices=indices,
        start=mentions[indices[0]].start,
        end=mentions[indices[-1]].end,
    )


def _balanced(tokens: list[str | int]) -> list[str | int]:
    """Drop parentheses that cannot match: leading "(" and trailing ")" first."""
    depth = 0
    kept: list[str | int] = []
    for token in tokens:
        if token == ")":
            if depth == 0:
                continue
            depth -= 1
        elif token == "(":
            depth += 1
        kept.append(token)
    if depth:
        # Remove unmatched "(" from the left.
        out: list[str | int] = []
        unmatched = depth
        closers_after = [0] * (len(kept) + 1)
        for position in range(len(kept) - 1, -1, -1):
            closers_after[position] = closers_after[position + 1] + (kept[position] == ")")
        opens_so_far = 0
        for position, token in enumerate(kept):
            if token == "(" and unmatched and opens_so_far >= closers_after[position]:
                unmatched -= 1
                continue
            if token == "(":
                opens_so_far += 1
            out.append(token)
        kept = out
    return kept
