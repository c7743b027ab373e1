"""Eight clients write at once to one server as ``make run`` starts it (one ASGI process; SQLite
unless DATABASE_URL says otherwise): rooms, campaigns, Bug Hunt squads and battles. No request
answers a server error and no accepted write is lost; a write made against an old version is
refused with 409, never applied over another.

On SQLite this is the "database is locked" test: transactions start IMMEDIATE (config/settings.py),
so a second writer waits for the first instead of failing."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections import Counter
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connections
from rest_framework.authtoken.models import Token

from battles.models import Battle
from battles.tests.fp_data import CREW, PUNKS
from bughunt.models import Squad
from campaigns.models import Campaign
from live import services as live_services
from live.models import Room, RoomAction
from rules.fixturefiles import FIXTURES_DIR
from tests.asgi_server import asgi_server
from tests.factories import UserFactory
from tests.tables import load_system_tables

pytestmark = [pytest.mark.django_db(transaction=True)]

CLIENTS = 8
ROUNDS = 6


def _call(base: str, token: str, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        base + path,
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json", "Accept": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as refused:
        raw = refused.read()
        try:
            return refused.code, json.loads(raw or b"{}")
        except ValueError:
            return refused.code, {"raw": raw[:200].decode(errors="replace")}


def test_eight_clients_writing_at_once_get_no_server_error_and_lose_nothing() -> None:
    load_system_tables("fiveparsecs")
    call_command("loaddata", str(FIXTURES_DIR / "threat-tracker" / "threat-tracker.json"), verbosity=0)
    load_system_tables("bughunt")
    users = [UserFactory.create(username=f"writer{n}") for n in range(CLIENTS)]
    tokens = [Token.objects.create(user=u).key for u in users]
    # One shared table (every client acts on it as its owner, as the laptop and the owner's
    # phone do; they race), and one campaign and one battle for each client.
    room = live_services.room_create(user=users[0], kind="threat", title="Crowded table")
    statuses: Counter[int] = Counter()
    failures: list[str] = []
    accepted_room_actions: list[str] = []
    last_names: dict[int, str] = {}
    squads_made = Counter[int]()
    lock = threading.Lock()

    with asgi_server() as base:
        campaigns = []
        battles = []
        for token in tokens:
            status, made = _call(
                base, token, "POST", "/api/v1/campaigns/", {"name": "Drift", "crew_name": "Few", "ship_name": "Can"}
            )
            assert status == 201, made
            campaigns.append(made)
            status, made = _call(
                base,
                token,
                "POST",
                "/api/v1/fp-battles/",
                {"enemy": PUNKS, "crew": CREW, "hit_numbers": {"open": 5, "cover": 6}, "seed": 4},
            )
            assert status == 201, made
            battles.append(made)
        start = threading.Barrier(CLIENTS)

        def record(status: int, what: str, body: dict[str, Any]) -> None:
            with lock:
                statuses[status] += 1
                if status >= 500 or status not in {200, 201, 409}:
                    failures.append(f"{what}: {status} {body}")

        def client(n: int) -> None:
            try:
                token = tokens[n]
                campaign, battle = campaigns[n], battles[n]
                start.wait()
                for i in range(ROUNDS):
                    # The shared room: read the version, act; a 409 means someone else was first.
                    version = Room.objects.values_list("version", flat=True).get(pk=room.pk)
                    name = f"w{n}-{i}"
                    status, body = _call(
                        base, tokens[0], "POST", f"/api/v1/rooms/{room.pk}/actions/",
                        {"type": "add_character", "payload": {"name": name}, "version": version},
                    )  # fmt: skip
                    record(status, "room action", body)
                    if status == 200:
                        with lock:
                            accepted_room_actions.append(name)
                    # The client's own campaign and battle: each accepted write bumps the version.
                    new_name = f"Drift {n}-{i}"
                    status, body = _call(
                        base,
                        token,
                        "PATCH",
                        f"/api/v1/campaigns/{campaign['id']}/",
                        {"version": campaign["version"], "name": new_name},
                    )
                    record(status, "campaign rename", body)
                    if status == 200:
                        campaign["version"] = body["version"]
                        last_names[campaign["id"]] = new_name
                    status, body = _call(
                        base,
                        token,
                        "PATCH",
                        f"/api/v1/fp-battles/{battle['id']}/",
                        {"version": battle["version"], "title": f"Dock {i}"},
                    )
                    record(status, "battle rename", body)
                    if status == 200:
                        battle["version"] = body["version"]
                    status, body = _call(
                        base,
                        token,
                        "POST",
                        "/api/v1/bughunt/squads/",
                        {"name": f"Kilo {n}-{i}", "character_names": ["A", "B", "C"]},
                    )
                    record(status, "squad create", body)
                    if status == 201:
                        with lock:
                            squads_made[n] += 1
            finally:
                connections.close_all()  # this thread's connection, back to the pool

        threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)

    print(f"answers: {dict(statuses)}")
    assert failures == []
    assert sum(statuses.values()) == CLIENTS * ROUNDS * 4
    room.refresh_from_db()
    # Every accepted action is in the state and the log, once; nothing else is.
    assert room.version == len(accepted_room_actions)
    assert RoomAction.objects.filter(room=room).count() == len(accepted_room_actions)
    assert sorted(c["name"] for c in room.state["characters"]) == sorted(accepted_room_actions)
    # Each client's own writes never conflict: all accepted, the last one stands.
    assert statuses[409] == CLIENTS * ROUNDS - len(accepted_room_actions)
    for campaign_id, name in last_names.items():
        assert Campaign.objects.get(pk=campaign_id).name == name
    assert len(last_names) == CLIENTS
    assert sorted(Battle.objects.values_list("title", flat=True)) == [f"Dock {ROUNDS - 1}"] * CLIENTS
    assert Squad.objects.count() == sum(squads_made.values()) == CLIENTS * ROUNDS
