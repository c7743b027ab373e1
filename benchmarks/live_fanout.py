"""Benchmark the live push: one action, many devices watching. Not a test: it prints numbers,
ratios and the targets of issue 18.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/dropship_fanout REDIS_URL=redis://127.0.0.1:6379/8 \\
        .venv/bin/python benchmarks/live_fanout.py [--devices 200] [--actions 30]

Through a real uvicorn process (with Redis when REDIS_URL is set), room page streams
(``/events/rooms/{id}/?fragments=1``) watch a threat-tracker room while its owner acts through the
API, one action at a time. For 1 device, for N devices of one view (viewers and guests), and for
N devices spread over the owner, four players and the watchers (six views, three renders: the
players share one), it prints:

- the server's CPU time per action (the uvicorn process's user+system time over the run, divided
  by the actions), and its ratio to one device (target: within 2x);
- the delay from sending the POST until each device has received the pushed fragment of that
  version, p50 and p95 over every device and action (target: p95 under 250 ms);
- the database connections the server holds while the N streams are idle, and those the
  streams hold (target: 0). On PostgreSQL the server keeps a pool of connections, run here with
  ``DATABASE_POOL_MAX`` = ``POOL`` (4): a stream that kept one would leave the fifth stream, or
  the next action, waiting for a connection until it failed, so with every stream open and
  every action shown the streams hold what the server holds beyond its pool (none); on SQLite
  (no pool) they hold what the server holds.

Streams open in batches, each waiting for ``stream-open``, so the server's connections at any
moment stay far below PostgreSQL's limit. It creates and drops its own test database
(test_<name>), like the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_databases, teardown_databases  # noqa: E402
from rest_framework.authtoken.models import Token  # noqa: E402

from live import services  # noqa: E402
from live.models import Room  # noqa: E402
from rules.fixturefiles import FIXTURES_DIR  # noqa: E402
from tests.factories import UserFactory  # noqa: E402

PLAYERS = 4
OPEN_BATCH = 20
POOL = 4  # the server's DATABASE_POOL_MAX here: far fewer connections than streams
WARMUP = 3  # actions per run before measuring (first renders, connections to Redis)
VERSION = re.compile(rb'data-version="(\d+)"')
CPU_TARGET = 2.0
DELAY_TARGET_MS = 250.0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_connections(pid: int) -> int:
    """Database connections held by the server process (:func:`tests.asgi_server.database_connections`:
    read from /proc, so the benchmark's own connection does not count)."""
    from tests.asgi_server import database_connections

    return len(database_connections(pid))


class Device:
    """One room page's event stream, read on the benchmark's event loop; records when each
    pushed version arrived."""

    def __init__(self, host: str, port: int, room_id: int, cookie: str) -> None:
        self.host, self.port, self.room_id, self.cookie = host, port, room_id, cookie
        self.arrived: dict[int, float] = {}
        self.opened = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def run(self) -> None:
        reader, self.writer = await asyncio.open_connection(self.host, self.port)
        cookie = f"Cookie: {self.cookie}\r\n" if self.cookie else ""
        self.writer.write(
            f"GET /events/rooms/{self.room_id}/?fragments=1 HTTP/1.1\r\nHost: {self.host}\r\n"
            f"Accept: text/event-stream\r\n{cookie}\r\n".encode()
        )
        await self.writer.drain()
        event, version = b"", 0
        while True:
            line = await reader.readline()
            if not line:
                return
            line = line.rstrip(b"\r\n")
            if line.startswith(b"event:"):
                event, version = line[6:].strip(), 0
                if event == b"stream-open":
                    self.opened.set()
            elif line.startswith(b"data:") and event == b"tracker" and not version:
                found = VERSION.search(line)
                version = int(found[1]) if found else 0
            elif not line and event == b"tracker":
                if version:
                    self.arrived.setdefault(version, time.perf_counter())
                event = b""

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self.run())

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        if self.task is not None:
            self.task.cancel()


async def post_action(host: str, port: int, room_id: int, token: str, version: int) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    body = json.dumps({"type": "end_phase", "version": version}).encode()
    writer.write(
        f"POST /api/v1/rooms/{room_id}/actions/ HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Authorization: Token {token}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    await writer.drain()
    status = await reader.readline()
    await reader.read()
    writer.close()
    assert b" 200 " in status, status


async def scenario(server: str, pid: int, room: Room, token: str, cookies: list[str], actions: int) -> dict[str, float]:
    """Open the devices, count the server's connections while they idle, then act ``actions``
    times, each time waiting until every device showed the new version. No ORM call in here."""
    url = urlparse(server)
    host, port = url.hostname or "127.0.0.1", int(url.port or 80)
    devices = [Device(host, port, room.pk, cookie) for cookie in cookies]
    for at in range(0, len(devices), OPEN_BATCH):
        batch = devices[at : at + OPEN_BATCH]
        for device in batch:
            device.start()
        await asyncio.wait_for(asyncio.gather(*(d.opened.wait() for d in batch)), timeout=60)
    await asyncio.sleep(1.0)  # every stream idle, every request ended
    idle_connections = server_connections(pid)
    version = room.version
    delays: list[float] = []
    cpu_before = cpu_seconds(pid)
    for n in range(WARMUP + actions):
        if n == WARMUP:
            delays, cpu_before = [], cpu_seconds(pid)
        sent = time.perf_counter()
        await post_action(host, port, room.pk, token, version)
        version += 1
        deadline = time.monotonic() + 10
        while not all(version in d.arrived for d in devices) and time.monotonic() < deadline:
            await asyncio.sleep(0.002)
        missing = sum(version not in d.arrived for d in devices)
        assert missing == 0, f"{missing} devices never showed version {version}"
        delays.extend((d.arrived[version] - sent) * 1000 for d in devices)
    cpu = (cpu_seconds(pid) - cpu_before) / actions * 1000
    for device in devices:
        await device.close()
    return {
        "cpu_ms": cpu,
        "p50": percentile(delays, 0.5),
        "p95": percentile(delays, 0.95),
        "idle_connections": idle_connections,
        "streams_hold": max(0, idle_connections - POOL) if connection.vendor == "postgresql" else idle_connections,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=200)
    parser.add_argument("--actions", type=int, default=30)
    args = parser.parse_args()

    from tests.asgi_server import asgi_server

    old = setup_databases(verbosity=0, interactive=False)
    try:
        call_command("loaddata", str(FIXTURES_DIR / "systems.json"), verbosity=0)
        call_command("loaddata", str(FIXTURES_DIR / "threat-tracker" / "threat-tracker.json"), verbosity=0)
        owner = UserFactory.create(username="referee")
        players = [UserFactory.create(username=f"marine{n}") for n in range(PLAYERS)]
        token = Token.objects.create(user=owner).key

        def cookie(user) -> str:  # type: ignore[no-untyped-def]
            client = Client()
            client.force_login(user)
            return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"

        def make_room(title: str) -> Room:
            room = services.room_create(user=owner, kind="threat", title=title)
            services.room_share(room, {p.pk: "player" for p in players})
            for n, p in enumerate(players):
                services.room_act(
                    user=owner,
                    room_id=room.pk,
                    type="add_character",
                    payload={"name": f"Trooper {n}", "owner": str(p.pk)},
                    version=n,
                )
            room.guests_can_watch = True
            room.save(update_fields=["guests_can_watch"])
            room.refresh_from_db()
            return room

        owner_cookie, player_cookies = cookie(owner), [cookie(p) for p in players]
        if connection.vendor == "postgresql":
            # Redis publish channels are shared by every database number: room ids far from other
            # runs' keep their "room-<id>" events from making this server push (and count) more.
            with connection.cursor() as cursor:
                cursor.execute("SELECT setval(pg_get_serial_sequence('live_room', 'id'), %s)", [random.randint(10**8, 2 * 10**8)])
        redis = os.environ.get("REDIS_URL") or None
        print(
            f"live fan-out: threat tracker, {connection.vendor}, {'Redis' if redis else 'in-process'} fan-out, one uvicorn process"
        )
        print(f"  {args.actions} actions per run (owner, API), {args.devices} devices at most, {PLAYERS} players seated")
        results: dict[str, dict[str, float]] = {}
        runs = {
            "1 device (a guest)": [""],
            f"{args.devices} devices, one view (guests)": [""] * args.devices,
            f"{args.devices} devices, six views": [owner_cookie, *player_cookies] * 2 + [""] * (args.devices - 2 * (1 + PLAYERS)),
        }
        pool_note = f" (pool of {POOL} at most)" if connection.vendor == "postgresql" else ""
        with asgi_server(redis_url=redis, env={"DATABASE_POOL_MAX": str(POOL)}) as server:
            for name, cookies in runs.items():
                room = make_room(name)
                results[name] = asyncio.run(scenario(server, server.pid, room, token, cookies, args.actions))
                r = results[name]
                print(
                    f"{name:>34}: CPU {r['cpu_ms']:6.1f} ms/action; shown after p50 {r['p50']:6.1f} ms, p95 {r['p95']:6.1f} ms;"
                    f" DB connections while idle {int(r['idle_connections'])}{pool_note}; the streams' {int(r['streams_hold'])}"
                )
        one = results["1 device (a guest)"]
        for name, r in list(results.items())[1:]:
            ratio = r["cpu_ms"] / one["cpu_ms"]
            print(
                f"  CPU ratio {name} / 1 device: {ratio:.2f}x (target <= {CPU_TARGET:.0f}x) {'MET' if ratio <= CPU_TARGET else 'MISSED'}"
            )
            print(
                f"  delay p95 {name}: {r['p95']:.0f} ms (target < {DELAY_TARGET_MS:.0f} ms) {'MET' if r['p95'] < DELAY_TARGET_MS else 'MISSED'}"
            )
            held = int(r["streams_hold"])
            print(f"  DB connections held by the idle streams: {held} (target 0) {'MET' if held == 0 else 'MISSED'}")
    finally:
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
