"""Import analysis bundles from files: .json (one bundle), .jsonl (one bundle a line), or the
pipeline's context.md + response.md pair (docs/spec.md §2.2). Each bundle is ingested on its
own, so one bad bundle never stops the others; the exit status is non-zero if any failed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from analyses.bundles import max_input_bytes
from redline_errors import IngestError
from validation.engine.seedformat import read_seed
from validation.services import analysis_submit

# Each source yields (label for the output, the bundle or the error that kept it from being read).
_Item = tuple[str, bytes | dict[str, Any] | IngestError]


class Command(BaseCommand):
    help = (
        "Import analysis bundles: FILE.json (one bundle), FILE.jsonl (one bundle per line), "
        "or --context context.md --response response.md (a pipeline's context pair)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="*", metavar="FILE", help=".json or .jsonl bundles")
        parser.add_argument("--context", metavar="CONTEXT_MD", help="context.md (sections 0-6)")
        parser.add_argument("--response", metavar="RESPONSE_MD", help="its response.md (the draft)")
        parser.add_argument(
            "--external-id",
            default="",
            help="external_id for the --context/--response bundle, to make re-imports no-ops",
        )
        parser.add_argument(
            "--submitter", metavar="USERNAME", help="user recorded as the submitter"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        files: list[str] = options["files"]
        context, response = options["context"], options["response"]
        if bool(context) != bool(response):
            raise CommandError("--context and --response go together")
        if options["external_id"] and not context:
            raise CommandError("--external-id applies to a --context/--response bundle only")
        if not files and not context:
            raise CommandError("nothing to import: give FILE(s) or --context and --response")
        submitter = _submitter(options["submitter"])

        sources: list[Iterator[_Item]] = [_file_sources(Path(name)) for name in files]
        if context:
            sources.append(_pair_source(Path(context), Path(response), options["external_id"]))

        total = failed = 0
        for iterator in sources:
            for label, data in iterator:
                total += 1
                if not self._ingest(label, data, submitter):
                    failed += 1
        summary = f"{total - failed} of {total} bundles imported"
        if failed:
            raise CommandError(f"{summary}; {failed} failed")
        self.stdout.write(summary)

    def _ingest(
        self,
        label: str,
        data: bytes | dict[str, Any] | IngestError,
        submitter: User | None,
    ) -> bool:
        try:
            if isinstance(data, IngestError):
                raise data
            result = analysis_submit(data=data, submitter=submitter)
        except IngestError as exc:
            self.stdout.write(f"{label}: error: {exc}")
            return False
        analysis = result.analysis
        if result.created:
            self.stdout.write(f'{label}: created analysis {analysis.pk} "{analysis.title}"')
        else:
            self.stdout.write(f"{label}: already present as analysis {analysis.pk}")
        return True


def _submitter(username: str | None) -> User | None:
    if not username:
        return None
    user_model = get_user_model()
    try:
        return user_model.objects.get(**{user_model.USERNAME_FIELD: username})
    except user_model.DoesNotExist:
        raise CommandError(f"--submitter: no user named {username!r}") from None


def _file_sources(path: Path) -> Iterator[_Item]:
    suffix = path.suffix.lower()
    if suffix not in (".json", ".jsonl"):
        yield str(path), IngestError("not a .json or .jsonl file")
        return
    try:
        handle = path.open("rb")
    except OSError as exc:
        yield str(path), IngestError(f"cannot read the file: {exc.strerror}")
        return
    limit = max_input_bytes()
    with handle:
        if suffix == ".json":
            data = handle.read(limit + 1)
            if len(data) > limit:
                yield str(path), IngestError(f"larger than the {limit}-byte input limit")
            else:
                yield str(path), data
            return
        number = 0
        while line := handle.readline(limit + 1):
            number += 1
            if len(line) > limit and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):  # skip the rest of the oversized line
                    line = handle.readline(1 << 20)
                yield f"{path}:{number}", IngestError(f"larger than the {limit}-byte input limit")
            elif line.strip():
                yield f"{path}:{number}", line.rstrip(b"\r\n")


def _pair_source(context: Path, response: Path, external_id: str) -> Iterator[_Item]:
    label = f"{context} + {response}"
    try:
        texts = [_read_text(context), _read_text(response)]
    except IngestError as exc:
        yield label, exc
        return
    try:
        bundle = read_seed(texts[0], texts[1])
    except ValueError as exc:  # pydantic's ValidationError is a ValueError too
        yield label, IngestError(f"cannot read the context pair: {exc}")
        return
    data = bundle.model_dump(mode="json")
    if external_id:
        data["external_id"] = external_id
    yield label, data


def _read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise IngestError(f"{path}: cannot read the file: {exc.strerror}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise IngestError(
            f"{path} is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})"
        ) from None
