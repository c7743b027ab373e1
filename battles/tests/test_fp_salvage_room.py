"""A Salvage job (pp.137-147) opened as a live room, played by the owner and a player's phone,
undone, shown on the page, and finished into a battle result with its Salvage units."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from battles import result_services, salvage_kind
from battles import services as battle_services
from battles.engine import fp_salvage
from battles.kinds import KINDS
from battles.mission_types import MISSION_KINDS, outcome_for
from battles.tests.fp_data import CREW, PUNKS
from campaigns.selectors import fiveparsecs_tables
from live import services
from live.models import Room
from live.registry import register_kinds
from rules.engine.dice import Dice
from rules.errors import DropshipError, NotAllowed
from tests.factories import UserFactory
from tests.tables import load_system_tables

pytestmark = pytest.mark.django_db


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
    room = services.room_create(
        user=owner, kind=salvage_kind.KIND, title="Wreck of the Dawn", options={"crew": "Ria 1, Bo, Zed 2 bot"}
    )
    code = services.room_code(room)
    assert code is not None
    services.room_join(user=player, code=code.code)
    return room


def act(user: Any, room: Room, type_: str, **payload: Any) -> services.ActResult:
    room.refresh_from_db()
    return services.room_act(user=user, room_id=room.pk, type=type_, payload=payload, version=room.version, seed=3)


def test_a_battle_in_a_salvage_room_finishes_by_its_outcome() -> None:
    assert MISSION_KINDS[salvage_kind.KIND] is salvage_kind and salvage_kind.KIND == "fiveparsecs-salvage"
    assert outcome_for(salvage_kind.KIND) is salvage_kind.outcome


def test_the_rooms_page_options_roll_a_set_up(room: Room) -> None:
    state = room.state
    assert [(c["name"], c["savvy"], c["bot"]) for c in state["crew"]] == [("Ria", 1, False), ("Bo", 0, False), ("Zed", 2, True)]
    assert 2 <= state["salvage"]["markers"] <= 4 and state["card"]["salvage_markers"] == state["salvage"]["markers"]
    assert state["card"]["rolls"][0]["reason"].startswith("Salvage markers")
    assert state["tension"]["start"] == 2 and state["phase"] == "setup"


def test_the_rooms_page_takes_typed_set_up_dice(owner) -> None:  # type: ignore[no-untyped-def]
    room = services.room_create(
        user=owner, kind=salvage_kind.KIND, title="Job", options={"crew": "Ria", "marker_face": "1", "edge_face": "12"}
    )
    assert room.state["salvage"]["markers"] == 2 and room.state["deployment"]["edge"] == "west"


def test_a_generated_set_up_opens_the_same_room_kind(owner) -> None:  # type: ignore[no-untyped-def]
    made = fp_salvage.generate(Dice(seed=4), fiveparsecs_tables(), crew=["Ria", "Bo"], options={"illegal": True})
    room = services.room_create(user=owner, kind=salvage_kind.KIND, title="Job", options={"setup": json.dumps(made)})
    assert room.state["options"]["illegal"] is True and room.state["salvage"]["markers"] == made["salvage_markers"]


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"crew": ""}, "crew"),
        ({"crew": "Ria 1 2"}, "crew"),
        ({"crew": "Ria", "difficulty": "nightmare"}, "difficulty"),
        ({"setup": "{"}, "setup"),
        ({"crew": "Ria", "edge_face": "13"}, "edge_face"),
    ],
)
def test_bad_options_are_refused_by_name(owner, options: dict[str, Any], field: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DropshipError) as refused:
        services.room_create(user=owner, kind=salvage_kind.KIND, title="Job", options=options)
    assert refused.value.field == field


def test_owner_and_player_play_a_round_and_undo(room: Room, owner, player) -> None:  # type: ignore[no-untyped-def]
    act(owner, room, "set_player", figure="c2", player=str(player.pk))
    with pytest.raises(NotAllowed):
        act(player, room, "start")
    act(owner, room, "start")
    with pytest.raises(NotAllowed):
        act(player, room, "pick_up_salvage", crew="c1")
    picked = act(player, room, "pick_up_salvage", crew="c2")
    assert picked.room.state["salvage"]["units"] == 1
    seen = act(player, room, "investigate", poi="p1", crew="c2", face=42, faces="2")
    assert seen.room.state["salvage"]["units"] == 3
    assert [(r["total"], r["entered"]) for r in seen.entry.events[0]["data"]["rolls"]] == [(42, True), (2, True)]
    undone = services.room_undo(user=player, room_id=room.pk, version=seen.room.version)
    assert undone.room.state["salvage"]["units"] == 1 and undone.room.state["pois"][0]["status"] == "hidden"


def test_the_page_shows_tension_pois_and_why_no_minis_does_not_apply(room: Room, owner, player) -> None:  # type: ignore[no-untyped-def]
    act(owner, room, "set_player", figure="c2", player=str(player.pk))
    act(owner, room, "start")
    act(owner, room, "next_round", face=1)  # Tension 2 -> 1, a Contact spawns
    act(owner, room, "investigate", poi="p2", crew="c1", face=98)  # Evac time
    client = Client()
    client.force_login(owner)
    page = client.get(f"/rooms/{room.pk}/").content.decode()
    assert 'data-testid="tension">0<' in page  # Evac time: -10 and 'data-testid="round-kind">Battle<' in page
    assert 'data-testid="reveal-k1"' in page and 'data-testid="end-mission"' in page and 'data-testid="scanner-check"' in page
    assert "Without miniatures:</strong> not supported." in page
    assert 'data-testid="caught"' in page and "Evac zone: 1&quot; radius" in page
    phone = Client()
    phone.force_login(player)
    mobile = phone.get(f"/rooms/{room.pk}/").content.decode()
    assert 'data-testid="end-mission"' not in mobile and 'data-testid="next-round"' not in mobile
    investigate = mobile[mobile.index('id="investigate-p1-form"') :]
    crew_select = investigate[: investigate.index("</select>")]
    assert "Bo (Savvy +0)" in crew_select and "Ria" not in crew_select


def test_a_finished_job_gives_the_battle_its_result_with_salvage(owner) -> None:  # type: ignore[no-untyped-def]
    battle = battle_services.battle_create(
        user=owner, title="Salvage run", enemy=PUNKS, crew=CREW, hit_numbers={"open": 4, "cover": 5}
    )
    room = services.room_create(
        user=owner, kind=salvage_kind.KIND, title="Salvage run", options={"crew": "Ria 1, Bo"}, unlisted=True
    )
    battle.room, battle.status = room, "tracking"  # as the mission plumbing opens it
    battle.save()
    act(owner, room, "start")
    for n in range(1, 5):
        act(owner, room, "investigate", poi=f"p{n}", crew="c1", face=33)
    act(owner, room, "pick_up_salvage", crew="c1")
    act(owner, room, "end_mission", poi_faces="5 1 1 1", scrapper_faces="1 3 6")
    battle.refresh_from_db()
    done = result_services.battle_finish(user=owner, battle_id=battle.pk, version=battle.version)
    result = done.result
    assert result is not None and result["source"] == "tracker" and result["won"] is True and result["held_field"] is True
    assert (
        result["salvage"]["units"] == 2 and result["salvage"]["credit_value"] == 2 and result["salvage"]["scrappers"] == [2, 3, 6]
    )
    assert result["record"]["won"] is True and result["casualties"] == []
