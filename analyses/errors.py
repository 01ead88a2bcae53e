"""Domain errors of the analyses app."""

from __future__ import annotations


class IngestError(Exception):
    """An analysis bundle that cannot be ingested. Nothing was written.

    `errors` holds one message per problem, each naming the field it is about
    (``evidence[0].source_ref: field required``); ``str(error)`` joins them.
    """

    def __init__(self, errors: str | list[str]) -> None:
        self.errors: list[str] = [errors] if isinstance(errors, str) else list(errors)
        super().__init__("; ".join(self.errors))
