"""manage.py export_approved DIR [--since ISO-DATETIME]: the API's exports, written to disk.

One `<id>.json` and one `<id>.md` per approved analysis, in order of approval; the last
cursor is printed so that the next run can resume with --after.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.dateparse import parse_datetime

from analyses.models import Analysis, Pipeline
from validation.api.exports import approved_exports, export_markdown

_BATCH = 200


class Command(BaseCommand):
    help = "Write every approved analysis (JSON and Markdown exports) into DIR."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory")
        parser.add_argument("--since", help="only approvals at or after this ISO date-time")
        parser.add_argument("--after", type=int, default=0, help="resume after this cursor")
        parser.add_argument("--pipeline", help="only this pipeline's (its slug)")

    def handle(self, *args: Any, **options: Any) -> None:
        since = None
        if options["since"]:
            since = parse_datetime(options["since"])
            if since is None:
                raise CommandError(f"--since is not an ISO date-time: {options['since']!r}")
        directory = Path(options["directory"])
        directory.mkdir(parents=True, exist_ok=True)
        # Every approved analysis, whoever sent it: the command runs as the operator.
        pipeline = options["pipeline"]
        if pipeline and not Pipeline.objects.filter(slug=pipeline).exists():
            raise CommandError(f"There is no pipeline {pipeline!r}.")
        cursor, written = options["after"], 0
        while True:
            batch = list(
                approved_exports(
                    visible=Analysis.objects.all(),
                    since=since,
                    after=cursor,
                    limit=_BATCH,
                    pipeline=pipeline,
                )
            )
            for position, export in batch:
                stem = directory / str(export["id"])
                stem.with_suffix(".json").write_text(
                    json.dumps(export, ensure_ascii=False, indent=2), encoding="utf-8"
                )
                stem.with_suffix(".md").write_text(export_markdown(export), encoding="utf-8")
                cursor, written = position, written + 1
            if len(batch) < _BATCH:
                break
        self.stdout.write(f"Exported {written} approved analyses to {directory} (cursor {cursor}).")
