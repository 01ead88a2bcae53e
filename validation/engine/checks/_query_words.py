"""The words of a query and a report: stems, terms, the clauses of a query and the
topic it asks about (what is asked, not how it is asked).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_WORD = re.compile(r"\d[\d,]*(?:\.\d+)?|[^\W\d_][\w'&/-]*", re.UNICODE)
_STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each
    few for from further had has have having he her here hers herself him himself his how
    i if in into is it its itself just me more most my myself no nor not now of off on
    once only or other our ours ourselves out over own same she should so some such than
    that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves
    please show tell give explain describe list find provide include want need know let
    make get help us me i'm i'd i've whats what's vs versus etc e.g i.e much many among
    fy cy fiscal
    """.split()  # noqa: SIM905 - a word list reads better as text
)
# "Other" is a stop word in prose but a real line item in a question ("the change in
# Other"): capitalised inside a question it is kept.
_CAPITALISED_KEEP = frozenset({"other", "others"})
# Words about the task, the answer's form or the material, never its topic.
_TASK_WORDS = frozenset(
    """
    summarize summarise summary summaries overview highlight highlights key main points
    point takeaways brief briefly concise concisely answer answers question questions
    response respond solution round rounded rounding decimal decimals place places unit
    units format words sentences bullet bullets paragraph percents millions billions
    thousands usd eur gbp calculate calculated compute computed utilize utilizing using
    use based basing base judgment judgments judgement conclusions information details
    detail data clearly plainly shown stated outlined displayed provided primarily
    mentioned following roughly approximately approximate approximation reasonable exact
    possible figure amount quantity please kindly
    """.split()  # noqa: SIM905
)

_QUESTION_STARTS = frozenset(
    """
    what which who whom whose when where why how is are was were does do did has have had
    can could will would should shall may might roughly among
    """.split()  # noqa: SIM905
)
# A clause that opens with one of these (after "please"/"kindly") says how to answer.
_INSTRUCTION_STARTS = frozenset(
    """
    answer round base basing calculate compute use using utilize rely relying address
    approach respond assume assuming consider considering state express give provide
    keep make ensure avoid do don't be act imagine pretend think you we here here's
    your format define
    """.split()  # noqa: SIM905
)
# Verbs that open an instruction only when their object is about the answer ("give a
# response", "state that"), and a request otherwise ("give the P/E of NVO").
_ANSWER_VERBS = frozenset({"give", "provide", "state", "report", "present", "write"})
_ANSWER_OBJECTS = frozenset(
    {"response", "solution", "answer", "answers", "that", "this", "it", "brief", "summary"}
)
# A lead-in before the question's comma that names the material: "According to …, what".
_LEAD_IN_STARTS = frozenset(
    """
    according based basing by using considering taking in when relying referencing
    drawing from with utilizing looking
    """.split()  # noqa: SIM905
)
# A phrase opened by these points at the material the report was written from.
_DEICTIC = re.compile(
    r"\b(?:this|these|the following|the attached|the above|the given|the provided|"
    r"the information|the details|the data|the line items|the statements?|"
    r"the (?:income|balance|cash flow|p&l)[\w ]{0,20}?(?:statement|sheet)s?)\b"
    r"[^,.;:?!()]{0,60}?(?=[,.;:?!()]|\b(?:what|which|how|who|and|or|to|for|as|by)\b|$)",
    re.IGNORECASE,
)
_COMPOUND = re.compile(r"[-/&]+")
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+|\n+")
_PAREN = re.compile(r"\(([^()]{0,200})\)")
_ABBREVIATION = re.compile(r"^[A-Za-z][A-Za-z&/.]{0,9}$")
_FISCAL_YEAR = re.compile(r"^(?:fy|cy)'?(\d{4}|\d{2})(?:q[1-4])?$")
_UPPER_ABBREVIATION = re.compile(r"\b[A-Z][A-Za-z]*(?:[&/][A-Z]+)*[A-Z]\b|\b[A-Z](?:[&/][A-Z])+\b")


# Word forms no suffix rule reaches: irregular verbs, their nouns and comparatives, each
# read as the word it is a form of ("sales growth" is answered by "sales grew").
_WORD_FORMS = {
    form: base
    for base, forms in {
        "grow": "grew grown growth growths",
        "rise": "rose risen rising",
        "fall": "fell fallen",
        "sell": "sold sale sales",
        "buy": "bought",
        "drive": "drove driven",
        "pay": "paid",
        "spend": "spent",
        "lose": "lost losing loss losses",
        "lead": "led",
        "hold": "held",
        "strong": "stronger strongest strength",
        "weak": "weaker weakest weakness",
        "high": "higher highest",
        "low": "lower lowest",
        "large": "larger largest",
        "small": "smaller smallest",
        "big": "bigger biggest",
        "great": "greater greatest",
        "long": "longer longest length",
        "wide": "wider widest width",
        "deep": "deeper deepest depth",
        "profit": "profitable profitability",
    }.items()
    for form in forms.split()
}


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """Light, deterministic suffix stripping; good enough to compare a query with a report.

    Plural first, then one verb/adverb suffix, then a final ``e``: "earnings" -> "earn",
    "prices"/"priced"/"pricing" -> "pric", "companies" -> "company". Irregular forms are
    read as their word first ("grew" and "growth" -> "grow", "sold" and "sales" -> "sell").
    """
    word = _WORD_FORMS.get(word, word)
    if len(word) <= 3 or not word.isalpha():
        return word
    british = word.endswith(("ise", "ised", "ises", "ising", "isation", "isations"))
    for suffix, replacement in (("ies", "y"), ("sses", "ss"), ("ches", "ch"), ("shes", "sh")):
        if word.endswith(suffix):
            word = word[: -len(suffix)] + replacement
            break
    else:
        if word.endswith("xes"):
            word = word[:-2]
        elif word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 4:
            word = word[:-1]
    for suffix in ("ing", "edly", "ed", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    if british and word.endswith("is"):
        word = word[:-1] + "z"  # "realised" and "realized", "summarise" and "summarize"
    return word


def _number_term(word: str) -> str:
    term = word.replace(",", "")
    if "." in term:  # 104.20 and 104.2 are the same number
        term = term.rstrip("0").rstrip(".")
    return term


def _word_terms(word: str, keep: frozenset[str] = frozenset()) -> list[str]:
    """The terms of one lower-cased word: itself, or its parts when it is compound."""
    word = word.strip("'-&/").removesuffix("'s").removesuffix("'")
    if not word:
        return []
    if word[0].isdigit():
        return [_number_term(word)]
    year = _FISCAL_YEAR.match(word)
    if year:
        digits = year.group(1)
        return [digits if len(digits) == 4 else "20" + digits]
    if "-" in word or "/" in word or "&" in word:
        parts = [part for part in _COMPOUND.split(word) if part]
        if len(parts) > 1 and all(len(part) <= 2 for part in parts):
            return ["".join(parts)]  # "p/e", "d&a", "pp&e", "sg&a"
        if "-" in word or "/" in word:
            return [term for part in re.split(r"[-/]+", word) for term in _word_terms(part, keep)]
    if (word in _STOP_WORDS and word not in keep) or len(word) < 2:
        return []
    return [stem(word)]


def terms(text: str) -> dict[str, str]:
    """``{term: first surface form}`` of ``text``, in order of appearance."""
    found: dict[str, str] = {}
    seen: set[str] = set()  # words read already: their terms are in `found`
    for match in _WORD.finditer(text.lower()):
        word = match.group(0)
        if word in seen:
            continue
        seen.add(word)
        for term in _terms_of(word):
            found.setdefault(term, word.strip("'-&/"))
    return found


@lru_cache(maxsize=8192)
def _terms_of(word: str) -> tuple[str, ...]:
    """`_word_terms` of one word of running text, read once per word (a long report says
    the same words thousands of times)."""
    return tuple(_word_terms(word, _CAPITALISED_KEEP))


# ---------------------------------------------------------------- the topic of a query


def _clauses(query: str) -> list[str]:
    found: list[str] = []
    for sentence in _SENTENCE_END.split(query):
        if _is_definition(sentence):
            continue
        found.extend(part for part in sentence.split(":") if part.strip())
    return found


def _first_words(text: str, count: int = 2) -> list[str]:
    return [w.lower() for w in re.findall(r"[A-Za-z][\w']*", text[:80])[:count]]


def _is_definition(sentence: str) -> bool:
    lowered = sentence.lower()
    return " defined as" in lowered or _first_words(sentence, 1) == ["define"]


def _is_question(clause: str) -> bool:
    words = _first_words(clause, 1)
    return clause.rstrip().endswith("?") or (bool(words) and words[0] in _QUESTION_STARTS)


def _is_instruction(clause: str) -> bool:
    words = [w for w in _first_words(clause, 3) if w not in ("please", "kindly")]
    if not words:
        return True
    if words[0] == "if" and not clause.rstrip().endswith("?"):
        return True  # "If X is not a useful metric, then state that and explain why."
    if _is_question(clause):
        return False
    if words[0] in _ANSWER_VERBS:
        following = re.findall(r"[a-z']+", clause.lower())[1:6]
        objects = [w for w in following if w not in ("a", "an", "the", "your", "me", "us")]
        return bool(objects) and objects[0] in _ANSWER_OBJECTS
    return words[0] in _INSTRUCTION_STARTS


def _without_lead_in(clause: str) -> str:
    """ "According to the balance sheet, what is X?" -> "what is X?" """
    comma = clause.find(",")
    if comma < 0:
        return clause
    rest = clause[comma + 1 :]
    first = _first_words(clause, 1)
    if first and first[0] in _LEAD_IN_STARTS and _is_question(rest.strip()):
        return rest
    return clause


def _topic_text(query: str) -> str:
    """The query without its instructions, lead-ins, parentheses and pointers at the
    material (module docstring); an abbreviation in parentheses, "(ROA)", is kept."""
    clauses = _clauses(query)
    kept = [_without_lead_in(clause) for clause in clauses if not _is_instruction(clause)]
    # A query that is one instruction ("Calculate the P/E of NVO.") is its own topic.
    text = " . ".join(kept or clauses)

    def parenthesis(match: re.Match[str]) -> str:
        inner = match.group(1).strip()
        is_abbreviation = _ABBREVIATION.match(inner) and sum(c.isupper() for c in inner) >= 2
        return f" {inner} " if is_abbreviation else " "

    text = _PAREN.sub(parenthesis, text)
    return _DEICTIC.sub(lambda m: m.group(0) if _deictic_is_topic(m.group(0)) else " ", text)


def _deictic_is_topic(phrase: str) -> bool:
    """ "these segments" is a topic; "this earnings call transcript", "the information
    provided in the balance sheet" and "the following question" are the material."""
    words = re.findall(r"[a-z0-9&]+", phrase.lower())
    content = [w for w in words if w not in _STOP_WORDS and w not in _DEICTIC_WORDS]
    if content and stem(content[-1]) in _MATERIAL:
        # "this news article", "this sales call transcript": a kind of material
        return not all(
            stem(w) in _MATERIAL or stem(w) in _GENRES or w in _TASK_WORDS for w in content
        )
    return not all(stem(w) in _MATERIAL or w in _TASK_WORDS for w in content)


_DEICTIC_WORDS = frozenset({"following", "attached", "above", "given", "provided"})


# Nouns naming the material a report is written from.
_MATERIAL = frozenset(
    stem(word)
    for word in """
    transcript call earnings document text article passage report filing filings 10k 10q
    8k statement statements sheet context table excerpt source sources conversation
    meeting presentation release question questions answer chart page pages income
    balance cash flow flows financial position p&l line lines item items annual quarterly
    podcast episode email mail message messages letter memo interview paper dialogue
    dialog chat thread post story speech lecture bill notes minutes summary abstract news
    """.split()  # noqa: SIM905
)
# Words that say which kind of material a material noun is ("this *news* article", "this
# *sales* call"); on their own ("these sales") they are a topic.
_GENRES = frozenset(
    stem(word)
    for word in """
    news sales scientific research press phone video radio conference board customer
    client support team podcast group investor analyst
    """.split()  # noqa: SIM905
)
_TASK_STEMS = frozenset(stem(word) for word in _TASK_WORDS)


@dataclass(frozen=True)
class _Topic:
    terms: dict[str, str]  # term -> surface form
    text: str


def _topic(query: str) -> _Topic:
    text = _topic_text(query)
    found: dict[str, str] = {}
    for match in _WORD.finditer(text):
        surface = match.group(0)
        lowered = surface.lower()
        keep = _CAPITALISED_KEEP if surface[:1].isupper() else frozenset()
        if lowered.strip("'-&/").removesuffix("'s") in _TASK_WORDS:
            continue
        for term in _word_terms(lowered, keep):
            if term not in _TASK_STEMS:
                found.setdefault(term, surface.strip("'-&/"))
    return _Topic(found, text)


def topic_terms(query: str) -> dict[str, str]:
    """``{term: surface form}`` of what ``query`` asks about (module docstring)."""
    return _topic(query).terms
