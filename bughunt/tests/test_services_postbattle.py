"""The end of a mission through the services: outcome, post-battle choices and their refusals."""

from __future__ import annotations

from typing import Any

import pytest

from bughunt import services
from bughunt.models import Mission, Squad
from bughunt.tests.versions import mission_version, squad_version
from live import services as live_services
from live.models import Room
from rules.errors import DropshipError

pytestmark = pytest.mark.usefixtures("bughunt_tables")


def act(user: Any, mission: Mission, type: str, **payload: Any) -> dict[str, Any]:
    assert mission.room is not None
    room = Room.objects.get(pk=mission.room.pk)
    return live_services.room_act(user=user, room_id=room.pk, type=type, payload=payload, version=room.version, seed=1).room.state


def on_table(user: Any, squad: Squad) -> Mission:
    squad.refresh_from_db()
    mission = services.mission_create(user=user, squad_id=squad.pk, version=squad_version(squad.pk), seed=2)
    loadout = {str(t.pk): "Shot gun" for t in services.available_troopers(squad)}
    services.mission_loadout(user=user, mission_id=mission.pk, version=mission_version(mission.pk), loadout=loadout)
    return services.mission_start(user=user, mission_id=mission.pk, version=mission_version(mission.pk))


def figure(mission: Mission, name: str) -> str:
    assert mission.room is not None
    state = Room.objects.get(pk=mission.room.pk).state
    return next(f["id"] for u in state["units"] for f in u["figures"] if f["name"] == name)


@pytest.fixture
def squad(player) -> Squad:  # type: ignore[no-untyped-def]
    return services.squad_create(user=player, name="Kilo", character_names=["Vasquez", "Hicks", "Hudson"], seed=3)


def test_the_post_battle_waits_for_the_tracker_to_end(player, squad) -> None:  # type: ignore[no-untyped-def]
    mission = on_table(player, squad)
    with pytest.raises(DropshipError, match="End the mission") as caught:
        services.mission_finish(user=player, mission_id=mission.pk, version=mission_version(mission.pk))
    assert caught.value.field == "mission"
    mission.refresh_from_db()
    assert mission.stage == "in_play"


def test_no_objective_means_a_court_martial_for_the_one_in_charge(player, squad) -> None:  # type: ignore[no-untyped-def]
    mission = on_table(player, squad)
    act(player, mission, "end_mission")
    mission = services.mission_finish(
        user=player, mission_id=mission.pk, version=mission_version(mission.pk), in_charge="Hicks", seed=4
    )
    titles = [s["title"] for s in mission.post_battle["steps"]]
    assert titles[0] == "Court martial"
    court = mission.post_battle["steps"][0]
    assert court["rolls"][0]["notation"] == "D6" and "Hicks" in court["text"]


def test_with_two_objectives_there_is_no_court_martial(player, squad) -> None:  # type: ignore[no-untyped-def]
    mission = on_table(player, squad)
    state = Room.objects.get(pk=mission.room.pk).state  # type: ignore[union-attr]
    for objective in state["objectives"]:
        act(player, mission, "set_objective", objective=objective["id"], completed="on")
    act(player, mission, "end_mission")
    mission = services.mission_finish(
        user=player, mission_id=mission.pk, version=mission_version(mission.pk), in_charge="Hicks", seed=4
    )
    assert "Court martial" not in [s["title"] for s in mission.post_battle["steps"]]


def test_the_survived_card_is_spent_once_per_campaign(player, squad) -> None:  # type: ignore[no-untyped-def]
    mission = on_table(player, squad)
    act(player, mission, "adjust", figure=figure(mission, "Hudson"), status="casualty")
    act(player, mission, "end_mission")
    with pytest.raises(DropshipError) as caught:
        services.mission_finish(user=player, mission_id=mission.pk, version=mission_version(mission.pk), survived_card="Hicks")
    assert caught.value.field == "survived_card"  # Hicks was not hurt
    mission = services.mission_finish(
        user=player, mission_id=mission.pk, version=mission_version(mission.pk), survived_card="Hudson", seed=9
    )
    squad.refresh_from_db()
    assert "Survived" in squad.movie_magic_used
    hudson = squad.troopers.get(name="Hudson")
    assert hudson.status == "active"  # whatever the D100 said, the card cancelled its effects
    line = next(s["text"] for s in mission.post_battle["steps"] if s["number"] == 1)
    assert "Hudson" in line
    second = on_table(player, squad)
    act(player, second, "end_mission")
    with pytest.raises(DropshipError, match="already used"):
        services.mission_finish(user=player, mission_id=second.pk, version=mission_version(second.pk), survived_card="Hudson")


def test_the_escape_card_spares_lost_marines(player, squad) -> None:  # type: ignore[no-untyped-def]
    mission = on_table(player, squad)
    act(player, mission, "exit_edge", figure=figure(mission, "Vasquez"))
    act(player, mission, "end_mission")
    mission = services.mission_finish(
        user=player, mission_id=mission.pk, version=mission_version(mission.pk), escape_card=True, seed=9
    )
    step = next(s for s in mission.post_battle["steps"] if s["number"] == 1)
    assert "Escape card" in step["text"] and step["rolls"] == []
    squad.refresh_from_db()
    assert "Escape" in squad.movie_magic_used


def test_military_life_offers_wait_on_the_squad_and_can_be_declined(player, squad) -> None:  # type: ignore[no-untyped-def]
    squad.pending = [
        services._offer_entry(
            services.campaign.Offer(kind="raise_stat", trooper="Hicks", stat="speed", cost_xp=5), ["Service pistol"]
        )
    ]
    squad.save()
    with pytest.raises(DropshipError) as caught:
        services.offer_answer(user=player, squad_id=squad.pk, version=squad_version(squad.pk), index=0, choice="maybe")
    assert caught.value.field == "choice" and "accept" in caught.value.message
    hicks = squad.troopers.get(name="Hicks")
    hicks.xp = 5
    hicks.save()
    squad = services.offer_answer(user=player, squad_id=squad.pk, version=squad_version(squad.pk), index=0, choice="accept")
    hicks.refresh_from_db()
    assert squad.pending == [] and hicks.xp == 0 and hicks.speed == 5


def test_the_signals_penalty_counts_once_after_the_tracker(player, squad) -> None:  # type: ignore[no-untyped-def]
    """Four Signals placed and none investigated take 1 off the Objective total (p.201): the
    tracker's outcome shows it, and the post-battle sequence must not take it off again."""
    mission = on_table(player, squad)
    assert mission.room is not None
    room = Room.objects.get(pk=mission.room.pk)
    for objective in room.state["objectives"]:
        act(player, mission, "set_objective", objective=objective["id"], completed="on")
    room = Room.objects.get(pk=mission.room.pk)
    room.state = {**room.state, "signals": 4, "signals_investigated": 0}  # the scene: Signals left alone
    room.save(update_fields=["state"])
    act(player, mission, "end_mission")
    mission = services.mission_finish(
        user=player, mission_id=mission.pk, version=mission_version(mission.pk), in_charge="Hicks", seed=4
    )
    report = mission.outcome
    assert report["objective_points"] - 1 == report["objectives_completed"]
    from bughunt.models import LogEntry

    steps = LogEntry.objects.filter(mission=mission, step__startswith="post-battle")
    reputation = next(e for e in steps if (e.data or {}).get("objectives") is not None)
    assert reputation.data["objectives"] == report["objectives_completed"] == 2
