"""manage.py webhook add SLUG URL [--events E ...] | rotate ID | list [SLUG]

`add` prints the endpoint's signing secret once (it is not shown again); `rotate` prints a new
one, and for a day both sign (two ``v1=`` in ``Redline-Signature``)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from redline_errors import RedlineError
from validation.models import WEBHOOK_EVENTS, WebhookEndpoint
from validation.services import pipeline_get
from validation.services.webhooks import webhook_endpoint_add, webhook_secret_rotate


class Command(BaseCommand):
    help = "Add, rotate or list a pipeline's webhook endpoints."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        add = actions.add_parser("add", help="a new endpoint; its secret is printed once")
        add.add_argument("slug", help="the pipeline's slug")
        add.add_argument("url")
        add.add_argument(
            "--events",
            nargs="+",
            default=[],
            choices=WEBHOOK_EVENTS,
            metavar="EVENT",
            help=f"the events it hears (default: all): {', '.join(WEBHOOK_EVENTS)}",
        )
        rotate = actions.add_parser("rotate", help="a new secret; the old one signs for a day")
        rotate.add_argument("id", type=int, help="the endpoint's id (see list)")
        listing = actions.add_parser("list", help="endpoints (id, pipeline, URL, events)")
        listing.add_argument("slug", nargs="?")

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        try:
            if action == "add":
                pipeline = pipeline_get(options["slug"])
                endpoint, secret = webhook_endpoint_add(
                    pipeline=pipeline, url=options["url"], events=options["events"]
                )
                self.stderr.write(
                    f"Added endpoint {endpoint.pk} for {pipeline.slug}. Store its signing "
                    "secret now: it is shown once."
                )
                self.stdout.write(secret)
            elif action == "rotate":
                found = WebhookEndpoint.objects.filter(pk=options["id"]).first()
                if found is None:
                    raise CommandError(f"There is no webhook endpoint {options['id']}.")
                secret = webhook_secret_rotate(endpoint=found)
                self.stderr.write("New secret (shown once); the old one also signs for a day.")
                self.stdout.write(secret)
            else:
                endpoints = WebhookEndpoint.objects.select_related("pipeline").order_by("id")
                if options.get("slug"):
                    endpoints = endpoints.filter(pipeline__slug=options["slug"])
                for endpoint in endpoints:
                    events = ",".join(endpoint.events) or "all"
                    state = "active" if endpoint.active else "inactive"
                    self.stdout.write(
                        f"{endpoint.pk}  {endpoint.pipeline}  {endpoint.url}  {events}  {state}"
                    )
        except RedlineError as exc:
            raise CommandError(str(exc)) from None
