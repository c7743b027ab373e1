"""A Five Parsecs battle opened and played through the live services, undone, and its page."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from battles import fiveparsecs_kind
from battles.kinds import KINDS
from live import services
from live.models import Room
from live.registry import register_kinds
from rules.errors import DropshipError, NotAllowed
from tests.factories import UserFactory
from tests.tables import load_system_tables

pytestmark = pytest.mark.django_db

PROFILE = {"speed": 4, "combat_skill": 0, "toughness": 3}


def setup_json(**options: Any) -> str:
    return json.dumps(
        {
            "crew": [
                {"name": "Ria", "reactions": 2, "speed": 5, "combat_skill": 1, "toughness": 4, "weapons": ["Military rifle"]},
                {"name": "Bo", "reactions": 1, "speed": 4, "combat_skill": 0, "toughness": 3, "weapons": ["Hand gun"]},
            ],
            "enemies": [{"name": "Punks", "count": 3, "profile": PROFILE, "weapons": ["Scrap pistol"], "panic": "1-2"}],
            "options": {"dramatic_combat": True, **options},
            "seize_dice": "2D6",
            "seize_target": 10,
            "ai": "tactical",
        }
    )


@pytest.fixture(autouse=True)
def kind(db: None) -> None:
    load_system_tables("fiveparsecs")
    register_kinds(KINDS)  # registered at start-up already: harmless again


@pytest.fixture
def owner():  # type: ignore[no-untyped-def]
    return UserFactory.create(username="captain")


@pytest.fixture
def player():  # type: ignore[no-untyped-def]
    return UserFactory.create(username="bo")


@pytest.fixture
def room(owner, player) -> Room:  # type: ignore[no-untyped-def]
    room = services.room_create(
        user=owner, kind=fiveparsecs_kind.KIND, title="Fringe fight", options={"setup": setup_json()}, unlisted=True
    )
    code = services.room_code(room)
    assert code is not None
    services.room_join(user=player, code=code.code)
    return room


def act(user: Any, room: Room, type_: str, **payload: Any) -> services.ActResult:
    room.refresh_from_db()
    return services.room_act(user=user, room_id=room.pk, type=type_, payload=payload, version=room.version, seed=3)


def test_the_set_up_json_opens_a_battle(room: Room) -> None:
    assert room.kind == "fiveparsecs-battle"
    assert [f["name"] for f in room.state["crew"]] == ["Ria", "Bo"] and len(room.state["enemies"]) == 3
    assert room.state["phase"] == "setup"


@pytest.mark.parametrize(
    ("options", "field"),
    [({}, "setup"), ({"setup": ""}, "setup"), ({"setup": "{crew"}, "setup"), ({"setup": json.dumps({"crew": []})}, "crew")],
)
def test_a_bad_set_up_is_refused_by_name(owner, options: dict[str, Any], field: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DropshipError) as refused:
        services.room_create(user=owner, kind=fiveparsecs_kind.KIND, title="x", options=options, unlisted=True)
    assert refused.value.field == field


def test_a_round_is_played_by_the_owner_and_a_player_then_undone(room: Room, owner, player) -> None:  # type: ignore[no-untyped-def]
    act(owner, room, "seize", faces="6, 6")
    act(owner, room, "set_player", figure="c2", player=str(player.pk))
    act(owner, room, "next_phase")
    rolled = act(owner, room, "roll_reactions", faces="1, 4")
    assert rolled.entry.rolls[0]["faces"] == [1, 4] and rolled.entry.rolls[0]["entered"]
    with pytest.raises(NotAllowed):
        act(player, room, "assign_reaction", figure="c1", die=1)
    mine = act(player, room, "assign_reaction", figure="c2", die=2)
    assert mine.room.state["crew"][1]["slot"] == "slow"
    act(owner, room, "assign_reaction", figure="c1", die=1)
    act(owner, room, "next_phase")
    shot = act(owner, room, "resolve", attacker="c1", target="e1", range=10, faces="6, 6")
    assert shot.room.state["enemies"][0]["status"] == "casualty"
    assert [r["faces"] for r in shot.entry.events[0]["data"]["rolls"]] == [[6], [6]]
    room.refresh_from_db()
    undone = services.room_undo(user=owner, room_id=room.pk, version=room.version)
    assert undone.room.state["enemies"][0]["status"] == "active" and undone.room.state["phase"] == "quick"


def test_the_page_shows_round_phase_stun_and_morale_at_a_glance(room: Room, owner, player) -> None:  # type: ignore[no-untyped-def]
    act(owner, room, "set_player", figure="c2", player=str(player.pk))
    act(owner, room, "next_phase")
    act(owner, room, "roll_reactions", faces="1, 4")
    act(owner, room, "adjust", enemy="e2", stun_change=1)
    client = Client()
    client.force_login(owner)
    page = client.get(f"/rooms/{room.pk}/").content.decode()
    assert 'data-testid="round">1<' in page and 'data-testid="phase">Reactions<' in page
    assert 'data-testid="morale">Punks: Panic 1-2<' in page and 'data-testid="stun-e2">Stun 1<' in page
    assert "Take this die" in page and 'data-testid="end-battle"' in page
    phone = Client()
    phone.force_login(player)
    mobile = phone.get(f"/rooms/{room.pk}/").content.decode()
    assert "yours" in mobile and mobile.count("Take this die") == 1 and 'data-testid="end-battle"' not in mobile


def test_an_option_shows_its_controls_only_when_on(owner) -> None:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(owner)
    pages = {}
    for on in (True, False):
        room = services.room_create(
            user=owner,
            kind=fiveparsecs_kind.KIND,
            title="x",
            options={"setup": setup_json(escalating_battles=on, ai_variations=on)},
            unlisted=True,
        )
        for type_, payload in (("next_phase", {}), ("roll_reactions", {"faces": "1, 1"})):
            act(owner, room, type_, **payload)
        act(owner, room, "assign_reaction", figure="c1", die=1)
        act(owner, room, "assign_reaction", figure="c2", die=2)
        act(owner, room, "next_phase")
        act(owner, room, "next_phase")
        pages[on] = client.get(f"/rooms/{room.pk}/").content.decode()
    assert "Escalations: 0 of 3" in pages[True] and "Escalations" not in pages[False]
    assert "Base condition applies" in pages[True] and "Base condition applies" not in pages[False]
    assert 'data-testid="enemy-act-e1"' in pages[True] and 'data-testid="enemy-act-e1"' in pages[False]


def test_held_figures_and_the_end_of_battle_show_on_the_page(owner) -> None:  # type: ignore[no-untyped-def]
    room = services.room_create(
        user=owner,
        kind=fiveparsecs_kind.KIND,
        title="x",
        options={"setup": setup_json(deployment_variables=True)},
        unlisted=True,
    )
    act(owner, room, "seize", faces="1, 1", deployment_face=75)  # Tactical 71-80: Reinforced
    act(owner, room, "next_phase")
    done = act(owner, room, "end_battle", held_field="off")
    assert done.room.state["phase"] == "over" and done.room.state["held_field"] is False
    client = Client()
    client.force_login(owner)
    page = client.get(f"/rooms/{room.pk}/").content.decode()
    assert "Waiting off the table (reinforced)" in page and "Deployment: <strong>Reinforced</strong>" in page
    assert 'data-testid="phase">Over<' in page and "did not Hold the Field" in page


def test_a_players_die_picker_offers_only_free_dice_and_a_taken_die_is_refused(room: Room, owner, player) -> None:  # type: ignore[no-untyped-def]
    act(owner, room, "seize", faces="6, 6")
    act(owner, room, "set_player", figure="c2", player=str(player.pk))
    act(owner, room, "next_phase")
    act(owner, room, "roll_reactions", faces="1, 4")
    act(owner, room, "assign_reaction", figure="c1", die=1)
    client = Client()
    client.force_login(player)
    page = client.get(f"/rooms/{room.pk}/").content.decode()
    start = page.index('data-testid="reaction-die-c2"')
    picker = page[start : page.index("</select>", start)]
    # Die 1 is Ria's: shown but not selectable; the first free die is chosen.
    assert '<option value="1" disabled>die 1: 1 (Ria&rsquo;s)</option>' in picker
    assert '<option value="2" selected>die 2: 4</option>' in picker
    assert 'name="reassign"' not in page[page.rindex("<form", 0, start) : start]
    room.refresh_from_db()
    sent = client.post(
        f"/rooms/{room.pk}/act/",
        {"version": room.version, "type": "assign_reaction", "figure": "c2", "die": "1"},
        HTTP_HX_REQUEST="true",
    )
    assert sent.status_code == 400 and "Die 1 (a 1) is Ria&#x27;s" in sent.content.decode()
    room.refresh_from_db()
    assert room.state["crew"][0]["die"] == 0 and room.state["crew"][1]["die"] is None


def test_a_battle_saved_before_the_die_picker_list_still_offers_its_dice(room: Room, owner) -> None:  # type: ignore[no-untyped-def]
    act(owner, room, "seize", faces="6, 6")
    act(owner, room, "next_phase")
    act(owner, room, "roll_reactions", faces="1, 4")
    room.refresh_from_db()
    room.state.pop("reaction_pick")
    room.save(update_fields=["state"])
    client = Client()
    client.force_login(owner)
    page = client.get(f"/rooms/{room.pk}/").content.decode()
    start = page.index('data-testid="reaction-die-c1"')
    picker = page[start : page.index("</select>", start)]
    assert "die 1: 1" in picker and "die 2: 4" in picker
