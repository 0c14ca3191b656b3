"""Who may use the operator console: anyone on this machine when it binds to loopback, and only a holder
of its token when it binds to an address other machines can reach."""

from __future__ import annotations

import hmac
import ipaddress
import secrets
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
