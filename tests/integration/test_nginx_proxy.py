"""Production behind a buffering proxy (issue 27, points 5 and 6): Debian's nginx running
deploy/nginx.conf in front of gunicorn on loopback, as deploy/redline-web.service runs it.

nginx runs as this test's own: its own prefix, pid file, logs and temporary directories,
a free loopback port; the site file is deploy/nginx.conf with only the upstream's address and
the listening address changed.

- 50 slow clients (25 send their headers a byte at a time, 25 send a body a byte at a time)
  do not starve ``/healthz``: every probe through nginx answers 200 within 2 seconds.
- The body limit is nginx's first: a body over the limit Django reads is a JSON 413 from nginx;
  one under it but over the report limit is Django's JSON 413.
- Lockout counts the client nginx saw: one client (127.0.0.2) locked out after a password
  spray, another (127.0.0.3) logs in through the same proxy.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from tests.support.net import free_port
from tests.support.servers import PostgresServer, RedisServer, servers_available
from tests.support.stack import BIN, Stack, until

pytestmark = pytest.mark.integration

NGINX = "/usr/sbin/nginx"
SLOW_CLIENTS = 50
ATTACK_SECONDS = 15.0
PROBE_TIMEOUT = 2.0
PASSWORD = "correct horse battery staple"


class Nginx:
    """nginx with deploy/nginx.conf, in a directory of its own, in the foreground."""

    def __init__(self, directory: Path, upstream_port: int) -> None:
        self.directory = directory
        self.port = free_port()
        self.upstream_port = upstream_port
        self.process: subprocess.Popen[bytes] | None = None

    def configure(self) -> None:
        site = (Path(settings.BASE_DIR) / "deploy" / "nginx.conf").read_text("utf-8")
        site = site.replace("server 127.0.0.1:8000 ", f"server 127.0.0.1:{self.upstream_port} ")
        site = site.replace("    listen [::]:80;\n", "")
        site = site.replace("listen 80;", f"listen 127.0.0.1:{self.port};")
        assert f":{self.upstream_port} " in site and f":{self.port};" in site
        (self.directory / "redline.conf").write_text(site, "utf-8")
        temp = {name: self.directory / name for name in ("body", "proxy", "fcgi", "uwsgi", "scgi")}
        for path in temp.values():
            path.mkdir(exist_ok=True)
        # As root, nginx's workers would switch to nobody, who cannot enter root's temporary
        # directories: they stay this test's user.
        user = "user root root;" if os.geteuid() == 0 else ""
        (self.directory / "nginx.conf").write_text(
            f"""{user}
daemon off;
worker_processes 1;
pid {self.directory}/nginx.pid;
error_log {self.directory}/error.log info;
events {{ worker_connections 1024; }}
http {{
    access_log {self.directory}/access.log;
    client_body_temp_path {temp["body"]};
    proxy_temp_path {temp["proxy"]};
    fastcgi_temp_path {temp["fcgi"]};
    uwsgi_temp_path {temp["uwsgi"]};
    scgi_temp_path {temp["scgi"]};
    include {self.directory}/redline.conf;
}}
""",
            "utf-8",
        )

    def start(self) -> None:
        self.configure()
        prefix = ["-p", str(self.directory), "-c", str(self.directory / "nginx.conf")]
        prefix += ["-e", str(self.directory / "error.log")]
        subprocess.run([NGINX, "-t", *prefix], check=True, capture_output=True, timeout=30)
        log = (self.directory / "nginx.out").open("ab")
        self.process = subprocess.Popen(
            [NGINX, *prefix], stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        until(lambda: _get(self.port, "/healthz", timeout=1)[0] == 200, "nginx")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # fast shutdown of the master and its workers
            self.process.wait(timeout=20)


def _get(port: int, path: str, timeout: float, source: str = "127.0.0.1") -> tuple[int, str]:
    try:
        connection = http.client.HTTPConnection(
            "127.0.0.1", port, timeout=timeout, source_address=(source, 0)
        )
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    except OSError as error:
        return 0, type(error).__name__
    finally:
        connection.close()


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, Nginx]]:
    missing = servers_available() or ("" if Path(NGINX).exists() else "nginx is not installed")
    if missing:
        pytest.skip(missing)
    directory = tmp_path_factory.mktemp("nginx")
    stack = Stack(
        directory=directory,
        database=PostgresServer(),
        broker=RedisServer(directory),
        cache=RedisServer(directory),
    )
    nginx = Nginx(directory, stack.web_port)
    try:
        stack.start_servers()
        stack.manage(
            "shell",
            "-c",
            "from django.contrib.auth.models import User; "
            f"User.objects.create_user('victim', password={PASSWORD!r})",
        )
        # gunicorn as deploy/redline-web.service runs it: 2 workers of 4 threads, loopback.
        stack.spawn(
            "web",
            str(BIN / "gunicorn"),
            "-c",
            "python:project.gunicorn_conf",
            "project.wsgi",
            env={
                "REDLINE_BEHIND_PROXY": "1",
                "REDLINE_WEB_WORKERS": "2",
                "REDLINE_WEB_THREADS": "4",
            },
        )
        until(stack.up, "gunicorn")
        nginx.start()
        yield stack, nginx
    finally:
        nginx.stop()
        stack.stop()
        stack.stop_servers()


def _slow_client(port: int, kind: str, until_time: float, opened: list[int]) -> None:
    """Hold one connection open as long as allowed, sending one byte a second."""
    head = (
        b"POST /api/v1/analyses HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
    )
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            opened.append(1)
            drip = head if kind == "headers" else b"{" + b" " * 99_999
            if kind == "body":
                sock.sendall(head)
            for byte in drip:
                if time.monotonic() > until_time:
                    return
                sock.sendall(bytes([byte]))
                time.sleep(1.0)
    except OSError:
        return  # nginx timed the client out and closed: what it should do


def test_fifty_slow_clients_do_not_starve_healthz(proxied: tuple[Stack, Nginx]) -> None:
    _, nginx = proxied
    end = time.monotonic() + ATTACK_SECONDS
    opened: list[int] = []
    clients = [
        threading.Thread(
            target=_slow_client,
            args=(nginx.port, "headers" if n % 2 else "body", end, opened),
            daemon=True,
        )
        for n in range(SLOW_CLIENTS)
    ]
    for client in clients:
        client.start()
    until(lambda: len(opened) == SLOW_CLIENTS, "the slow clients to connect", timeout=20)

    probes: list[tuple[int, float]] = []
    while time.monotonic() < end:
        started = time.monotonic()
        status, _ = _get(nginx.port, "/healthz", timeout=PROBE_TIMEOUT)
        probes.append((status, time.monotonic() - started))
        time.sleep(0.5)
    for client in clients:
        client.join(timeout=30)

    slowest = max(seconds for _, seconds in probes)
    print(f"{len(probes)} probes under {SLOW_CLIENTS} slow clients; slowest {slowest:.3f} s")
    assert len(probes) >= 10
    assert all(status == 200 for status, _ in probes), probes
    assert slowest < PROBE_TIMEOUT


def _post(port: int, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        content_type = response.getheader("Content-Type", "")
        text = response.read().decode("utf-8", "replace")
        assert content_type.startswith("application/json"), (response.status, text[:300])
        return response.status, json.loads(text)
    finally:
        connection.close()


def test_nginx_refuses_a_body_over_the_limit_django_reads_in_json(
    proxied: tuple[Stack, Nginx],
) -> None:
    _, nginx = proxied
    headers = {"Content-Type": "application/json"}
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE

    over_nginx = _post(nginx.port, "/api/v1/analyses", b" " * (limit + 1), headers)
    over_report = _post(nginx.port, "/api/v1/analyses", b" " * 300_000, headers)

    assert over_nginx[0] == 413 and f"{limit}-byte limit" in over_nginx[1]["message"]
    # Under nginx's limit the request reaches Django, which answers for itself (no token: 401
    # before the body is read, or 413 for the size; never nginx's page).
    assert over_report[0] in (401, 413)


class _Browser:
    """A login form's round trip (CSRF cookie and token) from one source address."""

    def __init__(self, port: int, source: str) -> None:
        self.port, self.source = port, source

    def login(self, username: str, password: str) -> int:
        connection = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=30, source_address=(self.source, 0)
        )
        try:
            connection.request("GET", "/accounts/login/")
            page = connection.getresponse()
            html = page.read().decode()
            cookie = re.search(r"csrftoken=([^;]+)", page.getheader("Set-Cookie", ""))
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
            assert cookie and token, html[:500]
            form = f"username={username}&password={password.replace(' ', '+')}"
            form += f"&csrfmiddlewaretoken={token.group(1)}"
            connection.request(
                "POST",
                "/accounts/login/",
                body=form.encode(),
                headers={
                    "Content-Type": "application/x-www-form-urlencoded",
                    "Cookie": f"csrftoken={cookie.group(1)}",
                    # A client that forges the header changes nothing: nginx replaces it.
                    "X-Forwarded-For": "198.51.100.99",
                },
            )
            answer = connection.getresponse()
            answer.read()
            return answer.status
        finally:
            connection.close()


def test_through_nginx_a_locked_out_client_leaves_another_client_in(
    proxied: tuple[Stack, Nginx],
) -> None:
    _, nginx = proxied
    if not _loopback_aliases_work():
        pytest.skip("127.0.0.2 is not reachable here")
    attacker, someone = _Browser(nginx.port, "127.0.0.2"), _Browser(nginx.port, "127.0.0.3")
    spray = [
        attacker.login(f"user{n}", "guess") for n in range(settings.REDLINE_LOGIN_IP_FAILURE_LIMIT)
    ]
    # The form again with its error, until the address's failures reach the limit.
    assert spray[0] == 200 and spray[-1] == 429

    assert attacker.login("victim", PASSWORD) == 429
    assert someone.login("victim", PASSWORD) == 302


def _loopback_aliases_work() -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.2", 0))
        except OSError:
            return False
    return True
