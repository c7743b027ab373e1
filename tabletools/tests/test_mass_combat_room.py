"""A mass combat table opened and played through the live services and screens."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from live import services
from live.engine.tracker import Action, Role
from live.models import Room
from rules.engine.dice import Dice
from rules.errors import DropshipError, NotAllowed
from tabletools.engine import mass_combat as mc
from tabletools.trackers.mass_combat import mass_initial_state
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(db: None):  # type: ignore[no-untyped-def]
    return UserFactory.create(username="warlord")


@pytest.fixture
def player(db: None):  # type: ignore[no-untyped-def]
    return UserFactory.create(username="captain")


@pytest.fixture
def room(owner) -> Room:  # type: ignore[no-untyped-def]
    return services.room_create(
        user=owner, kind="mass", title="Siege of the Ford", options={"side_a": "Wardens", "save_die": "D12", "save_target": "9"}
    )


def act(room: Room, user: Any, type_: str, **payload: Any) -> Room:
    room.refresh_from_db()
    return services.room_act(user=user, room_id=room.pk, type=type_, payload=payload, version=room.version).room


def test_opening_a_table_takes_the_options(room: Room, owner: Any) -> None:
    assert room.state["phase"] == "setup" and room.state["sides"]["a"]["name"] == "Wardens"
    assert room.state["settings"] == {"save_die": "D12", "save_target": 9}
    with pytest.raises(DropshipError, match="save_die must be one of D6, D10, D12, D20"):
        services.room_create(user=owner, kind="mass", title="Bad", options={"save_die": "D8"})


def test_a_combat_logs_each_roll(room: Room, owner: Any) -> None:
    act(room, owner, "add_squad", side="a", name="Spears", squad_type="soldiers", level="2")
    act(room, owner, "add_squad", side="b", name="Raiders", squad_type="skirmishers", level="2")
    act(room, owner, "advance")
    act(room, owner, "choose_priority", side="a")
    act(room, owner, "advance")
    act(room, owner, "start_combat", squads="s1,s2")
    room.refresh_from_db()
    result = services.room_act(user=owner, room_id=room.pk, type="combat_roll", payload={}, version=room.version, seed=3)
    assert [r["notation"] for r in result.entry.rolls] == ["2D6", "2D6"]
    assert all(" rolls 2D6: " in e["text"] for e in result.entry.events if e["type"] == "combat_roll")


def test_a_side_commander_acts_only_for_their_side(room: Room, owner: Any, player: Any) -> None:
    code = services.room_code(room)
    assert code is not None
    services.room_join(user=player, code=code.code)
    act(room, owner, "set_side", side="b", owner=str(player.pk))
    act(room, owner, "add_squad", side="a", name="Spears", squad_type="soldiers", level="2")
    act(room, owner, "add_squad", side="b", name="Raiders", squad_type="skirmishers", level="2")
    act(room, owner, "advance")
    room = act(room, player, "choose_priority", side="b")
    assert room.state["turn"]["side"] == "b"
    room = act(room, player, "move", squad="s2", position="Ford")
    assert room.state["squads"][1]["position"] == "Ford"
    with pytest.raises(NotAllowed, match="You do not command Wardens"):
        act(room, player, "move", squad="s1")
    with pytest.raises(NotAllowed, match="Only the table's owner"):
        act(room, player, "add_squad", side="b", name="More", squad_type="soldiers", level="1")


def test_the_room_page_draws_the_battle(room: Room, owner: Any) -> None:
    act(room, owner, "add_squad", side="a", name="Spears", squad_type="soldiers", level="2")
    act(room, owner, "add_squad", side="b", name="Raiders", squad_type="skirmishers", level="2")
    act(room, owner, "add_hero", side="a", name="Aria", at="s1")
    client = Client()
    client.force_login(owner)
    page = client.get(f"/rooms/{room.pk}/")
    assert page.status_code == 200
    content = page.content.decode()
    assert 'data-testid="mass-tracker"' in content and "D12 + Medic level, 9 or more" in content
    assert "Spears" in content and "speed 7" in content and "Add squad" in content
    response = client.post(f"/rooms/{room.pk}/act/", {"type": "advance", "version": "3"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and b'data-testid="priority"' in response.content
    response = client.post(
        f"/rooms/{room.pk}/act/",
        {"type": "priority_check", "version": "4", "hero": "h3", "skill": "Insight", "result": "success"},
        HTTP_HX_REQUEST="true",
    )
    assert b"1 of 1 checks succeeded" in response.content and b"Wardens first" in response.content


def test_the_side_options_name_both_sides(owner: Any) -> None:
    room = services.room_create(user=owner, kind="mass", title="Ford", options={"side_a": "Wardens", "side_b": "Raiders"})
    assert [room.state["sides"][s]["name"] for s in ("a", "b")] == ["Wardens", "Raiders"]
    blank = services.room_create(user=owner, kind="mass", title="Ford", options={})
    assert [blank.state["sides"][s]["name"] for s in ("a", "b")] == ["Heroes", "Foes"]
    result = services.room_act(
        user=owner,
        room_id=room.pk,
        type="add_squad",
        payload={"side": "b", "name": "Wolves", "squad_type": "skirmishers", "level": "1"},
        version=room.version,
    )
    assert result.entry.events[0]["text"] == "Wolves (Skirmishers 1) joins Raiders: speed 7."


@pytest.mark.parametrize(
    ("options", "face", "saved"),
    [
        ({"save_die": "D20", "save_target": "10"}, 7, True),  # 7 + Medic level 3 = 10
        ({"save_die": "D20", "save_target": "11"}, 7, False),
        ({"save_die": "D6", "save_target": "9"}, 6, True),  # 6 + 3 = 9 on a D6
    ],
)
def test_the_medic_save_options_decide_the_saving_throw(options: dict[str, str], face: int, saved: bool) -> None:
    state = mass_initial_state(options)
    steps: list[tuple[str, dict[str, Any]]] = [
        ("add_squad", {"side": "a", "name": "Guard", "squad_type": "paladins", "level": "2"}),
        ("add_squad", {"side": "b", "name": "Orcs", "squad_type": "paladins", "level": "1"}),
        ("add_squad", {"side": "b", "name": "Healers", "squad_type": "medics", "level": "3"}),
        ("place", {"squad": "s2", "medic": "s3"}),
        ("advance", {}),
        ("choose_priority", {"side": "a"}),
        ("advance", {}),
        ("start_combat", {"squads": "s1,s2"}),
        ("combat_roll", {"squad": "s1", "faces": "6,1"}),
        ("combat_roll", {"squad": "s2", "faces": "1"}),
        ("medic_save", {"faces": str(face)}),
    ]
    events: list[Any] = []
    for type_, payload in steps:
        state, events = mc.apply(state, Action(type_, payload, actor="1", role=Role.OWNER), Dice(seed=1))
    assert events[0].data["roll"]["notation"] == options["save_die"] and events[0].data["roll"]["natural"] == face
    assert events[0].data["saved"] is saved and state["squads"][1]["destroyed"] is not saved
