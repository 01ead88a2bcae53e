"""Where the LLM path may send requests: an http(s) URL that names no link-local or cloud
metadata address (a Policy edited in the admin must not turn the worker into a way to read
the host's cloud credentials, http://169.254.169.254/...).

Refused: schemes other than http and https; link-local addresses (169.254.0.0/16,
fe80::/10), the unspecified and multicast addresses, the metadata services' addresses and
names (AWS, GCP, Azure, Alibaba, Oracle), IPv4 written in a short or numeric form that a
resolver reads as one of those ("2852039166"), and a name that resolves to one of them when
it is checked. A host listed in ``REDLINE_LLM_ALLOWED_HOSTS`` is allowed whatever it is.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

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

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def llm_url_problem(url: str, allowed_hosts: Iterable[str] = (), *, resolve: bool = True) -> str:
    """Why the LLM path must not call `url`, or "" when it may."""
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").lower().rstrip(".")
    except ValueError:
        return "is not a valid URL"
    if parts.scheme.lower() not in ("http", "https"):
        return f"must be an http or https URL, not {parts.scheme or 'one without a scheme'}"
    if not host:
        return "has no host"
    if host in {allowed.strip().lower().rstrip(".") for allowed in allowed_hosts}:
        return ""
    if host in METADATA_NAMES:
        return f"names a cloud metadata service ({host})"
    for address in _addresses(host, resolve=resolve):
        problem = _address_problem(address)
        if problem:
            shown = host if str(address) == host else f"{host}, which is {address}"
            return (
                f"points at {problem} ({shown}); list it in REDLINE_LLM_ALLOWED_HOSTS to allow it"
            )
    return ""


def _addresses(host: str, *, resolve: bool) -> list[Address]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:  # "2852039166", "0xa9fea9fe", "169.254.43518": numeric IPv4 a resolver accepts
        return [ipaddress.IPv4Address(socket.inet_aton(host))]
    except OSError:
        pass
    if not resolve:
        return []
    try:
        found = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return []  # unresolvable now: the call fails on its own, and is checked again then
    return [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in found]


def _address_problem(address: Address) -> str:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_unspecified or address.is_multicast:
        return "an address no endpoint has"
    return ""
