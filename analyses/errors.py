"""The root of Redline's errors, and the analyses app's own.

The root lives here, in the app every other part may import, so that the two apps' errors
share it without validation's ever being imported by analyses. ``validation.errors`` adds
the domain and input errors and maps every kind to its HTTP status, in one place.
"""

from __future__ import annotations


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
