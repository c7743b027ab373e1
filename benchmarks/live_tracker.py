"""Benchmark the shared table through ASGI. Not a test: it prints numbers and ratios.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/dropship REDIS_URL=redis://127.0.0.1:6379/0 \\
        uv run python benchmarks/live_tracker.py

1. Tracker actions under load (issue 18's first target): a real uvicorn process on the test
   database, ``BENCH_CLIENTS`` (50) concurrent clients, each with its own keep-alive connection
   and API token, each acting in its own room (``POST /api/v1/rooms/{id}/actions/`` with the
   version it last saw), for the threat, Bug Hunt mission and Five Parsecs battle kinds. The same
   clients send the same number of requests to a baseline view (one ``SELECT ... FOR UPDATE`` and
   one ``UPDATE`` of the room in a transaction), in alternating bursts so that both see the same
   machine. Printed per kind: p50 and p95 of both, the p95 ratio (target: 1.5x or less), and the
   server's CPU per request (``/proc`` of the uvicorn process) and the rest of the machine's busy
   CPU per request (``/proc/stat``: PostgreSQL, Redis, the clients and the kernel; on a machine
   whose cores the load fills, p95 follows the sum). A second table has the clients
   share ``SHARED_ROOMS`` (5) rooms: a stale version (409) is retried with the version in the
   answer, each try counted as a request. The rooms are built through the services as the phone
   tests build them (``tests/phone_scenes.py``: five figures a side, Quick Action phase) and
   copied for each client.
2. Server CPU time per published event with 1 and with 50 subscribers (SSE), and their ratio
   (skip with ``BENCH_FANOUT=0``).

``BENCH_PROFILE=1`` instead profiles one action of each kind inside this process (cProfile,
through the API view as the server runs it) and prints where the time goes, the reducer's share
and the queries.

It creates and drops its own test database (test_<name>), like the test suite. With 50 clients
the server holds at most 50 database connections (one per request in flight); the highest
count seen is printed.
"""

from __future__ import annotations

import cProfile
import http.client
import json
import logging
import os
import pstats
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.http import HttpRequest, HttpResponse  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_databases, teardown_databases  # noqa: E402
from django.urls import path  # noqa: E402
from django.utils import timezone  # noqa: E402
from rest_framework.authtoken.models import Token  # noqa: E402

from config.urls import urlpatterns as app_urls  # noqa: E402
from live import services  # noqa: E402
from live.models import Membership, Room  # noqa: E402

CLIENTS = int(os.environ.get("BENCH_CLIENTS", "50"))
REQUESTS = int(os.environ.get("BENCH_REQUESTS", "20"))  # per client, per kind, of each of action and baseline
BURSTS = 2  # the requests come in this many alternating bursts of actions and baseline
WARMUP = 2  # requests per client before the measured ones (not counted)
SHARED_ROOMS = 5
EVENTS = 40
SUBSCRIBERS = (1, 50)
KINDS = ("threat", "bughunt-mission", "fiveparsecs-battle")
LABELS = {"threat": "threat", "bughunt-mission": "Bug Hunt mission", "fiveparsecs-battle": "Five Parsecs battle"}
P95_TARGET = 1.5  # action p95 / baseline p95 at most (issue "One tracker kernel ...")


def baseline(request: HttpRequest, room_id: int) -> HttpResponse:
    """One ``SELECT ... FOR UPDATE`` and one ``UPDATE`` of the room in a transaction (it touches
    ``updated``, not the version, so that clients sharing a room do not go stale on it)."""
    with transaction.atomic():
        room = Room.objects.select_for_update().get(pk=room_id)
        Room.objects.filter(pk=room.pk).update(updated=timezone.now())
    return HttpResponse("ok")


urlpatterns = [*app_urls, path("bench/baseline/<int:room_id>/", baseline)]


def server_app() -> Any:
    """The ASGI app the benchmark's uvicorn serves: the project's, plus the baseline view
    (``uvicorn --factory benchmarks.live_tracker:server_app``)."""
    settings.ROOT_URLCONF = __name__
    from config.asgi import application  # the project's, as make run serves it (sets up logging again)

    logging.getLogger("django.request").setLevel(logging.ERROR)  # not a line per 409
    return application


# -- the rooms ---------------------------------------------------------------------------------


def template_room(kind: str, owner: Any, player: Any) -> Room:
    """One room of ``kind`` in the middle of play, built through the services."""
    from tests import phone_scenes

    if kind == "bughunt-mission":
        return phone_scenes.bughunt_mission(owner, player)[0]
    if kind == "fiveparsecs-battle":
        return phone_scenes.fiveparsecs_battle(owner, player)[0]
    room = services.room_create(user=owner, kind="threat", title="Bench threat")
    for n, name in enumerate(("Ripley", "Hicks", "Vasquez", "Bishop", "Hudson")):
        room.refresh_from_db()
        payload = {"name": name, "owner": str(player.pk) if n in (2, 3) else ""}
        services.room_act(user=owner, room_id=room.pk, type="add_character", payload=payload, version=room.version)
    room.refresh_from_db()
    return room


def copies(template: Room, owners: list[Any]) -> list[Room]:
    """A room per owner holding the template's state (its log starts there)."""
    rooms = Room.objects.bulk_create(
        Room(kind=template.kind, title=f"{template.title} {n}", owner=owner, initial_state=template.state, state=template.state)
        for n, owner in enumerate(owners)
    )
    Membership.objects.bulk_create(Membership(room=room, user=room.owner, role="owner") for room in rooms)
    return rooms


def action_maker(kind: str, state: dict[str, Any]) -> Callable[[int], dict[str, Any]]:
    """The n-th action a client sends (legal in any order, so clients sharing a room may mix):
    the threat referee ends the phase; the Bug Hunt referee sets a trooper's Stun markers; the
    Five Parsecs referee sets an enemy's."""
    if kind == "threat":
        return lambda n: {"type": "end_phase", "payload": {}}
    if kind == "bughunt-mission":
        figures = [f["id"] for u in state["units"] for f in u["figures"]]
        return lambda n: {"type": "adjust", "payload": {"figure": figures[n % len(figures)], "stun": (n // len(figures)) % 2}}
    enemies = [f["id"] for f in state["enemies"]]
    return lambda n: {"type": "adjust", "payload": {"enemy": enemies[n % len(enemies)], "stun": (n // len(enemies)) % 2}}


# -- the load ----------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cpu_seconds(pid: int) -> float:
    """User and system CPU of the process, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_seconds() -> float:
    """Busy CPU of the whole machine, all cores (``/proc/stat``: every state but idle and I/O wait)."""
    ticks = [int(n) for n in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


@dataclass
class Burst:
    latencies: list[float] = field(default_factory=list)
    requests: int = 0
    stale: int = 0
    cpu: float = 0.0  # the server process's
    machine: float = 0.0  # the whole machine's: the server, PostgreSQL, Redis, the clients, the kernel


class Phone:
    """One client: a keep-alive connection, a token, a room and the version it last saw."""

    def __init__(self, url: Any, token: str, room_id: int, version: int, make: Callable[[int], dict[str, Any]]) -> None:
        self.conn = http.client.HTTPConnection(url.hostname, url.port, timeout=120)
        self.headers = {"Content-Type": "application/json", "Authorization": f"Token {token}"}
        self.room_id, self.version, self.make, self.sent = room_id, version, make, 0

    def act(self, burst: Burst) -> None:
        body = self.make(self.sent)
        self.sent += 1
        while True:
            started = time.perf_counter()
            self.conn.request(
                "POST", f"/api/v1/rooms/{self.room_id}/actions/", json.dumps({**body, "version": self.version}), self.headers
            )
            response = self.conn.getresponse()
            answer = json.loads(response.read())
            burst.latencies.append(time.perf_counter() - started)
            burst.requests += 1
            if response.status == 409:
                burst.stale += 1
                self.version = answer["version"]
                continue
            assert response.status == 200, (response.status, answer)
            self.version = answer["version"]
            return

    def baseline(self, burst: Burst) -> None:
        started = time.perf_counter()
        self.conn.request("GET", f"/bench/baseline/{self.room_id}/", headers=self.headers)
        response = self.conn.getresponse()
        response.read()
        burst.latencies.append(time.perf_counter() - started)
        burst.requests += 1
        assert response.status == 200, response.status


def run_burst(phones: list[Phone], count: int, step: Callable[[Phone, Burst], None], pid: int, seen: list[int]) -> Burst:
    """Every phone sends ``count`` requests at once; returns the latencies and the server's CPU."""
    bursts = [Burst() for _ in phones]
    start = threading.Barrier(len(phones) + 1)

    def client(phone: Phone, burst: Burst) -> None:
        start.wait()
        for _ in range(count):
            step(phone, burst)

    threads = [threading.Thread(target=client, args=(p, b), daemon=True) for p, b in zip(phones, bursts, strict=True)]
    for thread in threads:
        thread.start()
    before, machine_before = cpu_seconds(pid), machine_seconds()
    start.wait()
    while any(t.is_alive() for t in threads):
        seen.append(database_connections())
        time.sleep(0.25)
    total = Burst(cpu=cpu_seconds(pid) - before, machine=machine_seconds() - machine_before)
    for burst in bursts:
        total.latencies += burst.latencies
        total.requests += burst.requests
        total.stale += burst.stale
    return total


def database_connections() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
        return int(cursor.fetchone()[0])


@contextmanager
def bench_server() -> Iterator[Any]:
    """uvicorn serving :func:`server_app` on the test database (as ``tests.asgi_server`` does)."""
    import subprocess

    from tests.asgi_server import database_url, free_port

    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update({"DATABASE_URL": database_url(), "DEBUG": "false", "DJANGO_SETTINGS_MODULE": "config.settings"})
    command = [sys.executable, "-m", "uvicorn", "--factory", "benchmarks.live_tracker:server_app"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", "--no-access-log"]
    command += ["--timeout-keep-alive", "300"]  # a client that finished its burst waits for the others
    process = subprocess.Popen(command, cwd=ROOT, env=env)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                probe = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
                probe.request("GET", "/api/v1/rooms/kinds/")
                probe.getresponse().read()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the ASGI server did not start") from None
                time.sleep(0.2)
        yield process
    finally:
        process.terminate()
        process.wait(timeout=20)


@dataclass
class Row:
    kind: str
    action: Burst
    base: Burst


def load(kind: str, rooms: list[Room], tokens: list[str], server: Any, seen: list[int]) -> Row:
    url = urlparse(f"http://127.0.0.1:{server.args[server.args.index('--port') + 1]}")
    make = action_maker(kind, rooms[0].state)
    phones = [Phone(url, tokens[n], rooms[n % len(rooms)].pk, rooms[n % len(rooms)].version, make) for n in range(len(tokens))]
    for n, phone in enumerate(phones):
        phone.sent = n  # clients sharing a room start on different figures
    pid = server.pid
    run_burst(phones, WARMUP, Phone.act, pid, seen)
    run_burst(phones, WARMUP, Phone.baseline, pid, seen)
    action, base = Burst(), Burst()
    for _ in range(BURSTS):
        for total, step in ((base, Phone.baseline), (action, Phone.act)):
            burst = run_burst(phones, REQUESTS // BURSTS, step, pid, seen)
            total.latencies += burst.latencies
            total.requests += burst.requests
            total.stale += burst.stale
            total.cpu += burst.cpu
            total.machine += burst.machine
    for phone in phones:
        phone.conn.close()
    return Row(kind, action, base)


def print_table(title: str, rows: list[Row]) -> None:
    print(title)
    print(
        f"  {'kind':<20} {'action p50':>10} {'p95':>8} {'baseline p50':>13} {'p95':>8} {'p95 ratio':>9}"
        f" {'CPU/action':>11} {'CPU/baseline':>13} {'rest/action':>12} {'rest/baseline':>14} {'409s':>6}"
    )
    verdicts = []
    for row in rows:
        a50, a95 = percentile(row.action.latencies, 0.5) * 1000, percentile(row.action.latencies, 0.95) * 1000
        b50, b95 = percentile(row.base.latencies, 0.5) * 1000, percentile(row.base.latencies, 0.95) * 1000
        cpu_a = row.action.cpu / row.action.requests * 1000
        cpu_b = row.base.cpu / row.base.requests * 1000
        rest_a = (row.action.machine - row.action.cpu) / row.action.requests * 1000
        rest_b = (row.base.machine - row.base.cpu) / row.base.requests * 1000
        print(
            f"  {LABELS[row.kind]:<20} {a50:8.1f}ms {a95:6.1f}ms {b50:11.1f}ms {b95:6.1f}ms {a95 / b95:8.2f}x"
            f" {cpu_a:9.2f}ms {cpu_b:11.2f}ms {rest_a:10.2f}ms {rest_b:12.2f}ms {row.action.stale:>6}"
        )
        verdicts.append((LABELS[row.kind], a95 / b95))
    for label, ratio in verdicts:
        print(f"  p95 ratio {label}: {ratio:.2f}x (target <= {P95_TARGET}x) {'MET' if ratio <= P95_TARGET else 'MISSED'}")


def under_load(users: list[Any], player: Any) -> None:
    tokens = [Token.objects.get_or_create(user=u)[0].key for u in users]
    templates = {kind: template_room(kind, users[0], player) for kind in KINDS}
    own = {kind: copies(templates[kind], users) for kind in KINDS}
    shared = {kind: copies(templates[kind], users[:SHARED_ROOMS]) for kind in KINDS}
    seen: list[int] = []
    with bench_server() as server:
        rows = [load(kind, own[kind], tokens, server, seen) for kind in KINDS]
        print_table(f"{len(users)} clients, each in its own room ({REQUESTS} requests each of action and baseline):", rows)
        # The actions above are the referee's: in a shared room every client acts as its owner
        # (the referee's phone and laptop, and the owner's tabs, all at once).
        shared_tokens = [tokens[n % SHARED_ROOMS] for n in range(len(users))]
        rows = [load(kind, shared[kind], shared_tokens, server, seen) for kind in KINDS]
        print_table(f"{len(users)} clients sharing {SHARED_ROOMS} rooms (409s retried, each try counted):", rows)
    sizes = ", ".join(f"{LABELS[k]} {len(json.dumps(templates[k].state)):,}" for k in KINDS)
    print(f"  (state sizes in bytes: {sizes}; at most {max(seen, default=0)} database connections seen)")


# -- profile -----------------------------------------------------------------------------------


def keep_sql(queries: list[str], execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
    queries.append(sql)
    return execute(sql, params, many, context)


def per_call(call: Callable[[int], object], repeats: int, clock: Callable[[], float] = time.process_time) -> float:
    """Seconds of ``clock`` per call: CPU time by default, wall time with ``time.perf_counter``."""
    started = clock()
    for n in range(repeats):
        call(n)
    return (clock() - started) / repeats


def profile(users: list[Any], player: Any) -> None:
    """One action of each kind, in this process (Django's test client, no ASGI server): CPU per
    request against the baseline view's, wall time per request one at a time (with the waits
    for the database: its commits' flushes to disk) against the baseline's, the reducer's own
    CPU (called alone on the same state and actions), the queries, and the top functions under
    cProfile."""
    client = Client(HTTP_HOST="127.0.0.1")
    token = Token.objects.get_or_create(user=users[0])[0].key
    for kind in KINDS:
        profile_kind(kind, users[0], player, client, token)


def profile_kind(kind: str, owner: Any, player: Any, client: Client, token: str, repeats: int = 100) -> None:
    from django.test import override_settings

    from live import registry
    from live.engine.tracker import Action, Role
    from live.selectors import reducer_tables
    from rules.engine.dice import Dice

    room = template_room(kind, owner, player)
    make = action_maker(kind, room.state)
    counter = iter(range(10**6))

    def post(_: int) -> None:
        version = Room.objects.values_list("version", flat=True).get(pk=room.pk)
        response = client.post(
            f"/api/v1/rooms/{room.pk}/actions/",
            json.dumps({**make(next(counter)), "version": version}),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Token {token}",
        )
        assert response.status_code == 200, response.content

    def version_read(_: int) -> None:
        Room.objects.values_list("version", flat=True).get(pk=room.pk)

    def base(_: int) -> None:
        assert client.get(f"/bench/baseline/{room.pk}/").status_code == 200

    per_call(post, 5)
    queries: list[str] = []
    with connection.execute_wrapper(partial(keep_sql, queries)):
        post(0)
    action_cpu = per_call(post, repeats) - per_call(version_read, repeats)
    with override_settings(ROOT_URLCONF=__name__):
        base_cpu = per_call(base, repeats)
        base_wall = per_call(base, repeats, time.perf_counter)
    action_wall = per_call(post, repeats, time.perf_counter) - per_call(version_read, repeats, time.perf_counter)
    tracker = registry.get(kind)
    tables, state = reducer_tables(tracker), Room.objects.get(pk=room.pk).state

    def reduce(n: int) -> None:
        body = make(n)
        action = Action(body["type"], body["payload"], actor=str(owner.pk), role=Role.OWNER)
        tracker.reducer(state, action, Dice(seed=n), tables)

    reducer_cpu = per_call(reduce, repeats)
    print(
        f"\n== {LABELS[kind]}: {action_cpu * 1000:.2f} ms CPU per action request, in process; baseline view "
        f"{base_cpu * 1000:.2f} ms; the reducer alone {reducer_cpu * 1000:.2f} ms ({reducer_cpu / action_cpu:.0%})"
    )
    print(
        f"   wall time per request, one at a time: action {action_wall * 1000:.2f} ms, baseline view "
        f"{base_wall * 1000:.2f} ms ({action_wall / base_wall:.2f}x)"
    )
    print(f"   {len(queries) - 1} queries in the request:")  # less the benchmark's own version read
    for sql in queries[1:]:
        print(f"     {sql[:150]}")
    profiler = cProfile.Profile(time.process_time)  # CPU, not the wait for the database
    profiler.enable()
    for n in range(repeats):
        post(n)
    profiler.disable()
    stats = pstats.Stats(profiler)
    if os.environ.get("BENCH_PROFILE_DIR"):  # for a closer look: python -m pstats FILE
        stats.dump_stats(Path(os.environ["BENCH_PROFILE_DIR"]) / f"{kind}.pstats")
    stats.sort_stats("cumulative").print_stats(35)


def main() -> None:
    from django.contrib.auth import get_user_model

    from tests.tables import load_system_tables

    old = setup_databases(verbosity=0, interactive=False)
    try:
        for system in ("bughunt", "fiveparsecs"):
            load_system_tables(system)
        call_command("loaddata", str(ROOT / "fixtures" / "threat-tracker" / "threat-tracker.json"), verbosity=0)
        model = get_user_model()
        users = [model.objects.create_user(f"bench{n}", password="bench-password-1") for n in range(CLIENTS)]
        player = model.objects.create_user("player", password="bench-password-1")
        print(f"({connection.vendor}; REDIS_URL {'set' if os.environ.get('REDIS_URL') else 'not set'})")
        if os.environ.get("BENCH_PROFILE") == "1":
            profile(users, player)
            return
        under_load(users, player)
        if os.environ.get("BENCH_FANOUT", "1") != "0":
            per_event = {n: fan_out(users[0], n) for n in SUBSCRIBERS}
            one, many = per_event[SUBSCRIBERS[0]], per_event[SUBSCRIBERS[1]]
            print(
                f"server CPU per published event: {one * 1000:.2f} ms with 1 subscriber, {many * 1000:.2f} ms with 50; "
                f"ratio {many / one:.1f}x"
            )
    finally:
        connection.close()
        teardown_databases(old, verbosity=0)


def fan_out(user: Any, subscribers: int) -> float:
    from tests.asgi_server import asgi_server

    room = services.room_create(user=user, kind="threat", title=f"Fan-out {subscribers}")
    token = Token.objects.get_or_create(user=user)[0].key
    client = Client()
    client.force_login(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}"
    with asgi_server(redis_url=os.environ.get("REDIS_URL")) as server:
        url = urlparse(server)
        received = [0] * subscribers
        ready = threading.Barrier(subscribers + 1)

        def listen(index: int) -> None:
            conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=60)
            conn.request("GET", f"/events/rooms/{room.pk}/", headers={"Cookie": cookie})
            stream = conn.getresponse()
            opened = False
            while received[index] < EVENTS:
                line = stream.readline().decode()
                if line.startswith("event: stream-open") and not opened:
                    opened = True
                    ready.wait()
                elif line.startswith("event: version"):
                    received[index] += 1
            conn.close()

        threads = [threading.Thread(target=listen, args=(i,), daemon=True) for i in range(subscribers)]
        for thread in threads:
            thread.start()
        ready.wait(timeout=60)
        before = cpu_seconds(server.pid)
        poster = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=60)
        for version in range(EVENTS):
            body = json.dumps({"type": "set_threat", "payload": {"level": 1 + version % 5}, "version": version})
            poster.request(
                "POST",
                f"/api/v1/rooms/{room.pk}/actions/",
                body,
                {"Content-Type": "application/json", "Authorization": f"Token {token}"},
            )
            poster.getresponse().read()
        for thread in threads:
            thread.join(timeout=120)
        spent = cpu_seconds(server.pid) - before
    assert all(count == EVENTS for count in received), received
    return spent / EVENTS


if __name__ == "__main__":
    main()
