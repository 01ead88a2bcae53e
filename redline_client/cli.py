"""``redline submit`` (and ``python -m redline_client``): send a bundle, follow it, exit with
what happened.

Exit codes::

  0  validated and in review, or approved (with --wait: approved, its text printed)
  1  the analysis failed, or (with --wait) was rejected
  2  bad input or refused by the server (401, 400, 409, 413, 422 ...)
  3  timed out (the analysis goes on on the server)
  4  could not reach the server
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from redline_client.client import DEFAULT_TIMEOUT_S, DEFAULT_WAIT_TIMEOUT_S, submit
from redline_client.errors import BadInput, ClientError
from redline_client.render import approved_json, result_json, result_markdown
from redline_client.transport import base_url

PROG = "redline submit"
TOKEN_ENV = "REDLINE_TOKEN"
EXIT_CODES = """exit codes:
  0  validated and in review, or approved (with --wait: approved; its text is printed)
  1  the analysis failed validation, or (with --wait) was rejected
  2  bad input, or the server refused it (401, 400, 409, 413, 422 ...)
  3  timed out; the analysis goes on on the server
  4  could not reach the server"""


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Send a report bundle to a Redline server and follow it: by default "
        "until validation ends (the verdict is printed), with --wait until a person "
        "approves or rejects it (the approved report is printed).",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("bundle", metavar="BUNDLE.json", help="the bundle file, - for stdin")
    parser.add_argument("--url", required=True, help="the server, e.g. http://127.0.0.1:8000")
    parser.add_argument(
        "--token",
        help=f"an API token (manage.py api_token create); default: ${TOKEN_ENV}",
    )
    parser.add_argument(
        "--wait",
        action="store_true",
        help="wait until the analysis is approved, rejected or failed",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        help=f"give up after S seconds (default {DEFAULT_TIMEOUT_S:g}; "
        f"{DEFAULT_WAIT_TIMEOUT_S:g} with --wait)",
    )
    parser.add_argument("--format", choices=("json", "markdown"), default="json")
    parser.add_argument(
        "--poll-interval", type=float, default=5.0, metavar="S", help=argparse.SUPPRESS
    )
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str = PROG) -> int:
    parser = build_parser(prog)
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # argparse: 2 for a usage error, 0 for --help
        return int(stop.code or 0)
    token = args.token if args.token is not None else os.environ.get(TOKEN_ENV, "")
    try:
        if not token:
            raise BadInput(f"give --token TOKEN (or set ${TOKEN_ENV})")
        source = sys.stdin.buffer.read() if args.bundle == "-" else args.bundle
        result = submit(
            source,
            url=args.url,
            token=token,
            wait=args.wait,
            timeout=args.timeout,
            poll_interval=args.poll_interval,
        )
    except ClientError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 130
    server = base_url(args.url)
    if args.wait and result.approved is not None:
        out = result.approved.markdown if args.format == "markdown" else approved_json(result)
    elif args.format == "markdown":
        out = result_markdown(result, server)
    else:
        out = result_json(result, server)
    sys.stdout.write(out if out.endswith("\n") else out + "\n")
    sys.stdout.flush()
    if result.exit_code:
        print(f"{prog}: analysis {result.analysis.id} {result.outcome}", file=sys.stderr)
    return result.exit_code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
