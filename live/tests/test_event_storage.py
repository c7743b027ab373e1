"""The room channel's event store (:class:`live.events.RoomEventStorage`): fewer queries per
event than django-eventstream's own store, the same rows, the same catch-up after a reconnect."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django_eventstream.models import Event as StoredEvent
from django_eventstream.models import EventCounter
from django_eventstream.storage import DjangoModelStorage, EventDoesNotExist

from live.events import RoomEventStorage

pytestmark = pytest.mark.django_db(transaction=True)


def _rows(channel: str) -> list[tuple[int, str, str]]:
    return list(StoredEvent.objects.filter(channel=channel).order_by("eid").values_list("eid", "type", "data"))


def test_events_are_stored_as_the_library_stores_them() -> None:
    ours, theirs = RoomEventStorage(), DjangoModelStorage()
    for n in range(1, 4):
        data = json.dumps({"room": 7, "version": n})
        mine = ours.append_event("room-7", "version", data)
        library = theirs.append_event("room-8", "version", data)
        assert (mine.id, mine.type, mine.data) == (library.id, library.type, library.data) == (n, "version", data)
    assert _rows("room-7") == _rows("room-8")  # the placeholder 0 first, then 1, 2, 3
    assert [eid for eid, _, _ in _rows("room-7")] == [0, 1, 2, 3]
    assert EventCounter.objects.get(name="room-7").value == 3


def test_a_reconnecting_client_gets_what_it_missed() -> None:
    storage = RoomEventStorage()
    for n in range(1, 6):
        storage.append_event("room-9", "version", json.dumps({"room": 9, "version": n}))
    assert storage.get_current_id("room-9") == 5
    missed = storage.get_events("room-9", 2)
    assert [(e.id, json.loads(e.data)["version"]) for e in missed] == [(3, 3), (4, 4), (5, 5)]
    assert storage.get_events("room-9", 0)[0].id == 1
    assert storage.get_events("room-9", 5) == []
    with pytest.raises(EventDoesNotExist):
        storage.get_events("room-9", 42)


@pytest.mark.postgres
def test_an_event_after_the_first_is_one_statement() -> None:
    storage = RoomEventStorage()
    storage.append_event("room-10", "version", json.dumps({"room": 10, "version": 1}))
    with CaptureQueriesContext(connection) as queries:
        stored = storage.append_event("room-10", "version", json.dumps({"room": 10, "version": 2}))
    # one round trip: no BEGIN and COMMIT around it (a single statement is atomic by itself)
    assert [q["sql"].split()[0] for q in queries] == ["WITH"], [q["sql"] for q in queries]
    assert stored.id == 2
    assert [eid for eid, _, _ in _rows("room-10")] == [0, 1, 2]


@pytest.mark.postgres
def test_a_counter_made_before_its_first_event_still_gets_the_placeholder() -> None:
    EventCounter.objects.create(name="room-11", value=0)
    first = RoomEventStorage().append_event("room-11", "version", json.dumps({"room": 11, "version": 1}))
    assert first.id == 1
    assert [(eid, kind) for eid, kind, _ in _rows("room-11")] == [(0, ""), (1, "version")]
    assert RoomEventStorage().get_events("room-11", 0)[0].id == 1
