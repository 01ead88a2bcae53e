"""Who may see and act on an analysis.

Reviewers (group ``reviewer`` or ``admin``, or a superuser) see every analysis and may act
on it. Anyone else sees only the analyses they submitted, read-only; an API token that is
not a reviewer's sees its pipeline's. An analysis a user
may not see does not exist for them (404), so ids reveal nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import AnonymousUser, Group, User
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, QuerySet
from django.http import Http404, HttpRequest

from analyses.models import Analysis

if TYPE_CHECKING:
    from validation.models import ApiToken

REVIEWER_GROUPS = ("reviewer", "admin")

_CACHE_ATTR = "_redline_is_reviewer"


def is_reviewer(user: User | AnonymousUser) -> bool:
    """True for superusers and members of the reviewer or admin group (cached per user
    object, so a request asks the database once)."""
    if not isinstance(user, User) or not user.is_active:
        return False
    if user.is_superuser:
        return True
    cached = getattr(user, _CACHE_ATTR, None)
    if cached is None:
        cached = user.groups.filter(name__in=REVIEWER_GROUPS).exists()
        setattr(user, _CACHE_ATTR, cached)
    return bool(cached)


def reviewer_group_exists(user_id: Any) -> Exists:
    """The group part of :func:`is_reviewer` as SQL, for the user whose id is `user_id` (an
    ``OuterRef``), so a request reads it with its user instead of asking again."""
    return Exists(Group.objects.filter(user=user_id, name__in=REVIEWER_GROUPS))


def remember_reviewer_groups(user: User, in_group: bool) -> None:
    """Record what :func:`reviewer_group_exists` read for `user`, as `is_reviewer` caches it."""
    setattr(user, _CACHE_ATTR, in_group)


def analyses_for_user(
    user: User | AnonymousUser, queryset: QuerySet[Analysis] | None = None
) -> QuerySet[Analysis]:
    """The analyses `user` may see (out of `queryset`): all for reviewers, their own
    submissions otherwise."""
    analyses = Analysis.objects.all() if queryset is None else queryset
    if not isinstance(user, User):
        return analyses.none()
    if is_reviewer(user):
        return analyses
    return analyses.filter(submitter=user)


def analyses_for_token(
    token: ApiToken, queryset: QuerySet[Analysis] | None = None
) -> QuerySet[Analysis]:
    """The analyses an API token may see: all for a reviewer's token, else its pipeline's."""
    analyses = Analysis.objects.all() if queryset is None else queryset
    if is_reviewer(token.user):
        return analyses
    return analyses.filter(pipeline_id=token.pipeline_id)


def _get_analysis_for_user(
    request: HttpRequest, pk: int, queryset: QuerySet[Analysis] | None = None
) -> Analysis:
    """The analysis `pk` if `request.user` may see it, else 404 (never 403: an outsider
    must not learn that the id exists)."""
    analysis = analyses_for_user(request.user, queryset).filter(pk=pk).first()
    if analysis is None:
        raise Http404("No such analysis.")
    return analysis


def require_reviewer(request: HttpRequest) -> None:
    """Mutations are for reviewers only; a submitter who can see an analysis gets 403."""
    if not is_reviewer(request.user):
        raise PermissionDenied("Only reviewers can do this.")
