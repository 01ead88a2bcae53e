"""Business logic of validation and review: every write goes through here.

Views, tasks, the API, the admin and the commands call these functions; none of them holds
business logic. Every function is keyword-only. Those that write run in one transaction and,
where they act on an analysis, lock its row first so that two reviewers (or a reviewer and a
worker) never interleave. A refused action raises a ``redline_errors.DomainError`` and
changes nothing.

One module per aggregate, re-exported here:

- ``submissions``: a new analysis from a bundle, a new draft, new evidence.
- ``jobs``: queue, run and sweep validation attempts (the task <-> service pair).
- ``backlog``: every queued attempt's wake-up sent again after the broker lost its messages.
- ``outcomes``: record a run's verdict or error; loop control (docs/spec.md §7).
- ``claims``: who is reviewing an analysis.
- ``review``: fix review (accept, reject, edit, undo, bulk accept).
- ``authoring``: a reviewer's own fix.
- ``apply``: apply the accepted fixes into the next revision.
- ``signoff``: sign-off and reject.
- ``pipelines``: pipelines and their policies (shown and set from text).
- ``webhooks``: a pipeline's webhook endpoints, their events and deliveries.
- ``tokens``: REST API tokens (least privilege, audited); ``rates``: their rate limit.
- ``_shared``: the analysis lock, status rules and the audit record they all use.
"""

from redline_errors import FixNotFound
from validation.services.apply import ApplyOutcome, fixes_apply
from validation.services.authoring import MAX_FIND_CHARS, fix_author
from validation.services.backlog import attempts_resend_queued
from validation.services.claims import analysis_claim, analysis_claim_next, analysis_release
from validation.services.jobs import (
    MAX_RUNS,
    analysis_revalidate,
    attempt_bundle,
    attempt_enqueue,
    attempt_run,
    engine_settings,
    sweep_stale_attempts,
)
from validation.services.outcomes import attempt_record_verdict
from validation.services.pipelines import (
    pipeline_create,
    pipeline_get,
    policy_of,
    policy_rows,
    policy_set,
    policy_shown,
)
from validation.services.rates import api_token_throttle, rate_cache_state
from validation.services.review import (
    MAX_REPLACE_CHARS,
    fix_accept,
    fix_edit,
    fix_reject,
    fix_undo,
    fixes_bulk_accept,
)
from validation.services.signoff import analysis_reject, analysis_sign_off
from validation.services.submissions import (
    analysis_submit,
    analysis_submit_draft,
    analysis_submit_evidence,
)
from validation.services.tokens import (
    api_token_authenticate,
    api_token_create,
    api_token_may_manage,
    api_token_revoke,
    api_token_subjects,
    api_user_create,
)

__all__ = [
    "MAX_FIND_CHARS",
    "MAX_REPLACE_CHARS",
    "MAX_RUNS",
    "ApplyOutcome",
    "FixNotFound",
    "analysis_claim",
    "analysis_claim_next",
    "analysis_reject",
    "analysis_release",
    "analysis_revalidate",
    "analysis_sign_off",
    "analysis_submit",
    "analysis_submit_draft",
    "analysis_submit_evidence",
    "api_token_authenticate",
    "api_token_create",
    "api_token_may_manage",
    "api_token_revoke",
    "api_token_subjects",
    "api_token_throttle",
    "api_user_create",
    "attempt_bundle",
    "attempt_enqueue",
    "attempt_record_verdict",
    "attempt_run",
    "attempts_resend_queued",
    "engine_settings",
    "fix_accept",
    "fix_author",
    "fix_edit",
    "fix_reject",
    "fix_undo",
    "fixes_apply",
    "fixes_bulk_accept",
    "pipeline_create",
    "pipeline_get",
    "policy_of",
    "policy_rows",
    "policy_set",
    "policy_shown",
    "rate_cache_state",
    "sweep_stale_attempts",
]
