"""Write a number the way the report writes it.

A fix replaces only the digits of a mention, so the currency symbol, the scale
suffix, the percent sign, the sign style and the surrounding text stay exactly
as the author wrote them; the digits keep the precision shown and the
thousands separators.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal

from validation.engine.checks.numeric._types import NumberMention

_MAX_EXTRA_DECIMALS = 6


def format_digits(value: Decimal, *, decimals: int, separators: bool) -> str:
    """|value| rounded half-up to `decimals` places, with optional "," separators."""
    rounded = _rounded(abs(value), decimals)
    text = format(rounded, f",.{decimals}f" if separators else f".{decimals}f")
    return text


def _rounded(value: Decimal, decimals: int) -> Decimal:
    """`value` rounded half-up to `decimals` places, exactly, however many digits that takes.

    The default context holds 28 significant digits, and ``quantize`` refuses a result longer
    than its context (``InvalidOperation``): "$42.999999999999999999999999999B" shows 29. The
    context here is as precise as the result needs (its integer digits plus `decimals`)."""
    context = Context(prec=max(28, value.adjusted() + decimals + 3), rounding=ROUND_HALF_UP)
    return value.quantize(Decimal(1).scaleb(-decimals, context), context=context)


def digits_like(mention: NumberMention, written: Decimal) -> str:
    """`written` (a magnitude in the mention's own units, e.g. 14.8 for "$14.8B")
    as digits in the mention's style. Keeps the precision shown, unless that
    would round a non-zero value to zero."""
    decimals = mention.decimals
    if written != 0:
        while decimals < mention.decimals + _MAX_EXTRA_DECIMALS and (
            _rounded(abs(written), decimals) == 0
        ):
            decimals += 1
    integer_digits = len(str(int(abs(mention.written))))
    separators = mention.separators or (integer_digits <= 3 and abs(written) >= 10_000)
    return format_digits(written, decimals=decimals, separators=separators)


def replace_digits(mention: NumberMention, written: Decimal) -> str:
    """The mention's text with its digits replaced by `written` in the same format:
    `$15.8B` -> `$14.8B`, `10.96%` -> `11.11%`, `(1,234)` -> `(1,243)`."""
    offset = mention.num_start - mention.start
    length = mention.num_end - mention.num_start
    text = mention.text
    return text[:offset] + digits_like(mention, written) + text[offset + length :]


def replace_scale(mention: NumberMention, scale: Decimal) -> str:
    """The mention's text with its scale word for `scale`, in the same style:
    "-$12.6 thousand" -> "-$12.6 million", "$47.5M" -> "$47.5B"."""
    text = mention.text
    word = mention.scale_text
    if not word:
        return text
    at = text.rfind(word)
    if at < 0:
        return text
    replacement = _SCALE_NAMES.get((word.lower(), scale))
    if replacement is None:
        return text
    if word.isupper() or (len(word) == 1 and word.isupper()):
        replacement = replacement.upper()
    elif word[:1].isupper():
        replacement = replacement.capitalize()
    return text[:at] + replacement + text[at + len(word) :]


_WORDS_BY_STYLE = {
    "long": {3: "thousand", 6: "million", 9: "billion", 12: "trillion"},
    "plural": {3: "thousands", 6: "millions", 9: "billions", 12: "trillions"},
    "letter": {3: "k", 6: "m", 9: "b", 12: "t"},
    "short": {3: "k", 6: "mn", 9: "bn", 12: "tn"},
}
_STYLE_OF = {
    "thousand": "long",
    "million": "long",
    "billion": "long",
    "trillion": "long",
    "thousands": "plural",
    "millions": "plural",
    "billions": "plural",
    "trillions": "plural",
    "k": "letter",
    "m": "letter",
    "b": "letter",
    "t": "letter",
    "mn": "short",
    "bn": "short",
    "tn": "short",
}
_SCALE_NAMES: dict[tuple[str, Decimal], str] = {
    (word, Decimal(10) ** power): name
    for word, style in _STYLE_OF.items()
    for power, name in _WORDS_BY_STYLE[style].items()
}


# ------------------------------------------------------------------ rendering


@dataclass(frozen=True, slots=True)
class NumberStyle:
    """How to write a number, for rendering and round-trip tests.

    `suffix` is one of SUFFIX_SCALES (scale words and letters), "%", "x", " bps",
    " percentage points" or "". `negative` is "-", "-" or "()"."""

    currency: str = ""
    currency_after: bool = False
    suffix: str = ""
    decimals: int = 0
    separators: bool = False
    negative: str = "-"


SUFFIX_SCALES: dict[str, Decimal] = {
    "": Decimal(1),
    "K": Decimal(1000),
    "k": Decimal(1000),
    " thousand": Decimal(1000),
    "M": Decimal(10**6),
    "m": Decimal(10**6),
    "mm": Decimal(10**6),
    "mn": Decimal(10**6),
    " million": Decimal(10**6),
    "B": Decimal(10**9),
    "bn": Decimal(10**9),
    " billion": Decimal(10**9),
    "T": Decimal(10**12),
    " trillion": Decimal(10**12),
}
SUFFIX_UNITS: dict[str, str] = {"%": "%", "x": "x", " bps": "bp", " percentage points": "pp"}


def render(written: Decimal, style: NumberStyle) -> str:
    """`written` (the number as shown, before its scale) in `style`."""
    digits = format_digits(written, decimals=style.decimals, separators=style.separators)
    core = digits + style.suffix
    if style.currency and style.currency_after:
        core = f"{core} {style.currency}"
    elif style.currency:
        core = style.currency + core
    if written < 0 and Decimal(digits.replace(",", "")) != 0:
        if style.negative == "()":
            return f"({core})"
        return style.negative + core
    return core
