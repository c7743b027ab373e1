from __future__ import annotations

import pytest
from django.test import Client

from live import services
from live.models import Room

pytestmark = pytest.mark.django_db


@pytest.fixture
def room(owner, threat_tables) -> Room:  # type: ignore[no-untyped-def]
    return services.room_create(user=owner, kind="threat", title="Sulaco")


@pytest.fixture
def referee(owner) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(owner)
    return client


def test_open_a_table_from_the_form(referee: Client, threat_tables: None) -> None:
    response = referee.post("/rooms/", {"kind": "threat", "title": "Reactor", "threat": "5"})
    room = Room.objects.get(title="Reactor")
    assert response.status_code == 302 and response["Location"] == f"/rooms/{room.pk}/"
    assert room.state["actions_left"] == 1
    bad = referee.post("/rooms/", {"kind": "threat", "title": "Reactor", "threat": "9"})
    assert bad.status_code == 400 and b"threat must be from 1 to 5" in bad.content


def test_room_page_shows_code_qr_and_tracker(referee: Client, room: Room) -> None:
    page = referee.get(f"/rooms/{room.pk}/")
    code = services.room_code(room)
    assert code is not None and code.code.encode() in page.content
    assert b'data-testid="threat-tracker"' in page.content and b'sse-connect="/events/rooms/' in page.content
    qr = referee.get(f"/rooms/{room.pk}/qr.svg")
    assert qr["Content-Type"] == "image/svg+xml" and qr.content.startswith(b"<svg")
    assert b'xmlns="http://www.w3.org/2000/svg"' in qr.content  # stands alone as an <img>


def test_acting_from_a_form_swaps_the_tracker(referee: Client, room: Room) -> None:
    referee.post(f"/rooms/{room.pk}/act/", {"type": "add_character", "version": "0", "name": "Ripley"}, HTTP_HX_REQUEST="true")
    page = referee.post(
        f"/rooms/{room.pk}/act/",
        {"type": "combat_action", "version": "1", "characters": "c1", "faces": ["6", "4"], "modifier": "0"},
        HTTP_HX_REQUEST="true",
    )
    assert page.status_code == 200
    assert page.content.lstrip().startswith(b'<section id="tracker"')
    assert b"Success" in page.content and b"6 + 4 = 10" in page.content


def test_a_stale_form_gets_409_and_the_latest_tracker(referee: Client, room: Room) -> None:
    referee.post(f"/rooms/{room.pk}/act/", {"type": "add_character", "version": "0", "name": "Ripley"})
    page = referee.post(
        f"/rooms/{room.pk}/act/", {"type": "add_character", "version": "0", "name": "Hicks"}, HTTP_HX_REQUEST="true"
    )
    assert page.status_code == 409
    assert b"Someone else changed this; here is the latest." in page.content
    assert b"Ripley" in page.content and b"Hicks" not in page.content


def test_polling_gets_304_when_nothing_changed(referee: Client, room: Room) -> None:
    assert referee.get(f"/rooms/{room.pk}/tracker/?version=0").status_code == 304
    services.room_act(user=room.owner, room_id=room.pk, type="add_character", payload={"name": "Ripley"}, version=0)
    fresh = referee.get(f"/rooms/{room.pk}/tracker/?version=0")
    assert fresh.status_code == 200 and b"Ripley" in fresh.content


def test_join_page_joins_and_refuses_bad_codes(room: Room, player) -> None:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(player)
    bad = client.post("/rooms/join/", {"code": "ZZZZZZZZ"})
    assert bad.status_code == 400 and b"No table has that code" in bad.content
    code = services.room_code(room)
    assert code is not None
    assert client.get(f"/rooms/join/?code={code.code}").status_code == 200
    joined = client.post("/rooms/join/", {"code": code.code})
    assert joined.status_code == 302
    page = client.get(f"/rooms/{room.pk}/")
    assert page.status_code == 200 and code.code.encode() not in page.content  # only the owner sees the code


def test_guests_may_watch_only_when_allowed(room: Room) -> None:
    assert Client().get(f"/rooms/{room.pk}/").status_code == 404
    room.guests_can_watch = True
    room.save()
    page = Client().get(f"/rooms/{room.pk}/")
    assert page.status_code == 200 and b"Undo last action" not in page.content


def test_a_player_gets_403_not_a_server_error_on_the_owners_code_and_qr(room: Room, player) -> None:  # type: ignore[no-untyped-def]
    code = services.room_code(room)
    assert code is not None
    services.room_join(user=player, code=code.code)
    client = Client()
    client.force_login(player)
    assert client.get(f"/rooms/{room.pk}/qr.svg").status_code == 403
    assert client.post(f"/rooms/{room.pk}/code/rotate/").status_code == 403
    assert client.post(f"/rooms/{room.pk}/code/revoke/").status_code == 403
    assert services.room_code(room) == code
