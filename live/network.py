"""This computer's addresses on its local networks (plain Python: the settings read it too)."""

from __future__ import annotations

import contextlib
import socket


def lan_addresses() -> list[str]:
    """This computer's IPv4 addresses on its local networks (no loopback), best first: the one
    a route to the outside would use, then any other the host name resolves to. No packet is
    sent (a UDP socket's ``connect`` only picks a route)."""
    found: list[str] = []
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never answered, only routed
            found.append(probe.getsockname()[0])
    except OSError:
        pass
    with contextlib.suppress(OSError):
        found.extend(socket.gethostbyname_ex(socket.gethostname())[2])
    return [a for i, a in enumerate(found) if not a.startswith("127.") and a != "0.0.0.0" and a not in found[:i]]
