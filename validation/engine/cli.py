"""``redline`` -- check a report against its evidence from the command line.

No Django, no database::

    redline check bundle.json                      # one bundle -> one Verdict JSON
    redline check - < bundle.json                  # the bundle on standard input
    redline check --jsonl bundles.jsonl            # one bundle per line -> one verdict per line
    redline check --context context.md --response response.md   # a context pair
    redline check bundle.json --format markdown    # section 7 + findings and fixes
    redline check bundle.json --settings settings.json          # EngineSettings overrides
    redline check --llm bundle.json        # then the LLM judge and fixer (REDLINE_LLM_*)

With a server (REST API only; handed over to the ``redline_client`` package)::

    redline submit --url URL --token TOKEN bundle.json [--wait] [--timeout S]

``--format markdown`` writes the context.md section 7 of docs/spec.md
§9, then the findings and fixes.

Input rules: the same as ingest's (``validation.engine.intake``, one set of rules): the same
Bundle model, the same messages and the same byte limits, read from the environment
variables ingest's settings read (``REDLINE_MAX_BODY_BYTES``, default 200000, and
``REDLINE_MAX_EVIDENCE_BYTES``, default 5000000). A file, standard input or JSONL line
larger than their sum plus 1,000,000 bytes is refused before it is read or parsed.

Exit codes: 0 when the check ran (whatever the decision); 2 when the input cannot be
read -- bad JSON, not UTF-8, too large, a bundle or settings file that breaks the rules
(the message names the field, e.g. ``evidence[0].source_ref: field required``), a file that
cannot be opened; 3 when the engine itself fails on a readable bundle (one line on
stderr, ``redline: internal error while checking FILE: ExceptionType: message``, no
traceback). With ``--jsonl`` an unreadable *line*, or one the engine fails on, gives a
``VerdictError`` line ``{"error": …, "line": n, "details": […]}`` in its place and the
rest still runs; blank lines are skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol, TextIO

from pydantic import ValidationError

from validation.engine.environment import process_environment
from validation.engine.errors import EngineError
from validation.engine.intake import BundleError, read_bundle, validation_messages
from validation.engine.limits import InputLimits
from validation.engine.types import Bundle, EngineSettings, Verdict, VerdictError

if TYPE_CHECKING:
    from validation.engine.checks.numeric import EvidenceIndex


class Engine(Protocol):
    """What `redline` runs on each bundle: `validation.engine.validate` unless told otherwise."""

    def __call__(
        self, bundle: Bundle, settings: EngineSettings | None = ..., *, index: EvidenceIndex | None
    ) -> Verdict: ...


PROG = "redline"
EXIT_CODES = """exit codes:
  0  the check ran (whatever the decision)
  2  the input cannot be read (bad JSON, not UTF-8, schema errors, missing file)
  3  when the engine itself fails on a readable bundle (with --jsonl: an error line
     for that bundle instead, and the batch goes on)"""


class CommandInputError(EngineError):
    """Input the command cannot use; ``details`` name the fields."""

    def __init__(self, error: str, details: Sequence[str] = ()) -> None:
        super().__init__(error)
        self.error = error
        self.details = list(details)

    def render(self) -> str:
        return "\n".join([self.error, *(f"  {detail}" for detail in self.details)])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Check LLM-written reports against their evidence."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = commands.add_parser(
        "check",
        help="validate a bundle and print its verdict",
        description="Validate a report bundle (JSON) or a context.md + response.md pair.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("bundle", nargs="?", help="bundle JSON file, or - for standard input")
    check.add_argument("--jsonl", metavar="FILE", help="one bundle JSON per line")
    check.add_argument("--context", metavar="CONTEXT_MD", help="context.md (sections 0-6)")
    check.add_argument("--response", metavar="RESPONSE_MD", help="its response.md (the report)")
    check.add_argument(
        "--format",
        choices=("json", "markdown"),
        default="json",
        help="json (default) or markdown (the attempt record plus findings and fixes)",
    )
    check.add_argument("--settings", metavar="JSON", help="EngineSettings as a JSON object")
    commands.add_parser(
        "submit",
        help="send a bundle to a Redline server and follow it (redline submit --help)",
        add_help=False,
    )
    check.add_argument(
        "--llm",
        action="store_true",
        help="then run the LLM judge and fixer on the endpoint of REDLINE_LLM_BASE_URL "
        "(REDLINE_LLM_MODEL, REDLINE_LLM_API_KEY, ...); its calls land in the verdict's llm",
    )
    return parser


def main(argv: Sequence[str] | None = None, *, engine: Engine | None = None) -> int:
    """Run `redline`. `engine` replaces `validation.engine.validate` (for embedding and tests)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["submit"]:
        # The client package has its own options and exit codes; it needs no engine.
        from redline_client.cli import main as submit_main

        return submit_main(arguments[1:], prog=f"{PROG} submit")
    parser = build_parser()
    args = parser.parse_args(arguments)
    sources = [args.bundle is not None, args.jsonl is not None, args.context is not None]
    if sum(sources) != 1 or (args.context is None) != (args.response is None):
        parser.error(
            "give exactly one input: BUNDLE (or -), --jsonl FILE, "
            "or --context CONTEXT_MD --response RESPONSE_MD"
        )
    if args.jsonl is not None and args.format != "json":
        parser.error("--jsonl writes one JSON verdict per line; --format markdown needs one bundle")
    try:
        limits = _limits_from_env()
        settings = _read_settings(args.settings, limits) if args.settings else EngineSettings()
        if args.llm:
            engine = _llm_engine(engine)
        if args.jsonl is not None:
            return _check_jsonl(Path(args.jsonl), settings, sys.stdout, engine, limits)
        if args.context is not None:
            bundle = _read_seed(Path(args.context), Path(args.response), limits)
            where = f"{args.context} + {args.response}"
        else:
            bundle = _read_bundle(args.bundle, limits)
            where = "standard input" if args.bundle == "-" else args.bundle
        try:
            rendered = _render_verdict(bundle, settings, args.format, engine)
        except Exception as error:  # an engine bug: one clear line, not a traceback
            print(
                f"{PROG}: internal error while checking {where}: {_describe(error)}",
                file=sys.stderr,
            )
            return 3
        sys.stdout.write(rendered)
    except CommandInputError as error:
        print(f"{PROG}: {error.render()}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`redline check --jsonl big.jsonl | head`): not our error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130
    return 0


# ---------------------------------------------------------------- reading


def _limits_from_env() -> InputLimits:
    try:
        return InputLimits.from_env(process_environment())
    except (ValueError, ValidationError) as error:
        raise CommandInputError(f"bad input limits in the environment: {error}") from None


def _read_bytes(name: str, limit: int) -> bytes:
    """The bytes of file `name` (``-``: standard input), refused unread above `limit`."""
    if name == "-":
        data = sys.stdin.buffer.read(limit + 1)
        if len(data) > limit:
            raise CommandInputError(_too_large("standard input", None, limit))
        return data
    path = Path(name)
    try:
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > limit:
                raise CommandInputError(_too_large(name, size, limit))
            data = handle.read(limit + 1)  # a pipe or a growing file has no honest size
    except OSError as error:
        raise CommandInputError(f"cannot open {name}: {error.strerror or error}") from None
    if len(data) > limit:
        raise CommandInputError(_too_large(name, None, limit))
    return data


def _too_large(where: str, size: int | None, limit: int) -> str:
    actual = f"it is {size} bytes" if size is not None else "it is larger"
    return (
        f"{where} exceeds the {limit}-byte input limit (REDLINE_MAX_BODY_BYTES + "
        f"REDLINE_MAX_EVIDENCE_BYTES + 1000000); {actual}"
    )


def _decode(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise CommandInputError(
            f"{where} is not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})"
        ) from None


def _parse_json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise CommandInputError(
            f"{where} is not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
        ) from None
    except RecursionError:
        raise CommandInputError(f"{where} is not valid JSON: nested too deeply to read") from None
    except ValueError as error:  # an integer longer than Python converts
        raise CommandInputError(f"{where} is not valid JSON: {error}") from None


def validation_details(error: ValidationError) -> list[str]:
    """``approve_threshold: Input should be ...`` -- one line per settings error (bundle
    errors are worded by validation.engine.intake, as ingest words them)."""
    details = []
    for item in error.errors():
        location = ".".join(str(part) for part in item["loc"]) or "(settings)"
        details.append(f"{location}: {item['msg']}")
    return details


def parse_bundle(data: bytes | str, where: str, limits: InputLimits | None = None) -> Bundle:
    """A bundle by ingest's rules (validation.engine.intake), or a CommandInputError naming
    `where`."""
    try:
        return read_bundle(data, limits or InputLimits())
    except BundleError as error:
        raise CommandInputError(f"{where} is not a valid bundle:", error.errors) from None


def _read_bundle(name: str, limits: InputLimits) -> Bundle:
    where = "standard input" if name == "-" else name
    return parse_bundle(_read_bytes(name, limits.input_bytes), where, limits)


def _read_settings(name: str, limits: InputLimits) -> EngineSettings:
    data = _parse_json(_decode(_read_bytes(name, limits.input_bytes), name), name)
    if not isinstance(data, dict):
        raise CommandInputError(f"{name} is not an EngineSettings object")
    try:
        return EngineSettings.model_validate(data)
    except ValidationError as error:
        raise CommandInputError(
            f"{name} is not valid settings:", validation_details(error)
        ) from None


def _read_seed(context: Path, response: Path, limits: InputLimits) -> Bundle:
    from validation.engine.seedformat import read_seed

    context_md = _decode(_read_bytes(str(context), limits.input_bytes), str(context))
    response_md = _decode(_read_bytes(str(response), limits.input_bytes), str(response))
    where = f"{context} + {response}"
    try:
        bundle = read_seed(context_md, response_md)
    except ValidationError as error:
        details = validation_messages(error)
        raise CommandInputError(f"{where} do not make a valid bundle:", details) from None
    except ValueError as error:
        raise CommandInputError(f"{context}: {error}") from None
    # The context pair meets the same rules as a bundle file.
    try:
        return read_bundle(bundle.model_dump(mode="json"), limits)
    except BundleError as error:
        raise CommandInputError(f"{where} do not make a valid bundle:", error.errors) from None


# ---------------------------------------------------------------- running


def _render_verdict(
    bundle: Bundle, settings: EngineSettings, fmt: str, engine: Engine | None
) -> str:
    from validation.engine.pipeline import validate
    from validation.engine.report import render_attempt_markdown, render_details_markdown

    verdict = (engine or validate)(bundle, settings, index=None)
    if fmt == "markdown":
        return render_attempt_markdown(verdict) + "\n" + render_details_markdown(verdict)
    return verdict.model_dump_json(indent=2) + "\n"


def _llm_engine(engine: Engine | None) -> Engine:
    """The engine followed by the LLM path (``--llm``); its failures end up in the verdict."""
    from validation.engine.llm import LLMConfigError, settings_from_env, with_llm
    from validation.engine.pipeline import validate

    try:
        llm_settings = settings_from_env(process_environment())
    except LLMConfigError as error:
        raise CommandInputError(f"--llm: {error}") from None
    if llm_settings is None:
        raise CommandInputError("--llm needs REDLINE_LLM_BASE_URL (an OpenAI-compatible endpoint)")
    return with_llm(engine or validate, llm_settings)


def _describe(error: BaseException) -> str:
    """``RecursionError: maximum recursion depth exceeded`` -- on one line."""
    message = " ".join(str(error).split())
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def _check_jsonl(
    path: Path,
    settings: EngineSettings,
    out: TextIO,
    engine: Engine | None = None,
    limits: InputLimits | None = None,
) -> int:
    from validation.engine.checks.numeric import build_index
    from validation.engine.pipeline import validate

    limits = limits or InputLimits()
    run = engine or validate
    index: EvidenceIndex | None = None
    index_key: str | None = None
    try:
        handle = path.open("rb")
    except OSError as error:
        raise CommandInputError(f"cannot open {path}: {error.strerror or error}") from None
    with handle:
        for number, raw in enumerate(_lines(handle, limits.input_bytes), start=1):
            if raw is not None and not raw.strip():
                continue
            where = f"line {number}"
            try:
                if raw is None:
                    raise CommandInputError(_too_large(where, None, limits.input_bytes))
                bundle = parse_bundle(raw, where, limits)
            except CommandInputError as error:
                line = VerdictError(error=error.error, line=number, details=error.details)
                out.write(line.model_dump_json() + "\n")
                out.flush()
                continue
            try:
                key = json.dumps([item.model_dump(mode="json") for item in bundle.evidence])
                if index is None or key != index_key:  # consecutive bundles share an index
                    index, index_key = build_index(bundle.evidence), key
                out.write(run(bundle, settings, index=index).model_dump_json() + "\n")
            except Exception as error:  # one bad bundle must not stop the batch
                failure = VerdictError(
                    error=f"internal error while checking {where}",
                    line=number,
                    details=[_describe(error)],
                )
                out.write(failure.model_dump_json() + "\n")
            out.flush()
    return 0


def _lines(handle: BinaryIO, limit: int) -> Iterator[bytes | None]:
    """The lines of `handle`; None for a line longer than `limit`, which is skipped unread
    in bounded chunks (a 50 MB line never sits in memory)."""
    while True:
        line = handle.readline(limit + 1)
        if not line:
            return
        if len(line) <= limit or line.endswith(b"\n"):
            yield line
            continue
        while line and not line.endswith(b"\n"):
            line = handle.readline(1 << 20)
        yield None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
