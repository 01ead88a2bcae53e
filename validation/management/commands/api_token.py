"""manage.py api_token create USER --scope read|write [--name N] [--pipeline SLUG]
[--create-user] | revoke PREFIX | list [USER]

A token belongs to a pipeline (`default` unless --pipeline names one): it sends analyses
into it and, unless its user is a reviewer, sees only that pipeline's analyses. It also
belongs to a user: an existing one (a reviewer's account, say), or, with
``--create-user``, a new user for the program that will use it (no password: it cannot log in
to the review screens; no role: its token sees only what it submits)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from redline_errors import RedlineError
from validation.models import ApiToken
from validation.services import (
    api_token_create,
    api_token_revoke,
    api_user_create,
    pipeline_get,
)


class Command(BaseCommand):
    help = "Create (printed once), revoke or list REST API tokens."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        create = actions.add_parser("create", help="a new token for USER, printed once")
        create.add_argument("username", help="the user who owns the token")
        create.add_argument("--scope", choices=ApiToken.Scope.values, default="read")
        create.add_argument("--name", default="")
        create.add_argument(
            "--pipeline",
            default="",
            help="the slug of the pipeline it sends for (default: the default pipeline)",
        )
        create.add_argument(
            "--create-user",
            action="store_true",
            help="create USER first when there is none: a user for a program (a pipeline), "
            "with no password and no role",
        )
        revoke = actions.add_parser("revoke", help="revoke the token with this prefix")
        revoke.add_argument("prefix")
        listing = actions.add_parser("list", help="tokens (prefix, scope, last used)")
        listing.add_argument("username", nargs="?")

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        if action == "create":
            username = options["username"]
            user = User.objects.filter(username=username).first()
            if user is None and not options["create_user"]:
                raise CommandError(
                    f"There is no user {username!r}. A token belongs to a user: name an "
                    "existing one, or add --create-user to create this one (no password, no "
                    "role: for a program such as a pipeline)."
                )
            try:
                pipeline = pipeline_get(options["pipeline"]) if options["pipeline"] else None
                if user is None:
                    user = api_user_create(username=username)
                    self.stderr.write(f"Created the user {username!r} (no password, no role).")
                _, raw = api_token_create(
                    user=user, scope=options["scope"], name=options["name"], pipeline=pipeline
                )
            except RedlineError as exc:
                raise CommandError(str(exc)) from None
            self.stderr.write("Store this token now: it is shown once and stored hashed.")
            self.stdout.write(raw)
        elif action == "revoke":
            tokens = ApiToken.objects.filter(prefix=options["prefix"][:12])
            if tokens.count() != 1:
                raise CommandError(f"No single token has the prefix {options['prefix']!r}.")
            token = api_token_revoke(token=tokens.get())
            self.stdout.write(f"Revoked {token}.")
        else:
            tokens = ApiToken.objects.select_related("user", "pipeline").order_by(
                "user__username", "id"
            )
            if options.get("username"):
                tokens = tokens.filter(user__username=options["username"])
            for token in tokens:
                state = "revoked" if token.revoked_at else "active"
                used = token.last_used_at.isoformat() if token.last_used_at else "never"
                who = f"{token.user}  {token.pipeline}"
                self.stdout.write(f"{token.prefix}  {who}  {token.scope}  {state}  {used}")
