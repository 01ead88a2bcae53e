"""Query addressed (seed §4.3) and per-goal scores (seed §8), by coverage of the topic.

The topic of a query
--------------------
A query mixes *what* is asked with *how* to answer it. Only the topic is scored:

1. **Clauses.** The query is cut into sentences, and a sentence at ``:`` ("Here's the
   question: what is …"). A clause is a *question* when it ends with ``?`` or opens
   with a question word ("what", "how", "is", "did" …).
2. **Instructions are dropped**: a clause that is not a question and opens with a verb
   of method or format ("answer in USD millions", "round to two decimal places", "base
   your judgments on …", "calculate what was asked by …", "you are an analyst", "we
   need to …"); a definition ("ROA is defined as: …", "define X as Y"); a condition
   ("if X is not a useful metric, state that"); a lead-in before the comma that opens
   the question ("According to the balance sheet, what is …"); a parenthesis that is
   not an abbreviation ("(in units of percents and round to one decimal place)"); and a
   phrase pointing at the material itself ("this earnings call transcript", "the
   following question", "the information provided in the income statement").
3. **Task words are not topics**: "summarize", "key points", "answer", "round",
   "decimal", "units", "millions" and the like.

What remains -- "What is the change in Other in 2019 from 2018?" -> ``other``, ``2019``,
``2018``; "Summarize the key points of this earnings call transcript." -> nothing -- are
the query's *topic terms*.

Terms and matching
------------------
A text's *terms* are its words, lower-cased, without stop-words, lightly stemmed
(plural ``s``/``es``/``ies``, ``ing``, ``ed``, ``ly`` and a final ``e`` removed, so
"prices", "priced" and "pricing" are all "pric"; irregular forms and their nouns as the
word they are forms of: "grew", "grown" and "growth" are "grow"), hyphenated and slashed
words also by their parts ("year-over-year", "price-to-earnings"); numbers without thousands
separators ("$1,000" -> ``1000``); fiscal years as years ("FY2017", "FY17" ->
``2017``). An abbreviation matches the words it abbreviates, either way round: "P/E"
and "price-to-earnings", "D&A" and "depreciation and amortization", "ROA" and "return
on assets" (initials of consecutive words, with or without the small words).

The report's numbers speak for it too: the evidence labels of the numbers it states
(exact or rounded) count as its terms ("$50,049 is 0.62 percent of $8,031,229" answers
"What is the percentage of capital leases in the total liabilities?" when the evidence
labels those numbers so).

Score and severity
------------------
``score = |topic terms found in the report| / |topic terms|`` (1.0 when the query has
no topic terms: "summarize this transcript" is answered by any summary of it).

* ``score >= 0.5`` (``QUERY_PASS``): addressed.
* ``0.2 <= score < 0.5`` (``QUERY_MISSED`` is 0.2), or a query of a single topic term
  that is missing: word coverage cannot tell a paraphrase ("Johnson & Johnson" for
  "JnJ") from a different answer, so it says so at ``minor`` severity
  (``query_uncertain``); an LLM judge decides this better.
* ``score < 0.2`` with two or more topic terms: the report misses what was asked --
  ``query_not_addressed``, major. At ``score == 0`` it shares no term at all with the
  query -- the seed's "answers a different question" -- which is also a RETRY signal.

On the dev data a correct answer covers at least 0.2 of its question's topic terms,
while a report paired with another question's covers less than 0.2 in three cases out
of four (and shares no term in half of them).

A query that asks about the material itself ("Summarize the key points of this earnings
call transcript.") has no topic terms; its topic is the evidence. The report is then
checked to be *about the evidence*: ``score`` is the share of the report's word terms
that occur in the evidence text (``GROUNDED`` is 0.5). Below that the report may
summarize something else: a ``minor`` ``query_uncertain`` finding, never a RETRY
signal (on the dev summaries the report's own transcript gives 0.58 or more, another
transcript 0.42 or less). Without evidence text the score is 1.0.

Goals
-----
Each goal is scored the same way and banded by ``settings.goal_pass`` (PASS, 0.75) and
``settings.goal_partial`` (PARTIAL, 0.50); below is FAIL. The aggregate follows seed
§8.2 (see :func:`goal_matrix`). A FAIL goal is a major ``goal_not_met`` finding; a
PARTIAL goal is an ``info`` finding (it does not fail the check: seed §8.2 lets a
partial answer through with a caveat). A goal that only restates the query (same topic
terms) is the query itself, not a second goal: it gets its score but no finding of its
own and no vote in the matrix beyond what the query check says: PASS when the query is
addressed, PARTIAL when that is uncertain, FAIL when the query is not addressed.

Every step is a single pass over its text (no backtracking patterns).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from validation.engine.report import format_confidence
from validation.engine.types import (
    CheckName,
    EngineSettings,
    EvidenceItem,
    Finding,
    GoalScore,
    GoalStatus,
    Severity,
)

QUERY_PASS = 0.5
QUERY_MISSED = 0.2
GROUNDED = 0.5
CHECK: CheckName = "query_addressed"

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


@dataclass(frozen=True)
class QueryResult:
    score: float
    addressed: bool
    missing_terms: list[str]
    goals: list[GoalScore] = field(default_factory=list)
    goal_decision: str | None = None
    findings: list[Finding] = field(default_factory=list)
    # True when the report shares no topic term at all with the query: a RETRY signal.
    unrelated: bool = False


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
    for match in _WORD.finditer(text.lower()):
        for term in _word_terms(match.group(0), _CAPITALISED_KEEP):
            found.setdefault(term, match.group(0).strip("'-&/"))
    return found


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
    dialog chat thread post story speech lecture bill notes minutes summary abstract
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


# ---------------------------------------------------------------- abbreviations


def _letters(abbreviation: str) -> str:
    return "".join(c for c in abbreviation.lower() if c.isalpha())


def _initials(text: str) -> tuple[str, str]:
    """Initials of every word of ``text``, and of its words that are not stop-words."""
    words = [w for w in re.split(r"[^a-z0-9]+", text.lower()) if w]
    return "".join(w[0] for w in words), "".join(w[0] for w in words if w not in _STOP_WORDS)


def _abbreviations(text: str) -> set[str]:
    letters = (_letters(match.group(0)) for match in _UPPER_ABBREVIATION.finditer(text))
    return {found for found in letters if 2 <= len(found) <= 8}


@dataclass(frozen=True)
class _Report:
    """What a report offers for matching: its terms, initials and abbreviations."""

    terms: set[str]
    initials: tuple[str, str]
    abbreviations: set[str]

    @classmethod
    def read(cls, body: str) -> _Report:
        return cls(set(terms(body)), _initials(body), _abbreviations(body))


def _covered(topic: _Topic, report: _Report) -> set[str]:
    wanted = topic.terms
    covered = {term for term in wanted if term in report.terms}
    for term, surface in wanted.items():
        letters = _letters(surface)
        short_enough = 3 <= len(letters) <= 8 or (
            len(letters) == 2 and any(c in surface for c in "/&")
        )
        if (
            term not in covered
            and surface.upper() == surface
            and short_enough
            and any(letters in initials for initials in report.initials)
        ):
            covered.add(term)  # "P/E" in the query, "price-to-earnings" in the report
    if report.abbreviations:  # "return on assets" in the query, "ROA" in the report
        words = [w.lower() for w in re.split(r"[^A-Za-z0-9]+", topic.text) if w]
        for start, first in enumerate(words):
            if first in _STOP_WORDS:
                continue
            every = content = ""
            for end in range(start, min(start + 8, len(words))):
                word = words[end]
                every += word[0]
                if word in _STOP_WORDS:
                    continue
                content += word[0]
                if end > start and report.abbreviations & {every, content}:
                    covered.update(t for w in words[start : end + 1] for t in _word_terms(w))
    return covered & set(wanted)


def _score(topic: _Topic, report: _Report) -> tuple[float, list[str]]:
    if not topic.terms:
        return 1.0, []
    covered = _covered(topic, report)
    missing = [surface for term, surface in topic.terms.items() if term not in covered]
    return round(1 - len(missing) / len(topic.terms), 4), missing


def score_terms(text: str, report_terms: set[str]) -> tuple[float, list[str]]:
    """Coverage of ``text``'s topic terms by a report's terms, and the surface forms
    missing (words only: :func:`check_query` also matches abbreviations)."""
    return _score(_topic(text), _Report(set(report_terms), ("", ""), set()))


# ---------------------------------------------------------------- goals


def goal_status(score: float, settings: EngineSettings) -> GoalStatus:
    if score >= settings.goal_pass:
        return "PASS"
    if score >= settings.goal_partial:
        return "PARTIAL"
    return "FAIL"


def goal_matrix(statuses: Sequence[GoalStatus]) -> str | None:
    """Seed §8.2. ``None`` without goals.

    ==================================  =====================
    all PASS                            ``APPROVE``
    PASS/PARTIAL only, at least one     ``APPROVE (partial)``
    PARTIAL
    exactly one FAIL, not all FAIL      ``REVISE``
    two or more FAIL, or all FAIL       ``RETRY``
    ==================================  =====================

    A single goal that fails is "all goals FAIL", hence RETRY.
    """
    if not statuses:
        return None
    failed = sum(status == "FAIL" for status in statuses)
    if failed == len(statuses) or failed >= 2:
        return "RETRY"
    if failed == 1:
        return "REVISE"
    if all(status == "PASS" for status in statuses):
        return "APPROVE"
    return "APPROVE (partial)"


# ---------------------------------------------------------------- the check


def check_query(
    body: str,
    query: str,
    goals: Sequence[str],
    settings: EngineSettings | None = None,
    evidence: Sequence[EvidenceItem] = (),
    cited: Sequence[str] = (),
) -> QueryResult:
    """Score the report against the query and each goal. `cited` are the evidence
    labels of the numbers the report states ("Capital leases", "Total liabilities"):
    "$50,049 is 0.62 percent of $8,031,229" is about what those numbers are, though
    it never names them."""
    settings = settings or EngineSettings()
    report = _Report.read(body)
    grounded = report
    if cited:
        report = _Report(
            report.terms | set(terms(" ".join(cited))), report.initials, report.abbreviations
        )
    query_topic = _topic(query)
    score, missing = _score(query_topic, report)
    findings: list[Finding] = []
    sure = len(query_topic.terms) >= 2
    unrelated = score == 0.0 and sure
    addressed = score >= QUERY_PASS
    if not query_topic.terms:
        score = _grounding(grounded, evidence)
        addressed = score >= GROUNDED
        if not addressed:
            findings.append(
                _finding(
                    "query_uncertain",
                    "minor",
                    f"the query asks about the material itself, but only {score:.0%} of "
                    "the report's words occur in the evidence; check that it is about "
                    "the evidence",
                )
            )
    elif sure and score < QUERY_MISSED:
        findings.append(
            _finding(
                "query_not_addressed",
                "major",
                f"the report covers {score:.0%} of the query's terms (missing: {_quoted(missing)})",
            )
        )
    elif not addressed:
        findings.append(
            _finding(
                "query_uncertain",
                "minor",
                f"the report covers only {score:.0%} of the query's terms (missing: "
                f"{_quoted(missing)}); it may answer in other words -- check that it "
                "addresses the query",
            )
        )

    goal_scores: list[GoalScore] = []
    for goal in goals:
        goal_topic = _topic(goal)
        goal_score, goal_missing = _score(goal_topic, report)
        restates_query = goal_topic.terms.keys() == query_topic.terms.keys()
        if restates_query:
            # The query itself: the query check above has spoken for it.
            missed = sure and score < QUERY_MISSED
            status: GoalStatus = "FAIL" if missed else "PASS" if addressed else "PARTIAL"
        else:
            status = goal_status(goal_score, settings)
        goal_scores.append(
            GoalScore(goal=goal, score=goal_score, status=status, missing_terms=goal_missing)
        )
        if status == "PASS" or restates_query:
            continue
        findings.append(
            _finding(
                "goal_not_met" if status == "FAIL" else "goal_partial",
                "major" if status == "FAIL" else "info",
                f'goal "{goal}" is {"not met" if status == "FAIL" else "only partly met"} '
                f"(score {format_confidence(goal_score)}; missing: {_quoted(goal_missing)})",
            )
        )
    return QueryResult(
        score=score,
        addressed=addressed,
        missing_terms=missing,
        goals=goal_scores,
        goal_decision=goal_matrix([goal.status for goal in goal_scores]),
        findings=findings,
        unrelated=unrelated,
    )


def _grounding(report: _Report, evidence: Sequence[EvidenceItem]) -> float:
    """Share of the report's word terms that occur in the evidence text (1.0 without
    evidence text or report words)."""
    words = {term for term in report.terms if not term[0].isdigit()}
    texts = [
        item.content if isinstance(item.content, str) else json.dumps(item.content)
        for item in evidence
    ]
    if not words or not any(texts):
        return 1.0
    found: set[str] = set()
    for text in texts:
        found.update(terms(text))
    return round(len(words & found) / len(words), 4)


def _finding(kind: str, severity: Severity, message: str) -> Finding:
    return Finding(check=CHECK, kind=kind, severity=severity, message=message, start=0, end=0)


def _quoted(words: Iterable[str], limit: int = 8) -> str:
    words = list(words)
    shown = ", ".join(f'"{word}"' for word in words[:limit])
    return shown + (f" and {len(words) - limit} more" if len(words) > limit else "")
