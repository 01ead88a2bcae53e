"""The outbound-address rule (issue 27, point 4): one module, two profiles.

The LLM profile lets a local or private model through and refuses link-local and metadata
addresses however they are written; the webhook profile lets only public addresses through
unless the host is listed. Redirects are never followed: a real loopback server answering
302 to 169.254.169.254 proves it, for the webhook's ``post_json`` and for the LLM client."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.engine.llm.helpers import fast_settings
from tests.engine.llm.server import ScriptedLLM, status
from validation.engine.llm import ChatClient, Deadline, ProviderError
from validation.engine.outbound import (
    OutboundError,
    OutboundRefused,
    Profile,
    check_url,
    post_json,
    url_problem,
)

# 169.254.169.254 (the metadata service) and 169.254.10.5 (link-local) in every spelling.
METADATA_FORMS = [
    "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:169.254.169.254]/",  # IPv4-mapped
    "http://[::ffff:a9fe:a9fe]/",  # IPv4-mapped, in hex
    "http://[::ffff:0:a9fe:a9fe]/",  # IPv4-translated
    "http://[::a9fe:a9fe]/",  # IPv4-compatible
    "http://[64:ff9b::a9fe:a9fe]/",  # NAT64
    "http://[64:ff9b:1::a9fe:a9fe]/",  # NAT64, local use
    "http://[2002:a9fe:a9fe::]/",  # 6to4
    "http://2852039166/",  # one decimal number
    "http://0xa9fea9fe/",  # one hex number
    "http://0251.0376.0251.0376/",  # octal parts
    "http://0xa9.0xfe.0xa9.0xfe/",  # hex parts
    "http://169.254.43518/",  # a short form
    "http://169.254.169.254./",  # a trailing dot
    "http://" + "\uff11\uff16\uff19.254.169.254/",  # full-width digits, folded by IDNA
    "http://[fd00:ec2::254]/",  # AWS over IPv6
    "http://metadata.google.internal/",
]
LINK_LOCAL_FORMS = [
    "http://169.254.10.5:8000/v1",
    "http://[fe80::1]/",
    "http://[fe80::1%25eth0]:8000/v1",
    "http://[febf::1]/",  # the top of fe80::/10
    "http://[::ffff:169.254.10.5]/",
    "http://[64:ff9b::a9fe:a05]/",
    "http://[2002:a9fe:a05::1]/",
]
# Refused by the webhook profile only: the LLM profile takes a model on this machine or the
# private network.
LOCAL_FORMS = [
    "http://127.0.0.1:8088/",
    "http://localhost:8088/",
    "http://2130706433/",  # 127.0.0.1 as one number
    "http://0x7f.1/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[64:ff9b::7f00:1]/",
    "http://[2002:7f00:1::]/",
    "http://10.0.0.7/",
    "http://[::ffff:10.0.0.7]/",
    "http://172.16.3.4/",
    "http://192.168.1.1/",
    "http://[fd12:3456::1]/",  # unique local
    "http://100.64.0.1/",  # CGNAT
    "http://[64:ff9b::6440:1]/",  # CGNAT through NAT64
    "http://0.0.0.0/",
    "http://[::]/",
    "http://224.0.0.1/",
    "http://[ff02::1]/",
    "http://240.0.0.1/",  # reserved
]


@pytest.mark.parametrize("url", METADATA_FORMS + LINK_LOCAL_FORMS)
@pytest.mark.parametrize("profile", list(Profile))
def test_link_local_and_metadata_addresses_are_refused_in_every_form_by_both_profiles(
    url: str, profile: Profile
) -> None:
    problem = url_problem(url, profile, resolve=True)

    assert "metadata" in problem or "link-local" in problem
    with pytest.raises(OutboundRefused):
        check_url(url, profile)


@pytest.mark.parametrize("url", LOCAL_FORMS)
def test_the_webhook_profile_refuses_every_local_and_private_form(url: str) -> None:
    problem = url_problem(url, Profile.WEBHOOK)

    assert problem.startswith("points at a")
    assert "REDLINE_WEBHOOK_ALLOWED_HOSTS" in problem


@pytest.mark.parametrize("url", [u for u in LOCAL_FORMS if "ff02" not in u and "224." not in u])
def test_the_llm_profile_takes_a_model_on_this_machine_or_the_private_network(url: str) -> None:
    if "0.0.0.0" in url or "[::]" in url:
        assert "no endpoint" in url_problem(url, Profile.LLM)
    else:
        assert url_problem(url, Profile.LLM) == ""


@pytest.mark.parametrize(
    "url", ["http://8.8.8.8/hook", "https://[2606:4700::1111]/hook", "http://[64:ff9b::808:808]/"]
)
def test_public_addresses_pass_both_profiles(url: str) -> None:
    assert url_problem(url, Profile.WEBHOOK) == ""
    assert url_problem(url, Profile.LLM) == ""


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("file:///etc/passwd", "must be an http or https URL"),
        ("gopher://example.com/", "must be an http or https URL"),
        ("http://", "has no host"),
        ("http://example.com:99999/", "is not a valid URL"),
    ],
)
def test_other_schemes_and_broken_urls_are_refused(url: str, reason: str) -> None:
    for profile in Profile:
        assert reason in url_problem(url, profile)


def test_a_listed_host_passes_whatever_it_is() -> None:
    assert url_problem("http://127.0.0.1:9/", Profile.WEBHOOK, ["127.0.0.1"]) == ""
    assert url_problem("http://169.254.10.5/", Profile.LLM, ["169.254.10.5"]) == ""
    assert url_problem("http://169.254.10.5/", Profile.WEBHOOK, ["other.example"]) != ""


class _Recorder(BaseHTTPRequestHandler):
    """Answers every POST with the status in the server's ``answer``; records what it got."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        server: Any = self.server
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        server.received.append({"path": self.path, "host": self.headers["Host"], "body": body})
        code, location = server.answer
        self.send_response(code)
        if location:
            self.send_header("Location", location)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")


@pytest.fixture
def hook_server() -> Iterator[Any]:
    server: Any = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    server.daemon_threads = True
    server.received = []
    server.answer = (204, "")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_post_json_delivers_to_the_checked_address_with_the_name_in_host(
    hook_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = hook_server.server_address[1]
    lookups: list[str] = []
    real = socket.getaddrinfo

    def resolve(host: str, *args: Any, **kwargs: Any) -> Any:
        # A rebinding name: the first answer is the listed loopback server, any later
        # answer the metadata service. Only the first may ever be used.
        lookups.append(host)
        address = "127.0.0.1" if len(lookups) == 1 else "169.254.169.254"
        return real(address, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    target = check_url(f"http://hooks.example:{port}/in?x=1", Profile.WEBHOOK, ["hooks.example"])
    answer = post_json(target, json.dumps({"id": 7}).encode(), {"X-Redline": "1"}, timeout=5)

    assert answer.ok and answer.status == 204 and answer.failure() == ""
    assert lookups == ["hooks.example"]  # resolved once, by the check
    (received,) = hook_server.received
    assert received == {"path": "/in?x=1", "host": f"hooks.example:{port}", "body": b'{"id": 7}'}


def test_a_webhook_redirect_is_a_failure_and_never_followed(hook_server: Any) -> None:
    hook_server.answer = (302, "http://169.254.169.254/latest/meta-data/")
    port = hook_server.server_address[1]
    target = check_url(f"http://127.0.0.1:{port}/hook", Profile.WEBHOOK, ["127.0.0.1"])

    answer = post_json(target, b"{}", timeout=5)

    assert not answer.ok
    assert answer.failure() == (
        "answered 302, a redirect (to http://169.254.169.254/latest/meta-data/): not followed"
    )
    assert len(hook_server.received) == 1


def test_a_webhook_that_does_not_answer_is_an_outbound_error() -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    target = check_url(f"http://127.0.0.1:{port}/", Profile.WEBHOOK, ["127.0.0.1"])

    with pytest.raises(OutboundError, match=r"no answer from 127\.0\.0\.1"):
        post_json(target, b"{}", timeout=2)


def test_a_name_that_does_not_resolve_has_no_webhook_target() -> None:
    with pytest.raises(OutboundRefused, match="does not resolve"):
        check_url("http://no-such-host.invalid/", Profile.WEBHOOK)


def test_the_llm_client_follows_no_redirect_to_the_metadata_service() -> None:
    redirect = status(302, headers={"Location": "http://169.254.169.254/latest/meta-data/"})
    with ScriptedLLM([redirect]) as llm:
        client = ChatClient(fast_settings(llm.base_url))
        with pytest.raises(ProviderError) as refused:
            client.complete(
                [{"role": "user", "content": "hi"}], purpose="judge", deadline=Deadline(10)
            )

    assert refused.value.status_code == 302
    assert "a redirect (to http://169.254.169.254/latest/meta-data/), not followed" in str(
        refused.value
    )
    assert len(llm.requests) == 1  # one request, no retry, no second hop
    assert len(client.records) == 1


def test_the_llm_client_checks_the_address_of_every_request() -> None:
    # An environment URL is the operator's, yet a link-local one still needs listing.
    client = ChatClient(fast_settings("http://[::ffff:169.254.169.254]:9/v1"))
    with pytest.raises(ProviderError, match="endpoint's URL points at a cloud metadata"):
        client.complete([{"role": "user", "content": "hi"}], purpose="judge", deadline=Deadline(5))
    assert len(client.records) == 1
