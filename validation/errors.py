"""Redline's errors, and the one place that maps them to HTTP statuses.

    RedlineError            (analyses.errors) one user-facing sentence; nothing was changed
    ├── IngestError         (analyses.errors) a bundle that cannot be ingested       -> 422
    │   ├── MalformedBundle     not JSON (syntax, not UTF-8), or NUL, bad Unicode    -> 400
    │   └── ExternalIdConflict  an external_id re-sent with other content            -> 409
    ├── InputError          a malformed request value (not a number, out of range)   -> 400
    ├── NotAllowed          the person may not do this to that (least privilege)     -> 403
    └── DomainError         a request the current state does not allow               -> 409
        ├── IllegalTransition, ClaimedByOther, FixNotReviewable,
        ├── ReasonRequired, FindNotUnique, NothingToApply
        └── DatabaseBusy    (SQLite) another writer kept the database past the retries

Views and the API answer ``http_status(error)`` with ``str(error)``; a service that raises
one has changed nothing.
"""

from __future__ import annotations

from analyses.errors import ExternalIdConflict, IngestError, MalformedBundle, RedlineError

__all__ = [
    "ClaimedByOther",
    "DatabaseBusy",
    "DomainError",
    "ExternalIdConflict",
    "FindNotUnique",
    "FixNotReviewable",
    "IllegalTransition",
    "IngestError",
    "InputError",
    "MalformedBundle",
    "NotAllowed",
    "NothingToApply",
    "ReasonRequired",
    "RedlineError",
    "http_status",
]


class DomainError(RedlineError):
    """A request the current state does not allow; nothing was changed."""


class InputError(RedlineError):
    """A request value that is malformed before any state is consulted."""


class NotAllowed(RedlineError):
    """The acting person lacks the privilege for this (a token for a superuser, say)."""


class IllegalTransition(DomainError):
    """The analysis (or attempt) is not in a status that allows this action."""


class ClaimedByOther(DomainError):
    """Another reviewer holds an unexpired claim on the analysis."""


class FixNotReviewable(DomainError):
    """The fix is not on the current revision, was already applied, conflicts or is stale."""


class ReasonRequired(DomainError):
    """The action needs a reason or comment, and none was given."""


class FindNotUnique(DomainError):
    """An edited fix whose FIND no longer matches exactly once in its revision."""


class NothingToApply(DomainError):
    """Apply was asked for, but no fix is accepted."""


class DatabaseBusy(DomainError):
    """Another writer kept the (SQLite) database locked through every retry; try again."""


class LoopLimitReached(DomainError):
    """A new revision was asked for, but the policy's loop limits allow no further loop."""


class FixesUndecided(DomainError):
    """Sign-off was asked for with fixes nobody decided, and no override comment."""


HTTP_STATUS: dict[type[RedlineError], int] = {
    IngestError: 422,
    MalformedBundle: 400,
    ExternalIdConflict: 409,
    InputError: 400,
    NotAllowed: 403,
    DomainError: 409,
}


def http_status(error: RedlineError) -> int:
    """The HTTP status that answers `error`: its nearest kind's in HTTP_STATUS, else 400."""
    for kind in type(error).__mro__:
        if issubclass(kind, RedlineError) and kind in HTTP_STATUS:
            return HTTP_STATUS[kind]
    return 400
