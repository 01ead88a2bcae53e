"""What can go wrong between a pipeline and Redline, each with the exit code of
``redline submit``.

    ClientError        base; ``exit_code`` and one sentence
    ├── BadInput       the bundle or an option cannot be used (nothing was sent)     -> 2
    ├── Refused        the server answered no (401, 400, 409, 413, 422, a redirect)  -> 2
    ├── TimedOut       the outcome did not come within the timeout                   -> 3
    └── Unreachable    no answer from the server (connection, DNS, 5xx after retries) -> 4

An analysis that fails validation or is rejected is not an error: it is an outcome
(``SubmitResult.outcome``), exit code 1.
"""

from __future__ import annotations


class ClientError(Exception):
    """Something stopped ``submit``; ``str(error)`` says what, in one sentence."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class BadInput(ClientError):
    """The bundle file or an option is unusable; nothing was sent."""

    exit_code = 2


class Refused(ClientError):
    """The server refused the request: ``status`` and its message (and ``field``)."""

    exit_code = 2

    def __init__(self, status: int, message: str, field: str | None = None) -> None:
        self.status = status
        self.field = field
        super().__init__(f"the server refused the request ({status}): {message}")


class TimedOut(ClientError):
    """No final answer within the timeout; the analysis goes on on the server."""

    exit_code = 3

    def __init__(self, message: str, analysis_id: int | None = None) -> None:
        self.analysis_id = analysis_id
        super().__init__(message)


class Unreachable(ClientError):
    """The server could not be reached (or kept failing) after the retries."""

    exit_code = 4
