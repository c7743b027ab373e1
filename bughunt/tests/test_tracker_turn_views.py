"""The enforced battle round on the tracker page and in the API (Bug Hunt pp.193, 198): a refused
action answers 400 with the reason and leaves the page whole; typed dice are asked one die at a
time on the page."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from live import services as live_services
from live.models import Room

pytestmark = pytest.mark.usefixtures("bughunt_tables")

SETUP = {
    "priority": 2,
    "difficulty": "Mess Me Up",
    "contacts_at_center": 2,
    "main_characters": [{"name": "Vasquez", "reactions": 3, "combat_skill": 1, "weapons": ["Shot gun"]}],
}


def room_with_robots(user: Any) -> Room:
    """A standalone mission with three Berserk robots revealed from c1 (p.195)."""
    room = live_services.room_create(user=user, kind="bughunt-mission", title="Turns", options={"setup": SETUP})
    detect = {"contact": "c1", "faces": [5], "enemy_face": [48], "variant_face": [1], "numbers_faces": [2],
              "leader_faces": [12, 12, 12]}  # fmt: skip
    live_services.room_act(user=user, room_id=room.pk, type="detect", payload=detect, version=room.version)
    return Room.objects.get(pk=room.pk)


def post(client: Client, room: Room, **data: Any) -> Any:
    room.refresh_from_db()
    return client.post(f"/rooms/{room.pk}/act/", {"version": room.version, **data}, HTTP_HX_REQUEST="true")


def test_an_out_of_turn_shot_is_refused_with_its_reason_on_the_page_and_in_the_api(player) -> None:  # type: ignore[no-untyped-def]
    room = room_with_robots(player)
    client = Client()
    client.force_login(player)
    version = room.version
    page = post(client, room, type="shoot", figure="f1", weapon="Shot gun", enemy="e1")
    assert page.status_code == 400 and page["HX-Reswap"] == "none"
    assert "Combat Action taken when Vasquez acts" in page.content.decode() and "dropship:refused" in page["HX-Trigger"]
    api = client.post(
        f"/api/v1/rooms/{room.pk}/actions/",
        {"type": "shoot", "payload": {"figure": "f1", "weapon": "Shot gun", "enemy": "e1"}, "version": version},
        content_type="application/json",
    )
    assert api.status_code == 400 and "Start of round" in str(api.json())
    room.refresh_from_db()
    assert room.version == version


def test_the_page_asks_for_each_typed_die_in_turn(player, other) -> None:  # type: ignore[no-untyped-def]
    room = room_with_robots(player)
    client = Client()
    client.force_login(player)
    for data in ({"type": "roll_reactions", "faces": "1, 1"}, {"type": "assign_reaction", "unit": "u1", "die": "1"},
                 {"type": "assign_reaction", "unit": "u2", "die": "2"}, {"type": "next_phase"}):  # fmt: skip
        assert post(client, room, **data).status_code == 200, data
    page = post(client, room, type="shoot", figure="f1", weapon="Shot gun", enemy="e1", typed="on")
    html = page.content.decode()
    assert page.status_code == 200 and 'data-testid="pending-roll"' in html
    assert "2 D6 for Shot gun firing dice at Berserk robots 1" in html
    wrong = post(client, room, type="roll_die", faces="6")
    assert wrong.status_code == 400 and "type 2 D6" in wrong.content.decode()
    html = post(client, room, type="roll_die", faces="6, 3").content.decode()  # the 6 gives a Rapid Fire die
    assert "one D6 for Shot gun Rapid Fire dice" in html and "typed so far: 6, 3" in html
    code = live_services.room_code(room)
    assert code is not None
    live_services.room_join(user=other, code=code.code)
    phone = Client()
    phone.force_login(other)
    seen = phone.get(f"/rooms/{room.pk}/").content.decode()
    assert "Waiting for dice" in seen and 'data-testid="pending-roll"' not in seen  # only the roller types them
    html = post(client, room, type="cancel_roll").content.decode()
    assert 'data-testid="pending-roll"' not in html and "called off" in html


def test_move_and_dash_buttons_follow_the_activation(player) -> None:  # type: ignore[no-untyped-def]
    room = room_with_robots(player)
    client = Client()
    client.force_login(player)
    assert 'data-testid="move-f1"' not in client.get(f"/rooms/{room.pk}/").content.decode()  # start of round
    for data in ({"type": "roll_reactions", "faces": "1, 1"}, {"type": "assign_reaction", "unit": "u1", "die": "1"},
                 {"type": "assign_reaction", "unit": "u2", "die": "2"}, {"type": "next_phase"}):  # fmt: skip
        assert post(client, room, **data).status_code == 200, data
    html = client.get(f"/rooms/{room.pk}/").content.decode()
    assert 'data-testid="move-f1"' in html and 'Dash (6", no firing)' in html
    html = post(client, room, type="move", figure="f1", dash="on").content.decode()
    assert "Dashes up to 6 inches" in html and 'data-testid="moved-f1"' in html and 'data-testid="move-f1"' not in html
    assert html.count("Hold for Snap Fire") == 1  # the Fire team only: Vasquez has begun acting (p.198)
    refused = post(client, room, type="shoot", figure="f1", weapon="Shot gun", enemy="e1")
    assert refused.status_code == 400 and "Dashed this round" in refused.content.decode()
