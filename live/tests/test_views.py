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


@pytest.fixture
def member(room: Room, player) -> Client:  # type: ignore[no-untyped-def]
    services.room_share(room, {player.pk: "player"})
    client = Client()
    client.force_login(player)
    return client


@pytest.mark.parametrize(("method", "path"), [("get", "qr.svg"), ("post", "code/rotate/"), ("post", "code/revoke/")])
def test_a_member_who_is_not_the_owner_cannot_see_or_change_the_join_code(
    member: Client, room: Room, method: str, path: str
) -> None:
    code = services.room_code(room)
    response = getattr(member, method)(f"/rooms/{room.pk}/{path}")
    assert response.status_code == 403
    assert b"this needs owner" in response.content
    assert services.room_code(room) == code


@pytest.mark.parametrize(("method", "path"), [("get", "qr.svg"), ("post", "code/rotate/"), ("post", "code/revoke/")])
def test_a_watching_guest_cannot_see_or_change_the_join_code(room: Room, method: str, path: str) -> None:
    room.guests_can_watch = True
    room.save()
    response = getattr(Client(), method)(f"/rooms/{room.pk}/{path}")
    assert response.status_code == 403
    assert services.room_code(room) is not None


def test_a_viewer_refused_an_action_gets_403_with_the_reason_not_a_redirect(room: Room, player) -> None:  # type: ignore[no-untyped-def]
    services.room_share(room, {player.pk: "viewer"})
    client = Client()
    client.force_login(player)
    response = client.post(f"/rooms/{room.pk}/act/", {"type": "add_character", "version": "0", "name": "Ripley"})
    assert response.status_code == 403
    assert b"You are a viewer in Sulaco; this needs player" in response.content
    room.refresh_from_db()
    assert room.version == 0


def test_an_anonymous_visitor_of_a_private_room_form_is_refused(room: Room) -> None:
    response = Client().post(f"/rooms/{room.pk}/act/", {"type": "add_character", "version": "0", "name": "Ripley"})
    assert response.status_code in (302, 403, 404)
    room.refresh_from_db()
    assert room.version == 0


def test_a_polling_device_gets_the_tracker_again_when_someone_joins(referee: Client, room: Room, player) -> None:  # type: ignore[no-untyped-def]
    page = referee.get(f"/rooms/{room.pk}/").content.decode()
    stamp = page.split("&amp;members=", 1)[1].split('"', 1)[0]
    assert referee.get(f"/rooms/{room.pk}/tracker/?version=0&members={stamp}").status_code == 304
    services.room_share(room, {player.pk: "player"})
    fresh = referee.get(f"/rooms/{room.pk}/tracker/?version=0&members={stamp}", HTTP_HX_REQUEST="true")
    assert fresh.status_code == 200
    # The member list comes out of band; dropship.js fills the set-up forms' Played-by choices from it.
    assert b'id="members"' in fresh.content and b'hx-swap-oob="outerHTML"' in fresh.content
    assert f'data-member-id="{player.pk}" data-member-name="hudson" data-member-role="player"'.encode() in fresh.content


def test_the_owner_removes_a_member_from_the_screen(referee: Client, room: Room, member: Client, player) -> None:  # type: ignore[no-untyped-def]
    page = referee.get(f"/rooms/{room.pk}/")
    assert b'data-testid="remove-hudson"' in page.content and b'data-testid="make-hudson"' in page.content
    made = referee.post(f"/rooms/{room.pk}/members/{player.pk}/role/", {"role": "viewer", "version": "0"}, HTTP_HX_REQUEST="true")
    assert made.status_code == 200 and b'data-testid="make-hudson">Make player' in made.content
    stale = referee.post(f"/rooms/{room.pk}/members/{player.pk}/remove/", {"version": "0"}, HTTP_HX_REQUEST="true")
    assert stale.status_code == 409 and b"Someone else changed this" in stale.content
    removed = referee.post(f"/rooms/{room.pk}/members/{player.pk}/remove/", {"version": "1"}, HTTP_HX_REQUEST="true")
    assert removed.status_code == 200 and b"member-hudson" not in removed.content
    assert member.get(f"/rooms/{room.pk}/").status_code == 404


def test_a_member_cannot_remove_others_from_the_screen_but_may_leave(room: Room, member: Client, player) -> None:  # type: ignore[no-untyped-def]
    page = member.get(f"/rooms/{room.pk}/")
    assert b'data-testid="leave"' in page.content and b"remove-" not in page.content
    refused = member.post(f"/rooms/{room.pk}/members/{room.owner_id}/remove/", {"version": "0"}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 403 and refused["HX-Reswap"] == "none"
    left = member.post(f"/rooms/{room.pk}/members/{player.pk}/remove/", {"version": "0"})
    assert left.status_code == 302 and left["Location"] == "/rooms/"
    assert member.get(f"/rooms/{room.pk}/").status_code == 404
