"""redline_client: send a report bundle to a Redline server and follow it to its outcome.

Standard library only (no Django, no Celery, nothing of the server's), so that a pipeline
can install and import it on its own::

    from redline_client import submit

    result = submit("bundle.json", url="https://redline.example", token="...", wait=True)
    if result.approved is not None:
        print(result.approved.body)

``submit`` answers a ``SubmitResult`` (dataclasses all the way down) or raises a
``ClientError`` whose ``exit_code`` is what ``redline submit`` exits with: 2 for bad input
or a refusal, 3 for a timeout, 4 when the server cannot be reached.
"""

from redline_client.client import (
    DEFAULT_TIMEOUT_S,
    DEFAULT_WAIT_TIMEOUT_S,
    Client,
    submit,
)
from redline_client.errors import (
    BadInput,
    ClientError,
    Refused,
    TimedOut,
    Unreachable,
)
from redline_client.results import (
    AnalysisState,
    Approved,
    Finding,
    FixProposal,
    SubmitResult,
    Verdict,
)

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "DEFAULT_WAIT_TIMEOUT_S",
    "AnalysisState",
    "Approved",
    "BadInput",
    "Client",
    "ClientError",
    "Finding",
    "FixProposal",
    "Refused",
    "SubmitResult",
    "TimedOut",
    "Unreachable",
    "Verdict",
    "submit",
]
