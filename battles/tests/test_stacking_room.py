"""A stacking table through the live services and its screen."""

from __future__ import annotations

import pytest
from django.test import Client

from battles.tracker_kinds import stacking as stack_kind
from live import services
from live.models import Room
from rules.errors import DropshipError, NotAllowed
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def registered() -> None:
    stack_kind.register()


@pytest.fixture
def owner(db: None):  # type: ignore[no-untyped-def]
    return UserFactory.create(username="referee")


@pytest.fixture
def player(db: None):  # type: ignore[no-untyped-def]
    return UserFactory.create(username="kane")


@pytest.fixture
def room(owner, player) -> Room:  # type: ignore[no-untyped-def]
    room = services.room_create(user=owner, kind="stack", title="Derelict", options={"check_die": "D100"})
    code = services.room_code(room)
    assert code is not None
    services.room_join(user=player, code=code.code)
    steps = [
        ("add_stack", {"name": "Team", "kind": "party", "owner": str(player.pk), "damage": "1D10"}),
        ("add_member", {"stack": "s1", "name": "Kane", "role": "pc", "combat": "30", "save": "40"}),
        ("add_member", {"stack": "s1", "name": "Merc", "count": "2", "combat": "20", "loyalty": "25", "instinct": "10"}),
        ("add_target", {"name": "Warrior", "health": "30"}),
    ]
    for version, (type_, payload) in enumerate(steps):
        services.room_act(user=owner, room_id=room.pk, type=type_, payload=payload, version=version)
    room.refresh_from_db()
    return room


def test_options_set_the_dice_rules(owner) -> None:  # type: ignore[no-untyped-def]
    room = services.room_create(
        user=owner, kind="stack", title="x", options={"check_die": "D20", "equal_succeeds": "on", "advantage_shift": "5"}
    )
    assert room.state["rules"]["check_die"] == "D20" and room.state["rules"]["equal_succeeds"] is True
    assert room.state["rules"]["advantage_shift"] == 5
    with pytest.raises(DropshipError, match="check_die must be one of") as refused:
        services.room_create(user=owner, kind="stack", title="x", options={"check_die": "D7"})
    assert refused.value.field == "check_die"


def test_the_player_attacks_with_their_stack_and_the_rolls_are_logged(room, player) -> None:  # type: ignore[no-untyped-def]
    services.room_act(user=player, room_id=room.pk, type="loyalty_check", payload={"stack": "s1", "faces": ["30"]}, version=4)
    result = services.room_act(
        user=player, room_id=room.pk, type="combat_check", payload={"stack": "s1", "target": "t5"}, version=5, seed=3
    )
    assert result.entry.rolls[0]["notation"] == "D100" and result.entry.seed == 3
    assert result.entry.events[0]["type"] == "combat_check"
    hit = result.entry.events[0]["data"]["success"]
    assert (result.room.state["pending"] is not None) == hit


def test_players_cannot_set_up_and_refusals_write_nothing(room, player, owner) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(NotAllowed, match="Only the table's owner"):
        services.room_act(user=player, room_id=room.pk, type="add_target", payload={"name": "Ghost"}, version=4)
    with pytest.raises(DropshipError, match="Loyalty Check before"):
        services.room_act(user=owner, room_id=room.pk, type="combat_check", payload={"stack": "s1", "target": "t5"}, version=4)
    room.refresh_from_db()
    assert room.version == 4


def test_the_screen_shows_the_stack_its_targets_and_the_default_die(room, owner) -> None:  # type: ignore[no-untyped-def]
    services.room_act(user=owner, room_id=room.pk, type="loyalty_check", payload={"stack": "s1", "faces": ["60"]}, version=4)
    client = Client()
    client.force_login(owner)
    page = client.get(f"/rooms/{room.pk}/").content.decode()
    assert 'data-testid="stack-tracker"' in page and "Warrior" in page
    assert "the default is D100 roll-under" in page
    assert "contractors refuse this turn" in page and "60 against 50" in page
    assert 'form="stack-roll"' in page and 'value="combat_check"' in page


def test_a_hit_shows_the_damage_form_with_the_adjacent_choice(room, owner) -> None:  # type: ignore[no-untyped-def]
    services.room_act(user=owner, room_id=room.pk, type="add_target", payload={"name": "Drone", "health": "20"}, version=4)
    services.room_act(user=owner, room_id=room.pk, type="loyalty_check", payload={"stack": "s1", "faces": ["1"]}, version=5)
    client = Client()
    client.force_login(owner)
    page = client.post(
        f"/rooms/{room.pk}/act/",
        {"type": "combat_check", "version": "6", "stack": "s1", "target": "t5", "faces": ["10", ""]},
        HTTP_HX_REQUEST="true",
    )
    assert page.status_code == 200
    body = page.content.decode()
    assert 'data-testid="pending-damage"' in body and 'name="characters" value="t6"' in body
    done = client.post(
        f"/rooms/{room.pk}/act/",
        {"type": "roll_damage", "version": "7", "characters": "t6", "faces": "4"},
        HTTP_HX_REQUEST="true",
    )
    assert done.status_code == 200 and b"Damage 4 times 3 = 12, shared by 2" in done.content
    room.refresh_from_db()
    assert [t["health"] for t in room.state["targets"]] == [24, 14]
