"""A query that is an instruction: "Summarize the following news within 60 words",
"Write a short profile of the hotel in three sentences", "List four risks".

Such a query names a task and a form, not a topic: what it is about is the material it
points at. It is judged by what it asks of the answer's form:

- the *limits it states*: a number of words, sentences, bullets or items ("in about 90
  words", "within 60 words", "in no more than three sentences", "a 100-word summary").
  A report longer than the limit by more than a fifth (``OVER_LIMIT``) gets a minor
  finding; shorter is never held against it.
- the *number of items* a list asks for ("List three risks"): a report whose list has
  fewer items gets a minor finding (a list written as prose has no items to count).

These findings are minor: they lower the confidence, never fail the query check alone.
The stated limits are taken out of the query before its topic words are read ("90"
and "words" are not what the report must be about).

Every pattern here is a single pass without nested quantifiers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from validation.engine.checks.numeric import WORD_VALUES

OVER_LIMIT = 1.2  # a report may run a fifth over a stated length before it is too long

# Verbs that open a task rather than a question.
_TASK_VERBS = frozenset(
    """
    summarize summarise write describe list outline draft compose prepare produce
    create give provide explain recap condense paraphrase rewrite assess evaluate analyze
    analyse discuss review examine cover
    """.split()  # noqa: SIM905 - a word list reads better as text
)
# The counts an instruction asks for in words: up to twelve, fifteen and twenty.
_NUMBER_WORDS = {
    word: value for word, value in WORD_VALUES.items() if value <= 12 or value in (15, 20)
}
_COUNT = r"(\d{1,4}|" + "|".join(_NUMBER_WORDS) + r")"
_QUALIFIER = (
    r"(?:(?:in|within|under|of|to|using|with)[ ]+)?"
    r"(?:(about|around|roughly|approximately|some|at most|no more than|not more than|"
    r"fewer than|less than|up to|under|max(?:imum)?(?: of)?)[ ]+)?"
)
_UNIT = r"(words?|sentences?|bullets?|bullet points?|paragraphs?|items?|points?|lines?)"
_LIMIT = re.compile(
    r"(?i)\b" + _QUALIFIER + _COUNT + r"[ -]" + _UNIT + r"\b(?:[ ]+or[ ]+(?:less|fewer))?"
)
_LIST_COUNT = re.compile(
    r"(?i)^\W*(?:please[ ]+)?(?:list|name|give|identify)[ ]+(?:the[ ]+)?"
    r"(?:top[ ]+)?" + _COUNT + r"\b"
)
_FIRST_WORD = re.compile(r"[A-Za-z]+")
_FORM_WORDS = re.compile(r"(?i)\b(?:short|brief|concise|quick|succinct)\b")
_WORDS = re.compile(r"[^\W_]+(?:['\u2019.,-][^\W_]+)*")


@dataclass(frozen=True)
class Limit:
    """A stated length: ``count`` words (or sentences, items), as ``written``."""

    count: int
    unit: str  # "words", "sentences" or "items"
    written: str


@dataclass(frozen=True)
class Instruction:
    """What an instruction asks of the answer's form, and its text without that."""

    verb: str
    limits: tuple[Limit, ...]
    items: int | None  # "List three risks": 3
    topic_text: str  # the query without its stated limits


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBER_WORDS[word.lower()]


def _unit(word: str) -> str:
    word = word.lower()
    if word.startswith("word"):
        return "words"
    if word.startswith("sentence"):
        return "sentences"
    if word.startswith("paragraph"):
        return "paragraphs"
    return "items"


def read_instruction(query: str) -> Instruction | None:
    """The instruction ``query`` is, or None when it opens with no task verb."""
    first = _FIRST_WORD.search(query)
    if first is not None and first.group(0).lower() in ("please", "kindly"):
        first = _FIRST_WORD.search(query, first.end())
    if first is None or first.group(0).lower() not in _TASK_VERBS:
        return None
    verb = first.group(0).lower()
    limits = tuple(
        Limit(_count(match.group(2)), _unit(match.group(3)), match.group(0).strip())
        for match in _LIMIT.finditer(query)
    )
    listed = _LIST_COUNT.match(query)
    items = _count(listed.group(1)) if listed else None
    # The topic is what is left once the task (its verb, the count of a list, the
    # form's adjectives) and the stated limits are taken out.
    rest = query[listed.end() if listed else first.end() :]
    topic_text = _FORM_WORDS.sub(" ", _LIMIT.sub(" ", rest))
    return Instruction(verb, limits, items, topic_text)


def word_count(text: str) -> int:
    """Words as a reader counts them ("1,500-plus" and "don't" are one each)."""
    return sum(1 for _ in _WORDS.finditer(text))


def over_limit(limit: Limit, words: int, sentences: int, items: int) -> int | None:
    """How many words (sentences, items) the report has when that is more than the
    limit allows, else None."""
    have = {"words": words, "sentences": sentences, "items": items}.get(limit.unit)
    if have is None or have <= limit.count * OVER_LIMIT:
        return None
    return have
