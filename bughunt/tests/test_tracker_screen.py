"""What the mission tracker's screen shows that the rules decide (``bughunt.engine.tracker.screen``,
Bug Hunt pp.189-201), played through ``apply`` with typed or seeded dice: the screen offers an
action exactly when the reducer accepts it."""

from __future__ import annotations

import copy

import pytest

from bughunt import selectors
from bughunt.engine import missions, tracker
from bughunt.models import Mission
from bughunt.tests.test_tracker_engine import act, at_round, new, next_round, refused, to_quick, to_round_end


def test_evac_is_offered_from_round_five_while_no_drop_ship_is_coming() -> None:
    assert not tracker.evac_can_be_called(at_round(4))
    refused(at_round(4), "request_evac", "type", figure="f1")
    state = at_round(5)
    assert tracker.evac_can_be_called(state)
    state = act(state, "request_evac", figure="f1", faces=[6, 6])
    assert state["evac"]["status"] == "coming" and not tracker.evac_can_be_called(state)
    refused(state, "request_evac", "type", figure="f2")
    state = to_round_end(to_quick(state))
    state = to_round_end(to_quick(next_round(state)))
    assert state["evac"]["status"] == "hovering" and not tracker.screen(state)["evac_can_be_called"]
    for _ in range(3):
        state = to_round_end(to_quick(next_round(state)))
    assert state["evac"]["status"] == "left" and tracker.evac_can_be_called(state)
    state = act(to_quick(next_round(state)), "request_evac", figure="f1", faces=[1, 1])
    assert state["evac"]["status"] == "pending" and not tracker.evac_can_be_called(state)


def test_a_pending_evac_is_not_offered_again() -> None:
    state = act(at_round(5), "request_evac", figure="f2", faces=[4, 5])
    assert state["evac"]["status"] == "pending" and not tracker.evac_can_be_called(state)


def test_distract_holds_for_its_round_only() -> None:
    state = act(new(), "investigate", location="t1", figure="f2", faces=[1])
    assert not tracker.distracted(state)
    state = act(state, "activate", location="t1", figure="f2", faces=[5])
    assert tracker.distracted(state) and tracker.screen(state)["distracted"]
    state = to_round_end(to_quick(state))
    assert not tracker.distracted(next_round(state))


def test_delay_holds_to_the_end_of_its_round() -> None:
    state = new()
    assert not tracker.delay_in_force(state)
    state["delay_until"] = 2
    assert tracker.delay_in_force(state)
    state["round"] = 2
    assert tracker.delay_in_force(state)
    state["round"] = 3
    assert not tracker.delay_in_force(state)


def test_enemies_placed_this_round_are_new_until_the_next() -> None:
    state = act(new(), "detect", contact="c1", faces=[5], enemy_face=[45], variant_face=[5], numbers_faces=[2], spotter="f1")
    placed = [e["id"] for e in state["groups"][0]["figures"]]
    assert tracker.new_enemies(state) == placed and len(placed) == 4
    state = act(state, "adjust_enemy", enemy=placed[0], status="killed")
    assert tracker.new_enemies(state) == placed[1:]
    state = next_round(to_round_end(to_quick(state)))
    assert tracker.new_enemies(state) == []


def test_the_precursor_reroll_is_offered_once_a_round_with_the_explorer_on_the_table() -> None:
    state = new()
    state["units"][1]["figures"][0]["special"] = ["precursor"]
    assert not tracker.precursor_reroll_open(state)  # no Reaction dice yet
    state = act(state, "roll_reactions", faces=[2, 3])
    assert tracker.precursor_reroll_open(state)
    state = act(state, "reroll_reaction", die=1, faces=[6])
    assert not tracker.precursor_reroll_open(state)
    refused(state, "reroll_reaction", die=2, faces=[6])
    gone = act(new(), "roll_reactions", faces=[2, 3])
    assert not tracker.precursor_reroll_open(gone)


@pytest.mark.parametrize(
    ("signals", "investigated", "short"),
    [(0, 0, False), (3, 0, False), (4, 1, True), (6, 0, True), (4, 2, False)],
)
def test_the_signals_rule(signals: int, investigated: int, short: bool) -> None:
    assert tracker.signals_short(signals, investigated) is short


def test_mission_success_is_two_objective_points_as_in_the_outcome() -> None:
    assert [tracker.mission_success(n) for n in (0, 1, 2, 3)] == [False, False, True, True]
    state = act(to_quick(new(signals=4, tactical_locations=2), [1, 1]), "hack", objective="o2", figure="f1", faces=[6])
    out = tracker.outcome(state)
    assert out["objectives_completed"] == 1 and out["success"] is tracker.mission_success(1) is False
    assert tracker.screen(state)["signals_short"]
    state = act(state, "investigate_signal")
    state = act(state, "investigate_signal")
    out = tracker.outcome(state)
    assert out["objectives_completed"] == 2 and out["success"] and not tracker.screen(state)["signals_short"]


def test_the_screen_reads_old_states_and_leaves_them_alone() -> None:
    state = new()
    del state["delay_until"], state["distract_round"]
    before = copy.deepcopy(state)
    assert tracker.screen(state) == {
        "evac_can_be_called": False,
        "delay_in_force": False,
        "distracted": False,
        "distract_ahead": False,
        "new_enemies": [],
        "begun": [],
        "precursor_reroll_open": False,
        "signals_short": False,
        "drop_ship_fired": False,
        "next_round": 2,
    }
    assert state == before


def test_the_mission_page_counts_contacts_and_success() -> None:
    setup = {"contacts_on_objectives": 3, "contacts_at_center": 1, "extra_contacts": 2}
    assert (missions.starting_contacts(setup), missions.center_contacts(setup)) == (6, 3)
    assert missions.starting_contacts({}) == 0
    mission = Mission(setup=setup, outcome={})
    assert selectors.mission_summary(mission) == {"contacts": 6, "center_contacts": 3, "success": None}
    mission.outcome = {"objectives_completed": 2}
    assert selectors.mission_summary(mission)["success"] is True
    mission.outcome = {"objectives_completed": 1}
    assert selectors.mission_summary(mission)["success"] is False
