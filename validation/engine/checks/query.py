"""Query addressed (docs/validation-phase-spec.md §4.3) and per-goal scores
(docs/validation-phase-spec.md §8), by coverage of the topic.

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
``settings.goal_partial`` (PARTIAL, 0.50); below is FAIL. The aggregate follows
docs/validation-phase-spec.md §8.2 (see :func:`goal_matrix`). A FAIL goal is a major
``goal_not_met`` finding; a PARTIAL goal is an ``info`` finding (it does not fail the check:
§8.2 lets a partial answer through with a caveat). A goal that only restates the query (same
topic terms) is the query itself, not a second goal: it gets its score but no finding of its
own and no vote in the matrix beyond what the query check says: PASS when the query is
addressed, PARTIAL when that is uncertain, FAIL when the query is not addressed.

Every step is a single pass over its text (no backtracking patterns).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from validation.engine.checks._query_words import (
    _STOP_WORDS,
    _UPPER_ABBREVIATION,
    _Topic,
    _topic,
    _word_terms,
    terms,
)
from validation.engine.checks.reading import ReportReading
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


# ---------------------------------------------------------------- abbreviations


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
    def read(cls, reading: ReportReading) -> _Report:
        body = reading.body
        return cls(set(reading.terms), _initials(body), _abbreviations(body))


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
    """docs/validation-phase-spec.md §8.2. ``None`` without goals.

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
    settings: EngineSettings,
    evidence: Sequence[EvidenceItem] = (),
    cited: Sequence[str] = (),
    *,
    reading: ReportReading | None = None,
) -> QueryResult:
    """Score the report against the query and each goal. `cited` are the evidence
    labels of the numbers the report states ("Capital leases", "Total liabilities"):
    "$50,049 is 0.62 percent of $8,031,229" is about what those numbers are, though
    it never names them. ``reading`` is the report as ``validate()`` read it."""
    report = _Report.read(reading or ReportReading(body, evidence))
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
