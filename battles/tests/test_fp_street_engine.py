"""Street Fights (Compendium pp.123-136): the set-up generator and the tracker reducer, with
seeded or typed dice; each test cites its page."""

from __future__ import annotations

from typing import Any

import pytest

from battles.engine import fp_street as s
from live.engine.tracker import Action, NotYours, Role, TrackerError, replay
from rules.engine.dice import Dice
from rules.fixturefiles import read_all

TABLES = {t.slug: t.engine() for t in read_all() if t.system == "fiveparsecs"}
CREW = [
    {"name": "Ria", "savvy": 1, "reactions": 2, "captain": True},
    {"name": "Bo", "savvy": 0, "reactions": 1, "owner": "7"},
    {"name": "Kit", "savvy": 2, "reactions": 1},
]
# Objective faces (pp.127-128): one per row.
OBJECTIVE = {"contact": 5, "locate": 15, "surveil": 30, "confront": 50, "rescue": 70, "deliver": 80, "retrieve": 95}


def card(objective: str = "contact", **kw: Any) -> dict[str, Any]:
    kw.setdefault("block_faces", [3, 3])
    kw.setdefault("blocks", 2)
    kw.setdefault("entry_faces", [1, 6])
    return s.generate(Dice(seed=1), TABLES, crew=CREW, objective_face=OBJECTIVE[objective], **kw)


def act(
    state: dict[str, Any], type_: str, seed: int = 1, role: Role = Role.OWNER, actor: str = "1", **payload: Any
) -> dict[str, Any]:
    new, _ = s.apply(state, Action(type_, payload, actor=actor, role=role), Dice(seed=seed), TABLES)
    return new


def in_phase(state: dict[str, Any], phase: str) -> dict[str, Any]:
    """Advance to ``phase`` of the current or next round (Reactions typed all 1s)."""
    while state["phase"] != phase:
        if state["phase"] == "start" and not state["reaction_dice"]:
            state = act(state, "roll_reactions", faces=[1] * sum(f["status"] == "active" for f in state["crew"]))
        else:
            state = act(state, "next_phase", city_face=1, siren_face=1)
    return state


def new(objective: str = "contact", **kw: Any) -> dict[str, Any]:
    return s.initial_state(card(objective, **kw), TABLES)


# -- set-up (pp.123-128) --------------------------------------------------------------------------


def test_suspects_are_one_per_crew_figure_plus_one_per_warehouse_and_the_difficulty_option() -> None:
    # p.124: a Suspect per deployed figure; a Warehouse (5 on the D6) adds one by its entrance.
    plain = card(blocks=2, block_faces=[3, 4])
    assert len(plain["suspects"]) == 3
    warehouses = card(blocks=2, block_faces=[5, 5], extra_suspects=2)
    assert len(warehouses["suspects"]) == 3 + 2 + 2
    assert [b["name"] for b in warehouses["blocks"]] == ["Warehouse", "Warehouse"]


def test_city_markers_are_six_plus_one_per_commercial_block_or_none_when_left_out() -> None:
    # p.124: 6 City markers, +1 by any Commercial block (1-2); a first game may leave them out.
    assert card(blocks=3, block_faces=[1, 2, 6])["city_markers"] == 8
    off = card(blocks=3, block_faces=[1, 2, 6], city_markers=False)
    assert off["city_markers"] == 0 and not off["city_markers_in_use"]
    assert any("abandoned" in n for n in card(blocks=1, block_faces=[6])["notes"])


def test_entry_points_are_rolled_for_everyone_but_the_captain_who_comes_last() -> None:
    # p.124: a direction die per figure; the captain arrives last.
    got = card(entry_faces=[3, 9])
    assert [e["name"] for e in got["entries"]] == ["Bo", "Kit"]
    assert got["entries"][0]["edge"] == "3 o'clock (right edge)" and got["entries"][1]["edge"] == "9 o'clock (left edge)"
    assert got["captain"] == "Ria"
    with pytest.raises(TrackerError) as err:
        card(entry_faces=[3])
    assert err.value.field == "entry_faces"


@pytest.mark.parametrize(
    ("key", "face", "name"), [(k, f, n) for (n, k), f in zip(s.setup.c.OBJECTIVE_KEYS.items(), OBJECTIVE.values(), strict=True)]
)
def test_every_objective_row_is_rolled_from_its_d100_range(key: str, face: int, name: str) -> None:
    # pp.127-128
    got = card(key)
    assert got["objective"]["name"] == name and got["objective"]["key"] == key
    assert got["rolls"][2]["reason"] == "Street Fight objective" and got["rolls"][2]["total"] == face


def test_package_objectives_add_their_suspects_and_a_small_table_a_second_one() -> None:
    # p.128: Deliver adds a Suspect at the center; Retrieve one on the package, and a second 6"
    # away when the center is under 15" from the edge (a 2-foot table: 12").
    assert len(card("deliver")["suspects"]) == 4
    assert len(card("retrieve", table_ft=3)["suspects"]) == 4
    small = card("retrieve", table_ft=2, direction_face=12)
    assert len(small["suspects"]) == 5 and "12 o'clock" in small["suspects"][-1]["where"]


def test_the_set_up_says_no_minis_play_is_not_supported_and_why() -> None:
    got = card()
    assert got["nominis"]["supported"] is False and "Suspect" in got["nominis"]["why"]
    assert "Escalating Battles (p.46)" in got["not_used"] and "Morale" in got["not_used"]


def test_every_set_up_roll_is_logged_with_its_reason() -> None:
    got = s.generate(Dice(seed=5), TABLES, crew=CREW, blocks=3)
    reasons = [r["reason"] for r in got["rolls"]]
    assert reasons[:3] == ["Building of block 1", "Building of block 2", "Building of block 3"]
    assert "Street Fight objective" in reasons and "Entry point of Bo" in reasons


def test_bad_set_up_arguments_name_their_field() -> None:
    for kw, field in (
        ({"crew": []}, "crew"),
        ({"crew": CREW, "blocks": 20}, "blocks"),
        ({"crew": CREW, "enemy": "Pirates"}, "enemy"),
    ):
        with pytest.raises(TrackerError) as err:
            s.generate(Dice(seed=1), TABLES, **kw)
        assert err.value.field == field


# -- the round and Suspect markers (pp.124-126) ------------------------------------------------------


def test_the_round_runs_reactions_quick_enemy_slow_end() -> None:
    state = act(new(), "next_phase")
    assert (state["round"], state["phase"]) == (1, "start")
    with pytest.raises(TrackerError):
        act(state, "next_phase")  # Reactions first
    state = act(state, "roll_reactions", faces=[2, 1, 6])
    state = act(state, "assign_reaction", figure="c1", die=1)
    state = act(state, "assign_reaction", figure="c3", die=3)
    assert state["crew"][0]["slot"] == "quick" and state["crew"][2]["slot"] == "slow"
    for phase in ("quick", "enemy", "slow", "end", "start"):
        state = act(state, "next_phase", city_face=1)
        assert state["phase"] == phase
    assert state["round"] == 2 and state["reaction_dice"] == []


def test_a_player_assigns_only_their_own_figure() -> None:
    state = act(act(new(), "next_phase"), "roll_reactions", faces=[1, 2, 3])
    ok = act(state, "assign_reaction", role=Role.PLAYER, actor="7", figure="c2", die=2)
    assert ok["crew"][1]["face"] == 2
    with pytest.raises(NotYours):
        act(state, "assign_reaction", role=Role.PLAYER, actor="7", figure="c1", die=1)


def test_suspects_act_once_a_round_and_pursue_or_place_one_city_marker() -> None:
    # p.125: 5 Pursue (no more rolls); 6 a City marker once a round, later 6s Stay.
    state = in_phase(new(), "enemy")
    markers = state["city"]["markers"]
    state = act(state, "suspects_act", faces=[5, 6, 6])
    assert [m["pursuing"] for m in state["suspects"]] == [True, False, False]
    assert state["city"]["markers"] == markers + 1
    with pytest.raises(TrackerError):
        act(state, "suspects_act", faces=[1, 1])
    state = in_phase(act(state, "next_phase"), "enemy")
    state = act(state, "suspects_act", faces=[2, 3])  # only the two that do not pursue roll
    assert 's1 move 4"' in state["last"]["text"]


def test_identifying_a_suspect_reveals_the_opposition_rolled_at_the_first_enemy() -> None:
    # p.125 (3-5 Enemy), p.129 (D100: 23-32 Main Gang), later reveals are the same type.
    state = in_phase(new(), "quick")
    state = act(state, "identify", figure="c1", suspect="s1", face=4, enemy_face=25)
    assert [e["type"] for e in state["enemies"]] == ["Main Gang"]
    assert state["enemies"][0]["combat_skill"] == 1 and state["enemies"][0]["revealed_by"] == "c1"
    state = act(state, "identify", figure="c2", suspect="s2", face=3, enemy_face=99)
    assert [e["type"] for e in state["enemies"]] == ["Main Gang", "Main Gang"]
    assert "s1" not in [m["id"] for m in state["suspects"]]


def test_nothing_and_possible_enemy_depend_on_pursuit_and_an_ambush_places_two() -> None:
    # p.125: 1 nothing; 2 an enemy only if pursuing; 6 Ambush, a second enemy 6" from the spotter.
    state = in_phase(new(), "enemy")
    state = act(state, "suspects_act", faces=[5, 1, 1])
    state = act(state, "identify", figure="c1", suspect="s2", face=2)
    assert state["enemies"] == []
    state = act(state, "identify", figure="c1", suspect="s1", face=2, enemy_face=1)
    assert len(state["enemies"]) == 1 and state["enemies"][0]["type"] == "Hit Squad"
    state = act(state, "identify", figure="c3", suspect="s3", face=6, direction_face=6)
    assert len(state["enemies"]) == 3 and "6\" from Kit toward 6 o'clock" in state["enemies"][-1]["where"]


def test_spooks_make_every_suspect_pursue_now_and_later() -> None:
    # p.129: once Spooks are revealed, every Suspect marker, now and later, Pursues.
    state = in_phase(new(), "quick")
    state = act(state, "identify", figure="c1", suspect="s1", face=4, enemy_face=10)
    assert all(m["pursuing"] for m in state["suspects"])
    state = in_phase(act(state, "next_phase"), "enemy")
    state = act(state, "trouble", enemy="e1", face=1)
    assert state["suspects"][-1]["pursuing"] is True


def test_weird_place_rolls_a_second_type_then_either_at_even_chance() -> None:
    # p.129 It's a Weird Place.
    state = in_phase(new(weird_place=True), "quick")
    state = act(state, "identify", figure="c1", suspect="s1", face=4, enemy_face=25)
    state = act(state, "identify", figure="c1", suspect="s2", face=4, enemy_face=70)
    assert [t["name"] for t in state["enemy_types"]] == ["Main Gang", "Vigilantes"]
    state = act(state, "identify", figure="c1", suspect="s3", face=4, type_face=5)
    assert state["enemies"][-1]["type"] == "Vigilantes"


def test_a_known_opposition_is_used_from_the_first_reveal() -> None:
    # p.133 Resolving Enemies: a known opposition needs no roll.
    state = in_phase(new(enemy="Tech Cultists"), "quick")
    state = act(state, "identify", figure="c1", suspect="s1", face=4)
    assert state["enemies"][0]["type"] == "Tech Cultists" and state["enemies"][0]["armor_save"] == 6


def test_starting_trouble_places_one_suspect_a_round_on_a_one() -> None:
    # p.126
    state = in_phase(new(), "quick")
    state = act(act(state, "identify", figure="c1", suspect="s1", face=6, enemy_face=50, direction_face=1), "next_phase")
    count = len(state["suspects"])
    state = act(state, "trouble", enemy="e1", face=1)
    state = act(state, "trouble", enemy="e2", face=1)
    assert len(state["suspects"]) == count + 1
    state = act(state, "trouble", enemy="e2", face=4)
    assert len(state["suspects"]) == count + 1


def test_evasion_moves_an_inch_for_each_point_over_four_once_a_round() -> None:
    # p.126: 1D6 + Savvy; Kit (Savvy +2) rolls 5 -> 7 -> 3".
    state = in_phase(new(), "enemy")
    new_state, events = s.apply(state, Action("evade", {"figure": "c3", "face": 5}), Dice(seed=1), TABLES)
    assert events[0].data["inches"] == 3
    with pytest.raises(TrackerError):
        act(new_state, "evade", figure="c3", face=6)
    _, events = s.apply(state, Action("evade", {"figure": "c2", "face": 4}), Dice(seed=1), TABLES)
    assert events[0].data["inches"] == 0


# -- City markers and the law (pp.133-136) --------------------------------------------------------------


def test_the_city_marker_event_is_rolled_once_at_the_end_of_the_slow_phase() -> None:
    # p.133: 6 places a City marker; without City markers nothing is rolled.
    state = in_phase(new(), "slow")
    markers = state["city"]["markers"]
    state = act(state, "next_phase", city_face=6)
    assert state["city"]["markers"] == markers + 1 and state["phase"] == "end"
    off = in_phase(new(city_markers=False), "slow")
    _, events = s.apply(off, Action("next_phase", {}), Dice(seed=1), TABLES)
    assert not any(e.type == "city_event" for e in events)


@pytest.mark.parametrize(
    ("face", "check"),
    [
        (5, lambda st: st["crew"][0]["stun"] == 1 and st["city"]["crowds"] == 1),  # Jostled, then 4-6 a crowd
        (20, lambda st: st["pay"]["quest_clues"] == 1),  # Informer
        (43, lambda st: st["city"]["roadblocks"] == 1),
        (53, lambda st: st["city"]["reporters"] == 1),
        (60, lambda st: st["enemies"][0]["type"] == "Slasher" and st["enemies"][0]["combatant"]),
        (95, lambda st: len(st["suspects"]) == 4),  # Looking suspicious: a Suspect and a City marker
        (85, lambda st: st["sirens"] == {"clock": 0, "arrived": False, "why": "a City marker"}),
    ],
)
def test_finding_a_city_marker_applies_its_result(face: int, check: Any) -> None:
    # pp.134-135
    state = in_phase(new(), "quick")
    state = act(state, "city_reveal", figure="c1", face=face, follow_face=5, combatant_face=65)
    assert check(state), state["last"]


def test_curiosity_may_give_two_quest_clues() -> None:
    # p.134: Curiosity, then a D6 when picked up: 5-6 two Quest Clues.
    state = act(in_phase(new(), "quick"), "city_reveal", figure="c1", face=12)
    assert act(state, "curiosity", figure="c2", face=5)["pay"]["quest_clues"] == 2
    assert act(state, "curiosity", figure="c2", face=4)["pay"]["quest_clues"] == 0


def test_its_a_set_up_brings_four_pursuing_suspects_at_the_round_end() -> None:
    # p.135
    state = act(in_phase(new(), "quick"), "city_reveal", figure="c1", face=72)
    state = in_phase(state, "end")
    assert len(state["suspects"]) == 3 + 4 and all(m["pursuing"] for m in state["suspects"][3:])


def test_gang_turf_arrives_at_the_end_of_the_following_round() -> None:
    # p.135: six gangers on three edges; Urban Separatists then call three more (p.129).
    state = in_phase(new(enemy="Urban Separatists"), "quick")
    state = act(state, "city_reveal", figure="c1", face=78)
    state = in_phase(state, "end")
    assert state["enemies"] == []
    state = in_phase(act(state, "next_phase"), "end")
    assert [e["type"] for e in state["enemies"]].count("Gang turf ganger") == 6
    assert [e["weapons"] for e in state["enemies"] if e["type"] == "Urban Separatists"] == [
        "Rattle gun",
        "Colony rifle",
        "Colony rifle",
    ]


def test_the_siren_clock_brings_six_enforcers_at_ten() -> None:
    # p.135: the clock advances 1D6 each round end, this one included; at 10 the law arrives.
    state = act(in_phase(new(), "quick"), "city_reveal", figure="c1", face=85)
    state = in_phase(state, "slow")
    state = act(state, "next_phase", city_face=1, siren_face=6)
    assert state["sirens"]["clock"] == 6 and not any(e["law"] for e in state["enemies"])
    state = in_phase(act(state, "next_phase"), "slow")
    state = act(state, "next_phase", city_face=1, siren_face=4, law_edge_face=3)
    assert sum(e["law"] for e in state["enemies"]) == 6 and state["sirens"]["arrived"]


def test_a_reporter_watching_crew_fire_starts_sirens_and_gives_an_enforcer_rival() -> None:
    # p.135
    state = act(in_phase(new(), "quick"), "city_reveal", figure="c1", face=52)
    state = act(state, "reporter", crew="on")
    assert state["sirens"] is not None and state["pay"]["rivals"] == ["Enforcer"]


def arrive(state: dict[str, Any]) -> dict[str, Any]:
    """The law on the table (Siren clock 6 + 4), in round 2's Quick phase."""
    state = act(in_phase(state, "quick"), "city_reveal", figure="c1", face=85)
    state = act(in_phase(state, "slow"), "next_phase", city_face=1, siren_face=6)
    state = act(in_phase(act(state, "next_phase"), "slow"), "next_phase", city_face=1, siren_face=4, law_edge_face=1)
    return in_phase(act(state, "next_phase"), "quick")


def test_surrender_levels_follow_who_attacked_the_law() -> None:
    # p.136: Level 1 needs 6+ (Kit, Savvy +2, rolls 4 -> 6 talks free); Level 2 once anyone fired
    # on the law (8+, else 1D6+2 turns, weapons taken); Level 3 for the shooter: prison planet.
    state = arrive(new())
    free = act(state, "surrender", figure="c3", face=4)
    assert free["crew"][2]["status"] == "escaped" and free["detained"] == []
    shot = act(state, "attack_law", figure="c1")
    held = act(shot, "surrender", figure="c3", face=5, turns_face=2)
    assert held["detained"][0]["level"] == 2 and held["detained"][0]["turns"] == 4 and held["detained"][0]["confiscated"] == "all"
    jailed = act(shot, "surrender", figure="c1")
    assert jailed["detained"][0]["prison"] and jailed["crew"][0]["status"] == "detained"


def test_an_enforcer_rival_makes_every_surrender_level_three() -> None:
    # p.136
    state = arrive(new(rivals=["enforcer"]))
    assert act(state, "surrender", figure="c2")["detained"][0]["level"] == 3


# -- objectives and the end (pp.126-128, 136) ----------------------------------------------------------


def test_contact_then_escape_wins_and_the_fight_ends_when_nobody_is_left() -> None:
    # p.127 Contact; p.136: you always leave the table to finish.
    state = act(in_phase(new("contact"), "quick"), "contact", figure="c2")
    assert state["objective"]["done"]
    for fig in ("c1", "c2", "c3"):
        state = act(state, "escape", figure=fig)
    assert state["phase"] == "over" and state["won"] is True and state["held_field"] is False
    out = s.outcome(state)
    assert out["won"] and out["casualties"] == [] and out["street"]["escaped"] == ["Ria", "Bo", "Kit"]


def test_locate_finds_the_individual_when_the_d6_is_at_or_under_the_markers_removed() -> None:
    # p.127
    state = in_phase(new("locate"), "quick")
    state = act(state, "locate", figure="c1", face=2)
    assert state["individual"]["status"] == "hidden" and state["objective"]["markers_left"] == 5
    state = act(state, "locate", figure="c1", face=2)
    assert state["individual"]["status"] == "wandering"
    assert act(state, "individual_off")["objective"]["done"]
    failed = act(state, "individual", status="casualty")
    assert failed["objective"]["failed"]


def test_surveillance_needs_three_round_ends_and_not_while_panicked() -> None:
    # p.127
    state = new("surveil")
    for _ in range(3):
        state = act(in_phase(state, "quick"), "surveil", figure="c1")
        state = in_phase(state, "end")
    assert state["objective"]["surveilled"] == 3 and state["objective"]["done"]
    panicked = act(in_phase(new("surveil"), "quick"), "individual", status="panicked")
    with pytest.raises(TrackerError):
        act(panicked, "surveil", figure="c1")


def test_confront_results() -> None:
    # p.127: 1-2 Terrified (won Brawl), 3-4 a Street Combatant to down, 5-6 threaten 6+.
    state = in_phase(new("confront"), "quick")
    fight = act(state, "confront", figure="c1", face=3, combatant_face=70)
    foe = fight["enemies"][0]
    assert foe["type"] == "Criminal" and foe["individual"]
    done = act(fight, "adjust", enemy=foe["id"], status="casualty", bounty_face=6)
    assert done["objective"]["done"] and done["pay"]["credits"] == 2
    rival = act(fight, "adjust", enemy=foe["id"], status="casualty", bounty_face=1)
    assert rival["pay"]["rivals"] == ["Gang"]
    threat = act(state, "confront", figure="c1", face=6)
    assert not act(threat, "threaten", figure="c2", face=5)["objective"]["done"]
    assert act(threat, "threaten", figure="c3", face=4)["objective"]["done"]
    scared = act(state, "confront", figure="c1", face=1)
    assert act(scared, "objective_done")["objective"]["done"]


def test_rescue_needs_a_corral_and_sets_the_nearest_suspect_pursuing() -> None:
    # p.127 Rescue; corral 1D6 + Savvy 5+ (p.126).
    state = in_phase(new("rescue"), "quick")
    with pytest.raises(TrackerError):
        act(state, "individual_off")
    assert not act(state, "corral", figure="c2", face=4)["objective"]["corralled"]
    state = act(state, "corral", figure="c1", face=4, suspect="s2")
    assert state["objective"]["corralled"] and state["suspects"][1]["pursuing"]
    assert act(state, "individual_off")["objective"]["done"]


def test_a_downed_package_carrier_drops_it_and_a_one_destroys_it() -> None:
    # p.126 Packages; p.128 Deliver.
    state = in_phase(new("deliver"), "quick")
    state = act(state, "package", figure="c2", do="pick_up")
    broken = act(state, "adjust", figure="c2", status="casualty", drop_face=1)
    assert broken["package"]["status"] == "destroyed" and broken["objective"]["failed"]
    dropped = act(state, "adjust", figure="c2", status="casualty", drop_face=3)
    assert dropped["package"]["status"] == "dropped" and not dropped["objective"]["failed"]
    handed = act(act(state, "package", figure="c2", do="hand_off", to="c3"), "package", figure="c3", do="place")
    assert handed["objective"]["done"]


def test_retrieve_is_done_when_the_carrier_gets_off_the_table() -> None:
    # p.128
    state = act(in_phase(new("retrieve"), "quick"), "package", figure="c1", do="pick_up")
    state = act(state, "escape", figure="c1")
    assert state["objective"]["done"] and state["package"]["status"] == "off_table"


def test_holding_the_field_needs_every_enemy_and_suspect_cleared() -> None:
    # p.136 Payoffs.
    state = in_phase(new("contact"), "quick")
    assert act(state, "end_battle")["held_field"] is False
    for marker in ("s1", "s2", "s3"):
        state = act(state, "identify", figure="c1", suspect=marker, face=1)
    cleared = act(state, "end_battle")
    assert cleared["held_field"] is True and s.outcome(cleared)["held_field"] is True
    assert s.outcome(cleared)["won"] is False  # no message delivered


def test_street_combatants_hold_one_stun_marker_and_an_assassin_leaves_with_its_mark() -> None:
    # p.132
    state = act(in_phase(new(), "quick"), "city_reveal", figure="c1", face=60, combatant_face=20)
    state = act(act(state, "adjust", enemy="e1", stun_change=1), "adjust", enemy="e1", stun_change=1)
    assert state["enemies"][0]["stun"] == 1 and state["enemies"][0]["type"] == "Assassin"
    state = act(state, "adjust", figure="c1", status="casualty")
    assert state["enemies"][0]["status"] == "fled"


def test_refused_actions_name_the_field_and_change_nothing() -> None:
    state = in_phase(new(), "quick")
    before = repr(state)
    for type_, payload, field in (
        ("identify", {"figure": "c1", "suspect": "s9"}, "suspect"),
        ("identify", {"figure": "c9", "suspect": "s1"}, "figure"),
        ("city_reveal", {"figure": "c1", "face": 101}, "face"),
        ("package", {"figure": "c1", "do": "pick_up"}, "type"),
        ("warp", {}, "type"),
    ):
        with pytest.raises(TrackerError) as err:
            s.apply(state, Action(type_, payload), Dice(seed=1), TABLES)
        assert err.value.field == field
    assert repr(state) == before


def test_a_log_replays_to_the_same_state_and_undo_is_replay_without_the_last() -> None:
    start = new("deliver")
    log = [
        (Action("next_phase", {}), 1),
        (Action("roll_reactions", {}), 2),
        (Action("next_phase", {}), 3),
        (Action("package", {"figure": "c1", "do": "pick_up"}), 4),
        (Action("identify", {"figure": "c1", "suspect": "s1"}), 5),
        (Action("city_reveal", {"figure": "c2"}), 6),
    ]

    def reducer(state: dict[str, Any], action: Action, dice: Dice) -> tuple[dict[str, Any], list[Any]]:
        return s.apply(state, action, dice, TABLES)

    states = [start]
    for action, seed in log:
        states.append(s.apply(states[-1], action, Dice(seed=seed), TABLES)[0])
    assert replay(start, log, reducer) == states[-1]
    assert replay(start, log[:-1], reducer) == states[-2]


# -- the opposition's own rules (pp.129-132) -----------------------------------------------------------


def test_gang_turf_against_a_gang_brings_a_rival_gang_of_the_same_kind() -> None:
    # p.129: another gang is a rival Gutter Gang / Main Gang; p.135 Gang turf.
    state = act(in_phase(new(enemy="Gutter Gang"), "quick"), "city_reveal", figure="c1", face=78)
    state = in_phase(act(in_phase(state, "end"), "next_phase"), "end")
    rivals = [e for e in state["enemies"] if e["type"] == "Rival Gutter Gang"]
    assert len(rivals) == 6 and rivals[0]["weapons"] == "Hand gun" and rivals[0]["toughness"] == 4


def test_neon_barbarians_ignore_a_well_spoken_figure_on_seven_plus() -> None:
    # p.131: Savvy test 7+ (Kit +2 rolls 5).
    state = act(in_phase(new(enemy="Neon Barbarians"), "quick"), "identify", figure="c1", suspect="s1", face=4)
    assert not act(state, "savvy", figure="c3", test="neon_barbarians", face=4)["crew"][2]["barbarians_ignore"]
    assert act(state, "savvy", figure="c3", test="neon_barbarians", face=5)["crew"][2]["barbarians_ignore"]


def test_a_haywire_bot_beaten_in_a_brawl_may_join_the_crew() -> None:
    # p.132: 1D6 + Savvy 7+.
    state = act(in_phase(new(), "quick"), "city_reveal", figure="c1", face=60, combatant_face=5)
    assert state["enemies"][0]["type"] == "Haywire Bot"
    joined = act(state, "savvy", figure="c3", test="haywire_bot", enemy="e1", face=5)
    assert joined["enemies"][0]["status"] == "ally" and s.outcome(joined)["enemies_fled"] == 0


def test_terror_faction_plants_a_bomb_that_goes_off_on_one_or_two_and_calls_sirens() -> None:
    # p.131
    state = act(in_phase(new(enemy="Terror Faction"), "quick"), "identify", figure="c1", suspect="s1", face=4)
    state = in_phase(act(state, "next_phase"), "enemy")
    assert not act(state, "terror", enemy="e1", face=2)["enemies"][0].get("bomber")
    state = act(state, "terror", enemy="e1", face=1)
    assert state["enemies"][0]["bomber"]
    ticking = act(state, "terror", enemy="e1", plant="on", bomb_face=5)
    assert [b["id"] for b in ticking["bombs"]] == ["b1"] and ticking["sirens"] is None
    boom = act(ticking, "terror", bomb="b1", bomb_face=2)
    assert boom["bombs"] == [] and boom["sirens"]["why"] == "a bomb went off"
    disarmed = act(in_phase(act(ticking, "next_phase"), "quick"), "savvy", figure="c3", test="disarm_bomb", bomb="b1", face=4)
    assert disarmed["bombs"] == []


def test_what_the_fight_pays_comes_out_as_campaign_changes() -> None:
    # p.133 Criminal bounty, p.135 Reporter's Enforcer Rival, p.134 Quest Clues, p.136 the law.
    fig = dict(CREW[2], ref=42)
    state = s.initial_state(s.generate(Dice(seed=1), TABLES, crew=[CREW[0], CREW[1], fig], objective_face=5), TABLES)
    state = act(in_phase(state, "quick"), "city_reveal", figure="c1", face=20)  # Informer
    state = act(state, "city_reveal", figure="c1", face=53)  # Reporter
    state = act(state, "reporter", crew="on")
    state = act(state, "city_reveal", figure="c1", face=60, combatant_face=70)  # a Criminal
    state = act(state, "adjust", enemy="e1", status="casualty", bounty_face=6)
    state["sirens"]["clock"] = 9
    state = act(in_phase(state, "slow"), "next_phase", siren_face=1, law_edge_face=1)
    state = act(in_phase(act(state, "next_phase"), "quick"), "surrender", figure="c3", face=1, turns_face=3)
    state = act(state, "end_battle")
    kinds = [
        (c["kind"], c["data"].get("name") or c["data"].get("amount") or c["data"].get("id"))
        for c in s.outcome(state)["street"]["changes"]
    ]
    assert kinds == [("credits", 2), ("rival_add", "Enforcer Rival"), ("note", None), ("character", 42)]
    assert "3 campaign turns" in s.outcome(state)["street"]["changes"][-1]["data"]["note"]


def test_street_combatants_stun_and_casualty_rules() -> None:
    # pp.132-133: Combat Bot never Stunned; the Slasher cannot be eliminated; a Roid-head
    # shrugs off its first casualty.
    base = in_phase(new(), "quick")
    bot = act(base, "city_reveal", figure="c1", face=60, combatant_face=50)
    assert act(bot, "adjust", enemy="e1", stun_change=1)["enemies"][0]["stun"] == 0
    slasher = act(base, "city_reveal", figure="c1", face=60, combatant_face=65)
    with pytest.raises(TrackerError) as err:
        act(slasher, "adjust", enemy="e1", status="casualty")
    assert err.value.field == "status"
    roid = act(base, "city_reveal", figure="c1", face=60, combatant_face=30)
    once = act(roid, "adjust", enemy="e1", status="casualty")
    assert once["enemies"][0]["status"] == "active" and once["enemies"][0]["shrugged"]
    assert act(once, "adjust", enemy="e1", status="casualty")["enemies"][0]["status"] == "casualty"


def test_roid_gangers_shout_then_shed_every_stun_marker() -> None:
    # p.130
    state = act(in_phase(new(enemy="Roid Gangers"), "quick"), "identify", figure="c1", suspect="s1", face=4)
    state = act(act(state, "adjust", enemy="e1", stun_change=1), "adjust", enemy="e1", stun_change=1)
    state = act(in_phase(state, "enemy"), "shout", enemy="e1")
    assert state["enemies"][0]["shout"] and state["enemies"][0]["stun"] == 2
    state = act(state, "shout", enemy="e1")
    assert not state["enemies"][0]["shout"] and state["enemies"][0]["stun"] == 0
