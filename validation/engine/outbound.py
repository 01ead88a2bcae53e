"""Where Redline may send a request: the one home of the outbound-address rule.

Two profiles, one per kind of destination:

``Profile.LLM``
    the LLM endpoint. A model on this machine or the private network is fine (loopback and
    private addresses pass); link-local addresses and the cloud metadata services are
    refused, whatever their spelling. The client follows no redirect: a 3xx is an error.
``Profile.WEBHOOK``
    a pipeline's webhook. Only public addresses: loopback, private, link-local, shared
    (CGNAT, 100.64.0.0/10), multicast, unspecified, reserved and metadata addresses are
    refused, unless the host is listed (``REDLINE_WEBHOOK_ALLOWED_HOSTS``). The name is
    resolved once, every address it resolves to is checked, and ``post_json`` connects to
    the checked address (the Host header and TLS SNI carry the name): a second DNS answer
    can never send the request elsewhere. A 3xx is a failed delivery, never followed.

An address is checked in every form that reaches the same IPv4 host: the address itself,
IPv4-mapped (``::ffff:169.254.169.254``), IPv4-translated (``::ffff:0:a9fe:a9fe``),
IPv4-compatible (``::a9fe:a9fe``), NAT64 (``64:ff9b::a9fe:a9fe``), 6to4
(``2002:a9fe:a9fe::``) and Teredo; an IPv4 host written as one number, in octal or in hex
(``2852039166``, ``0251.0376.0251.0376``, ``0xa9fea9fe``) is read the way a resolver reads it.

The API::

    problem = url_problem(url, Profile.LLM, allowed_hosts)      # "" when allowed
    target = check_url(url, Profile.WEBHOOK, allowed_hosts)     # or OutboundRefused
    answer = post_json(target, body, {"X-Signature": sig}, timeout=10.0)
    answer.ok, answer.status, answer.failure()                  # 2xx only is ok

``refuse_request_url(url, profile, allowed_hosts)`` checks the literal address of one
request (no DNS); the LLM client calls it for every request it sends.
"""

from __future__ import annotations

import enum
import http.client
import ipaddress
import socket
import ssl
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from validation.engine.errors import EngineError

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

METADATA_NAMES = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "instance-data",
        "instance-data.ec2.internal",
    }
)
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(address)
    for address in (
        "169.254.169.254",  # AWS, GCP, Azure, Oracle
        "fd00:ec2::254",  # AWS over IPv6
        "168.63.129.16",  # Azure's wire server
        "100.100.100.200",  # Alibaba
    )
)
_SHARED = ipaddress.IPv4Network("100.64.0.0/10")  # carrier-grade NAT (RFC 6598)
_TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")  # SIIT (RFC 2765)
_COMPATIBLE = ipaddress.IPv6Network("::/96")  # deprecated IPv4-compatible (RFC 4291)
_NAT64 = (ipaddress.IPv6Network("64:ff9b::/96"), ipaddress.IPv6Network("64:ff9b:1::/48"))
_RESPONSE_BYTES = 64_000  # of a webhook's answer kept


class Profile(enum.Enum):
    LLM = "llm"
    WEBHOOK = "webhook"

    @property
    def setting(self) -> str:
        """The setting that lists hosts this profile would refuse."""
        return f"REDLINE_{self.name}_ALLOWED_HOSTS"


class OutboundRefused(EngineError, ValueError):
    """A URL the profile does not allow: the message says why, in words for an admin."""


class OutboundError(EngineError):
    """A request to an allowed target that did not complete (connection, TLS, timeout)."""


@dataclass(frozen=True)
class Target:
    """A checked URL: the name, and the addresses that were checked (and are connected to)."""

    url: str
    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[Address, ...]
    profile: Profile


@dataclass(frozen=True)
class Response:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def failure(self) -> str:
        """Why this answer is not a delivery, or "" for a 2xx."""
        if self.ok:
            return ""
        if 300 <= self.status < 400:
            where = self.headers.get("location", "")
            return f"answered {self.status}, a redirect (to {where or 'nowhere'}): not followed"
        return f"answered {self.status}"


def url_problem(
    url: str, profile: Profile, allowed_hosts: Iterable[str] = (), *, resolve: bool = True
) -> str:
    """Why ``profile`` must not call ``url``, or "" when it may. ``resolve`` also checks the
    addresses a name resolves to now (a name nobody can resolve is not refused here)."""
    try:
        _check(url, profile, allowed_hosts, resolve=resolve, need_address=False)
    except OutboundRefused as refused:
        return str(refused)
    return ""


def check_url(url: str, profile: Profile, allowed_hosts: Iterable[str] = ()) -> Target:
    """The target of ``url``, resolved once and checked; raises ``OutboundRefused``."""
    return _check(url, profile, allowed_hosts, resolve=True, need_address=True)


def refuse_request_url(url: str, profile: Profile, allowed_hosts: Iterable[str] = ()) -> None:
    """Raise ``OutboundRefused`` when the literal host of ``url`` is refused (no DNS)."""
    _check(url, profile, allowed_hosts, resolve=False, need_address=False)


def address_problem(address: Address, profile: Profile) -> str:
    """Why ``profile`` refuses ``address`` in any of its forms, or "". An IPv6 address that
    carries an IPv4 one (mapped, NAT64, 6to4 …) is judged by the IPv4 address it reaches."""
    forms = _forms(address)
    for form in reversed(forms):
        problem = _problem(form, profile if form is not address or len(forms) == 1 else None)
        if problem:
            return problem
    return ""


def post_json(
    target: Target, body: bytes, headers: Mapping[str, str] | None = None, timeout: float = 10.0
) -> Response:
    """POST ``body`` (JSON) to ``target``'s checked address, never following a redirect.

    Raises ``OutboundError`` when no answer comes; any answer is returned (``ok`` is 2xx)."""
    connection: http.client.HTTPConnection = (
        _PinnedHTTPS(target, timeout) if target.scheme == "https" else _PinnedHTTP(target, timeout)
    )
    sent = {"Content-Type": "application/json", "User-Agent": "Redline", **(headers or {})}
    try:
        connection.request("POST", target.path, body=body, headers=sent)
        answer = connection.getresponse()
        data = answer.read(_RESPONSE_BYTES)
        return Response(
            status=answer.status,
            headers={name.lower(): value for name, value in answer.getheaders()},
            body=data,
        )
    except (OSError, http.client.HTTPException) as error:
        detail = " ".join(str(error).split()) or type(error).__name__
        raise OutboundError(f"no answer from {target.host}: {detail}") from None
    finally:
        connection.close()


# ---------------------------------------------------------------- the rule


def _check(
    url: str,
    profile: Profile,
    allowed_hosts: Iterable[str],
    *,
    resolve: bool,
    need_address: bool,
) -> Target:
    try:
        parts = urlsplit(url.strip())
        raw_host = parts.hostname or ""
        port = parts.port
    except ValueError:
        raise OutboundRefused("is not a valid URL") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise OutboundRefused(
            f"must be an http or https URL, not {scheme or 'one without a scheme'}"
        )
    host = _normal_host(raw_host)
    if not host:
        raise OutboundRefused("has no host")
    listed = host in {_normal_host(name.strip()) for name in allowed_hosts}
    if host in METADATA_NAMES and not listed:
        raise OutboundRefused(f"names a cloud metadata service ({host})")
    literal = _literal(host)
    addresses: list[Address] = [literal] if literal is not None else []
    if literal is None and (resolve or need_address):
        addresses = _resolve(host, port or 0)
        if need_address and not addresses:
            raise OutboundRefused(f"names a host that does not resolve ({host})")
    if not listed:
        for address in addresses:
            problem = address_problem(address, profile)
            if problem:
                shown = host if literal is not None else f"{host}, which is {address}"
                raise OutboundRefused(
                    f"points at {problem} ({shown}); list it in {profile.setting} to allow it"
                )
    path = parts.path or "/"
    return Target(
        url=url.strip(),
        scheme=scheme,
        host=host,
        port=port or (443 if scheme == "https" else 80),
        path=f"{path}?{parts.query}" if parts.query else path,
        addresses=tuple(addresses),
        profile=profile,
    )


def _normal_host(host: str) -> str:
    host = host.lower().rstrip(".")
    if host.isascii():
        return host
    try:  # full-width digits and other spellings a resolver folds: check what it will ask
        return host.encode("idna").decode("ascii").rstrip(".")
    except UnicodeError:
        raise OutboundRefused(f"has a host name that cannot be encoded ({host!r})") from None


def _literal(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        pass
    try:  # "2852039166", "0xa9fea9fe", "0251.0376.0251.0376": numeric IPv4 a resolver accepts
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def _resolve(host: str, port: int) -> list[Address]:
    try:
        found = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return []
    addresses: list[Address] = []
    for info in found:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if address not in addresses:
            addresses.append(address)
    return addresses


def _forms(address: Address) -> list[Address]:
    """The address and every IPv4 address it carries."""
    forms: list[Address] = [address]
    if isinstance(address, ipaddress.IPv4Address):
        return forms
    low = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.ipv4_mapped is not None:
        forms.append(address.ipv4_mapped)
    elif (
        address in _TRANSLATED
        or any(address in net for net in _NAT64)
        or (address in _COMPATIBLE and int(address) > 1)  # not :: or ::1
    ):
        forms.append(low)
    if address.sixtofour is not None:
        forms.append(address.sixtofour)
    if address.teredo is not None:
        forms.extend(address.teredo)
    return forms


def _problem(address: Address, profile: Profile | None) -> str:
    """``profile`` None: only what every profile refuses."""
    if address in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_unspecified or address.is_multicast:
        return "an address no endpoint has"
    if profile is not Profile.WEBHOOK:
        return ""
    if address.is_loopback:
        return "a loopback address"
    if isinstance(address, ipaddress.IPv4Address) and address in _SHARED:
        return "a shared (carrier-grade NAT) address"
    if address.is_private:
        return "a private address"
    if not address.is_global or address.is_reserved:
        return "a reserved address"
    return ""


# ---------------------------------------------------------------- pinned connections


def _connect(target: Target, timeout: float) -> socket.socket:
    error: OSError = OSError(f"{target.host} has no checked address")
    for address in target.addresses:  # every one of them was checked
        # A socket of our own, not socket.create_connection: that would ask the resolver.
        family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect((str(address), target.port))
        except OSError as failed:
            sock.close()
            error = failed
            continue
        return sock
    raise error


class _PinnedHTTP(http.client.HTTPConnection):
    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self._target = target

    def connect(self) -> None:
        self.sock = _connect(self._target, self.timeout or 10.0)


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self._target = target
        self._tls = ssl.create_default_context()

    def connect(self) -> None:
        raw = _connect(self._target, self.timeout or 10.0)
        # The certificate is checked against the name, on the socket to the checked address.
        self.sock = self._tls.wrap_socket(raw, server_hostname=self._target.host)
