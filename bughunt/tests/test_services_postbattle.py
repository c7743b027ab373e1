"""The end of a mission through the services: outcome, post-battle choices and their refusals."""

from __future__ import annotations

from typing import Any

import pytest

from bughunt import postbattle_services, services
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
        postbattle_services.mission_finish(user=player, mission_id=mission.pk, version=mission_version(mission.pk))
    assert caught.value.field == "mission"
    mission.refresh_from_db()
    assert mission.stage == "in_play"


def test_no_objective_means_a_court_martial_for_the_one_in_charge(player, squad) -> None:  # type: ignore[no-untyped-def]
    mission = on_table(player, squad)
    act(player, mission, "end_mission")
    mission = postbattle_services.mission_finish(
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
    mission = postbattle_services.mission_finish(
        user=player, mission_id=mission.pk, version=mission_version(mission.pk), in_charge="Hicks", seed=4
    )
    assert "Court martial" not in [s["title"] for s in mission.post_battle["steps"]]


def _finish(user: Any, mission: Mission, **kwargs: Any) -> Mission:
    return postbattle_services.mission_finish(user=user, mission_id=mission.pk, version=mission_version(mission.pk), **kwargs)


def _casualties(user: Any, mission: Mission, **kwargs: Any) -> Mission:
    return postbattle_services.mission_casualties(user=user, mission_id=mission.pk, version=mission_version(mission.pk), **kwargs)


def test_survived_is_played_after_the_injury_roll_and_only_on_one_with_an_effect(player, squad) -> None:  # type: ignore[no-untyped-def]
    """p.181: Survived is used after rolling for injuries; a roll of 100 (School of hard knocks)
    has nothing to ignore, so the card is refused there and stays in hand."""
    mission = on_table(player, squad)
    act(player, mission, "adjust", figure=figure(mission, "Hudson"), status="casualty")
    act(player, mission, "adjust", figure=figure(mission, "Hicks"), status="casualty")
    act(player, mission, "end_mission")
    with pytest.raises(DropshipError, match="after the injury rolls") as caught:
        _finish(player, mission, survived_card="Hudson")  # committing before the roll is refused
    assert caught.value.field == "survived_card"
    mission = _casualties(player, mission, faces={"Hudson": 100, "Hicks": 3})
    assert mission.post_battle["casualties"]["results"]["Hudson"]["result"] == "School of hard knocks"
    assert postbattle_services.survivable(mission) == ["Hicks"]  # Gruesome fate on a 3
    version = mission_version(mission.pk)
    for name in ("Hudson", "Vasquez"):
        with pytest.raises(DropshipError, match="changes nothing") as caught:
            _finish(player, mission, survived_card=name)
        assert caught.value.field == "survived_card"
    squad.refresh_from_db()
    assert "Survived" not in squad.movie_magic_used and mission_version(mission.pk) == version  # nothing written
    mission = _finish(player, mission, survived_card="Hicks", seed=9)
    squad.refresh_from_db()
    assert "Survived" in squad.movie_magic_used
    hicks, hudson = squad.troopers.get(name="Hicks"), squad.troopers.get(name="Hudson")
    assert hicks.status == "active" and hicks.sick_bay == 0  # the Gruesome fate is ignored
    assert hudson.xp >= 1  # the 100 stands: School of hard knocks
    step = mission.post_battle["steps"][0 if mission.post_battle["steps"][0]["number"] == 1 else 1]
    assert "ignored: the Survived card" in step["text"] and sorted(r["total"] for r in step["rolls"]) == [3, 100]
    second = on_table(player, squad)
    act(player, second, "adjust", figure=figure(second, "Hudson"), status="casualty")
    act(player, second, "end_mission")
    second = _casualties(player, second, faces={"Hudson": 1})
    with pytest.raises(DropshipError, match="already used"):
        _finish(player, second, survived_card="Hudson")


def test_the_casualty_rolls_are_made_once_and_the_finish_uses_them(player, squad) -> None:  # type: ignore[no-untyped-def]
    mission = on_table(player, squad)
    act(player, mission, "adjust", figure=figure(mission, "Hudson"), status="casualty")
    act(player, mission, "end_mission")
    mission = _casualties(player, mission, faces={"Hudson": 20}, recovery_faces={"Hudson": 2})  # Leg wound, 1D3 = 2
    with pytest.raises(DropshipError, match="already rolled") as caught:
        _casualties(player, mission)
    assert caught.value.field == "mission"
    _finish(player, mission, seed=5)
    squad.refresh_from_db()
    assert squad.troopers.get(name="Hudson").sick_bay == 2
    rolled = squad.log.filter(step="post-battle: 1. casualties rolled").get()
    assert [r["total"] for r in rolled.rolls] == [20, 2]
    steps = list(squad.log.filter(step__startswith="post-battle: 1.").values_list("step", "rolls"))
    assert len(steps) == 2 and steps[1][1] == [], steps  # logged once, when rolled


def test_the_escape_card_spares_lost_marines(player, squad) -> None:  # type: ignore[no-untyped-def]
    mission = on_table(player, squad)
    act(player, mission, "exit_edge", figure=figure(mission, "Vasquez"))
    act(player, mission, "end_mission")
    mission = _finish(player, mission, escape_card=True, seed=9)
    step = next(s for s in mission.post_battle["steps"] if s["number"] == 1)
    assert "Escape card" in step["text"] and step["rolls"] == []
    squad.refresh_from_db()
    assert "Escape" in squad.movie_magic_used


def test_escape_with_no_marine_lost_is_refused_and_not_spent(player, squad) -> None:  # type: ignore[no-untyped-def]
    """p.181: Escape spares those who left by an edge their Lost Marine roll; with nobody lost it
    changes nothing, so it is refused (the card stays), at either step."""
    mission = on_table(player, squad)
    act(player, mission, "adjust", figure=figure(mission, "Hudson"), status="casualty")
    act(player, mission, "end_mission")
    for attempt in (_casualties, _finish):
        with pytest.raises(DropshipError, match="changes nothing") as caught:
            attempt(player, mission, escape_card=True)
        assert caught.value.field == "escape_card"
    squad.refresh_from_db()
    assert "Escape" not in squad.movie_magic_used and not Mission.objects.get(pk=mission.pk).post_battle


def test_escape_is_played_before_the_lost_marine_rolls(player, squad) -> None:  # type: ignore[no-untyped-def]
    mission = on_table(player, squad)
    act(player, mission, "exit_edge", figure=figure(mission, "Vasquez"))
    act(player, mission, "end_mission")
    mission = _casualties(player, mission, escape_card=True)
    assert mission.post_battle["casualties"]["results"]["Vasquez"]["outcome"] == "escaped"
    assert mission.post_battle["casualties"]["rolls"] == []
    squad.refresh_from_db()
    assert "Escape" in squad.movie_magic_used
    done = _finish(player, mission, seed=3)
    assert squad.troopers.get(name="Vasquez").status == "active" and done.stage == "done"
    other = on_table(player, squad)
    act(player, other, "exit_edge", figure=figure(other, "Hicks"))
    act(player, other, "end_mission")
    other = _casualties(player, other, faces={"Hicks": 50})
    with pytest.raises(DropshipError, match="before them") as caught:
        _finish(player, other, escape_card=True)
    assert caught.value.field == "escape_card"


def test_military_life_offers_wait_on_the_squad_and_can_be_declined(player, squad) -> None:  # type: ignore[no-untyped-def]
    squad.pending = [
        postbattle_services._offer_entry(
            postbattle_services.campaign.Offer(kind="raise_stat", trooper="Hicks", stat="speed", cost_xp=5), ["Service pistol"]
        )
    ]
    squad.save()
    with pytest.raises(DropshipError) as caught:
        postbattle_services.offer_answer(user=player, squad_id=squad.pk, version=squad_version(squad.pk), index=0, choice="maybe")
    assert caught.value.field == "choice" and "accept" in caught.value.message
    hicks = squad.troopers.get(name="Hicks")
    hicks.xp = 5
    hicks.save()
    squad = postbattle_services.offer_answer(
        user=player, squad_id=squad.pk, version=squad_version(squad.pk), index=0, choice="accept"
    )
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
    mission = postbattle_services.mission_finish(
        user=player, mission_id=mission.pk, version=mission_version(mission.pk), in_charge="Hicks", seed=4
    )
    report = mission.outcome
    assert report["objective_points"] - 1 == report["objectives_completed"]
    from bughunt.models import LogEntry

    steps = LogEntry.objects.filter(mission=mission, step__startswith="post-battle")
    reputation = next(e for e in steps if (e.data or {}).get("objectives") is not None)
    assert reputation.data["objectives"] == report["objectives_completed"] == 2
