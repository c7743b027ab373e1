"""A stress-dice table opened and played through the live services, and its page."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from live import services
from live.models import Room
from rules.errors import DropshipError, NotAllowed
from rules.fixturefiles import FIXTURES_DIR
from rules.models import RuleSystem, RuleTable, TableEntry
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

SHEET: dict[str, Any] = {"strength": "3", "agility": "4", "wits": "3", "empathy": "2", "ranged_combat": "2"}


@pytest.fixture
def owner():  # type: ignore[no-untyped-def]
    return UserFactory.create(username="referee")


@pytest.fixture
def player():  # type: ignore[no-untyped-def]
    return UserFactory.create(username="ripley")


@pytest.fixture
def panic_table(owner) -> RuleTable:  # type: ignore[no-untyped-def]
    """The referee's own panic table (the effects table is not in our sources)."""
    call_command("loaddata", str(FIXTURES_DIR / "systems.json"), verbosity=0)
    table = RuleTable.objects.create(
        system=RuleSystem.objects.get(slug="stress-dice"),
        slug="our-panic",
        title="Our panic table",
        die="D6",
        source="ours",
        owner=owner,
    )
    for position, (low, high, result, lasts) in enumerate(
        [(1, 6, "Steady", None), (7, 8, "Jumpy", "round"), (9, 99, "Frozen", None)], start=1
    ):
        TableEntry.objects.create(
            table=table, position=position, low=low, high=high, result=result, effect=f"{result} words", data={"lasts": lasts}
        )
    return table


@pytest.fixture
def room(owner, player) -> Room:  # type: ignore[no-untyped-def]
    room = services.room_create(user=owner, kind="stress", title="Nostromo", options={"extreme_modifier": "-2"})
    code = services.room_code(room)
    assert code is not None
    services.room_join(user=player, code=code.code)
    services.room_act(
        user=owner, room_id=room.pk, type="add_character", payload={"name": "Ripley", "owner": str(player.pk), **SHEET}, version=0
    )
    room.refresh_from_db()
    return room


def act(user: Any, room: Room, type_: str, seed: int = 3, **payload: Any) -> services.ActResult:
    room.refresh_from_db()
    return services.room_act(user=user, room_id=room.pk, type=type_, payload=payload, version=room.version, seed=seed)


def test_options_set_extreme_range_and_no_panic_table(room: Room) -> None:
    assert room.state["settings"]["extreme_modifier"] == -2
    assert room.state["panic_table"] == [] and room.state["panic_table_slug"] == ""


def test_a_bad_option_is_refused_by_name(owner) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DropshipError, match="extreme_modifier must be from -6 to 0") as refused:
        services.room_create(user=owner, kind="stress", title="x", options={"extreme_modifier": "3"})
    assert refused.value.field == "extreme_modifier"


def test_the_groups_panic_table_is_copied_at_creation(owner, panic_table: RuleTable) -> None:  # type: ignore[no-untyped-def]
    room = services.room_create(user=owner, kind="stress", title="Sevastopol", options={"panic_table": "our-panic"})
    assert [(r["low"], r["high"], r["result"], r["lasts"]) for r in room.state["panic_table"]] == [
        (1, 6, "Steady", None),
        (7, 8, "Jumpy", "round"),
        (9, 99, "Frozen", None),
    ]


def test_an_unknown_panic_table_is_refused_naming_the_option_and_how_to_add_it(owner) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DropshipError) as refused:
        services.room_create(user=owner, kind="stress", title="Hadley", options={"panic_table": "nobody-made-it"})
    assert refused.value.field == "panic_table"
    assert "'nobody-made-it'" in refused.value.message and "My tables" in refused.value.message
    assert not Room.objects.exists()


def test_an_outsider_cannot_copy_another_users_panic_table_into_a_room(panic_table: RuleTable, player: Any) -> None:
    with pytest.raises(DropshipError) as refused:
        services.room_create(user=player, kind="stress", title="Burke", options={"panic_table": "our-panic"})
    with pytest.raises(DropshipError) as unknown:
        services.room_create(user=player, kind="stress", title="Burke", options={"panic_table": "nobody-made-it"})
    assert refused.value.field == "panic_table"
    # The same words as for a table nobody made: nothing of the owner's table is revealed.
    assert refused.value.message == unknown.value.message.replace("nobody-made-it", "our-panic")
    assert "Our panic table" not in refused.value.message and "Steady" not in refused.value.message
    assert not Room.objects.exists()


def test_an_outsider_naming_another_users_panic_table_over_the_api_gets_a_400(panic_table: RuleTable, player: Any) -> None:
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(player)
    response = client.post(
        "/api/v1/rooms/", {"kind": "stress", "title": "Burke", "options": {"panic_table": "our-panic"}}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["field"] == "panic_table" and "Steady" not in response.content.decode()
    assert not Room.objects.exists()


def test_the_panic_table_changes_the_result(owner, panic_table: RuleTable) -> None:  # type: ignore[no-untyped-def]
    room = services.room_create(user=owner, kind="stress", title="Sevastopol", options={"panic_table": "our-panic"})
    act(owner, room, "add_character", name="Amanda", stress="3", **SHEET)
    result = act(owner, room, "panic_roll", id="c1", trigger="horror", faces="5")
    assert result.room.state["characters"][0]["panic"]["result"] == "Jumpy"
    assert "Jumpy" in result.entry.events[0]["text"]


def test_the_panic_table_option_against_no_table_for_the_same_roll(owner, panic_table: RuleTable) -> None:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(owner)
    pages = {}
    for option in ("our-panic", ""):
        room = services.room_create(user=owner, kind="stress", title="Sevastopol", options={"panic_table": option})
        act(owner, room, "add_character", name="Amanda", stress="3", **SHEET)
        result = act(owner, room, "panic_roll", id="c1", trigger="horror", faces="5")  # 5 + 3 = 8
        pages[option] = (result, client.get(f"/rooms/{room.pk}/").content.decode())

    tabled, page = pages["our-panic"]
    panic = tabled.room.state["characters"][0]["panic"]
    assert (panic["value"], panic["result"], panic["effect"], panic["lasts"]) == (8, "Jumpy", "Jumpy words", "round")
    assert "= 8 — Jumpy, lasts this round." in tabled.entry.events[0]["text"]
    assert "panic 8 · Jumpy" in page and "Jumpy words" in page and "From your panic table: lasts this round." in page
    assert 'data-testid="panic-rules"' not in page

    bare, page = pages[""]
    panic = bare.room.state["characters"][0]["panic"]
    assert (panic["value"], panic["result"], panic["effect"], panic["lasts"]) == (8, "", "", "until_aid")
    assert "Jumpy" not in bare.entry.events[0]["text"] and "Jumpy" not in page
    assert "Amanda: panic 8</p>" in page and 'data-testid="panic-rules"' in page
    assert "10 or more after a skill check cancels that action" in page and "one step worse" in page
    assert bare.entry.rolls == tabled.entry.rolls  # the same roll, logged the same way


def test_the_extreme_range_option_changes_the_base_dice(owner) -> None:  # type: ignore[no-untyped-def]
    dice = {}
    for option in ("-1", "-3", "0"):
        room = services.room_create(user=owner, kind="stress", title="x", options={"extreme_modifier": option})
        act(owner, room, "add_character", name="Amanda", **SHEET)  # Agility 4 + Ranged Combat 2
        result = act(owner, room, "check", id="c1", skill="ranged_combat", action="free", range="extreme")
        dice[option] = len(result.entry.rolls[0]["faces"])
    assert dice == {"-1": 5, "-3": 3, "0": 6}
    blank = services.room_create(user=owner, kind="stress", title="y", options={"extreme_modifier": ""})
    assert blank.state["settings"]["extreme_modifier"] == -3  # the default when left blank


def test_a_check_logs_both_rolls_and_a_player_can_push_their_own(room: Room, owner, player) -> None:  # type: ignore[no-untyped-def]
    act(owner, room, "stress_up", id="c1", reason="scary")
    result = act(player, room, "check", id="c1", skill="ranged_combat", action="slow", faces="2,2,3,4,5,5", stress_faces="3")
    assert [len(r["faces"]) for r in result.entry.rolls] == [6, 1]
    assert result.entry.events[-1]["type"] == "check_result"
    pushed = act(player, room, "push", id="c1", seed=11)
    assert pushed.room.state["characters"][0]["stress"] == 2
    assert [len(r["faces"]) for r in pushed.entry.rolls] == [6, 2]


def test_a_player_cannot_set_up_and_a_refusal_writes_nothing(room: Room, player) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(NotAllowed, match="Only the table's owner"):
        act(player, room, "new_round")
    act(player, room, "aim", id="c1")
    with pytest.raises(DropshipError, match="already used their fast action"):
        act(player, room, "aim", id="c1")
    room.refresh_from_db()
    assert room.version == 2  # the character, then the first aim


def test_the_page_shows_the_sheet_and_the_roll(room: Room, player) -> None:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(player)
    room.refresh_from_db()
    page = client.post(
        f"/rooms/{room.pk}/act/",
        {"type": "check", "version": str(room.version), "id": "c1", "skill": "ranged_combat", "action": "slow",
         "range": "", "faces": "6, 2, 3, 4, 5, 5", "calm": ""},
        HTTP_HX_REQUEST="true",
    )  # fmt: skip
    assert page.status_code == 200, page.content
    assert b'data-testid="stress-tracker"' in page.content and b'data-testid="last-result"' in page.content
    assert b"success, 1 \xc3\x97 6" in page.content and b"Agility 4 + Ranged Combat 2" in page.content
    assert b'id="pick-c1"' in page.content and b"Push the roll" in page.content
    full = client.get(f"/rooms/{room.pk}/")
    assert full.status_code == 200 and b'id="check-form"' in full.content and b"Referee controls" not in full.content


def test_the_owners_page_shows_panic_gear_and_referee_controls(room: Room, owner) -> None:  # type: ignore[no-untyped-def]
    act(owner, room, "add_character", name="Hicks", stress="4", **SHEET)
    act(owner, room, "panic_roll", id="c2", trigger="pinned", faces="5")
    act(owner, room, "add_item", id="c1", name="Flamethrower", weight="heavy", slots="4")
    act(owner, room, "add_item", id="c1", name="Motion tracker")
    act(owner, room, "add_item", id="c1", name="Pulse rifle")
    act(owner, room, "add_item", id="c1", name="Ration", weight="light")
    act(owner, room, "add_condition", id="c1", name="Starving", blocks_relief="on")
    act(owner, room, "stress_up", id="c1", reason="damage", amount="2")
    act(owner, room, "check", id="c1", skill="ranged_combat", action="free", faces="6,2,3,4,5,5", stress_faces="1,2")
    client = Client()
    client.force_login(owner)
    page = client.get(f"/rooms/{room.pk}/")
    assert page.status_code == 200
    for text in (
        b"Referee controls",
        b'data-testid="panic-c2"',
        b"Panic 9",
        b'name="calm" value="c2"',
        b'data-testid="over-c1"',
        b"Load <strong>6.5</strong> of 6",
        b"Starving",
        b"Roll for panic now",
        b"Edit sheet",
    ):
        assert text in page.content, text
    assert b"Push the roll" not in page.content  # a stress die showed 1


def test_a_panic_table_slug_two_users_share_gives_each_their_own_rows(panic_table: RuleTable, player: Any) -> None:
    mine = RuleTable.objects.create(
        system=panic_table.system, slug="our-panic", title="Ripley's panic", die="D6", source="ours", owner=player
    )
    TableEntry.objects.create(table=mine, position=1, low=1, high=99, result="Run", effect="Run words", data={})
    room = services.room_create(user=player, kind="stress", title="Narcissus", options={"panic_table": "our-panic"})
    assert [r["result"] for r in room.state["panic_table"]] == ["Run"]
