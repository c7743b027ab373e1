"""Stealth missions (Compendium pp.117-122): the set-up generator and the tracker reducer, with
seeded or typed dice."""

from __future__ import annotations

from typing import Any

import pytest

from battles.engine import fp_stealth as st
from battles.engine.fp_setup import SetupError
from live.engine.tracker import Action, TrackerError, replay
from rules.engine.dice import Dice
from rules.fixturefiles import read_all

TABLES = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}
PROFILE = {"speed": 4, "combat_skill": 0, "toughness": 3}


def stealth(faces: list[int], crew_size: int = 2) -> dict[str, Any]:
    return st.generate(Dice(seed=1), TABLES, crew_size=crew_size, faces=faces).as_dict()


def setup(objective_faces: list[int] | None = None, **changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "crew": [
            {"name": "Ria", "reactions": 2, "speed": 5, "combat_skill": 1, "toughness": 4, "savvy": 1, "weapons": ["Hand gun"]},
            {"name": "Bo", "reactions": 1, "speed": 4, "combat_skill": 0, "toughness": 3, "weapons": ["Military rifle"]},
        ],
        "enemies": [
            {
                "name": "Guards",
                "count": 1,
                "profile": PROFILE,
                "weapons": ["Scrap pistol"],
                "panic": "1-2",
                "specialists": 1,
                "lieutenants": 1,
            }
        ],
        "options": {"dramatic_combat": True},
        "ai": "tactical",
        "stealth": stealth(objective_faces or [90, 5]),
    }
    base.update(changes)
    return base


def act(state: dict[str, Any], type_: str, seed: int = 3, **payload: Any) -> tuple[dict[str, Any], list[Any]]:
    return st.apply(state, Action(type_, payload), Dice(seed=seed), TABLES)


def quick(**changes: Any) -> dict[str, Any]:
    """Round 1, Quick Action phase: Ria holds a 1 (Quick), Bo a 5 (Slow)."""
    state = st.initial_state(setup(**changes), TABLES)
    state, _ = act(state, "next_phase")
    state, _ = act(state, "roll_reactions", faces=[1, 5])
    state, _ = act(state, "assign_reaction", figure="c1", die=1)
    state, _ = act(state, "assign_reaction", figure="c2", die=2)
    state, _ = act(state, "next_phase")
    assert state["phase"] == "quick"
    return state


# -- generation (pp.117-122) -------------------------------------------------------------------


def test_objective_individual_and_edge_follow_the_typed_dice() -> None:
    """p.118: D100 51-70 Rescue individual; p.119: 16-30 Corporate agent, Reactions 1, Speed 4",
    Savvy +1; p.120: the crew's edge (D12 clock face, 3 is the right edge)."""
    made = st.generate(Dice(seed=1), TABLES, crew_size=6, faces=[60, 20, 3])
    assert made.objective["name"] == "Rescue individual" and made.objective["key"] == "rescue"
    assert made.individual is not None and made.individual["name"] == "Corporate agent"
    assert (made.individual["reactions"], made.individual["speed"], made.individual["savvy"]) == (1, 4, 1)
    assert made.crew_edge.startswith("right edge")
    # p.122: crew size +1 figures, one Specialist and one Lieutenant, the rest basic.
    assert (made.enemy_total, made.specialists, made.lieutenants, made.basic) == (7, 1, 1, 5)
    assert [r.reason for r in made.rolls] == [
        "Stealth mission objective (p.118)",
        "Stealth mission Individual (p.119)",
        "Stealth mission: the crew's arrival edge (clock face, p.120)",
    ]


def test_an_item_objective_rolls_no_individual_and_a_locate_one_lists_candidates() -> None:
    """p.118: 01-20 Locate and retrieve needs Finding the target; 86-00 Retrieve package does not."""
    locate = st.generate(Dice(seed=1), TABLES, crew_size=4, faces=[5, 12], candidates=4)
    assert locate.objective["must_locate"] and locate.individual is None and locate.candidates == 4
    assert any("Finding the target" in line for line in locate.lines())
    package = st.generate(Dice(seed=1), TABLES, crew_size=4, faces=[99, 12])
    assert not package.objective["must_locate"] and package.candidates == 0
    assert package.as_dict()["no_minis"].startswith("No-minis combat resolution does not apply")


def test_generation_refuses_rampage_ai_bad_sizes_and_spare_faces() -> None:
    """p.122: Rampage AI is rerolled; p.118: 3 candidates at least."""
    with pytest.raises(SetupError) as err:
        st.generate(Dice(seed=1), TABLES, crew_size=6, ai_type="rampage")
    assert err.value.field == "ai_type"
    with pytest.raises(SetupError) as err:
        st.generate(Dice(seed=1), TABLES, crew_size=6, candidates=2)
    assert err.value.field == "candidates"
    with pytest.raises(SetupError) as err:
        st.generate(Dice(seed=1), TABLES, crew_size=6, faces=[99, 12, 4])
    assert err.value.field == "faces"


def test_seeded_generation_is_repeatable() -> None:
    assert st.generate(Dice(seed=9), TABLES, crew_size=5).as_dict() == st.generate(Dice(seed=9), TABLES, crew_size=5).as_dict()


# -- the tracker ---------------------------------------------------------------------------------


def test_deployment_variables_and_escalation_are_off_in_stealth_rounds() -> None:
    """p.117: no Deployment Variables; no Escalation in Stealth rounds."""
    state = st.initial_state(setup(options={"dramatic_combat": True, "escalating_battles": True}), TABLES)
    assert state["options"]["deployment_variables"] is False
    assert state["options"]["escalating_battles"] is False and state["stealth"]["escalating_battles"] is True


def test_spotting_value_against_distance_spotted_suspicious_unseen() -> None:
    """p.121: 2D6 (-1 scanning) against the distance rounded down; greater spots, equal is
    suspicious, lower is unseen; partly obscured -2."""
    state = quick()
    state, _ = act(state, "next_phase")  # Enemy phase
    unseen, events = act(state, "spot", enemy="e1", scanning=True, faces=[4, 4], targets=[{"figure": "c1", "distance": 8.7}])
    assert "Nobody is spotted" in events[-1].text and not unseen["stealth"]["alarm"]
    odd, _ = act(state, "spot", enemy="e1", faces=[4, 3], targets=[{"figure": "c1", "distance": 7}])
    assert odd["stealth"]["suspicious"] == {"enemy": "e1", "toward": "c1"}
    with pytest.raises(TrackerError) as err:
        act(odd, "spot", enemy="e1", scanning=True, faces=[1, 1], targets=[{"figure": "c1", "distance": 6}])
    assert err.value.field == "scanning"
    hidden, _ = act(state, "spot", enemy="e1", faces=[4, 4], targets=[{"figure": "c1", "distance": 6, "obscured": True}])
    assert not hidden["stealth"]["alarm"]  # 8 - 2 = 6: suspicious, not spotted
    seen, events = act(state, "spot", enemy="e1", faces=[4, 4], targets=[{"figure": "c1", "distance": 6}], edge_faces=[9])
    assert seen["stealth"]["alarm"] and seen["stealth"]["reinforcement_edge"].startswith("left edge")
    # p.122: the Stealth round ends at once; a normal round begins.
    assert seen["round"] == 2 and seen["phase"] == "start" and seen["stealth"]["first_battle_round"] == 2
    assert any(e.type == "reinforcements" for e in events)


def test_stay_down_takes_savvy_off_while_obscured() -> None:
    """p.121: Stay Down: spotting against the figure loses its Savvy while partly obscured."""
    state = quick()
    state, _ = act(state, "stay_down", figure="c1")
    state, _ = act(state, "act", figure="c1")
    state, _ = act(state, "next_phase")
    # 9 - 2 obscured - 1 Savvy = 6 < 7: unseen (without Stay Down 7 would be suspicious).
    after, _ = act(state, "spot", enemy="e1", faces=[5, 4], targets=[{"figure": "c1", "distance": 7, "obscured": True}])
    assert after["stealth"]["suspicious"] is None and not after["stealth"]["alarm"]


def test_patrol_picks_a_sentry_and_moves_the_rest_at_speed_minus_one() -> None:
    """p.120: one random enemy scans; the others move base Speed -1" in a random direction."""
    state = quick()
    with pytest.raises(TrackerError):
        act(state, "patrol")  # only in the Enemy phase
    state, _ = act(state, "next_phase")
    with pytest.raises(TrackerError) as err:
        act(state, "enemy_act", enemy="e1")
    assert "patrol" in str(err.value)
    after, events = act(state, "patrol", pick_faces=[2], faces=[1, 6, 11])
    assert after["stealth"]["sentry"] == "e2"
    assert 'moves 3" toward' in events[0].text and all(e["acted"] for e in after["enemies"])
    with pytest.raises(TrackerError):
        act(after, "patrol")


def test_a_silent_kill_keeps_the_stealth_and_a_rifle_shot_sets_off_the_alarm() -> None:
    """p.122: firing anything but a handgun or needle rifle raises the alarm; +2 from outside
    the Field of Vision."""
    state = quick()
    loud, _ = act(state, "resolve", attacker="c2", target="e1", range=6, edge_faces=[1])
    assert loud["stealth"]["alarm"] and "not silent" in loud["stealth"]["alarm_cause"]
    quiet, events = act(state, "resolve", attacker="c1", target="e1", range=4, unseen=True, seed=11)
    target = next(e for e in quiet["enemies"] if e["id"] == "e1")
    assert quiet["crew"][0]["combat_skill"] == 1  # the +2 was for that attack only
    assert "+2 from outside the Field of Vision" in events[0].text
    assert quiet["stealth"]["alarm"] == (target["status"] == "active")


def test_reinforcements_come_on_sixes_and_wait_a_round() -> None:
    """p.122: each round after the alarm 2D6, a basic enemy per 6 that cannot act that round."""
    state = quick()
    state, _ = act(state, "alarm", cause="test", edge_faces=[6], reinforcement_faces=[6, 6])
    arrived = [e for e in state["enemies"] if any("Reinforcement" in n for n in e["notes"])]
    assert len(arrived) == 2 and all(e["acted"] and e["rank"] == "basic" for e in arrived)


def test_escalation_waits_for_the_second_battle_round_after_the_alarm() -> None:
    """p.117: no Escalation in the first battle round."""
    state = quick(options={"dramatic_combat": True, "escalating_battles": True})
    state, _ = act(state, "alarm", edge_faces=[6], reinforcement_faces=[1, 1])
    assert state["options"]["escalating_battles"] is False
    state, _ = act(state, "roll_reactions", faces=[1, 1])
    state, _ = act(state, "assign_reaction", figure="c1", die=1)
    state, _ = act(state, "assign_reaction", figure="c2", die=2)
    for _ in range(5):
        state, _ = act(state, "next_phase", reinforcement_faces=[1, 2], escalation_face=1, morale_faces=[6])
    assert state["round"] == 3 and state["options"]["escalating_battles"] is True


def test_exfiltration_on_a_six_once_a_round_and_the_mission_ends_with_the_item_out() -> None:
    """p.117: one figure given a 6 may leave when Reactions are rolled; p.118: the package must
    be picked up and exfiltrated."""
    state = st.initial_state(setup(), TABLES)
    state, _ = act(state, "next_phase")
    state, _ = act(state, "roll_reactions", faces=[6, 6])
    state, _ = act(state, "assign_reaction", figure="c1", die=1)
    state, _ = act(state, "assign_reaction", figure="c2", die=2)
    with pytest.raises(TrackerError):
        act(state, "objective", figure="c1", step="pick_up")  # not in the start phase
    state, _ = act(state, "exfiltrate", figure="c1")
    with pytest.raises(TrackerError):
        act(state, "exfiltrate", figure="c2")  # one a round
    state, _ = act(state, "next_phase")
    state, _ = act(state, "next_phase")
    state, _ = act(state, "next_phase")  # Slow
    state, _ = act(state, "objective", figure="c2", step="pick_up")
    assert state["stealth"]["objective"]["carrier"] == "c2"
    state, _ = act(state, "exfiltrate", figure="c2")
    assert state["phase"] == "over" and state["stealth"]["finished"]["won"] is True
    made = st.outcome(state)
    assert made["won"] is True and made["held_field"] is False and made["casualties"] == []
    assert made["stealth"]["exfiltrated"] == ["Ria", "Bo"]


def test_finding_the_target_on_six_plus_and_the_last_candidate() -> None:
    """p.118: 1D6+Savvy 6+ finds the target; the last candidate holds it."""
    state = quick(stealth=stealth([5, 12]))
    with pytest.raises(TrackerError):
        act(state, "objective", figure="c1", step="pick_up")
    missed, _ = act(state, "search", figure="c1", faces=[4])  # 4+1 = 5
    assert not missed["stealth"]["objective"]["located"] and missed["stealth"]["objective"]["searched"] == 1
    last, events = act(missed, "search", figure="c1", faces=[2])
    assert last["stealth"]["objective"]["located"] and "last one" in events[0].text
    found, _ = act(state, "search", figure="c1", faces=[5])  # 5+1 = 6
    assert found["stealth"]["objective"]["located"]


def test_rescue_adds_the_individual_who_must_get_out_and_wandering_off_counts() -> None:
    """pp.118-119: the rescued Individual joins the crew; wandering off the table is a rescue."""
    state = quick(stealth=stealth([60, 20, 3]))
    joined, _ = act(state, "objective", figure="c1", step="rescue")
    assert joined["crew"][-1]["name"] == "Corporate agent" and joined["crew"][-1]["weapons"] == []
    off, _ = act(state, "individual_off")
    assert off["stealth"]["objective"]["achieved"]
    contact = quick(stealth=stealth([80, 20, 3]))  # Transmit message
    failed, _ = act(contact, "individual_off")
    assert failed["stealth"]["objective"]["failed"]


def test_the_individual_moves_at_the_end_of_each_enemy_phase() -> None:
    """p.119: when each Enemy phase ends, it moves its base Speed (4") in a random direction."""
    state = quick(stealth=stealth([80, 20, 3]))
    state, _ = act(state, "next_phase")
    state, events = act(state, "next_phase", individual_faces=[7])
    assert events[0].type == "individual" and "4\" toward 7 o'clock" in events[0].text


def test_a_carrier_who_falls_drops_the_item() -> None:
    """p.118: the item is dropped where the carrier fell."""
    state = quick()
    state, _ = act(state, "objective", figure="c1", step="pick_up")
    state, events = act(state, "adjust", figure="c1", status="casualty")
    assert state["stealth"]["objective"]["dropped"] and state["stealth"]["objective"]["carrier"] is None
    assert any(e.type == "item" for e in events)


def test_replay_gives_the_same_state() -> None:
    start = st.initial_state(setup(), TABLES)
    log = [
        (Action("next_phase", {}), 1),
        (Action("roll_reactions", {}), 2),
        (Action("assign_reaction", {"figure": "c1", "die": 1}), 3),
        (Action("assign_reaction", {"figure": "c2", "die": 2}), 4),
        (Action("next_phase", {}), 5),
        (Action("next_phase", {}), 6),
        (Action("patrol", {}), 7),
    ]

    def reducer(state: dict[str, Any], action: Action, dice: Dice) -> Any:
        return st.apply(state, action, dice, TABLES)

    assert replay(start, log, reducer) == replay(start, log, reducer)


def test_distraction_turns_an_enemy_on_six_plus_and_a_natural_one_turns_it_toward_you() -> None:
    """p.122: Distraction 1D6+Savvy 6+; a natural 1 makes the enemy face the figure and spot."""
    state = quick()
    fooled, _ = act(state, "distraction", figure="c1", enemy="e1", faces=[5])  # 5+1
    assert fooled["stealth"]["distracted"] == ["e1"]
    missed, events = act(state, "distraction", figure="c1", enemy="e1", faces=[4])
    assert missed["stealth"]["distracted"] == [] and "not fooled" in events[0].text
    botched, _ = act(state, "distraction", figure="c1", enemy="e1", faces=[1])
    assert botched["stealth"]["suspicious"] == {"enemy": "e1", "toward": "c1"}
    # The distracted enemy stays put at the patrol and only watches.
    fooled, _ = act(fooled, "act", figure="c1")
    fooled, _ = act(fooled, "next_phase")
    after, events = act(fooled, "patrol", pick_faces=[1], faces=[3, 4])
    assert "looking where it was turned" in events[0].text and after["stealth"]["distracted"] == []
    assert after["stealth"]["sentry"] != "e1"


def test_lure_moves_each_enemy_1d6_and_then_one_roll_spots_for_all() -> None:
    """p.122: Lure: each enemy within 8" moves 1D6" toward the figure; one spotting roll for all."""
    state = quick()
    lured, events = act(state, "lure", figure="c1", enemies="e1 e2", faces=[2, 5])
    assert "e1" not in events[0].text and '2"' in events[0].text and '5"' in events[0].text
    seen, events = act(
        lured,
        "spot",
        enemies="e1 e2",
        faces=[3, 3],
        targets=[{"enemy": "e1", "figure": "c1", "distance": 9}, {"enemy": "e2", "figure": "c1", "distance": 5}],
        edge_faces=[12],
    )
    assert seen["stealth"]["alarm"] and "spotted by" in seen["stealth"]["alarm_cause"]
    with pytest.raises(TrackerError) as err:
        act(lured, "spot", enemies="e1 e2", faces=[3, 3], targets=[{"figure": "c1", "distance": 5}])
    assert err.value.field == "targets[0].enemy"


def test_a_dropped_item_is_picked_up_or_lost_in_hazardous_terrain() -> None:
    """p.118: a dropped item may be picked up by moving into contact; in hazardous terrain it is destroyed."""
    state = quick()
    state, _ = act(state, "objective", figure="c1", step="pick_up")
    state, _ = act(state, "adjust", figure="c1", status="casualty")
    taken, _ = act(state, "pick_up", figure="c2")
    assert taken["stealth"]["objective"]["carrier"] == "c2"
    lost, _ = act(state, "pick_up", destroyed="on")
    assert lost["stealth"]["objective"]["failed"] and not st.outcome(lost)["won"]


def test_two_figures_at_the_suspicious_distance_are_picked_with_a_d6() -> None:
    """p.121: two crew figures at the same distance: the enemy moves toward one, picked at random
    (a D6 read 1-3 / 4-6)."""
    state = quick()
    targets = [{"figure": "c1", "distance": 7}, {"figure": "c2", "distance": 7}]
    first, _ = act(state, "spot", enemy="e1", faces=[4, 3], targets=targets, pick_faces=[3])
    second, events = act(state, "spot", enemy="e1", faces=[4, 3], targets=targets, pick_faces=[4])
    assert first["stealth"]["suspicious"]["toward"] == "c1" and second["stealth"]["suspicious"]["toward"] == "c2"
    assert events[0].data["rolls"][-1]["notation"].endswith("D6")
