"""Redline's errors (the Django side's one tree), and the one place that maps them to HTTP
statuses.

    RedlineError            one user-facing sentence; whoever raised it has changed nothing
    ├── IngestError         a bundle that cannot be ingested (one message a problem)  -> 422
    │   ├── MalformedBundle     not JSON (syntax, not UTF-8), or NUL, bad Unicode     -> 400
    │   └── ExternalIdConflict  an external_id re-sent with other content             -> 409
    ├── InvalidInput        a malformed request value (not a number, out of range)    -> 400
    ├── NotAllowed          the person may not do this to that (least privilege)      -> 403
    └── DomainError         a request the current state does not allow                -> 409
        ├── IllegalTransition   the analysis (or attempt) is not in a status for it
        ├── ClaimedByOther      another reviewer holds the claim
        ├── FixNotFound         no such fix on this analysis (a view answers 404)
        ├── FixNotReviewable    applied, stale, conflicting or not on this revision
        ├── ReasonRequired      a reason or comment is needed and none was given
        ├── FindNotUnique       an edited fix's FIND no longer matches exactly once
        ├── NothingToApply      apply was asked for with no accepted fix
        ├── LoopLimitReached    the policy's loop limits allow no further revision
        ├── FixesUndecided      sign-off with undecided fixes and no override comment
        ├── RevisionChanged     a sign-off or reject names a revision that is not current
        └── DatabaseBusy        (SQLite) another writer kept the database past the retries

Views and the API answer ``http_status(error)`` with ``str(error)``. Outside the tree, on
purpose: ``analyses.models.ImmutableError`` (a programming error: a revision saved twice),
``validation.api.routes.ApiProblem`` (an HTTP refusal before any service runs: 401, 403,
413, 429) and private control-flow exceptions (a leading underscore). The engine has its
own tree (``validation.engine``); no exception class name is used twice in the code base.

The tree lives in a module of its own, outside both apps, so that ``analyses`` (which never
imports ``validation``) and ``validation`` raise errors of one tree.
"""

from __future__ import annotations

__all__ = [
    "HTTP_STATUS",
    "ClaimedByOther",
    "DatabaseBusy",
    "DomainError",
    "ExternalIdConflict",
    "FindNotUnique",
    "FixNotFound",
    "FixNotReviewable",
    "FixesUndecided",
    "IllegalTransition",
    "IngestError",
    "InvalidInput",
    "LoopLimitReached",
    "MalformedBundle",
    "NotAllowed",
    "NothingToApply",
    "ReasonRequired",
    "RedlineError",
    "RevisionChanged",
    "http_status",
]


class RedlineError(Exception):
    """A request Redline refuses. It carries one clear, user-facing sentence
    (``str(error)`` and ``error.message``); whoever raised it has changed nothing."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)

    def __str__(self) -> str:
        return self.message


class IngestError(RedlineError):
    """An analysis bundle that cannot be ingested. Nothing was written.

    `errors` holds one message per problem, each naming the field it is about
    (``evidence[0].source_ref: field required``); ``str(error)`` joins them.
    """

    def __init__(self, errors: str | list[str]) -> None:
        self.errors: list[str] = [errors] if isinstance(errors, str) else list(errors)
        super().__init__("; ".join(self.errors))


class MalformedBundle(IngestError):
    """Input that is not a JSON document (bad JSON syntax, not UTF-8), or one holding a value
    no column can store (a NUL character, an unpaired surrogate, a non-finite number)."""


class ExternalIdConflict(IngestError):
    """An external_id this submitter already used, sent again with different content."""


class DomainError(RedlineError):
    """A request the current state does not allow; nothing was changed."""


class InvalidInput(RedlineError):
    """A request value that is malformed before any state is consulted."""


class NotAllowed(RedlineError):
    """The acting person lacks the privilege for this (a token for a superuser, say)."""


class IllegalTransition(DomainError):
    """The analysis (or attempt) is not in a status that allows this action."""


class ClaimedByOther(DomainError):
    """Another reviewer holds an unexpired claim on the analysis."""


class FixNotFound(DomainError):
    """The analysis has no fix with this id (a view answers 404)."""


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


class RevisionChanged(DomainError):
    """A sign-off or reject names the revision its reviewer saw, and another is current."""


HTTP_STATUS: dict[type[RedlineError], int] = {
    IngestError: 422,
    MalformedBundle: 400,
    ExternalIdConflict: 409,
    InvalidInput: 400,
    NotAllowed: 403,
    DomainError: 409,
}


def http_status(error: RedlineError) -> int:
    """The HTTP status that answers `error`: its nearest kind's in HTTP_STATUS, else 400."""
    for kind in type(error).__mro__:
        if issubclass(kind, RedlineError) and kind in HTTP_STATUS:
            return HTTP_STATUS[kind]
    return 400
