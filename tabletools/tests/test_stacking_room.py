"""A stacking table through the live services and its screen."""

from __future__ import annotations

import pytest
from django.test import Client

from live import registry as live_registry
from live import services
from live.models import Room
from rules.errors import DropshipError, NotAllowed
from tabletools.engine import stacking
from tabletools.trackers import stacking as stack_kind
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


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


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("check_die", "D20", "D20"),
        ("equal_succeeds", "on", True),
        ("advantage", "shift", "shift"),
        ("advantage_shift", "25", 25),
        ("remainder", "drop", "drop"),
        ("zero_health", "wound", "wound"),
    ],
)
def test_every_option_reaches_the_stack_rules(option: str, value: str, expected: object) -> None:
    kind_options = {field.name for field in live_registry.get("stack").options}
    assert kind_options == set(stacking.DEFAULT_RULES)
    state = stack_kind.initial_state({option: value})
    assert state["rules"][option] == expected and stacking.DEFAULT_RULES[option] != expected


def test_options_change_the_rolls_at_the_table(owner) -> None:  # type: ignore[no-untyped-def]
    """The same typed dice give other results under other options: shift advantage moves the
    target by the chosen amount, dropped remainders are lost, and 0 Health costs a Wound."""
    results = {}
    for label, options, faces in (
        ("defaults", {}, "70, 55"),
        ("house", {"advantage": "shift", "advantage_shift": "20", "remainder": "drop", "zero_health": "wound"}, "70"),
    ):
        room = services.room_create(user=owner, kind="stack", title=label, options=options)
        steps = [
            ("add_stack", {"name": "Swarm", "kind": "creatures", "damage": "1D10"}),
            ("add_member", {"stack": "s1", "name": "Crawler", "count": "2", "combat": "30"}),
            ("add_target", {"name": "Warrior", "health": "4"}),
            ("add_target", {"name": "Drone", "health": "20"}),
            ("add_target", {"name": "Husk", "health": "20"}),
            ("combat_check", {"stack": "s1", "target": "t4", "advantage": "advantage", "faces": faces}),
            ("roll_damage", {"characters": "t5, t6", "faces": "7"}),
        ]
        for version, (type_, payload) in enumerate(steps):
            result = services.room_act(user=owner, room_id=room.pk, type=type_, payload=payload, version=version)
            if type_ == "combat_check":
                check = result.room.state["last"]
        results[label] = (check, result.room.state["targets"])
    # Defaults: advantage keeps the lower of two D100 (55 under 60); 7 x 2 = 14 over three is
    # 4 each and the 2 left over go to the Warrior, who stops at 0 Health and is down.
    check, (warrior, drone, husk) = results["defaults"]
    assert check["outcome"] == "success" and "55 against 60" in check["text"] and "lowest of 70, 55" in check["dice"]
    assert (warrior["health"], warrior["wounds"], warrior["down"], drone["health"], husk["health"]) == (0, 0, True, 16, 16)
    # House rules: one D100 against 60 + 20; the 2 left over are lost; at 0 the Warrior takes a
    # Wound and its Health refills.
    check, (warrior, drone, husk) = results["house"]
    assert check["outcome"] == "success" and "70 against 80" in check["text"]
    assert (warrior["health"], warrior["wounds"], warrior["down"], drone["health"], husk["health"]) == (4, 1, False, 16, 16)
