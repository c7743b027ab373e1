"""A Street Fight (Compendium pp.123-136) opened by the battles service as a live room, played by
the owner and a player's phone, undone, shown on the page and summed up for the campaign turn."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from battles import street_kind, tracker_services
from battles.kinds import KINDS
from battles.mission_types import MISSION_KINDS, outcome_for
from live import services as live
from live.models import Room
from live.registry import register_kinds
from live.selectors import room_replay_matches
from rules.engine.dice import Dice
from rules.errors import DropshipError, NotAllowed
from tests.factories import UserFactory
from tests.tables import load_system_tables

pytestmark = pytest.mark.django_db

CREW = [{"name": "Ria", "savvy": 1, "reactions": 2, "captain": True}, {"name": "Bo", "reactions": 1}]


@pytest.fixture(autouse=True)
def kind(db: None) -> None:
    load_system_tables("fiveparsecs")
    register_kinds(KINDS)


@pytest.fixture
def owner():  # type: ignore[no-untyped-def]
    return UserFactory.create(username="captain")


@pytest.fixture
def player():  # type: ignore[no-untyped-def]
    return UserFactory.create(username="bo")


@pytest.fixture
def room(owner, player) -> Room:  # type: ignore[no-untyped-def]
    room = tracker_services.street_fight_open(user=owner, crew=CREW, title="Neon alley", blocks=2, dice=Dice(seed=4))
    code = live.room_code(room)
    assert code is not None
    live.room_join(user=player, code=code.code)
    return room


def act(user: Any, room: Room, type_: str, **payload: Any) -> live.ActResult:
    room.refresh_from_db()
    return live.room_act(user=user, room_id=room.pk, type=type_, payload=payload, version=room.version, seed=3)


def test_a_battle_in_a_street_fight_room_finishes_by_its_outcome() -> None:
    assert MISSION_KINDS[street_kind.KIND] is street_kind and street_kind.KIND == "fiveparsecs-street-fight"
    assert outcome_for(street_kind.KIND) is street_kind.outcome


def test_the_service_rolls_the_set_up_and_opens_a_room_of_the_kind(room: Room) -> None:
    assert room.kind == "fiveparsecs-street-fight" and room.title == "Neon alley"
    card = room.state["card"]
    assert card["nominis"]["supported"] is False and card["rolls"]
    assert [f["name"] for f in room.state["crew"]] == ["Ria", "Bo"]
    assert len(room.state["suspects"]) >= 2 and room.state["phase"] == "setup"


def test_bad_input_is_refused_by_field(owner) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DropshipError) as refused:
        tracker_services.street_fight_open(user=owner, crew=CREW, blocks=40)
    assert refused.value.field == "blocks"
    with pytest.raises(DropshipError) as refused:
        live.room_create(user=owner, kind=street_kind.KIND, title="x", options={"setup": "{}"}, unlisted=True)
    assert refused.value.field == "setup"


def test_a_round_is_played_by_the_owner_and_a_player_then_undone(room: Room, owner, player) -> None:  # type: ignore[no-untyped-def]
    act(owner, room, "set_player", figure="c2", player=str(player.pk))
    act(owner, room, "next_phase")
    act(owner, room, "roll_reactions", faces="1, 4")
    with pytest.raises(NotAllowed):
        act(player, room, "assign_reaction", figure="c1", die=1)
    assert act(player, room, "assign_reaction", figure="c2", die=2).room.state["crew"][1]["slot"] == "slow"
    act(owner, room, "next_phase")
    found = act(player, room, "identify", figure="c2", suspect="s1", face=4, enemy_face=25)
    assert found.room.state["enemies"][0]["type"] == "Main Gang"
    assert [r["reason"] for r in found.entry.events[0]["data"]["rolls"]] == ["Identify Suspect s1 (Bo)", "Street Fight Enemies"]
    room.refresh_from_db()
    undone = live.room_undo(user=owner, room_id=room.pk, version=room.version)
    assert undone.room.state["enemies"] == [] and "s1" in [m["id"] for m in undone.room.state["suspects"]]
    assert room_replay_matches(undone.room)


def test_the_page_fits_the_phone_and_shows_each_their_controls(room: Room, owner, player) -> None:  # type: ignore[no-untyped-def]
    act(owner, room, "set_player", figure="c2", player=str(player.pk))
    act(owner, room, "next_phase")
    act(owner, room, "roll_reactions", faces="1, 4")
    client = Client()
    client.force_login(owner)
    page = client.get(f"/rooms/{room.pk}/").content.decode()
    assert 'data-testid="round">1<' in page and 'data-testid="phase">Reactions<' in page
    assert 'data-testid="street-fight"' in page and 'data-testid="end-battle"' in page
    assert re.search(r'data-testid="suspect-count">\d+<', page)
    phone = Client()
    phone.force_login(player)
    mobile = phone.get(f"/rooms/{room.pk}/").content.decode()
    assert mobile.count("Take this die") == 1 and 'data-testid="end-battle"' not in mobile


def test_the_finished_fight_gives_the_standard_result_shape(room: Room, owner) -> None:  # type: ignore[no-untyped-def]
    act(owner, room, "next_phase")
    act(owner, room, "roll_reactions", faces="1, 1")
    act(owner, room, "next_phase")
    act(owner, room, "adjust", figure="c2", status="casualty")
    over = act(owner, room, "end_battle").room
    made = street_kind.outcome(over.state)
    standard = {"held_field", "casualties", "enemies_killed", "enemies_fled", "rounds", "objective", "objective_possible",
                "escalations", "deployment", "psionic_uses"}  # fmt: skip
    assert standard <= set(made)
    assert made["casualties"] == ["Bo"] and made["rounds"] == 1 and made["held_field"] is False
    assert made["street"]["escaped"] == ["Ria"] and made["mission"] == "street_fight"


def test_the_api_opens_a_street_fight_and_names_bad_fields(owner) -> None:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(owner)
    body = {"crew": CREW, "blocks": 1, "enemy": "Spooks", "rivals": ["vigilante"], "seed": 9}
    made = client.post("/api/v1/fp-street-fights/", body, content_type="application/json")
    assert made.status_code == 201, made.content
    room = Room.objects.get(pk=made.json()["room"])
    assert room.kind == street_kind.KIND and room.state["law"]["rivals"] == ["vigilante"]
    assert all(m["pursuing"] for m in room.state["suspects"])  # Spooks known from the start (p.129)
    assert made.json()["setup"]["nominis"]["supported"] is False
    for bad, field in (
        ({"crew": []}, "crew"),
        ({"crew": CREW, "enemy": "Pirates"}, "enemy"),
        ({"crew": CREW, "blocks": 13}, "blocks"),
    ):
        refused = client.post("/api/v1/fp-street-fights/", bad, content_type="application/json")
        answer = refused.json()
        assert refused.status_code == 400 and (field in answer or answer.get("field") == field), answer


def test_the_page_offers_the_oppositions_own_tests_only_when_they_are_on_the_table(owner) -> None:  # type: ignore[no-untyped-def]
    # p.131: Neon Barbarians may be talked down; Terror Faction members may plant bombs.
    room = tracker_services.street_fight_open(user=owner, crew=CREW, enemy="Neon Barbarians", dice=Dice(seed=2))
    client = Client()
    client.force_login(owner)
    for type_, payload in (("next_phase", {}), ("roll_reactions", {"faces": "1, 1"}), ("next_phase", {})):
        act(owner, room, type_, **payload)
    assert "Talk to the Neon Barbarians" not in client.get(f"/rooms/{room.pk}/").content.decode()
    act(owner, room, "identify", figure="c1", suspect="s1", face=4)
    assert "Talk to the Neon Barbarians" in client.get(f"/rooms/{room.pk}/").content.decode()
