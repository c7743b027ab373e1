"""The room channel's event store (:class:`live.events.RoomEventStorage`): fewer queries per
event than django-eventstream's own store, the same rows, the same catch-up after a reconnect."""

from __future__ import annotations

import json
from unittest import mock

import pytest
from django.conf import settings
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django_eventstream import eventstream
from django_eventstream.models import Event as StoredEvent
from django_eventstream.models import EventCounter
from django_eventstream.storage import DjangoModelStorage, EventDoesNotExist

from live import services
from live.events import RoomEventStorage, redis_channel, room_channel
from live.models import RoomAction

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


class _Rollback(Exception):
    pass


def test_an_action_and_its_event_commit_together_and_are_sent_after(owner, threat_tables) -> None:  # type: ignore[no-untyped-def]
    """The event is stored inside the action's transaction (one commit for both) and sent only
    once that commits: a write that rolls back leaves neither the action nor its event."""
    room = services.room_create(user=owner, kind="threat", title="Hadley's Hope", options={"threat": 3})
    channel = room_channel(room.pk)
    act = {"user": owner, "room_id": room.pk, "type": "add_character", "payload": {"name": "Ripley"}}
    bus = mock.Mock()
    with mock.patch.object(eventstream, "redis_client", bus), mock.patch("live.events.push_room") as pushed:
        with pytest.raises(_Rollback), transaction.atomic():
            services.room_act(**act, version=0)
            assert [kind for _, kind, _ in _rows(channel)][-1] == "version"  # stored, not yet committed
            assert not bus.publish.called and not pushed.called  # nor sent
            raise _Rollback
        assert not RoomAction.objects.filter(room=room).exists() and _rows(channel) == []  # both rolled back
        assert not bus.publish.called and not pushed.called
        with CaptureQueriesContext(connection) as queries:
            services.room_act(**act, version=0)
        stored = _rows(channel)[-1]
    sqls = [q["sql"] for q in queries]
    assert sqls[-1] == "COMMIT" and sqls.count("COMMIT") == 1  # the action and its event: one commit,
    assert any("django_eventstream_event" in sql for sql in sqls[:-1])  # the event written before it
    if hasattr(settings, "EVENTSTREAM_REDIS"):  # every process hears what send_event would send
        bus.publish.assert_called_once()
        name, message = bus.publish.call_args.args
        assert name == redis_channel() == f"events_channel:{settings.EVENTSTREAM_REDIS['db']}"
        assert json.loads(message) == {
            "channel": channel,
            "event_type": "version",
            "data": json.loads(stored[2]),
            "pub_id": str(stored[0]),
        }
        assert json.loads(json.loads(message)["data"]) == {"room": room.pk, "version": 1}
    else:  # the one process pushes, the stored event as its announcement
        (room_id,), kwargs = pushed.call_args
        assert room_id == room.pk and kwargs["announce"][0] == channel and kwargs["announce"][1].id == stored[0]


def test_a_dead_event_bus_does_not_fail_the_committed_action(owner, threat_tables) -> None:  # type: ignore[no-untyped-def]
    room = services.room_create(user=owner, kind="threat", title="Hadley's Hope", options={"threat": 3})
    bus = mock.Mock()
    bus.publish.side_effect = ConnectionError("the bus is down")
    with mock.patch.object(eventstream, "redis_client", bus), mock.patch("live.events.push_room", side_effect=ConnectionError):
        result = services.room_act(user=owner, room_id=room.pk, type="add_character", payload={"name": "Ripley"}, version=0)
    assert result.room.version == 1
    assert json.loads(json.loads(_rows(room_channel(room.pk))[-1][2])) == {"room": room.pk, "version": 1}  # kept for catch-up


@pytest.mark.redis
def test_dropships_on_two_redis_databases_do_not_hear_each_other() -> None:
    """Redis pub/sub ignores the selected database: the channel name carries it, so a Dropship on
    database ``db`` hears its own events and not those of another on ``db + 8`` (mod 16: no test
    process's own, tests/settings.py)."""
    from django.test import override_settings
    from django_eventstream.event import Event
    from redis import Redis

    from live import events

    ours = dict(settings.EVENTSTREAM_REDIS)
    theirs = {**ours, "db": (ours["db"] + 8) % 16}
    listener = Redis(**ours).pubsub(ignore_subscribe_messages=True)
    listener.subscribe(redis_channel())
    event = Event("room-1", "version", json.dumps({"room": 1, "version": 2}), 2)
    try:
        for config in (theirs, ours):
            with override_settings(EVENTSTREAM_REDIS=config), mock.patch.object(eventstream, "redis_client", Redis(**config)):
                events._send(1, "room-1", event)
        heard = [listener.get_message(timeout=0.2) for _ in range(10)]  # the subscribe reply reads as None
    finally:
        listener.close()
    assert redis_channel() != f"events_channel:{theirs['db']}"
    assert [json.loads(m["data"])["pub_id"] for m in heard if m] == ["2"]  # its own event, once
