"""The deterministic checks that need no numbers machinery: sources, format, query.

Each check is a pure function over the report body (and the evidence or query) that
returns findings, and fixes where a fix can be proven without an LLM. A fix's
``finding_index`` is relative to the findings list of the check that made it; the
pipeline re-bases it when it merges the lists.
"""

from validation.engine.checks.format import check_format
from validation.engine.checks.query import QueryResult, check_query, goal_matrix, score_terms
from validation.engine.checks.sources import check_sources

__all__ = [
    "QueryResult",
    "check_format",
    "check_query",
    "check_sources",
    "goal_matrix",
    "score_terms",
]
