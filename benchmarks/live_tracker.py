"""Benchmark the shared table. Not a test: it prints numbers and ratios.

    DATABASE_URL=postgres://postgres@127.0.0.1/postgres uv run python benchmarks/live_tracker.py

1. Latency of a tracker action (POST /api/v1/rooms/{id}/actions/, in process) against a
   baseline view that does one SELECT and one UPDATE in a transaction: p50, p95, and ratios.
2. Server CPU time per published event with 1 and with 50 subscribers on a real uvicorn
   process (SSE), and their ratio.

It creates and drops its own test database (test_<name>), like the test suite.
"""

from __future__ import annotations

import http.client
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.http import HttpRequest, HttpResponse  # noqa: E402
from django.test import Client, override_settings  # noqa: E402
from django.test.utils import setup_databases, teardown_databases  # noqa: E402
from django.urls import path  # noqa: E402
from rest_framework.authtoken.models import Token  # noqa: E402

from config.urls import urlpatterns as app_urls  # noqa: E402
from live import services  # noqa: E402
from live.models import Room  # noqa: E402

ACTIONS = 300
EVENTS = 40
SUBSCRIBERS = (1, 50)


def baseline(request: HttpRequest, room_id: int) -> HttpResponse:
    with transaction.atomic():
        room = Room.objects.select_for_update().get(pk=room_id)
        Room.objects.filter(pk=room_id).update(version=room.version + 1)
    return HttpResponse("ok")


urlpatterns = [*app_urls, path("bench/baseline/<int:room_id>/", baseline)]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def latency(user) -> None:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    room = services.room_create(user=user, kind="threat", title="Bench")
    services.room_act(user=user, room_id=room.pk, type="add_character", payload={"name": "Ripley"}, version=0)
    action, base = [], []
    with override_settings(ROOT_URLCONF=__name__):
        for _ in range(ACTIONS):
            version = Room.objects.values_list("version", flat=True).get(pk=room.pk)
            started = time.perf_counter()
            response = client.post(
                f"/api/v1/rooms/{room.pk}/actions/",
                json.dumps({"type": "end_phase", "version": version}),
                content_type="application/json",
            )
            action.append(time.perf_counter() - started)
            assert response.status_code == 200, response.content
            started = time.perf_counter()
            client.get(f"/bench/baseline/{room.pk}/")
            base.append(time.perf_counter() - started)
    for name, q in (("p50", 0.5), ("p95", 0.95)):
        a, b = percentile(action, q) * 1000, percentile(base, q) * 1000
        print(f"tracker action {name}: {a:.2f} ms; baseline SELECT+UPDATE {name}: {b:.2f} ms; ratio {a / b:.1f}x")
    print(
        f"  ({ACTIONS} actions each, {connection.vendor}, mean {statistics.mean(action) * 1000:.2f} ms vs {statistics.mean(base) * 1000:.2f} ms)"
    )


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fan_out(user, subscribers: int) -> float:  # type: ignore[no-untyped-def]
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


def main() -> None:
    from django.contrib.auth import get_user_model

    old = setup_databases(verbosity=0, interactive=False)
    try:
        call_command("loaddata", str(ROOT / "fixtures" / "systems.json"), verbosity=0)
        call_command("loaddata", str(ROOT / "fixtures" / "threat-tracker" / "threat-tracker.json"), verbosity=0)
        user = get_user_model().objects.create_user("bench", password="bench-password-1")
        latency(user)
        per_event = {n: fan_out(user, n) for n in SUBSCRIBERS}
        one, many = per_event[SUBSCRIBERS[0]], per_event[SUBSCRIBERS[1]]
        print(
            f"server CPU per published event: {one * 1000:.2f} ms with 1 subscriber, {many * 1000:.2f} ms with 50; ratio {many / one:.1f}x"
        )
    finally:
        connection.close()
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
