"""Ten clients send twenty actions each at once on PostgreSQL: no update is lost, the final
version equals the number of accepted actions, and every refused action got 409."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import connections
from rest_framework.test import APIClient

from live import services
from live.models import Room, RoomAction
from tests.factories import UserFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

CLIENTS = 10
ACTIONS = 20


def test_concurrent_actions_lose_nothing() -> None:
    owner = UserFactory.create(username="owner")
    room = services.room_create(user=owner, kind="threat", title="Crowded table")
    statuses: Counter[int] = Counter()
    names_sent: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(CLIENTS)

    def client(number: int) -> None:
        api = APIClient()
        api.force_authenticate(owner)
        try:
            start.wait()
            for i in range(ACTIONS):
                version = Room.objects.values_list("version", flat=True).get(pk=room.pk)
                name = f"c{number}-{i}"
                response = api.post(
                    f"/api/v1/rooms/{room.pk}/actions/",
                    {"type": "add_character", "payload": {"name": name}, "version": version},
                    format="json",
                )
                with lock:
                    statuses[response.status_code] += 1
                    if response.status_code == 200:
                        names_sent.append(name)
                    else:
                        assert response.json()["detail"] == "Someone else changed this; here is the latest."
        finally:
            connections.close_all()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    room.refresh_from_db()
    assert sum(statuses.values()) == CLIENTS * ACTIONS
    assert set(statuses) <= {200, 409}
    assert room.version == statuses[200] == RoomAction.objects.filter(room=room).count()
    assert sorted(c["name"] for c in room.state["characters"]) == sorted(names_sent)
    print(f"accepted {statuses[200]}, refused {statuses[409]}")
    assert statuses[409] > 0  # the test really raced
