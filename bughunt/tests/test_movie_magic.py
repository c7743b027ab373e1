"""Movie magic cards at the moment the book gives (Bug Hunt p.181): each card's timing, a card
spent only when it changes something, a refused play writing nothing."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from rest_framework.test import APIClient

from bughunt import postbattle_services, services
from bughunt.engine import campaign as c
from bughunt.engine import tracker
from bughunt.engine.tracker.command import NotYourMarine
from bughunt.models import Mission, Squad
from bughunt.tests.test_campaign_engine import outcome, squad
from bughunt.tests.test_tracker_engine import SETUP, TABLES, act, next_round, refused, to_quick
from bughunt.tests.versions import mission_version, squad_version
from live import services as live_services
from live.engine.tracker import Action, Role
from live.models import Room
from rules.engine.dice import Dice


def fresh(**changes: Any) -> dict[str, Any]:
    setup = copy.deepcopy(SETUP)
    setup["movie_magic_used"] = []
    setup.update(changes)
    return tracker.initial_state(setup, TABLES)


# -- the tracker: cards of a round's beginning or end ----------------------------------------------------


@pytest.mark.parametrize(
    ("card", "payload"),
    [("Barricade", {}), ("Remove Contact", {"contact": "c1"}), ("Reinforcements", {"support": "Sharp shooter"})],
)
def test_round_cards_are_played_at_the_beginning_or_end_of_a_round(card: str, payload: dict[str, Any]) -> None:
    """p.181: Barricade, Reinforcements and Remove Contact at the beginning or end of any round."""
    start = fresh()
    assert act(start, "movie_magic", card=card, **payload)["movie_magic_used"] == [card]  # round 1 begins
    quick = to_quick(fresh())
    assert "beginning or end of a round" in refused(quick, "movie_magic", "card", card=card, **payload)
    enemy = act(quick, "next_phase")
    refused(enemy, "movie_magic", "card", card=card, **payload)
    slow = act(enemy, "next_phase")
    refused(slow, "movie_magic", "card", card=card, **payload)
    ended = act(slow, "next_phase")  # the end of the round
    assert ended["phase"] == "spawn"
    assert act(ended, "movie_magic", card=card, **payload)["movie_magic_mission"] == [card]


def test_reinforcements_arm_each_figure_as_the_support_table_does() -> None:
    """A Soulless Recon Team by Reinforcements: one Carbine, one Sniper Rifle (p.189); a Sarge
    with the arms the player picks (p.188)."""
    state = act(fresh(), "movie_magic", card="Reinforcements", support="Soulless Recon Team")
    team = state["units"][-1]
    assert [[w["name"] for w in f["weapons"]] for f in team["figures"]] == [["Carbine"], ["Sniper rifle"]]
    sarge = act(fresh(), "movie_magic", card="Reinforcements", support="Sarge", arms="Service pistol + Power claw")
    assert [w["name"] for w in sarge["units"][-1]["figures"][0]["weapons"]] == ["Service pistol", "Power claw"]
    assert "Shot gun + Boarding sword" in refused(
        fresh(), "movie_magic", "arms", card="Reinforcements", support="Sarge", arms="Claws"
    )


# -- the tracker: cards played when a character is selected to act -------------------------------------------


@pytest.mark.parametrize(
    ("card", "payload"), [("Double-Up", {}), ("Lucky Find", {"weapon": "Plasma rifle"}), ("You want some too?", {})]
)
def test_acting_cards_are_played_when_the_character_is_selected_to_act(card: str, payload: dict[str, Any]) -> None:
    """p.181: when selecting a character to act. Before Reactions, for a Slow unit in the Quick
    phase, or after the unit acted, the card is refused and stays in hand."""
    assert "selected to act" in refused(fresh(), "movie_magic", "figure", card=card, figure="f1", **payload)
    quick = to_quick(fresh(), faces=[6, 1])  # Vasquez (Reactions 1) is Slow, the Fire team Quick
    assert "not the one to act" in refused(quick, "movie_magic", "figure", card=card, figure="f1", **payload)
    played = act(quick, "movie_magic", card=card, figure="f2", **payload)
    assert played["movie_magic_used"] == [card]
    acted = act(quick, "act", unit="u2")
    assert "already acted" in refused(acted, "movie_magic", "figure", card=card, figure="f2", **payload)
    slow = act(act(quick, "next_phase"), "next_phase")
    assert act(slow, "movie_magic", card=card, figure="f1", **payload)["movie_magic_used"] == [card]


def test_a_held_unit_may_be_selected_for_snap_fire_with_a_card() -> None:
    quick = to_quick(fresh(), faces=[1, 1])
    held = act(act(quick, "hold", unit="u1"), "next_phase")
    assert held["phase"] == "enemy"
    state = act(held, "movie_magic", card="You want some too?", figure="f1")
    assert state["units"][0]["figures"][0]["three_shots_round"] == 1


def test_lucky_find_may_go_to_an_ally() -> None:
    """p.181: the weapon goes to the active character or an ally within 4"."""
    quick = to_quick(fresh(), faces=[1, 1])
    state = act(quick, "movie_magic", card="Lucky Find", figure="f1", weapon="Hyper blaster", ally="f3")
    assert [w["name"] for w in state["units"][1]["figures"][1]["weapons"]] == ["Combat rifle", "Hyper blaster"]
    assert [w["name"] for w in state["units"][0]["figures"][0]["weapons"]] == ["Service pistol", "Combat rifle"]
    refused(quick, "movie_magic", "ally", card="Lucky Find", figure="f1", weapon="Hyper blaster", ally="f99")


def test_a_player_plays_acting_cards_only_on_their_own_figures() -> None:
    quick = to_quick(fresh(), faces=[1, 1])
    before = copy.deepcopy(quick)
    with pytest.raises(NotYourMarine) as refused_card:  # a 400 naming the figure and who commands it
        tracker.apply(
            quick, Action("movie_magic", {"card": "Double-Up", "figure": "f2"}, actor="8", role=Role.PLAYER), Dice(seed=1), TABLES
        )
    assert refused_card.value.field == "figure"
    assert quick == before
    state = act(quick, "movie_magic", card="Double-Up", figure="f1", actor="7", role=Role.PLAYER)  # Vasquez is player 7's
    assert state["movie_magic_used"] == ["Double-Up"]


def test_the_evac_card_only_after_a_failed_evac_roll() -> None:
    assert "failed Evac roll" in refused(fresh(), "movie_magic", "card", card="Evac")


def test_post_battle_and_set_up_cards_are_refused_on_the_tracker() -> None:
    state = fresh()
    assert "after the injury rolls" in refused(state, "movie_magic", "card", card="Survived")
    assert "before the Lost Marine rolls" in refused(state, "movie_magic", "card", card="Escape")
    assert "mission set-up" in refused(state, "movie_magic", "card", card="Extra Support")


# -- the campaign engine: Survived after the roll, Escape only for lost marines ------------------------------


def test_survived_cancels_a_roll_with_an_effect_and_is_refused_on_one_without() -> None:
    hurt = c.casualties(TABLES, squad(), outcome(casualties=("Ash",)), Dice(seed=1), faces={"Ash": 3}, survived="Ash")
    assert hurt.squad.get("Ash").status == "active" and hurt.data["results"]["Ash"]["outcome"] == "survived"
    assert hurt.data["results"]["Ash"]["roll"] == 3
    for face in (85, 100):  # Knocked out, School of hard knocks: nothing to ignore
        with pytest.raises(c.CampaignError, match="changes nothing") as caught:
            c.casualties(TABLES, squad(), outcome(casualties=("Ash",)), Dice(seed=1), faces={"Ash": face}, survived="Ash")
        assert caught.value.field == "survived"
    with pytest.raises(c.CampaignError, match="made no injury roll"):
        c.casualties(TABLES, squad(), outcome(casualties=("Ash",)), Dice(seed=1), faces={"Ash": 3}, survived="Bex")


def test_escape_covers_lost_marines_only() -> None:
    lost = c.casualties(TABLES, squad(), outcome(lost_marines=("Bex",)), Dice(seed=1), escaped=("Bex",))
    assert lost.rolls == () and lost.data["results"]["Bex"]["outcome"] == "escaped"
    with pytest.raises(c.CampaignError, match="did not leave by a battlefield edge") as caught:
        c.casualties(TABLES, squad(), outcome(casualties=("Ash",)), Dice(seed=1), escaped=("Ash",))
    assert caught.value.field == "escaped"


def test_rolls_made_before_are_replayed_by_their_faces() -> None:
    """The post-battle keeps step 1's faces so Survived can follow them (seeded dice)."""
    first = c.casualties(TABLES, squad(), outcome(casualties=("Ash", "Bex")), Dice(seed=11))
    faces = {n: r["roll"] for n, r in first.data["results"].items()}
    recovery = {n: r["recovery_face"] for n, r in first.data["results"].items() if r["recovery_face"] is not None}
    again = c.casualties(TABLES, squad(), outcome(casualties=("Ash", "Bex")), Dice(seed=99), faces=faces, recovery_faces=recovery)
    assert again.squad == first.squad and again.lines == first.lines


# -- the API ---------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("bughunt_tables")
def test_the_casualties_step_over_the_api_and_a_refused_survived_is_a_400(player) -> None:  # type: ignore[no-untyped-def]
    api = APIClient()
    api.force_authenticate(player)
    kilo: Squad = services.squad_create(user=player, name="Kilo", character_names=["Vasquez", "Hicks", "Hudson"], seed=3)
    mission: Mission = services.mission_create(user=player, squad_id=kilo.pk, version=squad_version(kilo.pk), seed=2)
    loadout = {str(t.pk): "Shot gun" for t in services.available_troopers(kilo)}
    services.mission_loadout(user=player, mission_id=mission.pk, version=mission_version(mission.pk), loadout=loadout)
    mission = services.mission_start(user=player, mission_id=mission.pk, version=mission_version(mission.pk))
    assert mission.room is not None
    state = Room.objects.get(pk=mission.room.pk).state
    hudson = next(f["id"] for u in state["units"] for f in u["figures"] if f["name"] == "Hudson")
    for type, payload in (("adjust", {"figure": hudson, "status": "casualty"}), ("end_mission", {})):
        room = Room.objects.get(pk=mission.room.pk)
        live_services.room_act(user=player, room_id=room.pk, type=type, payload=payload, version=room.version, seed=1)
    base = f"/api/v1/bughunt/missions/{mission.pk}"
    early = api.post(f"{base}/finish/", {"version": mission_version(mission.pk), "survived_card": "Hudson"}, format="json")
    assert early.status_code == 400 and early.json()["field"] == "survived_card"
    escape = api.post(f"{base}/casualties/", {"version": mission_version(mission.pk), "escape_card": True}, format="json")
    assert escape.status_code == 400 and escape.json()["field"] == "escape_card"
    bad = api.post(f"{base}/casualties/", {"version": mission_version(mission.pk), "faces": {"Hudson": 101}}, format="json")
    assert bad.status_code == 400 and "faces" in bad.json()
    stray = api.post(f"{base}/casualties/", {"version": mission_version(mission.pk), "faces": {"Hicks": 50}}, format="json")
    assert stray.status_code == 400 and stray.json()["field"] == "faces" and "rolling: Hudson" in stray.json()["detail"]
    rolled = api.post(f"{base}/casualties/", {"version": mission_version(mission.pk), "faces": {"Hudson": 100}}, format="json")
    assert rolled.status_code == 200, rolled.content
    assert rolled.json()["post_battle"]["casualties"]["results"]["Hudson"]["result"] == "School of hard knocks"
    wasted = api.post(f"{base}/finish/", {"version": mission_version(mission.pk), "survived_card": "Hudson"}, format="json")
    assert wasted.status_code == 400 and "changes nothing" in wasted.json()["detail"]
    kilo.refresh_from_db()
    assert "Survived" not in kilo.movie_magic_used
    done = api.post(f"{base}/finish/", {"version": mission_version(mission.pk)}, format="json")
    assert done.status_code == 200 and done.json()["stage"] == "done"


@pytest.mark.usefixtures("bughunt_tables")
def test_the_mission_screen_rolls_casualties_then_offers_survived_only_where_it_helps(client, player) -> None:  # type: ignore[no-untyped-def]
    client.force_login(player)
    kilo: Squad = services.squad_create(user=player, name="Kilo", character_names=["Vasquez", "Hicks", "Hudson"], seed=3)
    mission: Mission = services.mission_create(user=player, squad_id=kilo.pk, version=squad_version(kilo.pk), seed=2)
    loadout = {str(t.pk): "Shot gun" for t in services.available_troopers(kilo)}
    services.mission_loadout(user=player, mission_id=mission.pk, version=mission_version(mission.pk), loadout=loadout)
    mission = services.mission_start(user=player, mission_id=mission.pk, version=mission_version(mission.pk))
    assert mission.room is not None
    state = Room.objects.get(pk=mission.room.pk).state
    ids = {f["name"]: f["id"] for u in state["units"] for f in u["figures"]}
    for type, payload in (
        ("adjust", {"figure": ids["Hudson"], "status": "casualty"}),
        ("adjust", {"figure": ids["Hicks"], "status": "casualty"}),
        ("end_mission", {}),
    ):
        room = Room.objects.get(pk=mission.room.pk)
        live_services.room_act(user=player, room_id=room.pk, type=type, payload=payload, version=room.version, seed=1)
    page = client.get(f"/bughunt/missions/{mission.pk}/").content.decode()
    assert 'name="survived_card"' not in page and "Roll for casualties and lost marines" in page
    refused_page = client.post(
        f"/bughunt/missions/{mission.pk}/casualties/", {"version": mission_version(mission.pk), "escape_card": "on"}
    )
    assert refused_page.status_code == 400 and "changes nothing" in refused_page.content.decode()
    # typed dice (a 100 and a Leg wound) make the offer predictable
    postbattle_services.mission_casualties(
        user=player, mission_id=mission.pk, version=mission_version(mission.pk), faces={"Hudson": 100, "Hicks": 20}
    )
    page = client.get(f"/bughunt/missions/{mission.pk}/").content.decode()
    assert 'data-testid="casualties-rolled"' in page and 'name="escape_card"' not in page
    survived = page.split('name="survived_card"')[1].split("</select>")[0]
    assert '<option value="Hicks"' in survived and ">Hicks</option>" in survived
    assert '<option value="Hudson"' not in survived


# -- readings (item 3 of the issue) ------------------------------------------------------------------------


def test_the_survey_needs_one_entire_round_at_the_table_center() -> None:
    """p.188: a scientist who reaches the center and spends one entire round there: arriving in
    round 1, the Objective counts from the end of round 2, not before."""
    state = fresh(combat_teams=[{"name": "Scientific survey team"}])
    state = act(state, "survey", figure="f2")  # round 1: arrives
    assert "one entire round" in refused(state, "survey", "type", figure="f2")
    state = to_quick(state, faces=[1, 1])
    state = act(act(act(state, "next_phase"), "next_phase"), "next_phase")  # end of round 1
    refused(state, "survey", "type", figure="f2")
    state = next_round(state)  # round 2 starts
    refused(state, "survey", "type", figure="f2")
    left = act(state, "survey", figure="f2", left="on")  # moved off the center: starts again
    assert "arrives" not in text_of(left) and left["survey_at_center"] is None
    state = to_quick(state, faces=[1, 1])
    state = act(act(act(state, "next_phase"), "next_phase"), "next_phase")  # end of round 2
    state = act(state, "survey", figure="f2")
    assert tracker.outcome(state)["objectives_completed"] == 1
    other = act(fresh(combat_teams=[{"name": "Scientific survey team"}]), "survey", figure="f2")
    moved = act(other, "survey", figure="f3")  # another scientist arrives: the count restarts with them
    assert moved["survey_at_center"] == {"figure": "f3", "round": 1}


def text_of(state: dict[str, Any]) -> str:
    return " ".join(e["text"] for e in state["_events"])


def test_a_casualty_in_sick_bay_gets_no_completed_mission_but_a_knocked_out_one_does() -> None:
    """p.203: a character in Sick Bay adds nothing to their count (step 2 after step 1); the
    muster-out row 5-7 (9+ if a casualty or lost marine) meets the casualty who was only
    knocked out."""
    veterans = squad(
        c.Trooper(name="Ash", profile=squad().troopers[0].profile, completed_missions=5),
        c.Trooper(name="Bex", profile=squad().troopers[0].profile, completed_missions=5),
        c.Trooper(name="Cole", profile=squad().troopers[0].profile, completed_missions=5),
    )
    o = outcome(casualties=("Ash", "Bex"))
    hurt = c.casualties(TABLES, veterans, o, Dice(seed=1), faces={"Ash": 20, "Bex": 85}, recovery_faces={"Ash": 1})
    counted = c.update_completed_missions(hurt.squad, o)
    assert counted.data["counted"] == ["Bex", "Cole"]  # Ash (Leg wound) is in Sick Bay
    assert counted.squad.get("Ash").completed_missions == 5 and counted.squad.get("Bex").completed_missions == 6
    mustered = c.muster_out(TABLES, counted.squad, o, Dice(seed=1), faces={"Bex": [5, 4], "Cole": [6, 6]})
    assert mustered.data["checks"] == {"Bex": {"target": 9, "total": 9}}  # Cole was not hurt: no chance at 6
    assert mustered.data["left"] == ["Bex"]


def test_xp_for_priority_4_reads_the_priority_before_a_drop_ship_raised_it() -> None:
    """p.204 with p.201: a Priority 3 mission raised to 4 by a drop ship earns no +1 XP."""
    before = c.award_experience(TABLES, squad(), outcome(priority=3, objectives_completed=2))
    raised = c.award_experience(TABLES, squad(), outcome(priority=4, objectives_completed=2))
    assert before.data["xp"]["Ash"] == 3 and raised.data["xp"]["Ash"] == 4


@pytest.mark.usefixtures("bughunt_tables")
def test_the_post_battle_takes_the_generated_priority_not_the_raised_one(player) -> None:  # type: ignore[no-untyped-def]
    kilo: Squad = services.squad_create(user=player, name="Kilo", character_names=["Vasquez", "Hicks", "Hudson"], seed=3)
    mission: Mission = services.mission_create(
        user=player, squad_id=kilo.pk, version=squad_version(kilo.pk), objective_faces=[1, 3, 5], priority_faces=[3, 3]
    )
    loadout = {str(t.pk): "Shot gun" for t in services.available_troopers(kilo)}
    services.mission_loadout(user=player, mission_id=mission.pk, version=mission_version(mission.pk), loadout=loadout)
    mission = services.mission_start(user=player, mission_id=mission.pk, version=mission_version(mission.pk))
    assert mission.room is not None
    room = Room.objects.get(pk=mission.room.pk)
    assert room.state["priority_start"] == 3
    for objective in room.state["objectives"]:
        room = Room.objects.get(pk=mission.room.pk)
        live_services.room_act(
            user=player,
            room_id=room.pk,
            type="set_objective",
            payload={"objective": objective["id"], "completed": "on"},
            version=room.version,
            seed=1,
        )
    room = Room.objects.get(pk=mission.room.pk)
    live_services.room_act(user=player, room_id=room.pk, type="end_mission", payload={}, version=room.version, seed=1)
    Room.objects.filter(pk=room.pk).update(state={**Room.objects.get(pk=room.pk).state, "priority": 4})  # a drop ship came
    done = postbattle_services.mission_finish(user=player, mission_id=mission.pk, version=mission_version(mission.pk), seed=2)
    xp_step = next(s for s in done.post_battle["steps"] if s["number"] == 5)
    assert "for Priority" not in xp_step["text"] and "Vasquez: +3 for Evac with 3 Objective points = 3 XP" in xp_step["text"]
