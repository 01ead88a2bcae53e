"""Query addressed (seed §4.3) and per-goal scores (seed §8), by term coverage.

A text's *terms* are its words, lower-cased, without stop-words and instruction words
("what", "show", "please"…), lightly stemmed (plural ``s``/``es``/``ies``, ``ing``,
``ed``, ``ly`` and a final ``e`` removed, so "prices", "priced" and "pricing" are all
"pric"), plus its numbers with thousands separators dropped ("$1,000" -> ``1000``).
Years are terms too: a query about 2024 should be answered about 2024.

``score = |terms of the query found in the report| / |terms of the query|`` (1.0 for a
query with no terms). ``query_addressed`` fails when the score is below 0.5
(``QUERY_PASS``): the report must cover at least half of what was asked. A score of 0 --
the report shares no term with the query -- is the seed's "answers a different
question" and is flagged as a RETRY signal.

Each goal is scored the same way and banded by ``settings.goal_pass`` (PASS, 0.75) and
``settings.goal_partial`` (PARTIAL, 0.50); below is FAIL. The aggregate follows seed
§8.2 (see :func:`goal_matrix`). A FAIL goal is a major ``query_addressed`` finding; a
PARTIAL goal is an ``info`` finding (it does not fail the check: seed §8.2 lets a
partial answer through with a caveat).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from validation.engine.types import EngineSettings, Finding, GoalScore, GoalStatus

QUERY_PASS = 0.5
CHECK = "query_addressed"

_WORD = re.compile(r"\d[\d,]*(?:\.\d+)?|[^\W\d_][\w'&-]*", re.UNICODE)
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
    make get help us me i'm i'd i've whats what's vs versus etc e.g i.e
    """.split()  # noqa: SIM905 - a word list reads better as text
)


@dataclass(frozen=True)
class QueryResult:
    score: float
    addressed: bool
    missing_terms: list[str]
    goals: list[GoalScore] = field(default_factory=list)
    goal_decision: str | None = None
    findings: list[Finding] = field(default_factory=list)
    # True when the report shares no term at all with the query: a RETRY signal.
    unrelated: bool = False


def stem(word: str) -> str:
    """Light, deterministic suffix stripping; good enough to compare a query with a report.

    Plural first, then one verb/adverb suffix, then a final ``e``: "earnings" -> "earn",
    "prices"/"priced"/"pricing" -> "pric", "companies" -> "company".
    """
    if len(word) <= 3 or not word.isalpha():
        return word
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
    return word


def terms(text: str) -> dict[str, str]:
    """``{term: first surface form}`` of ``text``, in order of appearance."""
    found: dict[str, str] = {}
    for match in _WORD.finditer(text.lower()):
        word = match.group(0).strip("'-&")
        if not word:
            continue
        if word[0].isdigit():
            term = word.replace(",", "")
            if "." in term:  # 104.20 and 104.2 are the same number
                term = term.rstrip("0").rstrip(".")
        else:
            word = word.removesuffix("'s")
            if word in _STOP_WORDS or len(word) < 2:
                continue
            term = stem(word)
        found.setdefault(term, word)
    return found


def score_terms(text: str, report_terms: set[str]) -> tuple[float, list[str]]:
    """Coverage of ``text``'s terms by ``report_terms``, and the surface forms missing."""
    wanted = terms(text)
    if not wanted:
        return 1.0, []
    missing = [surface for term, surface in wanted.items() if term not in report_terms]
    return round(1 - len(missing) / len(wanted), 4), missing


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


def check_query(
    body: str, query: str, goals: Sequence[str], settings: EngineSettings | None = None
) -> QueryResult:
    settings = settings or EngineSettings()
    report_terms = set(terms(body))
    score, missing = score_terms(query, report_terms)
    findings: list[Finding] = []
    addressed = score >= QUERY_PASS
    unrelated = score == 0.0
    if not addressed:
        findings.append(
            Finding(
                check=CHECK,
                kind="query_not_addressed",
                severity="major",
                message=(
                    f"the report covers {score:.0%} of the query's terms "
                    f"(missing: {_quoted(missing)})"
                ),
                start=0,
                end=0,
            )
        )

    goal_scores: list[GoalScore] = []
    for goal in goals:
        goal_score, goal_missing = score_terms(goal, report_terms)
        status = goal_status(goal_score, settings)
        goal_scores.append(
            GoalScore(goal=goal, score=goal_score, status=status, missing_terms=goal_missing)
        )
        if status == "PASS":
            continue
        findings.append(
            Finding(
                check=CHECK,
                kind="goal_not_met" if status == "FAIL" else "goal_partial",
                severity="major" if status == "FAIL" else "info",
                message=(
                    f'goal "{goal}" is {"not met" if status == "FAIL" else "only partly met"} '
                    f"(score {goal_score:.2f}; missing: {_quoted(goal_missing)})"
                ),
                start=0,
                end=0,
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


def _quoted(words: Sequence[str], limit: int = 8) -> str:
    shown = ", ".join(f'"{word}"' for word in words[:limit])
    return shown + (f" and {len(words) - limit} more" if len(words) > limit else "")
