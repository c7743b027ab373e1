"""Bug Hunt live mission tracker (pp.173, 181, 184-201) through ``apply`` against the shipped tables."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from bughunt.engine import tracker
from bughunt.engine.tracker.command import NotYourMarine
from live.engine.tracker import Action, NotYours, Role, TrackerError
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable
from rules.fixturefiles import read_all

TABLES: dict[str, RangeTable] = {s.slug: s.engine() for s in read_all() if s.system == "bughunt"}

SETUP: dict[str, Any] = {
    "mission_number": 3,
    "difficulty": "Mess Me Up",
    "priority": 3,
    "spawn_rating": 2,
    "encounter": 0,
    "living_nightmare": False,
    "objectives": [
        {"position": 2, "rank": "Vital Objective", "value": 2, "type": "Hack"},
        {"position": 5, "rank": "Objective", "value": 1, "type": "Retrieve"},
    ],
    "signals": 0,
    "tactical_locations": 6,
    "contacts_on_objectives": 2,
    "contacts_at_center": 1,
    "extra_contacts": 0,
    "intel_report": False,
    "main_characters": [
        {
            "name": "Vasquez",
            "reactions": 1,
            "speed": 4,
            "combat_skill": 1,
            "toughness": 3,
            "savvy": 1,
            "save": 5,
            "weapons": ["Service pistol", "Combat rifle"],
            "owner": "7",
        }
    ],
    "combat_teams": [
        {
            "name": "Fire team",
            "figures": 4,
            "reactions": 1,
            "speed": 4,
            "combat_skill": 0,
            "toughness": 4,
            "savvy": 0,
            "save": 5,
            "weapons": ["Combat rifle"],
            "special": [],
            "owner": "",
        }
    ],
    "enemies_met": ["Razor lizards"],
    "movie_magic_used": ["Barricade"],
}


def new(**changes: Any) -> dict[str, Any]:
    setup = copy.deepcopy(SETUP)
    setup.update(changes)
    return tracker.initial_state(setup, TABLES)


def act(
    state: dict[str, Any], type: str, *, seed: int = 1, role: Role = Role.OWNER, actor: str = "", **payload: Any
) -> dict[str, Any]:
    new_state, events = tracker.apply(state, Action(type, payload, actor=actor, role=role), Dice(seed=seed), TABLES)
    assert events, type
    new_state["_events"] = [e.as_dict() for e in events]
    return new_state


def text(state: dict[str, Any]) -> str:
    return " ".join(e["text"] for e in state["_events"])


def rolls(state: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for e in state["_events"]:
        out.extend(e["data"].get("rolls", []))
        if "roll" in e["data"]:
            out.append(e["data"]["roll"])
    return out


def refused(
    state: dict[str, Any], type: str, field: str | None = None, *, role: Role = Role.OWNER, actor: str = "", **payload: Any
) -> str:
    before = copy.deepcopy(state)
    with pytest.raises(TrackerError) as err:
        tracker.apply(state, Action(type, payload, actor=actor, role=role), Dice(seed=1), TABLES)
    assert state == before
    if field is not None:
        assert err.value.field == field, err.value.message
    return err.value.message


def to_quick(state: dict[str, Any], faces: list[int] | None = None) -> dict[str, Any]:
    """Roll Reactions (typed faces) and assign them in unit order, then start the Quick phase."""
    units = [u for u in state["units"] if u["active"]]
    state = act(state, "roll_reactions", faces=faces or [1] * len(units))
    for index, unit in enumerate(units, start=1):
        state = act(state, "assign_reaction", unit=unit["id"], die=index)
    return act(state, "next_phase")


def to_round_end(state: dict[str, Any], **payload: Any) -> dict[str, Any]:
    """From the Quick phase through the end of the round (Spawn phase)."""
    state = act(state, "next_phase")  # enemy
    state = act(state, "next_phase")  # slow
    return act(state, "next_phase", **payload)  # end of round


def next_round(state: dict[str, Any], beep: list[int] | None = None) -> dict[str, Any]:
    state = act(state, "next_phase")
    if not state["beep_done"]:
        state = act(state, "beep_sir", faces=beep or [1] * state["priority"])
    return state


# -- set-up ------------------------------------------------------------------------------------------


def test_initial_state_from_a_generated_mission() -> None:
    state = new()
    assert (state["round"], state["phase"], state["priority"], state["spawn_unrevealed"]) == (1, "start", 3, 2)
    assert [u["name"] for u in state["units"]] == ["Vasquez", "Fire team"]
    assert [f["name"] for f in state["units"][1]["figures"]] == ["Fire team 1", "Fire team 2", "Fire team 3", "Fire team 4"]
    assert state["units"][0]["owner"] == "7" and state["units"][0]["figures"][0]["save"] == 5
    assert [c["where"] for c in state["contacts"]] == ["on Objective 2", "on Objective 5", "at the table center"]
    assert len(state["locations"]) == 6
    assert [(o["id"], o["key"], o["package"]) for o in state["objectives"]] == [
        ("o2", "hack", None),
        ("o5", "retrieve", "marker"),
    ]
    assert state["movie_magic_used"] == ["Barricade"] and state["leader_pool"] == 3


def test_a_minimal_setup_takes_defaults_from_the_tables() -> None:
    state = tracker.initial_state(
        {"priority": 2, "difficulty": "Living Nightmare", "main_characters": ["Hicks", "Ripley"]}, TABLES
    )
    hicks = state["units"][0]["figures"][0]
    assert (hicks["speed"], hicks["combat_skill"], hicks["toughness"], hicks["savvy"], hicks["save"]) == (4, 0, 3, 0, 5)
    assert [w["name"] for w in hicks["weapons"]] == ["Service pistol", "Combat rifle"]
    assert state["units"][0]["reactions"] == 1
    team = state["units"][2]
    assert team["name"] == "Fire team" and len(team["figures"]) == 4 and team["figures"][0]["toughness"] == 4
    assert state["spawn_rating"] == 1 and state["encounter"] == 1 and state["minimum_contacts"] == 3
    assert len(state["contacts"]) == 2  # Living Nightmare: one extra at the center
    calm = tracker.initial_state({"priority": 2, "difficulty": "Hey, Not Too Crazy", "main_characters": ["Hicks"]}, TABLES)
    assert calm["contacts"] == []


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"priority": None}, "priority"),
        ({"priority": 9}, "priority"),
        ({"difficulty": "Easy"}, "difficulty"),
        ({"main_characters": []}, "main_characters"),
        ({"main_characters": [{"name": "X", "weapons": ["Phaser"]}]}, "main_characters[0].weapons"),
        ({"objectives": [{"position": 1, "type": "Dance"}]}, "objectives[0].type"),
        ({"movie_magic_used": ["Jetpack"]}, "movie_magic_used"),
        ({"combat_teams": [{"name": "Fire team", "toughness": "tough"}]}, "combat_teams[0].toughness"),
    ],
)
def test_a_bad_setup_names_the_key(change: dict[str, Any], field: str) -> None:
    setup = copy.deepcopy(SETUP)
    setup.update(change)
    with pytest.raises(TrackerError) as err:
        tracker.initial_state(setup, TABLES)
    assert err.value.field == field


def test_initial_state_takes_its_numbers_from_the_tables_it_is_given() -> None:
    base = TABLES["bh-base-profile"]
    tougher = dataclasses.replace(
        base, entries=(dataclasses.replace(base.entries[0], data={**base.entries[0].data, "toughness": 5}),)
    )
    state = tracker.initial_state({"priority": 1, "main_characters": ["Hicks"]}, {**TABLES, "bh-base-profile": tougher})
    shipped = tracker.initial_state({"priority": 1, "main_characters": ["Hicks"]}, TABLES)
    assert state["units"][0]["figures"][0]["toughness"] == 5 != shipped["units"][0]["figures"][0]["toughness"]


# -- Reactions and phases (pp.173, 198) ----------------------------------------------------------------------


def test_reaction_dice_decide_quick_or_slow() -> None:
    state = act(new(), "roll_reactions", faces=[2, 1])
    assert state["reaction_dice"] == [2, 1] and rolls(state)[0]["entered"]
    state = act(state, "assign_reaction", unit="u1", die=1)
    assert state["units"][0]["slot"] == "slow" and "acts in the Slow Action phase" in text(state)
    state = act(state, "assign_reaction", unit="u1", die=2)
    assert state["units"][0]["slot"] == "quick"
    message = refused(state, "assign_reaction", "die", unit="u2", die=2)
    assert "Die 2 (a 1) is Vasquez's" in message
    state = act(state, "assign_reaction", unit="u2", die=2, reassign="on")  # the referee moves it, and says so
    assert state["units"][0]["die"] is None and "taken from Vasquez" in text(state)
    refused(state, "next_phase", "unit")


def test_formation_adds_one_to_a_teams_reactions() -> None:
    state = act(new(), "set_formation", unit="u2", formation="on")
    state = act(state, "roll_reactions", faces=[2, 2])
    state = act(state, "assign_reaction", unit="u2", die=1)
    assert state["units"][1]["slot"] == "quick" and "Reactions 2 in formation" in text(state)
    state = act(state, "assign_reaction", unit="u1", die=2)
    assert state["units"][0]["slot"] == "slow"
    assert "only combat teams" in refused(new(), "set_formation", "unit", unit="u1", formation="on")


def test_players_assign_only_their_own_dice() -> None:
    state = act(new(), "roll_reactions", faces=[1, 4])
    state = act(state, "assign_reaction", role=Role.PLAYER, actor="7", unit="u1", die=1)
    assert state["units"][0]["face"] == 1
    with pytest.raises(NotYourMarine, match="the referee commands them"):  # a bad request (400), not a role (403)
        tracker.apply(
            state, Action("assign_reaction", {"unit": "u2", "die": 2}, actor="7", role=Role.PLAYER), Dice(seed=1), TABLES
        )
    with pytest.raises(NotYours):
        tracker.apply(state, Action("roll_reactions", {}, actor="7", role=Role.PLAYER), Dice(seed=1), TABLES)


def test_a_die_a_players_unit_holds_is_never_taken_without_saying_so() -> None:
    state = act(new(), "roll_reactions", seed=42)  # the app's own seeded dice
    faces = state["reaction_dice"]
    state = act(state, "assign_reaction", role=Role.PLAYER, actor="7", unit="u1", die=1)
    message = refused(state, "assign_reaction", "die", unit="u2", die=1)
    assert f"Die 1 (a {faces[0]}) is Vasquez's" in message
    assert state["units"][0]["die"] == 0 and state["reaction_pick"]["first_free"] == 2


def test_a_player_cannot_reassign_a_die() -> None:
    state = act(new(), "roll_reactions", faces=[3, 4])
    state = act(state, "assign_reaction", unit="u2", die=1)
    with pytest.raises(NotYours):
        tracker.apply(
            state,
            Action("assign_reaction", {"unit": "u1", "die": 1, "reassign": "on"}, actor="7", role=Role.PLAYER),
            Dice(seed=1),
            TABLES,
        )
    assert state["units"][1]["die"] == 0


def test_acting_in_turn_removes_a_stun_marker() -> None:
    state = new()
    state["units"][0]["figures"][0]["stun"] = 2
    state = to_quick(state, [1, 5])
    assert refused(state, "act", "unit", unit="u2").startswith("Fire team acts in the Slow")
    state = act(state, "act", unit="u1")
    assert state["units"][0]["figures"][0]["stun"] == 1 and "move or act, not both" in text(state)
    refused(state, "act", "unit", unit="u1")


def test_holding_for_snap_fire_and_unacted_quick_units_hold() -> None:
    state = act(new(), "roll_reactions", faces=[1, 1])
    state = act(state, "assign_reaction", unit="u1", die=1)
    state = act(state, "assign_reaction", unit="u2", die=2)
    state = act(state, "next_phase")
    state = act(state, "hold", unit="u1")
    state = act(state, "next_phase")  # Fire team never acted: it holds too
    assert state["units"][1]["held"] and "Fire team did not act" in text(state)
    state = act(state, "act", unit="u1")
    assert state["units"][0]["snap_fired"] and "no move this round" in text(state)
    state = act(state, "next_phase")
    assert "Fire team held: move or fire, not both" in state["now"]
    state = act(state, "act", unit="u2")
    assert state["now"].startswith("Slow Action phase: every trooper has acted")


def test_beep_sir_is_due_from_round_two() -> None:
    state = to_round_end(to_quick(new()))
    state = act(state, "next_phase")
    assert (state["round"], state["phase"], state["beep_done"]) == (2, "start", False)
    assert "Beep" in refused(state, "roll_reactions", "type")
    state = act(state, "beep_sir", faces=[6, 2, 6], direction_faces=[4])
    assert len(state["contacts"]) == 4 and state["contacts"][-1]["where"] == "at the edge at 4 o'clock"
    refused(state, "beep_sir", "type")


def test_beep_sir_on_living_nightmare_places_a_marker_per_six() -> None:
    state = to_round_end(to_quick(new(difficulty="Living Nightmare", living_nightmare=True)))
    state = act(state, "next_phase")
    before = len(state["contacts"])
    state = act(state, "beep_sir", faces=[6, 6, 6], direction_faces=[1, 2, 3])
    assert len(state["contacts"]) == before + 3


# -- Contacts (pp.192-193) ---------------------------------------------------------------------------------


def enemy_phase(state: dict[str, Any] | None = None) -> dict[str, Any]:
    return act(to_quick(state or new()), "next_phase")


def test_move_contacts_rolls_two_dice_per_marker_in_the_enemy_phase() -> None:
    refused(new(), "move_contacts", "type")
    state = act(enemy_phase(), "move_contacts", faces=[5, 1, 2, 6, 3, 3], direction_faces=[5])
    moved = [e["text"] for e in state["_events"]]
    assert "move 5 inches toward the nearest trooper" in moved[0]
    assert "move 6 inches toward 5 o'clock" in moved[1]
    assert "stays put" in moved[2] and len(state["contacts"]) == 4
    assert len(rolls(state)) == 4  # three pairs and one direction
    refused(state, "move_contacts", "type")


def test_a_split_marker_waits_and_delay_stops_it() -> None:
    state = enemy_phase()
    state["delay_until"] = 1
    state = act(state, "move_contacts", faces=[3, 3, 3, 3, 3, 3])
    assert len(state["contacts"]) == 3 and "Delay is in force" in text(state)


def test_a_pack_leader_nearby_rolls_aggression_only() -> None:
    state = act(enemy_phase(), "move_contacts", faces=[2, 5, 1, 4, 1], leader_c1="on")
    assert "Aggression die only" in state["_events"][0]["text"]
    refused(enemy_phase(), "move_contacts", "faces", faces=[2, 5, 1, 4, 1, 1], leader_c1="on")


def test_detect_checks_the_range() -> None:
    assert "Detected within 3 inches" in refused(new(), "detect", "distance", contact="c1", band="cover", distance=4)


def test_stay_frosty_removes_the_marker_and_tops_up_to_three() -> None:
    state = act(new(), "detect", contact="c1", band="open", distance=5, faces=[1])
    assert [c["id"] for c in state["contacts"]] == ["c2", "c3", "c4"]
    assert state["contacts"][-1]["where"] == "at the edge point farthest from the spotter"
    state["delay_until"] = 1
    state = act(state, "detect", contact="c2", faces=[1])
    assert len(state["contacts"]) == 2 and "Delay is in force" in text(state)


def test_movement_all_over_the_place_moves_away_and_adds_a_marker() -> None:
    state = act(new(), "detect", contact="c1", faces=[2], move_face=[4])
    assert state["contacts"][0]["note"] == "moved 4 inches straight away from the spotter"
    assert state["contacts"][-1]["where"] == "at the edge point nearest the spotter" and len(state["contacts"]) == 4


def test_contact_reveals_the_enemy_once_per_mission() -> None:
    state = act(
        new(),
        "detect",
        contact="c1",
        faces=[5],
        enemy_face=[45],
        variant_face=[5],
        numbers_faces=[2],
        leader_faces=[9, 10, 11],
        spotter="f1",
    )
    group = state["groups"][0]
    assert state["enemy"]["name"] == "Razor lizards" and state["variant"]["name"] == "Runners"
    assert len(group["figures"]) == 3 and group["contact"] == "c1"
    assert "c1" not in [c["id"] for c in state["contacts"]] and "Vasquez may now fire" in text(state)
    assert [r["notation"] for r in rolls(state)] == ["D6", "D100", "D6", "D6+1", "3D12"]
    state = act(state, "detect", contact="c2", faces=[3], numbers_faces=[6], leader_faces=[1, 12, 12], leader_face=[4])
    assert [r["notation"] for r in rolls(state)] == ["D6", "D6+1", "3D12", "D6"]
    leader = state["groups"][1]["figures"][-1]
    assert leader["leader"]["key"] == "assassin" and len(state["groups"][1]["figures"]) == 8 and state["leader_pool"] == 2


def test_beep_sir_markers_detected_at_once_allow_bonus_fire() -> None:
    state = to_round_end(to_quick(new()))
    state = act(state, "next_phase")
    state = act(state, "beep_sir", faces=[6, 1, 1], direction_faces=[3])
    new_id = state["contacts"][-1]["id"]
    state = act(state, "detect", contact=new_id, faces=[4], enemy_face=[1], numbers_faces=[1])
    assert "free bonus action" in text(state)


def test_screamers_summon_after_the_enemy_phase() -> None:
    state = act(
        new(), "detect", contact="c1", faces=[5], enemy_face=[45], variant_face=[6], numbers_faces=[4], leader_faces=[12, 12, 12]
    )
    assert state["variant"]["key"] == "screamers"
    state = act(to_quick(state), "next_phase")
    state = act(state, "next_phase", faces=[5])
    assert len(state["groups"][0]["figures"]) == 6 and "appears at the table center" in text(state)
    state2 = act(
        new(), "detect", contact="c1", faces=[5], enemy_face=[45], variant_face=[6], numbers_faces=[4], leader_faces=[12, 12, 12]
    )
    state2 = act(act(to_quick(state2), "next_phase"), "next_phase", faces=[9])
    assert len(state2["groups"][0]["figures"]) == 5 and "none comes" in text(state2)


def test_stunned_enemies_lose_a_marker_after_the_enemy_phase() -> None:
    state = act(new(), "detect", contact="c1", faces=[5], enemy_face=[45], variant_face=[1], numbers_faces=[1])
    state = to_round_end(to_quick(state))
    state = next_round(state)
    state["groups"][0]["figures"][0]["stun"] = 2
    state = act(to_quick(state), "next_phase")
    state = act(state, "next_phase")
    assert state["groups"][0]["figures"][0]["stun"] == 1


def test_the_caller_adds_a_contact_on_a_roll_above_the_markers() -> None:
    state = act(
        new(),
        "detect",
        contact="c1",
        faces=[5],
        enemy_face=[45],
        variant_face=[1],
        numbers_faces=[1],
        leader_faces=[1, 12, 12],
        leader_face=[3],
    )
    caller = state["groups"][0]["figures"][-1]["id"]
    assert "placed this round" in refused(enemy_phase(state), "caller", "enemy", enemy=caller)  # p.193
    state = enemy_phase(next_round(to_round_end(to_quick(state))))
    called = act(state, "caller", enemy=caller, faces=[3])
    assert len(called["contacts"]) == len(state["contacts"]) + 1 and "next to" in called["contacts"][-1]["where"]
    assert "already acted" in refused(called, "caller", "enemy", enemy=caller, faces=[3])
    quiet = act(state, "caller", enemy=caller, faces=[len(state["contacts"])])
    assert quiet["contacts"] == state["contacts"] and "nothing comes" in text(quiet)


# -- end of round: enemy rules, Living Nightmare, Spawn Points (pp.186, 195, 199) ---------------------------


def test_living_nightmare_tops_up_below_three_markers() -> None:
    state = new(difficulty="Living Nightmare", living_nightmare=True, spawn_rating=0)
    state["contacts"] = state["contacts"][:1]
    state = to_round_end(to_quick(state))
    assert len(state["contacts"]) == 2 and "Living Nightmare" in text(state)
    assert state["contacts"][-1]["where"].startswith("at the center of the")


def test_horde_and_worms_grow_at_the_end_of_the_round() -> None:
    state = act(
        new(spawn_rating=0), "detect", contact="c1", faces=[5], enemy_face=[70], numbers_faces=[1, 1], leader_faces=[12, 12, 12]
    )
    assert len(state["groups"][0]["figures"]) == 3
    state = to_round_end(to_quick(state))
    assert len(state["groups"][0]["figures"]) == 4 and "Horde" in text(state)
    worms = act(
        new(spawn_rating=0), "detect", contact="c1", faces=[5], enemy_face=[90], numbers_faces=[1], leader_faces=[12, 12, 12]
    )
    worms = to_round_end(to_quick(worms))
    got = next(e for e in worms["_events"] if e["type"] == "worms")
    sixes = got["data"]["roll"]["faces"].count(6)
    assert len(worms["groups"][0]["figures"]) == 5 + sixes


def test_spawn_points_reveal_count_down_and_spawn() -> None:
    state = to_round_end(to_quick(new(spawn_rating=2)))
    assert len(state["spawn_points"]) == 1 and state["spawn_unrevealed"] == 1
    assert "Spawn Point s1 is revealed" in text(state)
    state = next_round(state)
    state["spawn_points"][0]["countdown"] = 1
    contacts = len(state["contacts"])
    state = to_round_end(to_quick(state))
    assert len(state["spawn_points"]) == 2 and state["spawn_unrevealed"] == 0
    assert "Countdown reaches 0" in text(state) and len(state["contacts"]) == contacts + 1
    assert state["contacts"][-1]["where"] == "on Spawn Point s1"
    assert state["spawn_points"][0]["countdown"] in (None, 1, 2, 3, 4)  # rolled again at once


def test_countdowns_do_not_move_in_round_one_and_delay_blocks_the_marker() -> None:
    state = new(spawn_rating=1)
    state["spawn_points"] = [{"id": "s9", "where": "edge", "countdown": 2, "closed": False}]
    state = to_round_end(to_quick(state))
    assert state["spawn_points"][0]["countdown"] == 2
    state = next_round(state)
    state["spawn_points"][0]["countdown"] = 1
    state["delay_until"] = 2
    contacts = len(state["contacts"])
    state = to_round_end(to_quick(state))
    assert len(state["contacts"]) == contacts and "Delay is in force" in text(state)


def test_closing_a_spawn_point_needs_six_with_savvy_and_a_helper() -> None:
    state = new()
    state["spawn_points"] = [{"id": "s1", "where": "edge", "countdown": 3, "closed": False}]
    failed = act(state, "close_spawn_point", spawn="s1", figure="f2", faces=[5])
    assert not failed["spawn_points"][0]["closed"] and "against 6+: still open" in text(failed)
    helped = act(state, "close_spawn_point", spawn="s1", figure="f2", helper="f3", faces=[5])
    assert helped["spawn_points"][0]["closed"] and helped["spawn_points"][0]["countdown"] is None
    assert "+1 Fire team 2 helping = 6" in text(helped)
    savvy = act(state, "close_spawn_point", spawn="s1", figure="f1", faces=[5])
    assert savvy["spawn_points"][0]["closed"]
    refused(helped, "close_spawn_point", "spawn", spawn="s1", figure="f2")


# -- Tactical Locations (p.191) -----------------------------------------------------------------------------


def test_investigate_then_activate_with_two_failures_allowed() -> None:
    state = act(new(), "investigate", location="t1", figure="f2", faces=[1])
    assert state["locations"][0]["type"] == "Distract"
    refused(state, "investigate", "location", location="t1")
    refused(state, "activate", "location", location="t2", figure="f2")
    state = act(state, "activate", location="t1", figure="f2", faces=[4])
    assert state["locations"][0]["failures"] == 1 and not state["locations"][0]["broken"]
    broken = act(state, "activate", location="t1", figure="f2", faces=[4])
    assert broken["locations"][0]["broken"]
    refused(broken, "activate", "location", location="t1", figure="f2", faces=[6])
    done = act(state, "activate", location="t1", figure="f2", faces=[5])
    assert done["locations"][0]["active"] and done["distract_round"] == 1
    assert "skip the Enemy Action phase of round 1" in text(done)


def test_intel_report_adds_one_to_activation() -> None:
    state = act(new(intel_report=True), "investigate", location="t1", figure="f2", faces=[6])
    state = act(state, "activate", location="t1", figure="f2", faces=[4])
    assert state["locations"][0]["active"] and state["delay_until"] == 3 and "+1 Intel report" in text(state)


def test_neutralize_removes_a_chosen_contact() -> None:
    state = act(new(), "investigate", location="t2", faces=[4])
    state = act(state, "activate", location="t2", figure="f1", contact="c3", faces=[4])
    assert [c["id"] for c in state["contacts"]] == ["c1", "c2"]


def test_block_rolls_each_round_and_reopens_after_the_next() -> None:
    state = act(new(spawn_rating=0), "investigate", location="t3", faces=[2])
    state = act(state, "activate", location="t3", figure="f1", faces=[6])
    assert state["locations"][2]["blocked"]
    state["locations"][2]["reopens_after"] = 2
    state = to_round_end(to_quick(state))
    assert state["locations"][2]["blocked"]
    state = to_round_end(to_quick(next_round(state)))
    assert not state["locations"][2]["blocked"] and "opens again" in text(state)


def test_distract_activated_late_affects_next_round() -> None:
    state = act(new(), "investigate", location="t1", faces=[1])
    state = enemy_phase(state)
    state = act(state, "activate", location="t1", figure="f1", faces=[6])
    assert state["distract_round"] == 2


# -- Objectives (p.185) ----------------------------------------------------------------------------------


def test_hack_needs_six_with_savvy() -> None:
    state = to_quick(new(), [1, 1])  # a Hack is a Combat Action: in the figure's activation (pp.185, 198)
    failed = act(state, "hack", objective="o2", figure="f2", faces=[5])
    assert not failed["objectives"][0]["completed"]
    done = act(state, "hack", objective="o2", figure="f1", faces=[5])
    assert done["objectives"][0]["completed"] and "5 +1 Savvy = 6" in text(done)
    refused(done, "hack", "objective", objective="o2", figure="f1")
    refused(state, "hack", "objective", objective="o5", figure="f1")


def patrol_setup(kind: str) -> dict[str, Any]:
    return new(objectives=[{"position": 1, "rank": "Objective", "value": 1, "type": kind}], spawn_rating=0)


def test_patrol_rolls_four_plus_with_a_trooper_near_at_the_end_of_round() -> None:
    state = to_quick(patrol_setup("Patrol"))
    missed = to_round_end(state, near_o1="on", patrol_face_o1=3)
    assert not missed["objectives"][0]["completed"]
    done = to_round_end(state, near_o1="on", patrol_face_o1=4)
    assert done["objectives"][0]["completed"]
    away = to_round_end(state)
    assert not away["objectives"][0]["completed"]


def test_scout_completes_at_the_end_of_the_round() -> None:
    state = act(to_quick(patrol_setup("Scout")), "scout", objective="o1", figure="f3")
    assert not state["objectives"][0]["completed"]
    assert to_round_end(state)["objectives"][0]["completed"]


def test_secure_completes_when_declared_clear() -> None:
    state = to_quick(patrol_setup("Secure"))
    assert to_round_end(state, secure_o1="on")["objectives"][0]["completed"]
    assert not to_round_end(state)["objectives"][0]["completed"]


def test_beacon_waits_for_hack_secure_and_scout() -> None:
    objectives = [
        {"position": 1, "rank": "Objective", "value": 1, "type": "Beacon"},
        {"position": 2, "rank": "Objective", "value": 1, "type": "Hack"},
    ]
    state = to_quick(new(objectives=objectives), [1, 1])
    assert "2 (Hack)" in refused(state, "beacon", "objective", objective="o1", figure="f1")
    state = act(state, "hack", objective="o2", figure="f1", faces=[6])
    state = act(state, "beacon", objective="o1", figure="f1")
    assert state["objectives"][0]["completed"]


def test_retrieve_counts_only_when_carried_out_at_evac() -> None:
    state = act(to_quick(new(), [1, 1]), "pick_up", objective="o5", figure="f2")
    assert "already taken a Combat Action" in refused(state, "hack", "figure", objective="o2", figure="f2", faces=[6])
    assert state["objectives"][1]["package"] == "f2" and state["units"][1]["figures"][0]["package"] == "o5"
    assert tracker.outcome(state)["objectives_completed"] == 0
    fallen = act(state, "adjust", figure="f2", status="casualty")
    assert fallen["objectives"][1]["package"] == "dropped" and "dropped where they fell" in text(fallen)
    again = act(fallen, "pick_up", objective="o5", figure="f3")
    assert again["objectives"][1]["package"] == "f3"
    lost = act(again, "exit_edge", figure="f3")
    assert lost["objectives"][1]["package"] == "lost"
    state["evac"]["status"] = "hovering"
    home = act(state, "evacuate", figure="f2")
    assert home["objectives"][1]["completed"] and tracker.outcome(home)["objectives_completed"] == 1


# -- Evac (p.201) -----------------------------------------------------------------------------------------


def at_round(number: int, **changes: Any) -> dict[str, Any]:
    state = new(spawn_rating=0, **changes)
    state["round"] = number
    return state


def test_evac_is_refused_before_round_five() -> None:
    assert "from round 5" in refused(at_round(4), "request_evac", "type", figure="f1")
    stunned = at_round(5)
    stunned["units"][0]["figures"][0]["stun"] = 1
    refused(stunned, "request_evac", "figure", figure="f1")


def test_evac_roll_adds_objectives_packages_and_savvy() -> None:
    state = act(to_quick(at_round(5), [1, 1]), "hack", objective="o2", figure="f2", faces=[6])
    state = act(state, "pick_up", objective="o5", figure="f3")
    # p.201: the caller stands still and does nothing else (f2 has hacked this round)
    assert "stands still" in refused(state, "request_evac", "figure", figure="f2", faces=[3, 3])
    state = act(state, "request_evac", figure="f1", faces=[3, 3])
    assert "stay put" in refused(state, "move", "figure", figure="f1")
    assert rolls(state)[0]["total"] == 10  # 6 + 2 Vital + 1 package + 1 Savvy
    assert state["evac"]["status"] == "coming" and state["evac"]["arrives_round"] == 6
    low = act(at_round(5), "request_evac", figure="f2", faces=[4, 5])
    assert low["evac"]["status"] == "pending" and "under 10" in text(low)
    refused(low, "request_evac", "type", figure="f1")


def test_the_drop_ship_lands_raises_priority_and_leaves_after_three_rounds() -> None:
    state = act(at_round(5), "request_evac", figure="f1", faces=[6, 6])
    state = to_round_end(to_quick(state))
    assert state["evac"]["status"] == "coming"
    state = to_round_end(to_quick(next_round(state)))
    assert state["evac"]["status"] == "hovering" and state["priority"] == 4 and state["evac"]["leaves_after"] == 9
    assert "Priority rises to 4" in text(state)
    for _ in range(3):
        state = to_round_end(to_quick(next_round(state)))
    assert state["round"] == 9 and state["evac"]["status"] == "left"


def test_a_pending_evac_rerolls_each_round_end() -> None:
    state = act(at_round(5), "request_evac", figure="f2", faces=[1, 1])
    state = to_round_end(to_quick(state))
    again = [e for e in state["_events"] if e["type"] == "evac"]
    assert again and again[0]["data"]["roll"]["notation"] == "2D6"


def test_evacuate_needs_the_ship_and_takes_whole_units() -> None:
    refused(new(), "evacuate", "type", figure="f1")
    state = new()
    state["evac"]["status"] = "hovering"
    state = act(state, "evacuate", figure="u2")
    assert all(f["status"] == "evacuated" for f in state["units"][1]["figures"])
    assert not state["units"][1]["active"]


# -- Movie magic (p.181) -----------------------------------------------------------------------------------


def test_movie_magic_cards_once_per_campaign() -> None:
    state = new()
    assert "already used" in refused(state, "movie_magic", "card", card="Barricade")
    assert "mission set-up" in refused(state, "movie_magic", "card", card="Extra Support")
    assert "failed Evac roll" in refused(state, "movie_magic", "card", card="Evac")
    state = act(state, "movie_magic", card="Remove Contact", contact="c2")
    assert [c["id"] for c in state["contacts"]] == ["c1", "c3"]
    state = act(state, "movie_magic", card="Reinforcements", support="Sarge")
    assert state["units"][-1]["name"] == "Sarge" and state["units"][-1]["reactions"] == 2
    state = to_quick(state, faces=[1, 1, 6])  # Vasquez and the Fire team act Quick, the Sarge Slow
    state = act(state, "movie_magic", card="Double-Up", figure="f1")
    assert state["units"][0]["figures"][0]["weapons"][-1] == {
        "name": "Incinerator",
        "ones": 0,
        "malfunctioned": False,
        "out_of_ammo": False,
        "no_malfunction": True,
        "temporary": True,
    }
    assert "after the battle" in refused(state, "movie_magic", "card", card="Escape")
    out = tracker.outcome(state)
    assert out["movie_magic_used"] == ["Barricade", "Remove Contact", "Reinforcements", "Double-Up"]
    assert out["movie_magic_mission"] == ["Remove Contact", "Reinforcements", "Double-Up"]


def test_reinforcements_after_reactions_get_their_own_die() -> None:
    state = act(new(), "roll_reactions", faces=[1, 2])
    state = act(state, "movie_magic", card="Reinforcements", support="Recon patrol")
    assert len(state["reaction_dice"]) == 3 and rolls(state)[0]["notation"] == "D6"
    for unit, die in (("u1", 1), ("u2", 2), ("u3", 3)):
        state = act(state, "assign_reaction", unit=unit, die=die)
    state = act(state, "next_phase")
    assert state["phase"] == "quick" and len(state["units"][2]["figures"]) == 2


def test_the_evac_card_follows_a_failed_roll() -> None:
    state = act(at_round(5), "request_evac", figure="f2", faces=[1, 1])
    state = act(state, "movie_magic", card="Evac")
    assert state["evac"]["status"] == "coming" and state["evac"]["arrives_round"] == 6


def test_lucky_find_and_you_want_some_too_never_malfunction() -> None:
    state = to_quick(new(), faces=[1, 1])
    state = act(state, "movie_magic", card="Lucky Find", figure="f2", weapon="Plasma rifle")
    assert state["units"][1]["figures"][0]["weapons"][-1]["no_malfunction"]
    state = act(state, "detect", contact="c1", faces=[5], enemy_face=[48], variant_face=[1], numbers_faces=[2])
    state = act(state, "movie_magic", card="You want some too?", figure="f2")
    state = act(state, "shoot", figure="f2", weapon="Combat rifle", enemy="e1", band="cover", faces=[1, 1, 1])
    rifle = state["units"][1]["figures"][0]["weapons"][0]
    assert not rifle["malfunctioned"] and state["units"][1]["figures"][0]["three_shots_round"] is None


# -- combat wiring (pp.177-181) ---------------------------------------------------------------------------


def revealed(setup: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """Three Berserk robots (Toughness 5, 5+ save) from Contact c1, no variant."""
    return act(
        new(**(setup or {})),
        "detect",
        contact="c1",
        faces=[5],
        enemy_face=[48],
        variant_face=[1],
        numbers_faces=[2],
        leader_faces=[12, 12, 12],
        **extra,
    )


def test_two_natural_ones_in_a_round_malfunction_the_weapon_and_it_can_be_cleared() -> None:
    # p.178: two natural 1s in one round; a Shot gun's two firing dice both show 1
    gunner = [{**SETUP["main_characters"][0], "weapons": ["Shot gun", "Service pistol"]}]
    state = to_quick(revealed({"main_characters": gunner}), [1, 1])
    state = act(state, "shoot", figure="f1", weapon="Shot gun", enemy="e1", band="open", faces=[1, 1])
    gun = state["units"][0]["figures"][0]["weapons"][0]
    assert gun["ones"] == 2 and gun["malfunctioned"]
    assert "clear it first" in refused(state, "shoot", "weapon", figure="f1", weapon="Shot gun", enemy="e1")
    # clearing is a Combat Action too: not again this round (p.178)
    assert "already taken a Combat Action" in refused(state, "clear_malfunction", "figure", figure="f1", weapon="Shot gun")
    state = to_quick(next_round(to_round_end(state)), [1, 1])
    failed = act(state, "clear_malfunction", figure="f1", weapon="Shot gun", faces=[5])
    assert failed["units"][0]["figures"][0]["weapons"][0]["malfunctioned"]
    fixed = act(state, "clear_malfunction", figure="f1", weapon="Shot gun", faces=[6])
    assert not fixed["units"][0]["figures"][0]["weapons"][0]["malfunctioned"] and "7 against 7+" in text(fixed)


def test_natural_ones_reset_with_the_round() -> None:
    state = act(to_quick(revealed(), [1, 1]), "shoot", figure="f1", weapon="Combat rifle", enemy="e1", band="open", faces=[1])
    assert state["units"][0]["figures"][0]["weapons"][1]["ones"] == 1
    state = to_round_end(state)
    state = next_round(state)
    assert state["units"][0]["figures"][0]["weapons"][1]["ones"] == 0


def test_a_shot_applies_its_hit_to_the_enemy() -> None:
    # 4 +1 = 5 hits at 5+; robot save 3 fails; Hit 6 +0 = 6 against Toughness 5: casualty
    ready = to_quick(revealed(), [1, 1])
    state = act(ready, "shoot", figure="f1", weapon="Combat rifle", enemy="e1", band="open", faces=[4, 3, 6])
    assert state["groups"][0]["figures"][0]["status"] == "killed"
    stunned = act(ready, "shoot", figure="f1", weapon="Combat rifle", enemy="e1", band="open", faces=[4, 3, 2])
    assert stunned["groups"][0]["figures"][0]["stun"] == 1
    refused(state, "shoot", "enemy", figure="f1", weapon="Combat rifle", enemy="e1", faces=[4])


def test_a_brawl_applies_to_both_and_a_fallen_trooper_drops_the_package() -> None:
    state = act(to_quick(revealed(), [1, 1]), "pick_up", objective="o5", figure="f2")
    # next round the robot charges in the Enemy Action phase (its action, p.198);
    # trooper 1 + 0 = 1; robot 6 + 2 = 8: trooper Hit, save 1 fails, Hit 6 + 2 = 8 > 4: casualty
    state = act(enemy_phase(next_round(to_round_end(state))), "brawl", figure="f2", enemy="e1", faces=[1, 6, 1, 6])
    fig = state["units"][1]["figures"][0]
    assert fig["status"] == "casualty" and fig["defeated_by"] == "Berserk robots"
    assert state["objectives"][1]["package"] == "dropped"
    out = tracker.outcome(state)
    assert out["casualties"] == [
        {"name": "Fire team 1", "main": False, "unit": "Fire team", "trooper_id": None, "defeated_by": "Berserk robots"}
    ]


def test_a_player_brawls_only_with_their_own_figures() -> None:
    with pytest.raises(NotYourMarine) as refused_brawl:
        tracker.apply(
            revealed(), Action("brawl", {"figure": "f2", "enemy": "e1"}, actor="7", role=Role.PLAYER), Dice(seed=1), TABLES
        )
    assert refused_brawl.value.field == "figure"


def test_hits_by_hand_and_drop_ship_fire() -> None:
    state = act(revealed(), "hit", enemy="e2", damage=1, faces=[6])
    assert state["groups"][0]["figures"][1]["status"] == "active"  # saved on the robots' 5+
    state = act(state, "hit", figure="f3", damage=0, piercing="on", faces=[2])
    assert state["units"][1]["figures"][1]["stun"] == 1
    refused(state, "drop_ship_fire", "type", enemy="e1")
    state["evac"]["status"] = "hovering"
    fired = act(state, "drop_ship_fire", enemy="e1", band="open", seed=3)
    assert fired["evac"]["fired_round"] == 1 and "Drop ship supporting fire" in text(fired)
    assert rolls(fired)
    refused(fired, "drop_ship_fire", "type", enemy="e2")


def test_spitters_and_lancers() -> None:
    state = act(
        new(),
        "detect",
        contact="c1",
        faces=[5],
        enemy_face=[45],
        variant_face=[1],
        numbers_faces=[2],
        leader_faces=[1, 12, 12],
        leader_face=[2],
    )
    assert state["variant"]["key"] == "spitters"
    assert "placed this round" in refused(enemy_phase(state), "spitter", "enemy", enemy="e1", figure="f2")  # p.193
    state = enemy_phase(next_round(to_round_end(to_quick(state))))
    spat = act(state, "spitter", enemy="e1", figure="f2", faces=[6, 1, 6])
    assert spat["units"][1]["figures"][0]["status"] == "casualty"
    lancer = state["groups"][0]["figures"][-1]["id"]
    dart = act(state, "lancer", enemy=lancer, figure="f1", faces=[5, 1])
    assert dart["units"][0]["figures"][0]["stun"] == 1
    refused(state, "lancer", "enemy", enemy="e1", figure="f1")


def test_a_precursor_explorer_rerolls_one_reaction_die_a_round() -> None:
    state = new(combat_teams=[{"name": "Precursor explorer"}])
    assert "precursor" in state["units"][1]["figures"][0]["special"]
    state = act(state, "roll_reactions", faces=[6, 5])
    state = act(state, "assign_reaction", unit="u2", die=2)
    state = act(state, "reroll_reaction", die=2, faces=[2])
    assert state["reaction_dice"] == [6, 2] and state["units"][1]["face"] == 2 and state["units"][1]["slot"] == "quick"
    refused(state, "reroll_reaction", "type", die=1)
    refused(act(new(), "roll_reactions", faces=[6, 5]), "reroll_reaction", "type", die=1)


def test_scientists_survey_counts_one_objective_once() -> None:
    state = new(combat_teams=[{"name": "Scientific survey team"}])
    refused(state, "survey", "figure", figure="f1")
    state = act(state, "survey", figure="f2")  # reaches the center in round 1
    state["round"], state["phase"] = 3, "start"
    state = act(state, "survey", figure="f2")
    assert tracker.outcome(state)["objectives_completed"] == 1
    refused(state, "survey", "type", figure="f3")


def test_kerin_teams_brawl_with_two_dice() -> None:
    state = new(combat_teams=[{"name": "K'Erin assault marine Team"}])
    assert "brawl_best_of_two" in state["units"][1]["figures"][0]["special"]


def test_trooper_ids_reach_the_outcome() -> None:
    setup = copy.deepcopy(SETUP["main_characters"])
    setup[0]["trooper_id"] = 42
    state = act(new(main_characters=setup), "exit_edge", figure="f1")
    assert tracker.outcome(state)["lost_marines"][0]["trooper_id"] == 42


def test_adjust_and_knock_out() -> None:
    state = act(new(), "adjust", figure="f1", stun=3)
    assert state["units"][0]["figures"][0]["status"] == "knocked_out"
    with pytest.raises(NotYours):
        tracker.apply(new(), Action("adjust", {"figure": "f1", "stun": 1}, actor="7", role=Role.PLAYER), Dice(seed=1), TABLES)


def test_signals_rule_costs_an_objective() -> None:
    state = act(to_quick(new(signals=4, tactical_locations=2), [1, 1]), "hack", objective="o2", figure="f1", faces=[6])
    assert tracker.outcome(state)["objectives_completed"] == 1
    state = act(act(state, "investigate_signal"), "investigate_signal")
    assert tracker.outcome(state)["objectives_completed"] == 2


def test_unknown_action_and_viewers_are_refused() -> None:
    refused(new(), "dance", "type")
    with pytest.raises(NotYours):
        tracker.apply(new(), Action("detect", {"contact": "c1"}, role=Role.VIEWER), Dice(seed=1), TABLES)


# -- a whole mission ---------------------------------------------------------------------------------------


def test_a_full_mission_through_evac() -> None:
    state = new(spawn_rating=1)
    # round 1: hack the Vital Objective, reveal a Contact, shoot
    state = to_quick(state, [1, 6])
    state = act(state, "hack", objective="o2", figure="f1", faces=[6])
    state = act(state, "act", unit="u1")
    state = act(state, "next_phase")
    state = act(state, "move_contacts", faces=[4, 1, 4, 1, 4, 1])
    state = act(state, "detect", contact="c1", faces=[6], enemy_face=[30], numbers_faces=[1], leader_faces=[12, 12, 12])
    assert state["enemy"]["name"] == "Tentacle creepers"
    state = act(state, "next_phase")
    state = act(state, "pick_up", objective="o5", figure="f2")
    state = act(state, "act", unit="u2")
    state = act(state, "next_phase")
    assert state["phase"] == "spawn" and len(state["spawn_points"]) == 1
    # rounds 2-4
    for _ in range(3):
        state = next_round(state)
        state = to_quick(state, [1, 1])
        state = to_round_end(state)
    assert state["round"] == 4
    state = act(state, "adjust", figure="f5", status="casualty")
    state = act(state, "exit_edge", figure="f4")
    # round 5: call Evac
    state = to_quick(next_round(state), [1, 1])
    state = act(state, "request_evac", figure="f1", faces=[4, 3])  # 7 + 2 Vital + 1 package + 1 Savvy = 11
    assert state["evac"]["status"] == "coming"
    state = to_round_end(state)
    # round 6: the ship lands at the end
    state = to_round_end(to_quick(next_round(state), [1, 1]))
    assert state["evac"]["status"] == "hovering" and state["priority"] == 4
    # round 7: everyone aboard
    state = to_quick(next_round(state), [1, 1])
    state = act(state, "evacuate", figure="u1")
    state = act(state, "evacuate", figure="u2")
    state = act(state, "end_mission")
    assert state["phase"] == "over"
    refused(state, "next_phase", "type")
    out = tracker.outcome(state)
    assert out["objectives_completed"] == 3 and out["success"] and not out["court_martial"]
    assert (out["priority_start"], out["priority"], out["rounds"]) == (3, 4, 7)
    assert out["took_field"] == ["Vasquez"]
    assert [c["name"] for c in out["casualties"]] == ["Fire team 4"]
    assert [c["name"] for c in out["lost_marines"]] == ["Fire team 3"]
    assert [c["name"] for c in out["evacuated"]] == ["Vasquez", "Fire team 1", "Fire team 2"]
    assert out["enemy"] == "Tentacle creepers" and out["variant"] is None
    assert out["movie_magic_used"] == ["Barricade"] and out["signals_initial"] == 0


def test_the_referee_hands_a_unit_to_a_player_who_may_then_act_with_it() -> None:
    state = new()
    team = next(u for u in state["units"] if u["kind"] == "team")
    state = act(state, "roll_reactions", faces=[1, 1])
    refused(state, "assign_reaction", role=Role.PLAYER, actor="9", unit=team["id"], die=1)
    refused(state, "set_player", role=Role.PLAYER, actor="9", unit=team["id"], player="9")
    refused(state, "set_player", "player", unit=team["id"], player="Hudson")
    state = act(state, "set_player", unit=team["id"], player="9")
    state = act(state, "assign_reaction", role=Role.PLAYER, actor="9", unit=team["id"], die=1)
    assert next(u for u in state["units"] if u["id"] == team["id"])["face"] == 1
    refused(state, "assign_reaction", role=Role.PLAYER, actor="8", unit=team["id"], die=2)


def test_apply_leaves_the_state_it_was_given_alone() -> None:
    state = new()
    before = copy.deepcopy(state)
    after, _ = tracker.apply(state, Action("roll_reactions", {}), Dice(seed=3), TABLES)
    assert state == before
    after["units"][0]["figures"][0]["stun"] = 2
    after["contacts"].append({"id": "c9"})
    assert state == before
