"""Every screen's query count stays flat as the table grows: from a few figures, members and
log lines to many, the same number of queries (members, users and log lines load once per
render, never per figure or per line)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from live import services
from live.models import Membership, Room, RoomAction
from tests import phone_scenes
from tests.factories import UserFactory
from tests.tables import load_system_tables

MANY = 5000

pytestmark = pytest.mark.django_db


def queries(client: Client, url: str, **headers: str) -> int:
    """How many queries one GET of ``url`` makes (it must answer 200)."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url, headers=headers)
    assert response.status_code == 200, (url, response.status_code)
    return len(captured)


def grow(room: Room, players: list[Any], times: int = 10) -> None:
    """Copy every list of figures in the room's state ``times`` over (fresh ids, played in turn
    by ``players``) and seat the players: the screens then draw ten times the figures and the
    members of the small table. The state is written directly, as the screens only read it."""
    for user in players:
        Membership.objects.get_or_create(room=room, user=user, defaults={"role": "player"})
    state = copy.deepcopy(room.state)

    def widen(items: list[Any]) -> list[Any]:
        out: list[Any] = []
        for n in range(times):
            for item in items:
                twin = copy.deepcopy(item)
                twin["id"] = f"{item['id']}x{n}" if n else item["id"]
                if "owner" in twin and players:
                    twin["owner"] = str(players[(len(out)) % len(players)].pk)
                out.append(twin)
        return out

    for key, value in state.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) and "id" in v for v in value):
            state[key] = widen(value)
    Room.objects.filter(pk=room.pk).update(state=state)


def room_threat(owner: Any, player: Any) -> Room:
    load_system_tables("threat-tracker")
    room = services.room_create(user=owner, kind="threat", title="LV-426")
    for name in ("Ripley", "Hicks", "Vasquez", "Hudson", "Drake"):
        phone_scenes._act(owner, room, "add_character", name=name, owner=str(player.pk))
    return room


def room_stack(owner: Any, player: Any) -> Room:
    load_system_tables("stacking")
    return services.room_create(user=owner, kind="stack", title="Derelict", options={"check_die": "D100"})


def room_stress(owner: Any, player: Any) -> Room:
    load_system_tables("stress-dice")
    return services.room_create(user=owner, kind="stress", title="Nostromo", options={"extreme_modifier": "-2"})


def room_mass(owner: Any, player: Any) -> Room:
    load_system_tables("mass-combat")
    return services.room_create(user=owner, kind="mass", title="Ford", options={"side_a": "Wardens", "side_b": "Raiders"})


def room_fiveparsecs(owner: Any, player: Any) -> Room:
    load_system_tables("fiveparsecs")
    return phone_scenes.fiveparsecs_battle(owner, player)[0]


def room_bughunt(owner: Any, player: Any) -> Room:
    load_system_tables("bughunt")
    return phone_scenes.bughunt_mission(owner, player)[0]


ROOMS: dict[str, Callable[[Any, Any], Room]] = {
    "threat": room_threat,
    "stack": room_stack,
    "stress": room_stress,
    "mass": room_mass,
    "fiveparsecs-battle": room_fiveparsecs,
    "bughunt-mission": room_bughunt,
}


@pytest.mark.parametrize("kind", list(ROOMS))
def test_a_tracker_screen_makes_as_many_queries_with_ten_times_the_figures_and_members(kind: str) -> None:
    owner, player = UserFactory.create(username="referee"), UserFactory.create(username="hudson")
    room = ROOMS[kind](owner, player)
    client = Client()
    client.force_login(owner)
    urls = [f"/rooms/{room.pk}/", f"/rooms/{room.pk}/tracker/"]
    small = [queries(client, url) for url in urls]
    grow(room, [player, *(UserFactory.create() for _ in range(20))])
    large = [queries(client, url) for url in urls]
    assert large == small


def test_polling_a_room_writes_no_row() -> None:
    owner, player = UserFactory.create(username="referee"), UserFactory.create(username="hudson")
    room = room_stack(owner, player)
    client = Client()
    client.force_login(owner)
    with CaptureQueriesContext(connection) as captured:
        for _ in range(10):
            assert client.get(f"/rooms/{room.pk}/tracker/?version={room.version}").status_code == 304
            assert client.get(f"/rooms/{room.pk}/tracker/").status_code == 200
    writes = [q["sql"] for q in captured if not q["sql"].lstrip().upper().startswith(("SELECT", "SAVEPOINT", "RELEASE"))]
    assert writes == []
    # ...and the members list still says who is watching, from the cache.
    assert "seen" in client.get(f"/rooms/{room.pk}/").content.decode().split("At the table")[1]


def _room_log(room: Room, actor: Any, count: int) -> None:
    """``count`` more log lines (each with a roll) after the room's version."""
    start = room.version
    RoomAction.objects.bulk_create(
        RoomAction(
            room=room, version=start + n, actor=actor, role="owner", type="note", seed=n,
            rolls=[{"notation": "D6", "faces": [3], "total": 3}], events=[{"type": "note", "text": f"Line {n}"}],
        )
        for n in range(1, count + 1)
    )  # fmt: skip
    Room.objects.filter(pk=room.pk).update(version=start + count)


def test_the_room_log_shows_a_page_of_five_thousand_lines_with_the_queries_of_ten() -> None:
    owner, player = UserFactory.create(username="referee"), UserFactory.create(username="hudson")
    room = room_stack(owner, player)
    _room_log(room, owner, 10)
    client = Client()
    client.force_login(owner)
    urls = [f"/rooms/{room.pk}/", f"/rooms/{room.pk}/log/", f"/rooms/{room.pk}/log/?before=5", f"/api/v1/rooms/{room.pk}/log/"]
    small = [queries(client, url) for url in urls]
    room.refresh_from_db()
    _room_log(room, player, MANY)
    large = [queries(client, url) for url in urls]
    assert large == small
    page = client.get(f"/rooms/{room.pk}/log/")
    assert page.content.decode().count("Line ") == 12 and len(page.content) < 40_000
    older = client.get(f"/rooms/{room.pk}/log/?before=100", headers={"HX-Request": "true"}).content.decode()
    # versions 99 down to 88 (the lines written after the first ten), then the link to older ones
    assert "Line 89 " in older and "Line 78 " in older and "Line 90 " not in older and "Line 77 " not in older
    assert "?before=88" in older
    api = client.get(f"/api/v1/rooms/{room.pk}/log/").json()
    assert len(api["results"]) == 50 and api["results"][0]["version"] == MANY + 10 and api["next"]
    assert client.get(api["next"]).json()["results"][0]["version"] == MANY + 10 - 50


def test_a_spoiled_log_cursor_is_refused_naming_the_field() -> None:
    owner, player = UserFactory.create(username="referee"), UserFactory.create(username="hudson")
    room = room_stack(owner, player)
    client = Client()
    client.force_login(owner)
    response = client.get(f"/api/v1/rooms/{room.pk}/log/?cursor=spoiled")
    assert response.status_code == 400 and response.json()["field"] == "cursor"


def test_the_campaign_screens_make_as_many_queries_with_fifty_crew_and_five_thousand_log_lines() -> None:
    from campaigns import services as campaign_services
    from campaigns.models import Character, LogEntry

    load_system_tables("fiveparsecs")
    captain = UserFactory.create(username="captain")
    campaign = campaign_services.campaign_create(user=captain, name="Drift", options={})
    client = Client()
    client.force_login(captain)
    base = f"/campaigns/{campaign.pk}"
    Character.objects.bulk_create(Character(campaign=campaign, name=f"Crew {n}", position=n) for n in range(5))
    urls = [f"{base}/", f"{base}/turn/", f"{base}/log/", f"{base}/log/?kind=crew&page=2", f"/api/v1/campaigns/{campaign.pk}/log/"]
    LogEntry.objects.bulk_create(LogEntry(campaign=campaign, kind="crew", text=f"Line {n}") for n in range(10))
    queries(client, urls[0])  # the rule tables come into this process's memory once
    small = [queries(client, url) for url in urls]
    Character.objects.bulk_create(Character(campaign=campaign, name=f"Crew {n}", position=n) for n in range(5, 50))
    LogEntry.objects.bulk_create(
        LogEntry(campaign=campaign, kind="crew", text=f"Line {n}", before={"big": "x" * 200}) for n in range(MANY)
    )
    large = [queries(client, url) for url in urls]
    assert large == small
    page = client.get(f"{base}/log/?kind=crew&page=3")
    assert page.content.decode().count("Line ") == 100 and len(page.content) < 100_000
    api = client.get(f"/api/v1/campaigns/{campaign.pk}/log/?kind=crew").json()
    assert len(api["results"]) == 50 and api["next"] and "kind=crew" in api["next"]


def test_the_squad_screens_make_as_many_queries_with_five_thousand_log_lines() -> None:
    from bughunt import services as bughunt_services
    from bughunt.models import LogEntry

    load_system_tables("bughunt")
    sarge = UserFactory.create(username="apone")
    squad = bughunt_services.squad_create(user=sarge, name="Kilo", character_names=["Vasquez", "Hicks", "Hudson"], seed=1)
    client = Client()
    client.force_login(sarge)
    urls = [
        f"/bughunt/{squad.pk}/",
        f"/bughunt/{squad.pk}/log/",
        f"/bughunt/{squad.pk}/log/?step=creation",
        f"/api/v1/bughunt/squads/{squad.pk}/log/",
    ]
    small = [queries(client, url) for url in urls]
    LogEntry.objects.bulk_create(LogEntry(squad=squad, turn=1, step="creation", text=f"Line {n}") for n in range(MANY))
    large = [queries(client, url) for url in urls]
    assert large == small
    page = client.get(f"/bughunt/{squad.pk}/log/?step=creation&page=2")
    assert (
        page.content.decode().count("Line ") == 100 and "step=creation" in page.content.decode().split('data-testid="pager"')[1]
    )
    api = client.get(f"/api/v1/bughunt/squads/{squad.pk}/log/").json()
    assert len(api["results"]) == 50 and api["next"]
