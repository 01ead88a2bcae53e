"""Numbers that are part of a name, not amounts: "Boeing 737", "Windows 11", "the 737 MAX",
and the next numbers of a list of names ("the Boeing 747, 777 and 767"). The numeric
check (`_check.analyze`) skips them before matching.
"""

from __future__ import annotations

import re

from validation.engine.checks.numeric._lexicon import CURRENCY_CODES
from validation.engine.checks.numeric._types import NumberMention


def model_name(body: str, mention: NumberMention) -> bool:
    """A bare integer right after a capitalized name inside a sentence ("Boeing 737",
    "Windows 11", "Model 3"): part of a name, not an amount. Not at a sentence start,
    and never a number with separators, decimals, a unit or a scale."""
    if not mention.is_plain_integer() or mention.text != body[mention.start : mention.end]:
        return False
    if _NAME_AFTER.match(body, mention.end, mention.end + 12) is not None:
        return True  # "the 737 MAX", "an A320neo": a model's name goes on after it
    start = mention.start
    if start < 3 or body[start - 1] != " ":
        return False
    word_end = start - 1
    word_start = word_end
    while word_start > 0 and body[word_start - 1].isalpha() and word_end - word_start < 30:
        word_start -= 1
    word = body[word_start:word_end]
    if len(word) < 2 or not word[0].isupper() or word.isupper():
        return False
    before = body[max(0, word_start - 2) : word_start]
    sentence_start = word_start == 0 or before.endswith((". ", "\n")) or before in ("\n", ":")
    return not sentence_start and mention.end < len(body) and not body[mention.end].isdigit()


def continues_names(body: str, last_end: int, mention: NumberMention) -> bool:
    """The next number of a list of names: "the Boeing 747, 777 and 767"."""
    return (
        mention.is_plain_integer()
        and mention.text == body[mention.start : mention.end]
        and _NAME_LIST_GAP.fullmatch(body, last_end, mention.start) is not None
    )


# An all-capitals word right after a bare integer names a model ("737 MAX"), unless it is
# a unit, a currency or a scale.
_NAME_AFTER = re.compile(
    rf"[ ](?!(?:{CURRENCY_CODES}|BPS|BP|PP|MM|BN|MN|KM|KG|MW|GW|GB|TB|MB|AM|PM|YOY|QOQ|TTM)\b)"
    r"[A-Z]{3,}\b"
)
_NAME_LIST_GAP = re.compile(r",?[ \t]+(?:and[ \t]+|or[ \t]+)?|,|/")
