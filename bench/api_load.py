"""API load benchmark: a client that knows Redline only through its OpenAPI schema.

It reads /api/v1/openapi.json, finds the operations it needs there (ingest: the POST whose
body is a bundle; list: the GET that pages with next_cursor; export: the GET that answers
JSON lines), ingests N bundles from shared/evaldata/tatqa-dev.jsonl over HTTP with
concurrent keep-alive connections, waits until none is validating any more, pulls the export,
and prints ingest requests/s, validated analyses/s and p50/p95 ingest latency.

    .venv/bin/python bench/api_load.py --base-url http://127.0.0.1:8000 --token rl_...

bench/run_api_load.sh starts the whole stack (PostgreSQL, Redis, gunicorn, two Celery
worker processes) around it. Targets: >= 200 ingests/s, >= 40 validated/s, p95 <= 100 ms.
No test times these figures.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "evaldata" / "tatqa-dev.jsonl"


class Api:
    """One keep-alive connection per thread, to the base URL, with the bearer token."""

    def __init__(self, base_url: str, token: str) -> None:
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        self.local = threading.local()

    def _conn(self) -> http.client.HTTPConnection:
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
            self.local.conn = conn
        return conn

    def request(
        self, method: str, path: str, body: bytes | None = None
    ) -> tuple[int, bytes, dict[str, str]]:
        headers = dict(self.headers)
        if body is not None:
            headers["Content-Type"] = "application/json"
        for attempt in range(2):
            conn = self._conn()
            try:
                conn.request(method, path, body=body, headers=headers)
                response = conn.getresponse()
                return response.status, response.read(), dict(response.getheaders())
            except (http.client.HTTPException, OSError):
                conn.close()
                self.local.conn = None
                if attempt:
                    raise
        raise AssertionError("unreachable")


def operations(schema: dict[str, Any]) -> dict[str, str]:
    """The paths of ingest, list and export, found by their shape in the schema."""
    found: dict[str, str] = {}
    for path, item in schema["paths"].items():
        post = item.get("post")
        if post and "{" not in path:
            body = post.get("requestBody", {}).get("content", {}).get("application/json", {})
            if {"body", "evidence", "query"} <= set(body.get("schema", {}).get("properties", {})):
                found["ingest"] = path
        get = item.get("get")
        if get and "{" not in path:
            ok = get.get("responses", {}).get("200", {}).get("content", {})
            if "application/x-ndjson" in ok:
                found["export"] = path
            ref = ok.get("application/json", {}).get("schema", {}).get("$ref", "")
            page = schema["components"]["schemas"].get(ref.rsplit("/", 1)[-1], {})
            if "next_cursor" in page.get("properties", {}):
                found["list"] = path
    missing = {"ingest", "list", "export"} - set(found)
    if missing:
        raise SystemExit(f"the schema has no operation for: {', '.join(sorted(missing))}")
    return found


def bundles(count: int, run: str) -> Iterator[bytes]:
    with DATA.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            if number == count:
                return
            bundle = json.loads(line)["bundle"]
            bundle["external_id"] = f"{run}-{bundle.pop('id')}"
            yield json.dumps(bundle).encode("utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--token", required=True)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument(
        "--concurrency",
        type=int,
        default=8,
        help="requests in flight (default: the 2 x 4 threads run_api_load.sh gives gunicorn; "
        "more only wait in the listen backlog, and the latency then measures that queue)",
    )
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="seconds to wait for validation"
    )
    args = parser.parse_args()

    api = Api(args.base_url, args.token)
    status, raw, _ = api.request("GET", "/api/v1/openapi.json")
    assert status == 200, status
    paths = operations(json.loads(raw))
    run = f"bench-{int(time.time())}"
    payloads = list(bundles(args.count, run))

    latencies: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    queue = iter(payloads)

    def worker() -> None:
        while True:
            with lock:
                payload = next(queue, None)
            if payload is None:
                return
            started = time.perf_counter()
            code, _, _ = api.request("POST", paths["ingest"], payload)
            elapsed = time.perf_counter() - started
            with lock:
                latencies.append(elapsed)
                statuses[code] = statuses.get(code, 0) + 1

    started = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(args.concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ingest_seconds = time.perf_counter() - started

    # Validated: nothing of this run is still validating (the list filter from the schema).
    deadline = time.perf_counter() + args.timeout
    while time.perf_counter() < deadline:
        query = urlencode({"status": "validating", "limit": 1})
        code, raw, _ = api.request("GET", f"{paths['list']}?{query}")
        if code == 200 and not json.loads(raw)["items"]:
            break
        time.sleep(0.2)
    validated_seconds = time.perf_counter() - started

    exported, cursor = 0, "0"
    export_started = time.perf_counter()
    while True:
        code, raw, headers = api.request(
            "GET", f"{paths['export']}?{urlencode({'cursor': cursor, 'limit': 500})}"
        )
        assert code == 200, (code, raw[:200])
        exported += len(raw.splitlines())
        cursor = headers.get("X-Next-Cursor", "")
        if not cursor:
            break
    export_seconds = time.perf_counter() - export_started

    ms = sorted(latency * 1000 for latency in latencies)
    p95 = ms[min(len(ms) - 1, round(0.95 * len(ms)) - 1)]
    print(f"operations from the schema: {paths}")
    print(f"ingest responses by status: {dict(sorted(statuses.items()))}")
    rate = len(ms) / ingest_seconds
    print(f"ingest:    {len(ms)} requests in {ingest_seconds:.2f} s = {rate:.0f} req/s (>= 200)")
    print(f"latency:   p50 {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms (target p95 <= 100)")
    rate = len(ms) / validated_seconds
    print(
        f"validated: {len(ms)} analyses in {validated_seconds:.2f} s = {rate:.1f}/s (target >= 40)"
    )
    print(f"export:    {exported} approved reports pulled as JSON lines in {export_seconds:.2f} s")
    print(f"client:    {time.process_time():.1f} CPU seconds in this process")


if __name__ == "__main__":
    main()
