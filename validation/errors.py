"""Domain errors of validation and review.

Every error carries one clear, user-facing sentence (``str(error)`` and ``error.message``)
that a view can show as it is. A service that raises one has changed nothing.
"""

from __future__ import annotations


class DomainError(Exception):
    """A request the current state does not allow; nothing was changed."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)

    def __str__(self) -> str:
        return self.message


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
