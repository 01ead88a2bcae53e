"""manage.py policy show [--pipeline SLUG] | set [--pipeline SLUG] FIELD=VALUE ...

Without --pipeline: the default policy, which judges every pipeline without its own. `set`
on a pipeline without its own policy gives it one, starting from the default's settings.
A value is checked as the admin form checks it; a bad one changes nothing and says why."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from redline_errors import RedlineError
from validation.services import pipeline_get, policy_of, policy_rows, policy_set


class Command(BaseCommand):
    help = "Show or set the default policy, or a pipeline's."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        show = actions.add_parser("show", help="every field and its value")
        show.add_argument("--pipeline", help="a pipeline's slug (default: the default policy)")
        change = actions.add_parser("set", help="set fields: FIELD=VALUE ... (all or nothing)")
        change.add_argument("--pipeline", help="a pipeline's slug (default: the default policy)")
        change.add_argument("assignments", nargs="+", metavar="FIELD=VALUE")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            pipeline = pipeline_get(options["pipeline"]) if options["pipeline"] else None
            if options["action"] == "set":
                policy = policy_set(pipeline=pipeline, assignments=options["assignments"])
                self.stderr.write(f"Saved: {policy}.")
            else:
                policy = policy_of(pipeline)
        except RedlineError as exc:
            raise CommandError(str(exc)) from None
        if pipeline is not None and policy.pipeline_id is None:
            self.stdout.write(f"# {pipeline.slug} has no policy of its own: the default judges it.")
        else:
            self.stdout.write(f"# {policy}")
        for name, value in policy_rows(policy):
            self.stdout.write(f"{name}={value}")
