"""Who may use the operator console: anyone on this machine when it binds to loopback, and only a holder
of its token when it binds to an address other machines can reach; in both cases only under a name the
console answers to (``ServedNames``)."""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import socket
from collections.abc import Iterable
from dataclasses import dataclass


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to any interface
        return False


@dataclass(frozen=True)
class Access:
    """The console's token ("" when none is required). ``allows(given)`` compares in constant time."""

    token: str

    @classmethod
    def for_bind(cls, host: str, token: str) -> Access:
        """The token ``token`` when given; otherwise a new random one for a non-loopback ``host``
        (printed at start), none for loopback."""
        if token:
            return cls(token)
        return cls("" if is_loopback(host) else secrets.token_urlsafe(18))

    @property
    def required(self) -> bool:
        return bool(self.token)

    def allows(self, given: str | None) -> bool:
        return not self.token or (given is not None and hmac.compare_digest(given.encode(), self.token.encode()))


LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def is_wildcard(host: str) -> bool:
    """Whether ``host`` is 0.0.0.0 or ``::``: every address of this machine."""
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def browser_host(host: str) -> str:
    """The host part of an address a browser can open for a console bound to ``host``: the machine's name
    for a wildcard bind (other machines reach it by that name; 127.0.0.1 when the name does not resolve),
    else ``host`` itself (bracketed when it is an IPv6 address)."""
    if is_wildcard(host):
        name = socket.gethostname()
        try:
            socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)
        except OSError:
            return "127.0.0.1" if ":" not in host else "[::1]"
        return name
    return f"[{host}]" if ":" in host else host


def _hostname(netloc: str) -> str:
    """The host name of a Host header's value (``[::1]:8080`` -> ``::1``), lower case, no trailing dot."""
    netloc = netloc.strip().lower()
    if netloc.startswith("["):
        return netloc[1 : netloc.find("]")] if "]" in netloc else ""
    return netloc.rsplit(":", 1)[0].rstrip(".") if netloc.count(":") <= 1 else netloc


@dataclass(frozen=True)
class ServedNames:
    """The names a browser may use for the console (the Host header it sends): what it is bound to,
    the loopback names on a loopback or wildcard bind, the machine's names on a wildcard bind, and the
    ``allowed_hosts`` parameter's. Any other name is refused, whatever the token: a page of another site
    whose name was made to resolve to this machine (DNS rebinding) would send that site's name."""

    names: frozenset[str]

    @classmethod
    def for_bind(cls, host: str, allowed: Iterable[str] = ()) -> ServedNames:
        names = {host.lower()} if not is_wildcard(host) else set()
        if is_loopback(host) or is_wildcard(host):
            names |= LOOPBACK_NAMES
        if is_wildcard(host):
            names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
        names |= {_hostname(name) for name in allowed if name.strip()}
        return cls(frozenset(names))

    def allows(self, host_header: str | None, local_address: str | None) -> bool:
        """Whether a request with this Host header, arriving on ``local_address``, names the console.
        The address the connection arrived on is also accepted as a literal (no name to rebind)."""
        if not host_header:
            return False
        name = _hostname(host_header)
        return name in self.names or (local_address is not None and name == local_address.lower())
