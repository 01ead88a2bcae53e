"""Sessions that read their user (validation.models.sessions, project.auth): one query for
the session, its user and the reviewer check, and every check Django makes of a session's
user still made."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests.factories import UserFactory
from tests.validation.web.builders import make_review
from tests.validation.web.conftest import HX
from validation.models import Fix, Session

PASSWORD = "pw-for-tests-only"


@pytest.fixture(autouse=True)
def fast_password_hasher(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def logged_in(username: str) -> Client:
    client = Client()
    response = client.post("/accounts/login/", {"username": username, "password": PASSWORD})
    assert response.status_code == 302, response.status_code
    return client


def on_the_queue(client: Client) -> bool:
    response = client.get(reverse("queue"))
    if response.status_code == 302:
        assert response["Location"].startswith(reverse("login"))
        return False
    assert response.status_code == 200
    return True


def test_a_login_stores_the_user_beside_its_session(reviewer: Any) -> None:
    client = logged_in("dana")

    session = Session.objects.get(session_key=client.cookies["sessionid"].value)
    assert session.user_id == reviewer.pk
    assert session.get_decoded()["_auth_user_id"] == str(reviewer.pk)
    assert on_the_queue(client)


def test_an_accept_reads_the_session_user_and_reviewer_check_in_one_query(
    reviewer: Any, django_assert_max_num_queries: Any
) -> None:
    review = make_review()
    fix = review.fixes[0]
    client = logged_in("dana")
    accept = reverse("fix_accept", args=[review.analysis.pk, fix.pk])
    undo = reverse("fix_undo", args=[review.analysis.pk, fix.pk])
    assert client.post(accept, **HX).status_code == 200  # claims the analysis
    assert client.post(undo, **HX).status_code == 200

    # The session with its user and reviewer check, BEGIN, the locked read, the fix's
    # UPDATE, its audit INSERT, COMMIT (PostgreSQL's BEGIN and COMMIT are not logged).
    with django_assert_max_num_queries(6), CaptureQueriesContext(connection) as queries:
        response = client.post(accept, **HX)

    assert response.status_code == 200
    fix.refresh_from_db()
    assert fix.status == Fix.Status.ACCEPTED and fix.reviewer_id == reviewer.pk
    sql = [query["sql"] for query in queries.captured_queries]
    assert "validation_session" in sql[0] and "auth_user_groups" in sql[0]
    assert not any('FROM "auth_user"' in text for text in sql[1:])


def test_an_expired_session_opens_nothing(reviewer: Any) -> None:
    client = logged_in("dana")
    key = client.cookies["sessionid"].value
    Session.objects.filter(session_key=key).update(expire_date=timezone.now())

    assert not on_the_queue(client)


def test_a_password_change_ends_the_other_sessions(reviewer: Any) -> None:
    client = logged_in("dana")
    reviewer.set_password("another-password-for-tests")
    reviewer.save()

    assert not on_the_queue(client)


def test_a_deactivated_user_is_logged_out(reviewer: Any) -> None:
    client = logged_in("dana")
    reviewer.is_active = False
    reviewer.save()

    assert not on_the_queue(client)


def test_a_user_taken_out_of_the_reviewer_group_may_no_longer_accept(reviewer: Any) -> None:
    review = make_review()
    client = logged_in("dana")
    reviewer.groups.remove(Group.objects.get(name="reviewer"))

    response = client.post(reverse("fix_accept", args=[review.analysis.pk, review.fixes[0].pk]))

    assert response.status_code == 404  # not a reviewer, not the submitter: no such analysis
    assert Fix.objects.get(pk=review.fixes[0].pk).status == Fix.Status.PROPOSED


def test_a_cookie_kept_after_logout_opens_nothing(reviewer: Any) -> None:
    client = logged_in("dana")
    kept = client.cookies["sessionid"].value
    assert client.post("/accounts/logout/").status_code == 302

    thief = Client()
    thief.cookies["sessionid"] = kept
    assert not on_the_queue(thief)
    assert not Session.objects.filter(session_key=kept).exists()


def test_deleting_a_user_deletes_their_sessions(reviewer: Any) -> None:
    client = logged_in("dana")
    key = client.cookies["sessionid"].value
    reviewer.delete()

    assert not Session.objects.filter(session_key=key).exists()
    assert not on_the_queue(client)


def test_the_session_data_names_the_user_not_the_column(reviewer: Any) -> None:
    """The column only saves a query: a session whose column names another user still acts
    as the user its (signed) data names."""
    review = make_review()
    superuser = UserFactory.create(username="root")
    superuser.is_superuser = True
    superuser.save()
    UserFactory.create(username="olga")
    client = logged_in("olga")
    Session.objects.filter(session_key=client.cookies["sessionid"].value).update(
        user_id=superuser.pk
    )

    response = client.post(reverse("fix_accept", args=[review.analysis.pk, review.fixes[0].pk]))

    assert response.status_code == 404
    assert Fix.objects.get(pk=review.fixes[0].pk).status == Fix.Status.PROPOSED
    assert on_the_queue(client)  # still logged in, as olga
