"""Salvage jobs (Compendium pp.137-147): set-up, the Tension track, Contacts and Hostiles!, Points of
Interest, the end of the mission and its rewards, with seeded or typed dice; and a property test
of the reducer (bounded numbers, undo, replay)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battles.engine import fp_salvage as s
from battles.engine.fp_salvage.base import EDGES
from battles.engine.fp_salvage.setup import QUARTERS
from live.engine.tracker import Action, NotYours, Role, TrackerError, replay
from rules.engine.dice import Dice
from rules.fixturefiles import read_all

TABLES = {t.slug: t.engine() for t in read_all() if t.system == "fiveparsecs"}
CREW = [
    {"name": "Ria", "savvy": 1, "owner": "7"},
    {"name": "Bo", "savvy": 0},
    {"name": "Zed", "savvy": 2, "bot": True},
]


def setup(seed: int = 1, **kwargs: Any) -> dict[str, Any]:
    return s.generate(Dice(seed=seed), TABLES, crew=kwargs.pop("crew", CREW), **kwargs)


def act(
    state: dict[str, Any], type_: str, role: Role = Role.OWNER, actor: str = "1", seed: int = 1, **payload: Any
) -> dict[str, Any]:
    new, _ = s.apply(state, Action(type_, payload, actor=actor, role=role), Dice(seed=seed), TABLES)
    return new


def events(state: dict[str, Any], type_: str, **payload: Any) -> tuple[dict[str, Any], list[Any]]:
    return s.apply(state, Action(type_, payload), Dice(seed=1), TABLES)


@pytest.fixture
def started() -> dict[str, Any]:
    return act(s.initial_state(setup(), TABLES), "start")


# -- set-up (p.138) ----------------------------------------------------------------------------------


def test_setup_places_1d3_plus_1_salvage_markers_four_pois_and_two_groups_on_a_random_edge() -> None:
    for seed in range(1, 30):
        made = setup(seed)
        assert 2 <= made["salvage_markers"] <= 4
        assert made["rolls"][0]["notation"] == "D3+1" and made["rolls"][0]["total"] == made["salvage_markers"]
        assert made["rolls"][0]["reason"].startswith("Salvage markers")
        edge_roll = made["rolls"][1]["total"]
        assert made["deployment"]["edge"] == EDGES[(edge_roll - 1) // 3]
    made = setup(3)
    assert [p["where"] for p in made["points_of_interest"]] == list(QUARTERS)
    assert made["deployment"]["groups"] == [["Ria", "Bo"], ["Zed"]]
    assert (made["deployment"]["within_in"], made["deployment"]["apart_in"]) == (2, 10)
    assert made["seize_the_initiative"] is False and made["objective"] is None
    assert "Escalating Battles (p.46)" in made["not_used"] and "Enemy Deployment Variables (p.44)" in made["not_used"]


def test_setup_says_the_no_minis_rules_do_not_apply_and_why() -> None:
    made = setup()
    assert made["nominis"]["supported"] is False
    assert "Line of Sight" in made["nominis"]["why"] and "pp.66-73" in made["nominis"]["why"]


def test_starting_tension_is_the_crew_halved_rounded_up_or_zero_when_easier() -> None:
    assert setup()["starting_tension"] == 2  # 3 crew
    assert setup(crew=CREW[:2])["starting_tension"] == 1
    assert setup(options={"easier": True})["starting_tension"] == 0


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"crew": []}, "crew"),
        ({"crew": [{"name": ""}]}, "crew[0].name"),
        ({"crew": [{"name": "A", "savvy": 9}]}, "crew[0].savvy"),
        ({"options": {"turbo": True}}, "options"),
        ({"options": {"easier": True, "harder": True}}, "options"),
    ],
)
def test_bad_setup_names_the_field(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(TrackerError) as exc:
        setup(**kwargs)
    assert exc.value.field == field


# -- the Tension track (p.138) -----------------------------------------------------------------------


def test_round_one_is_exploration_with_no_tension_roll_and_tension_is_set_when_it_ends(started: dict[str, Any]) -> None:
    assert started["round"] == 1 and started["round_kind"] == "exploration"
    assert started["tension"]["value"] == 0
    state, evs = events(started, "next_round", face=6)
    assert evs[0].text.startswith("End of round 1: Tension is set to 2")
    # Round 2's D6 of 6 is above Tension 2: +1.
    assert state["tension"]["value"] == 3 and state["contacts"] == []
    assert state["round_kind"] == "exploration"


def test_a_roll_at_or_under_tension_lowers_it_by_the_roll_and_spawns_a_contact(started: dict[str, Any]) -> None:
    state = act(started, "next_round", face=2)  # Tension 2, roll 2
    assert state["tension"]["value"] == 0
    assert [c["id"] for c in state["contacts"]] == ["k1"]
    assert state["round_kind"] == "battle"  # a Contact is on the table


def test_the_easier_option_starts_at_zero_so_the_first_roll_only_raises_it() -> None:
    state = act(s.initial_state(setup(options={"easier": True}), TABLES), "start")
    state = act(state, "next_round", face=1)
    assert state["tension"]["value"] == 1 and not state["contacts"]


# -- Contacts and Hostiles! (pp.139-140) ------------------------------------------------------------


def with_contact(started: dict[str, Any]) -> dict[str, Any]:
    return act(started, "next_round", face=1)  # Tension 2 -> 1, Contact k1


@pytest.mark.parametrize(
    ("face", "tension", "contacts"),
    [(1, 1, []), (2, 2, []), (6, 1, ["k2", "k3"])],
)
def test_contact_results(started: dict[str, Any], face: int, tension: int, contacts: list[str]) -> None:
    state = act(with_contact(started), "reveal_contact", contact="k1", crew="c1", face=face)
    assert state["tension"]["value"] == tension
    assert [c["id"] for c in state["contacts"]] == contacts
    assert state["enemies"] == []


def test_the_harder_option_adds_tension_for_every_contact_removed() -> None:
    state = act(s.initial_state(setup(options={"harder": True}), TABLES), "start")
    state = act(state, "next_round", face=1)
    state = act(state, "reveal_contact", contact="k1", crew="c1", face=1)
    assert state["tension"]["value"] == 2  # 2 - 1 + 1 for the marker removed


def test_hostiles_roll_the_type_once_and_the_encounter_number_sets_the_force(started: dict[str, Any]) -> None:
    state = act(with_contact(started), "reveal_contact", contact="k1", crew="c1", face=3, hostile_face=50)
    assert state["hostiles"]["type"]["name"] == "Rival team" and state["hostiles"]["type"]["enemy_table"] == "Interested Parties"
    assert state["hostiles"]["encounters"] == 1
    assert [e["rank"] for e in state["enemies"]] == ["basic", "basic"]
    assert all(e["acts_from"] == state["round"] + 1 for e in state["enemies"])  # cannot act this round (p.140)
    # Second encounter: 2 basic and 1 specialist; the type is not rolled again.
    state = act(state, "next_round", face=1)  # Tension 1 -> 0, Contact k2
    state, evs = events(state, "reveal_contact", contact="k2", crew="c2", face=4, hostile_face=99)
    assert state["hostiles"]["type"]["name"] == "Rival team"
    assert len(evs[0].data["rolls"]) == 1  # only the Contacts D6
    assert [e["rank"] for e in state["enemies"][2:]] == ["basic", "basic", "specialist"]


def test_infestation_adds_six_tension(started: dict[str, Any]) -> None:
    state = act(with_contact(started), "reveal_contact", contact="k1", crew="c1", face=5, hostile_face=70)
    assert state["hostiles"]["type"]["name"] == "Infestation" and state["tension"]["value"] == 7


def test_the_fourth_encounter_uses_the_last_row(started: dict[str, Any]) -> None:
    state = started
    for n in range(4):
        state = act(state, "next_round", face=1)
        contact = state["contacts"][-1]["id"] if state["contacts"] else None
        if contact is None:
            state["contacts"].append({"id": f"x{n}", "placed_round": state["round"], "near": "", "lure": False})
            contact = f"x{n}"
        state = act(state, "reveal_contact", contact=contact, crew="c1", face=3, hostile_face=30)
    counts = [e["rank"] for e in state["enemies"]]
    assert state["hostiles"]["encounters"] == 4
    assert counts == ["basic"] * 2 + ["basic", "basic", "specialist"] + ["basic", "basic", "lieutenant"] + ["basic"] * 2


def test_free_for_all_looters_take_salvage_markers(started: dict[str, Any]) -> None:
    state = act(with_contact(started), "reveal_contact", contact="k1", crew="c1", face=3, hostile_face=10)
    markers = state["salvage"]["markers"]
    state = act(state, "grab_salvage", enemy="e1")
    assert state["salvage"]["markers"] == markers - 1 and state["enemies"][0]["status"] == "removed"


def test_only_free_for_all_looters_grab_salvage(started: dict[str, Any]) -> None:
    state = act(with_contact(started), "reveal_contact", contact="k1", crew="c1", face=3, hostile_face=30)
    with pytest.raises(TrackerError) as exc:
        act(state, "grab_salvage", enemy="e1")
    assert exc.value.field == "enemy"


def test_scanner_check_moves_markers_placed_before_this_round_by_the_higher_die(started: dict[str, Any]) -> None:
    state = with_contact(started)
    with pytest.raises(TrackerError):  # k1 is new this round: nothing to check twice, but the check runs
        act(act(state, "scanner_check"), "scanner_check")
    state = act(state, "next_round", face=6)  # round 3, k1 still out there
    state = act(state, "scanner_check", faces=[5, 2])
    assert state["contacts"][0]["move"] == '5" toward the nearest crew figure'
    state2 = act(act(with_contact(started), "next_round", face=6), "scanner_check", faces=[3, 3])
    assert state2["contacts"][0]["move"] == "stays put"


def test_no_scanner_check_in_an_exploration_round(started: dict[str, Any]) -> None:
    with pytest.raises(TrackerError) as exc:
        act(started, "scanner_check")
    assert "Exploration" in exc.value.message


# -- Points of Interest (pp.141-145) ---------------------------------------------------------------


def poi(state: dict[str, Any], face: int, **payload: Any) -> dict[str, Any]:
    return act(state, "investigate", poi="p1", crew="c1", face=face, **payload)


@pytest.mark.parametrize(
    ("face", "tension"),
    [(1, 0), (20, 5), (24, 3), (33, 1), (60, 0), (86, 2), (92, 2)],
)
def test_point_of_interest_tension_adjustments(started: dict[str, Any], face: int, tension: int) -> None:
    state = act(started, "next_round", face=6)  # Tension 2 -> 3 in round 2
    state["tension"]["value"] = 2
    assert poi(state, face, faces=[2])["tension"]["value"] == tension


def test_we_need_to_hurry_counts_the_remaining_points(started: dict[str, Any]) -> None:
    state = poi(started, 30)
    assert state["tension"]["value"] == 3  # p2-p4 remain


def test_hot_find_gives_1d3_salvage_and_that_much_tension(started: dict[str, Any]) -> None:
    state = poi(started, 42, faces=[3])
    assert state["salvage"]["units"] == 3 and state["tension"]["value"] == 3


def test_cache_and_valuable_find_and_dead_spacer(started: dict[str, Any]) -> None:
    assert poi(started, 70, faces=[2])["salvage"]["units"] == 2
    assert poi(started, 90, faces=[3])["finds"]["credits"] == 4  # 1D3+1
    assert poi(started, 25)["finds"]["loot_now"] == 1
    assert poi(started, 95)["finds"]["loot_after"] == 1


def test_secure_device_leaves_a_lockbox_each_failure_adds_tension(started: dict[str, Any]) -> None:
    state = poi(started, 15)
    assert state["markers"] == [{"id": "m1", "kind": "lockbox", "poi": "p1"}]
    state = act(state, "use_marker", marker="m1", crew="c2", face=4)  # Savvy 0: 4 fails
    assert state["tension"]["value"] == 1 and state["markers"]
    state = act(state, "use_marker", marker="m1", crew="c1", face=4)  # Savvy 1: 5 opens
    assert state["markers"] == [] and state["finds"]["loot_now"] == 1


def test_information_station_lowers_tension_by_the_savvy_test(started: dict[str, Any]) -> None:
    state = poi(started, 40)
    state["tension"]["value"] = 6
    state = act(state, "use_marker", marker="m1", crew="c3", face=3)  # 3 + Savvy 2
    assert state["tension"]["value"] == 1 and state["markers"] == []


def test_survivors_join_as_allies_and_one_alive_gives_a_story_point(started: dict[str, Any]) -> None:
    state = poi(started, 48, faces=[2])
    assert [(e["name"], e["side"]) for e in state["enemies"]] == [
        ("Hardened Colonist 1", "ally"),
        ("Hardened Colonist 2", "ally"),
    ]
    assert state["round_kind"] == "exploration"  # allies are no Hostiles
    assert s.outcome(act(state, "end_mission"))["salvage"]["story_points"] == 1
    dead = act(act(state, "adjust", enemy="e1", status="casualty"), "adjust", enemy="e2", status="casualty")
    assert s.outcome(act(dead, "end_mission"))["salvage"]["story_points"] == 0


def test_lure_pays_salvage_on_four_to_six_and_contacts_on_one_to_three(started: dict[str, Any]) -> None:
    state = poi(started, 56)
    assert state["contacts"][0]["lure"] is True
    assert act(state, "reveal_contact", contact="k1", crew="c1", face=5)["salvage"]["units"] == 5
    assert len(act(state, "reveal_contact", contact="k1", crew="c1", face=2)["contacts"]) == 2


def test_security_bot_natural_six_joins_the_crew_a_failure_attacks_both_sides(started: dict[str, Any]) -> None:
    assert poi(started, 76, test_face=6)["enemies"][0]["side"] == "ally"
    shut = act(started, "investigate", poi="p1", crew="c3", face=76, test_face=4)  # 4 + Savvy 2 = 6: shut down
    assert shut["enemies"] == []
    woke = poi(started, 76, test_face=2)
    assert woke["enemies"][0]["side"] == "third" and woke["round_kind"] == "exploration"


def test_the_creature_test_takes_the_bot_penalty(started: dict[str, Any]) -> None:
    state = act(started, "investigate", poi="p1", crew="c3", face=80, test_face=5)  # 5 + 2 - 3 = 4: fails
    assert state["enemies"][0]["side"] == "third"
    friend = act(started, "investigate", poi="p1", crew="c1", face=80, test_face=4)  # 4 + 1 = 5
    assert friend["enemies"][0]["side"] == "ally"


def test_rival_trap_with_a_rival_holds_tension_at_zero_and_clears_the_table() -> None:
    state = act(s.initial_state(setup(rivals=["Vex"]), TABLES), "start")
    state = act(state, "next_round", face=1)
    state = poi(state, 84, faces=[7])
    assert state["contacts"] == [] and state["tension"] == {**state["tension"], "value": 0, "locked": True}
    state = act(state, "next_round", face=1)
    assert [e["rank"] for e in state["enemies"]] == ["basic"] * 4 + ["specialist", "lieutenant"]
    assert state["enemies"][0]["name"].startswith("Vex") and state["tension"]["value"] == 0 and state["contacts"] == []


def test_rival_trap_without_rivals_adds_three(started: dict[str, Any]) -> None:
    assert poi(started, 83)["tension"]["value"] == 3 and not poi(started, 83)["arrivals"]


def test_incursion_arrives_next_round_fighting_both_sides(started: dict[str, Any]) -> None:
    state = poi(started, 66, faces=[1])
    assert state["enemies"] == [] and state["arrivals"][0]["edge"] == "north"
    state = act(state, "next_round", face=6)
    assert len(state["enemies"]) == 6 and {e["side"] for e in state["enemies"]} == {"third"}
    assert state["round_kind"] == "battle"


def test_evac_time_grows_every_later_round(started: dict[str, Any]) -> None:
    state = poi(started, 98)
    assert state["hazards"]["evac"]["radius"] == 1
    state = act(state, "next_round", face=6, evac_face=4)
    assert state["hazards"]["evac"]["radius"] == 5


def test_picking_up_salvage_counts_units_until_the_markers_run_out(started: dict[str, Any]) -> None:
    state = started
    for _ in range(started["salvage"]["markers"]):
        state = act(state, "pick_up_salvage", crew="c2")
    assert state["salvage"]["units"] == started["salvage"]["markers"] and state["salvage"]["markers"] == 0
    with pytest.raises(TrackerError):
        act(state, "pick_up_salvage", crew="c2")


def test_players_act_only_for_their_own_crew(started: dict[str, Any]) -> None:
    act(started, "pick_up_salvage", role=Role.PLAYER, actor="7", crew="c1")
    with pytest.raises(NotYours):
        act(started, "pick_up_salvage", role=Role.PLAYER, actor="7", crew="c2")
    with pytest.raises(NotYours):
        act(started, "next_round", role=Role.PLAYER, actor="7")


# -- the end (pp.146-147) --------------------------------------------------------------------------


def test_winning_needs_every_point_of_interest_and_pays_in_salvage(started: dict[str, Any]) -> None:
    state = started
    for n in range(1, 5):
        state = act(state, "investigate", poi=f"p{n}", crew="c1", face=33)  # Dead end
    state = act(state, "pick_up_salvage", crew="c1")
    # Finds D6: 5 (a unit), 6 (a Discovery: D100 50, a unit), 1, 6 (D100 90, trinkets 1D3 = 2).
    state = act(state, "end_mission", poi_faces=[5, 6, 1, 6], discovery_faces=[50, 90], faces=[2], scrapper_faces=[1, 4, 6])
    result = s.outcome(state)
    assert result["won"] is True and result["held_field"] is True
    assert result["salvage"]["units"] == 3 and result["salvage"]["credit_value"] == 3
    assert result["salvage"]["credits"] == 2 and result["salvage"]["scrappers"] == [2, 4, 6]
    assert result["salvage"]["normal_loot"] is False and result["salvage"]["invasion_check"] is False
    assert set(result) >= {"held_field", "casualties", "enemies_killed", "enemies_fled", "rounds", "objective", "psionic_uses"}


def test_leaving_early_loses_the_mission_but_keeps_the_salvage(started: dict[str, Any]) -> None:
    state = act(act(started, "pick_up_salvage", crew="c1"), "end_mission", poi_faces=[])
    result = s.outcome(state)
    assert result["won"] is False and result["salvage"]["units"] == 1 and result["salvage"]["finds"] == []
    with pytest.raises(TrackerError):
        act(state, "next_round")


def test_an_illegal_job_rolls_the_law_after_the_battle() -> None:
    state = act(s.initial_state(setup(options={"illegal": True}), TABLES), "start")
    caught = s.outcome(act(state, "end_mission", illegal_face=5))["salvage"]["illegal"]
    assert caught == {"roll": 5, "caught": True, "result": "The authorities are on your trail", "fine": 5}
    assert s.outcome(act(state, "end_mission", illegal_face=2))["salvage"]["illegal"]["caught"] is False
    assert s.outcome(act(started_plain(), "end_mission"))["salvage"]["illegal"] is None


def started_plain() -> dict[str, Any]:
    return act(s.initial_state(setup(), TABLES), "start")


def test_release_hands_a_players_figures_back(started: dict[str, Any]) -> None:
    assert s.release(started, "7") == [("set_player", {"figure": "c1", "player": ""})]


def test_a_refused_action_changes_nothing(started: dict[str, Any]) -> None:
    before = copy.deepcopy(started)
    with pytest.raises(TrackerError) as exc:
        act(started, "investigate", poi="p9", crew="c1")
    assert exc.value.field == "poi" and started == before


# -- property: invariants, undo and replay ---------------------------------------------------------

ACTIONS = st.lists(
    st.one_of(
        st.tuples(st.just("next_round"), st.fixed_dictionaries({})),
        st.tuples(
            st.just("reveal_contact"),
            st.fixed_dictionaries(
                {"contact": st.sampled_from(["k1", "k2", "k3", "k4"]), "crew": st.sampled_from(["c1", "c2", "c3"])}
            ),
        ),
        st.tuples(st.just("scanner_check"), st.fixed_dictionaries({})),
        st.tuples(
            st.just("investigate"),
            st.fixed_dictionaries(
                {"poi": st.sampled_from(["p1", "p2", "p3", "p4"]), "crew": st.sampled_from(["c1", "c2", "c3"])}
            ),
        ),
        st.tuples(st.just("use_marker"), st.fixed_dictionaries({"marker": st.sampled_from(["m1", "m2"]), "crew": st.just("c1")})),
        st.tuples(st.just("pick_up_salvage"), st.fixed_dictionaries({"crew": st.sampled_from(["c1", "c2"])})),
        st.tuples(st.just("grab_salvage"), st.fixed_dictionaries({"enemy": st.sampled_from(["e1", "e2"])})),
        st.tuples(
            st.just("adjust"),
            st.fixed_dictionaries(
                {"enemy": st.sampled_from(["e1", "e2", "e3"]), "status": st.sampled_from(["casualty", "fled"])}
            ),
        ),
        st.tuples(
            st.just("caught"),
            st.fixed_dictionaries(
                {"target": st.sampled_from(["c1", "e1", "k1", "p2"]), "by": st.sampled_from(["evac", "swarm"])}
            ),
        ),
        st.tuples(st.just("end_mission"), st.fixed_dictionaries({})),
    ),
    max_size=30,
)


def check(state: dict[str, Any]) -> None:
    assert state["tension"]["value"] >= 0
    assert not state["tension"]["locked"] or state["tension"]["value"] == 0
    assert 0 <= state["salvage"]["markers"] <= 4 and state["salvage"]["units"] >= 0
    assert state["hostiles"]["encounters"] >= 0
    assert all(v >= 0 for v in state["finds"].values())
    assert state["round_kind"] in (None, "exploration", "battle")
    assert all(p["status"] in ("hidden", "resolved", "destroyed") for p in state["pois"])
    ids = [c["id"] for c in state["contacts"]]
    assert len(ids) == len(set(ids))


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 10_000), plan=ACTIONS, easier=st.booleans(), harder=st.booleans())
def test_any_play_keeps_the_numbers_in_range_and_undo_and_replay_hold(
    seed: int, plan: list[tuple[str, dict[str, Any]]], easier: bool, harder: bool
) -> None:
    options = {"easier": easier, "harder": harder and not easier, "illegal": harder}
    initial = act(s.initial_state(setup(seed, options=options, rivals=["Vex"]), TABLES), "start")
    state = initial
    log: list[tuple[Action, int]] = []
    states = [initial]
    for n, (type_, payload) in enumerate(plan):
        action = Action(type_, payload)
        try:
            new, _ = s.apply(state, action, Dice(seed=seed + n), TABLES)
        except TrackerError:
            continue
        check(new)
        log.append((action, seed + n))
        states.append(new)
        state = new

    def reducer(st_: dict[str, Any], action: Action, dice: Dice) -> tuple[dict[str, Any], list[Any]]:
        return s.apply(st_, action, dice, TABLES)

    assert replay(initial, log, reducer) == state
    if log:
        assert replay(initial, log[:-1], reducer) == states[-2]


def test_the_evac_zone_destroys_points_of_interest_so_the_mission_cannot_be_won(started: dict[str, Any]) -> None:
    with pytest.raises(TrackerError) as exc:
        act(started, "caught", target="p2", by="evac")
    assert exc.value.field == "by"
    state = act(poi(started, 98), "caught", target="p2", by="evac")
    assert state["pois"][1]["status"] == "destroyed"
    for n in (3, 4):
        state = act(state, "investigate", poi=f"p{n}", crew="c1", face=33)
    result = s.outcome(act(state, "end_mission"))
    assert result["won"] is False and result["salvage"]["poi_resolved"] == 3


def test_a_nano_swarm_kills_what_it_touches_and_multiplies(started: dict[str, Any]) -> None:
    state = act(poi(started, 100), "caught", target="c2", by="swarm")
    assert state["crew"][1]["status"] == "casualty" and state["hazards"]["swarms"] == 2
    state = act(state, "next_round", face=6, swarm_faces=[3, 4])
    assert state["last"]["text"].count("Nano-swarm") == 2
    assert s.outcome(act(state, "end_mission"))["casualties"] == ["Bo"]


def test_the_set_up_takes_the_players_own_dice() -> None:
    made = setup(marker_face=3, edge_face=8)
    assert made["salvage_markers"] == 4 and made["deployment"]["edge"] == "south"
    assert all(r["entered"] for r in made["rolls"])
    with pytest.raises(TrackerError) as exc:
        setup(marker_face=4)
    assert exc.value.field == "faces"
