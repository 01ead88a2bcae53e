"""Loop state (docs/spec.md §7): how many REVISE and RETRY loops an
analysis has used and has left.

A loop is a new revision made to answer the validator: applying accepted fixes uses a
REVISE loop, a new draft or new evidence uses a RETRY loop. The first validation uses none.
When the validator asks for one more loop than the policy allows, no new revision can be
made: the analysis stays in review and a person signs it off (with a comment) or rejects it.
"""

from __future__ import annotations

from dataclasses import dataclass

from analyses.models import Analysis
from validation.models import Attempt, Policy

REVISE = "REVISE"
RETRY = "RETRY"


@dataclass(frozen=True)
class LoopState:
    revise_used: int
    retry_used: int
    revise_limit: int
    retry_limit: int
    total_limit: int

    @classmethod
    def of(cls, analysis: Analysis, policy: Policy) -> LoopState:
        return cls(
            revise_used=analysis.revise_loops,
            retry_used=analysis.retry_loops,
            revise_limit=policy.max_revise_loops,
            retry_limit=policy.max_retry_loops,
            total_limit=policy.max_total_loops,
        )

    @property
    def total_used(self) -> int:
        return self.revise_used + self.retry_used

    def remaining(self, kind: str) -> int:
        """How many more loops of `kind` (REVISE or RETRY) the policy allows."""
        used, limit = (
            (self.revise_used, self.revise_limit)
            if kind == REVISE
            else (self.retry_used, self.retry_limit)
        )
        return max(0, min(limit - used, self.total_limit - self.total_used))

    @property
    def revise_remaining(self) -> int:
        return self.remaining(REVISE)

    @property
    def retry_remaining(self) -> int:
        return self.remaining(RETRY)

    @property
    def total_remaining(self) -> int:
        return max(0, self.total_limit - self.total_used)

    def limit_reason(self, kind: str) -> str:
        """Why no further loop of `kind` can be made, or "" when one can."""
        if self.remaining(kind):
            return ""
        used, limit = (
            (self.revise_used, self.revise_limit)
            if kind == REVISE
            else (self.retry_used, self.retry_limit)
        )
        if used >= limit:
            return f"{kind} loop limit reached ({used} of {limit} used)"
        return f"Total loop limit reached ({self.total_used} of {self.total_limit} used)"

    def last_loop_warning(self, kind: str) -> str:
        """Said before the action that uses the last loop of `kind`, else ""."""
        if self.remaining(kind) != 1:
            return ""
        used, limit = (
            (self.revise_used, self.revise_limit)
            if kind == REVISE
            else (self.retry_used, self.retry_limit)
        )
        which = (
            f"the last {kind} loop ({used + 1} of {limit})"
            if limit - used == 1
            else f"the last loop in all ({self.total_used + 1} of {self.total_limit})"
        )
        return (
            f"This uses {which}: if the validator still asks for changes, no further "
            "revision can be made, and a person signs off or rejects."
        )

    def blocked_reason(self, decision: str) -> str:
        """At a limit: why the loop the validator's `decision` asks for cannot be made."""
        if decision == Attempt.Decision.REVISE:
            reason = self.limit_reason(REVISE)
            still = "the validator still asks for revision"
        elif decision == Attempt.Decision.RETRY:
            reason = self.limit_reason(RETRY)
            still = "the evidence or approach is still wrong"
        else:
            return ""
        if not reason:
            return ""
        return (
            f"{reason}; {still}. No new revision can be made: sign off with a comment, or "
            "reject the analysis."
        )
