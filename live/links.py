"""The join link phones open: this computer's address on the local network when the app serves
it, with a word when phones cannot reach it at all (#17: a QR code of 127.0.0.1 is useless)."""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import ip_address

from django.conf import settings
from django.http import HttpRequest
from django.urls import reverse

from live.network import lan_addresses

LOOPBACK_NAMES = {"localhost", "ip6-localhost"}


def _is_loopback(host: str) -> bool:
    host = host.strip("[]")
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class JoinLink:
    """``url``: the link to show and encode in the QR code; ``reachable``: False when the server
    listens on this computer only, so phones cannot open any link to it."""

    url: str
    reachable: bool


def join_link(request: HttpRequest, code: str) -> JoinLink:
    """The join link for ``code`` as phones at the table can open it.

    Opened on the laptop as ``127.0.0.1`` while the server listens on every interface
    (``make run HOST=0.0.0.0``), the link names this computer's local network address instead;
    when the server listens on loopback only, the link is marked unreachable.
    """
    path = reverse("live:join") + f"?code={code}"
    host = request.get_host()
    name, _, port = host.rpartition(":") if not host.endswith("]") else (host, "", "")
    if not _is_loopback(name or host):
        return JoinLink(url=request.build_absolute_uri(path), reachable=True)
    if settings.SERVE_HOST in {"0.0.0.0", "::"}:
        addresses = lan_addresses()
        if addresses:
            return JoinLink(url=f"{request.scheme}://{addresses[0]}{':' + port if port else ''}{path}", reachable=True)
    return JoinLink(url=request.build_absolute_uri(path), reachable=False)
