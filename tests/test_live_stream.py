"""Server-Sent Events over a real ASGI server: a watcher hears ``{room, version}`` after an
action commits, in one process without Redis, and across two processes through Redis."""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.test import Client
from rest_framework.authtoken.models import Token

from live import services
from live.models import Room
from tests.asgi_server import asgi_server, database_connections
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _session_cookie(user) -> str:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def _open_stream(base: str, room_id: int, cookie: str) -> http.client.HTTPResponse:
    url = urlparse(base)
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=20)
    conn.request("GET", f"/events/rooms/{room_id}/", headers={"Cookie": cookie, "Accept": "text/event-stream"})
    response = conn.getresponse()
    assert response.status == 200
    assert response.getheader("Content-Type", "").startswith("text/event-stream")
    return response


def _next_event(stream: http.client.HTTPResponse, wanted: str) -> dict:  # type: ignore[type-arg]
    event = ""
    while True:
        line = stream.readline().decode().rstrip("\r\n")
        if line.startswith("event:"):
            event = line.split(":", 1)[1].strip()
        elif line.startswith("data:") and event == wanted:
            data = line.split(":", 1)[1].strip()
            return json.loads(data) if data else {}  # type: ignore[no-any-return]


def _act(base: str, room_id: int, token: str, version: int) -> None:
    url = urlparse(base)
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=20)
    body = json.dumps({"type": "add_character", "payload": {"name": f"Trooper {version}"}, "version": version})
    conn.request(
        "POST", f"/api/v1/rooms/{room_id}/actions/", body, {"Content-Type": "application/json", "Authorization": f"Token {token}"}
    )
    assert conn.getresponse().status == 200


@pytest.fixture
def room_and_people(transactional_db: None):  # type: ignore[no-untyped-def]
    owner, watcher = UserFactory.create(username="apone"), UserFactory.create(username="drake")
    room = services.room_create(user=owner, kind="threat", title="Stream")
    code = services.room_code(room)
    assert code is not None
    services.room_join(user=watcher, code=code.code)
    return room, Token.objects.create(user=owner).key, _session_cookie(watcher)


def test_a_watcher_hears_each_new_version(room_and_people) -> None:  # type: ignore[no-untyped-def]
    room, token, cookie = room_and_people
    with asgi_server() as base:
        stream = _open_stream(base, room.pk, cookie)
        _next_event(stream, "stream-open")
        _act(base, room.pk, token, 0)
        assert _next_event(stream, "version") == {"room": room.pk, "version": 1}
        _act(base, room.pk, token, 1)
        assert _next_event(stream, "version") == {"room": room.pk, "version": 2}


def test_an_outsider_cannot_open_the_stream(room_and_people) -> None:  # type: ignore[no-untyped-def]
    room, _, _ = room_and_people
    cookie = _session_cookie(UserFactory(username="burke"))
    with asgi_server() as base:
        url = urlparse(base)
        conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=20)
        conn.request("GET", f"/events/rooms/{room.pk}/", headers={"Cookie": cookie})
        assert conn.getresponse().status == 404


@pytest.mark.redis
def test_events_cross_processes_through_redis(room_and_people) -> None:  # type: ignore[no-untyped-def]
    room, token, cookie = room_and_people
    with asgi_server(redis_url=settings.REDIS_URL) as first, asgi_server(redis_url=settings.REDIS_URL) as second:
        stream = _open_stream(first, room.pk, cookie)
        _next_event(stream, "stream-open")
        _act(second, room.pk, token, 0)
        assert _next_event(stream, "version") == {"room": room.pk, "version": 1}


def _open_stream_with(base: str, room_id: int, headers: dict[str, str]) -> http.client.HTTPResponse:
    url = urlparse(base)
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=20)
    conn.request("GET", f"/events/rooms/{room_id}/", headers={"Accept": "text/event-stream", **headers})
    return conn.getresponse()


def test_an_api_client_follows_the_room_with_its_token_and_hears_a_join(room_and_people) -> None:  # type: ignore[no-untyped-def]
    room, token, _ = room_and_people
    newcomer = UserFactory.create(username="frost")
    code = services.room_code(room)
    assert code is not None
    with asgi_server() as base:
        stream = _open_stream_with(base, room.pk, {"Authorization": f"Token {token}"})
        assert stream.status == 200
        _next_event(stream, "stream-open")
        url = urlparse(base)
        conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=20)
        headers = {"Content-Type": "application/json", "Authorization": f"Token {Token.objects.create(user=newcomer).key}"}
        conn.request("POST", "/api/v1/rooms/join/", json.dumps({"code": code.code}), headers)
        assert conn.getresponse().status == 200
        assert _next_event(stream, "members")["room"] == room.pk
        assert _open_stream_with(base, room.pk, {"Authorization": "Token not-a-token"}).status == 401
        outsider = Token.objects.create(user=UserFactory.create(username="burke")).key
        assert _open_stream_with(base, room.pk, {"Authorization": f"Token {outsider}"}).status == 404


def _cookie_for(user) -> str:  # type: ignore[no-untyped-def]
    return _session_cookie(user)


def _open_page_stream(base: str, room_id: int, cookie: str) -> http.client.HTTPResponse:
    """The room page's own stream (``?fragments=1``): the fragment of the device's view."""
    url = urlparse(base)
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=20)
    conn.request("GET", f"/events/rooms/{room_id}/?fragments=1", headers={"Cookie": cookie, "Accept": "text/event-stream"})
    response = conn.getresponse()
    assert response.status == 200
    return response


def _next_raw(stream: http.client.HTTPResponse, wanted: str) -> str:
    """The data of the next ``wanted`` event, its lines joined as an EventSource joins them."""
    event, lines = "", list[str]()
    while True:
        line = stream.readline().decode().rstrip("\r\n")
        if line.startswith("event:"):
            event, lines = line.split(":", 1)[1].strip(), []
        elif line.startswith("data:"):
            lines.append(line[5:].removeprefix(" "))
        elif line == "" and event:
            if event == wanted:
                return "\n".join(lines)
            event = ""


def test_the_room_page_hears_its_own_view_of_the_tracker_pushed(room_and_people) -> None:  # type: ignore[no-untyped-def]
    room, token, cookie = room_and_people
    viewer = UserFactory.create(username="gorman")
    services.room_share(room, {viewer.pk: "viewer"})
    with asgi_server() as base:
        player_stream = _open_page_stream(base, room.pk, cookie)
        viewer_stream = _open_page_stream(base, room.pk, _cookie_for(viewer))
        _next_raw(player_stream, "stream-open")
        _next_raw(viewer_stream, "stream-open")
        _act(base, room.pk, token, 0)
        for stream in (player_stream, viewer_stream):
            html = _tracker_at(stream, 1)
            # The room's stored event follows the fragment it announces (a page whose push is lost
            # asks for the tracker on hearing it).
            assert json.loads(_next_raw(stream, "version")) == {"room": room.pk, "version": 1}
            assert "Trooper 0" in html and 'hx-swap-oob="outerHTML"' in html  # the member list, out of band
            assert "csrfmiddlewaretoken" not in html  # one render for every device: the page adds its own token
        # A viewer's own Leave button comes with every viewer's view, marked for dropship.js to keep.
        assert f'data-only-for="{viewer.pk}"' in html


def test_a_device_may_hear_only_its_own_view(room_and_people) -> None:  # type: ignore[no-untyped-def]
    from live.events import RoomChannelManager, view_channel

    room, _, _ = room_and_people
    manager = RoomChannelManager()
    watcher = room.members.get(user__username="drake").user
    assert manager.can_read_channel(watcher, view_channel(room.pk, f"player-{watcher.pk}"))
    assert not manager.can_read_channel(watcher, view_channel(room.pk, "owner"))
    assert not manager.can_read_channel(watcher, view_channel(room.pk, "watch"))
    assert not manager.can_read_channel(watcher, view_channel(room.pk, f"player-{room.owner_id}"))
    assert manager.can_read_channel(room.owner, view_channel(room.pk, "owner"))
    assert not manager.is_channel_reliable(view_channel(room.pk, "owner"))
    assert manager.is_channel_reliable(f"room-{room.pk}")


def test_idle_event_streams_hold_no_database_connection(room_and_people) -> None:  # type: ignore[no-untyped-def]
    """Twelve streams on a server whose pool may hold two PostgreSQL connections all open, hear an
    action and idle: none keeps a connection (the server holds no more than its pool may; on
    SQLite, with no pool, none at all)."""
    import time

    from django.db import connection

    room, token, cookie = room_and_people
    pool = 2
    with asgi_server(env={"DATABASE_POOL_MAX": str(pool)}) as base:
        streams = [_open_page_stream(base, room.pk, cookie) for _ in range(6)]
        streams += [_open_stream_with(base, room.pk, {"Authorization": f"Token {token}"}) for _ in range(4)]
        streams += [_open_stream(base, room.pk, cookie) for _ in range(2)]
        for stream in streams:
            _next_raw(stream, "stream-open")
        _act(base, room.pk, token, 0)
        for stream in streams[:6]:
            _tracker_at(stream, 1)
        for stream in streams[6:]:
            _next_raw(stream, "version")
        time.sleep(0.5)  # the action's request has ended
        held = len(database_connections(base.pid))
        if connection.vendor == "postgresql":
            assert held <= pool < len(streams), held
        else:
            assert held == 0


@pytest.mark.redis
def test_the_fragment_is_pushed_by_the_process_holding_the_stream_through_redis(room_and_people) -> None:  # type: ignore[no-untyped-def]
    room, token, cookie = room_and_people
    Room.objects.filter(pk=room.pk).update(guests_can_watch=True)
    with asgi_server(redis_url=settings.REDIS_URL) as first, asgi_server(redis_url=settings.REDIS_URL) as second:
        player, guest = _open_page_stream(first, room.pk, cookie), _open_page_stream(first, room.pk, "")
        _next_raw(player, "stream-open")
        _next_raw(guest, "stream-open")
        _act(second, room.pk, token, 0)
        for stream in (player, guest):
            assert "Trooper 0" in _tracker_at(stream, 1)


def _tracker_at(stream: http.client.HTTPResponse, version: int) -> str:
    """The next pushed fragment of ``version`` (a shared Redis may carry other servers' events for
    a room of the same id, which make this server push the room again: those are skipped)."""
    while True:
        html = _next_raw(stream, "tracker")
        if html.lstrip().startswith(f'<section id="tracker" data-version="{version}"'):
            return html


@pytest.mark.parametrize("through", [pytest.param("redis", marks=pytest.mark.redis), "one process"])
def test_a_page_hears_the_fragment_and_its_version_in_one_write(room_and_people, through: str) -> None:  # type: ignore[no-untyped-def]
    """Each page stream is written once per action (the per-device cost of a push): the fragment
    first, then the stored ``version`` event it answers, in one chunk of the response; through
    Redis and in one process without it (``make run``'s laptop)."""
    room, token, cookie = room_and_people
    with asgi_server(redis_url=settings.REDIS_URL if through == "redis" else None) as base:
        stream = _open_page_stream(base, room.pk, cookie)
        _next_raw(stream, "stream-open")
        _act(base, room.pk, token, 0)
        chunk = ""
        while 'data-version="1"' not in chunk:  # a shared Redis may carry other rooms' pushes first
            chunk = stream.read1(1 << 20).decode()  # one chunk of the chunked response
        assert '"version": 1' in chunk and f'"room": {room.pk}' in chunk
        assert chunk.index("event: tracker") < chunk.index("event: version")
        assert "Trooper 0" in chunk
