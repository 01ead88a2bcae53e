"""manage.py pipeline create SLUG [--name NAME] [--description TEXT] | list

A pipeline is a source of reports: its tokens (``manage.py api_token create USER --pipeline
SLUG``), its own Policy (``manage.py policy set --pipeline SLUG ...``) and its webhooks
(``manage.py webhook add SLUG URL``)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Count

from analyses.models import Pipeline
from redline_errors import RedlineError
from validation.services import pipeline_create


class Command(BaseCommand):
    help = "Create or list pipelines."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        create = actions.add_parser("create", help="a new pipeline")
        create.add_argument("slug", help="lower-case letters, digits and hyphens")
        create.add_argument("--name", default="", help="a name for people (default: the slug)")
        create.add_argument("--description", default="")
        actions.add_parser("list", help="pipelines, their analyses and tokens")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["action"] == "create":
            try:
                pipeline = pipeline_create(
                    slug=options["slug"], name=options["name"], description=options["description"]
                )
            except RedlineError as exc:
                raise CommandError(str(exc)) from None
            self.stdout.write(f"Created the pipeline {pipeline.slug} ({pipeline.name}).")
            return
        pipelines = Pipeline.objects.annotate(
            n_analyses=Count("analyses", distinct=True), n_tokens=Count("api_tokens", distinct=True)
        )
        for pipeline in pipelines:
            state = "active" if pipeline.active else "inactive"
            self.stdout.write(
                f"{pipeline.slug}  {pipeline.name}  {state}  "
                f"{pipeline.n_analyses} analyses  {pipeline.n_tokens} tokens"
            )
