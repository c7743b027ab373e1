"""A Redis outage degrades, then recovers: while Redis is down every page and API answers
and writes commit (live push falls back to reading the event store); once it is back, event
streams deliver through Redis again without a restart.

These tests start a Redis of their own on a free port (never the shared one), stop it under
real ASGI servers, and start it again.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlparse

import pytest
import redis
from django.conf import settings
from django.test import Client
from rest_framework.authtoken.models import Token

from live import services
from live.models import Room
from tests.asgi_server import asgi_server, free_port
from tests.factories import UserFactory

# -- a Redis of our own -------------------------------------------------------------------


class OwnRedis:
    """A throwaway redis-server on a loopback port: ``url``, ``stop()``, ``start()``."""

    def __init__(self, binary: str, port: int) -> None:
        self.binary, self.port = binary, port
        self.url = f"redis://127.0.0.1:{port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=1)

    def start(self) -> None:
        subprocess.run(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "yes",
            ],
            check=True,
            capture_output=True,
        )
        _wait_for(lambda: self._answers(), "redis-server to start")

    def stop(self) -> None:
        with contextlib.suppress(redis.ConnectionError):  # the server hangs up as it exits
            self.client().shutdown(nosave=True)
        _wait_for(lambda: not self._answers(), "redis-server to stop")

    def subscribers(self) -> int:
        """How many connections listen on the live events' channel (database 0's)."""
        return int(dict(self.client().pubsub_numsub("events_channel:0")).get(b"events_channel:0", 0))

    def _answers(self) -> bool:
        try:
            return bool(self.client().ping())
        except redis.ConnectionError:
            return False


def _wait_for(check: Callable[[], bool], what: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


@pytest.fixture
def own_redis() -> Iterator[OwnRedis]:
    binary = shutil.which("redis-server")
    if binary is None:
        reason = "redis-server is not installed (apt-get install redis-server)"
        if settings.DROPSHIP_REQUIRE_SERVICES:
            pytest.fail(f"DROPSHIP_REQUIRE_SERVICES is set, but {reason}", pytrace=False)
        pytest.skip(reason)
    server = OwnRedis(binary, free_port())
    server.start()
    try:
        yield server
    finally:
        server.stop()


# -- talking to the ASGI server -----------------------------------------------------------


def _session_cookie(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def _request(
    base: str, method: str, path: str, body: dict[str, Any] | None = None, token: str = "", cookie: str = ""
) -> tuple[int, bytes]:
    url = urlparse(base)
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=20)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    if cookie:
        headers["Cookie"] = cookie
    conn.request(method, path, json.dumps(body) if body is not None else None, headers)
    response = conn.getresponse()
    return response.status, response.read()


def _open_stream(base: str, room_id: int, cookie: str) -> http.client.HTTPResponse:
    url = urlparse(base)
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=30)
    conn.request("GET", f"/events/rooms/{room_id}/", headers={"Cookie": cookie, "Accept": "text/event-stream"})
    response = conn.getresponse()
    assert response.status == 200
    return response


def _next_version(stream: http.client.HTTPResponse, within: float) -> int:
    """The version of the next ``version`` event, which must come within ``within`` seconds."""
    deadline = time.monotonic() + within
    event = ""
    while time.monotonic() < deadline:
        line = stream.readline().decode().rstrip("\r\n")
        if line.startswith("event:"):
            event = line.split(":", 1)[1].strip()
        elif line.startswith("data:") and event == "version":
            return int(json.loads(line.split(":", 1)[1])["version"])
    raise AssertionError(f"no version event within {within} s")


def _skip_to_open(stream: http.client.HTTPResponse) -> None:
    while not stream.readline().decode().startswith("event: stream-open"):
        pass


def _act(base: str, room_id: int, token: str, version: int) -> None:
    body = {"type": "add_character", "payload": {"name": f"Trooper {version}"}, "version": version}
    status, content = _request(base, "POST", f"/api/v1/rooms/{room_id}/actions/", body, token)
    assert status == 200, content


@pytest.fixture
def table(transactional_db: None) -> dict[str, Any]:
    owner, watcher = UserFactory.create(username="apone"), UserFactory.create(username="drake")
    room = services.room_create(user=owner, kind="threat", title="Faults")
    code = services.room_code(room)
    assert code is not None
    services.room_join(user=watcher, code=code.code)
    return {
        "room": room,
        "code": code.code,
        "owner_token": Token.objects.create(user=owner).key,
        "watcher_cookie": _session_cookie(watcher),
        "newcomer_token": Token.objects.create(user=UserFactory.create(username="hicks")).key,
    }


# -- Redis down: everything answers, writes commit ----------------------------------------


def test_with_redis_down_pages_api_and_joining_answer_without_a_500(own_redis: OwnRedis, table: dict[str, Any]) -> None:
    room: Room = table["room"]
    with asgi_server(redis_url=own_redis.url) as base:
        own_redis.stop()
        answers = {
            path: _request(base, "GET", path, cookie=table["watcher_cookie"])[0]
            for path in ("/tables/", "/rooms/", f"/rooms/{room.pk}/", "/names/", "/api/v1/tables/", "/api/v1/rooms/kinds/")
        }
        wrong_code, _ = _request(base, "POST", "/api/v1/rooms/join/", {"code": "ZZZZZZZZ"}, table["newcomer_token"])
        right_code, _ = _request(base, "POST", "/api/v1/rooms/join/", {"code": table["code"]}, table["newcomer_token"])
        started = time.monotonic()
        _act(base, room.pk, table["owner_token"], 0)
        act_seconds = time.monotonic() - started

    assert answers == dict.fromkeys(answers, 200)
    assert wrong_code == 400  # no throttle count to read, but still a clear "no table has that code"
    assert right_code in (200, 201)
    assert room.members.filter(user__username="hicks").exists()
    room.refresh_from_db()
    assert room.version == 1  # the write committed although its live event could not be published
    assert act_seconds < 5  # and was not held up retrying a Redis that is not there


# -- Redis back: live push comes back without a restart -----------------------------------


def test_event_streams_deliver_again_after_redis_restarts(own_redis: OwnRedis, table: dict[str, Any]) -> None:
    room: Room = table["room"]
    token, cookie = table["owner_token"], table["watcher_cookie"]
    with asgi_server(redis_url=own_redis.url) as first, asgi_server(redis_url=own_redis.url) as second:
        early = _open_stream(first, room.pk, cookie)
        _skip_to_open(early)
        _act(second, room.pk, token, 0)
        assert _next_version(early, within=10) == 1

        own_redis.stop()
        _act(second, room.pk, token, 1)
        # Redis is down: the open stream reads the event store instead of hanging silent.
        assert _next_version(early, within=20) == 2

        own_redis.start()
        late = _open_stream(second, room.pk, cookie)
        _skip_to_open(late)
        # Both processes subscribe again by themselves, within a minute.
        _wait_for(lambda: own_redis.subscribers() == 2, "both servers to resubscribe", timeout=60)
        _act(second, room.pk, token, 2)
        assert _next_version(early, within=5) == 3
        assert _next_version(late, within=5) == 3
        _act(first, room.pk, token, 3)
        assert _next_version(late, within=5) == 4
