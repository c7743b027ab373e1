"""The Five Parsecs battle tracker reducer: round flow, options on and off, combat and the outcome."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from battles.engine import fp_tracker as t
from live.engine.tracker import Action, NotYours, Role, TrackerError, replay
from rules.engine.dice import Dice
from rules.fixturefiles import read_all

TABLES = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}

PROFILE = {"speed": 4, "combat_skill": 0, "toughness": 3}


def setup(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "crew": [
            {
                "name": "Ria",
                "reactions": 2,
                "speed": 5,
                "combat_skill": 1,
                "toughness": 4,
                "savvy": 1,
                "weapons": ["Military rifle"],
                "captain": True,
            },
            {
                "name": "Bo",
                "reactions": 1,
                "speed": 4,
                "combat_skill": 0,
                "toughness": 3,
                "weapons": ["Blade", "Hand gun"],
                "owner": "7",
            },
            {"name": "Kit", "reactions": 1, "speed": 4, "combat_skill": 0, "toughness": 3, "weapons": ["Colony rifle"]},
        ],
        "enemies": [
            {"name": "Punks", "count": 3, "profile": PROFILE, "weapons": ["Scrap pistol"], "panic": "1-2", "specialists": 1}
        ],
        "options": {"dramatic_combat": True},
        "seize_dice": "2D6",
        "seize_target": 10,
        "ai": "tactical",
    }
    for key, value in changes.items():
        if key == "options":
            base["options"] = {**base["options"], **value}
        else:
            base[key] = value
    return base


def new(**changes: Any) -> dict[str, Any]:
    return t.initial_state(setup(**changes), TABLES)


def play(
    state: dict[str, Any], type_: str, seed: int = 1, role: Role = Role.OWNER, actor: str = "1", **payload: Any
) -> tuple[dict[str, Any], list[Any]]:
    return t.apply(state, Action(type_, payload, actor=actor, role=role), Dice(seed=seed), TABLES)


def run(state: dict[str, Any], *steps: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    for type_, payload in steps:
        state, _ = play(state, type_, **payload)
    return state


def to_quick(state: dict[str, Any], faces: str = "1, 5, 6") -> dict[str, Any]:
    """Start round 1 (or the next) and put Ria in the Quick phase, Bo and Kit in the Slow phase."""
    if state["phase"] in ("setup", "end"):
        state, _ = play(state, "next_phase")
    state = run(state, ("roll_reactions", {"faces": faces}))
    for n, fig in enumerate(f for f in state["crew"] if f["status"] == "active"):
        state, _ = play(state, "assign_reaction", figure=fig["id"], die=n + 1)
    state, _ = play(state, "next_phase")
    return state


def end_round(state: dict[str, Any], **payload: Any) -> tuple[dict[str, Any], list[Any]]:
    """From the Quick phase to the End phase; returns the End phase's events."""
    while state["phase"] != "slow":
        state, _ = play(state, "next_phase")
    return play(state, "next_phase", **payload)


def kill(state: dict[str, Any], eid: str) -> dict[str, Any]:
    return play(state, "adjust", enemy=eid, status="casualty")[0]


def texts(events: list[Any]) -> str:
    return " ".join(e.text for e in events)


# -- set-up ------------------------------------------------------------------------------------


def test_set_up_builds_crew_and_enemy_figures() -> None:
    state = new()
    assert [f["name"] for f in state["crew"]] == ["Ria", "Bo", "Kit"]
    assert [f["name"] for f in state["enemies"]] == ["Punks 1", "Punks 2", "Punks 3", "Punks specialist 1"]
    assert state["crew"][0]["boss"] and not state["crew"][1]["boss"]
    assert state["crew"][0]["weapons"][0] == {
        "name": "Military rifle",
        "range": 24,
        "shots": 1,
        "damage": 0,
        "traits": [],
        "no_damage": False,
    }
    assert state["groups"][0]["panic"] == 2 and state["groups"][0]["panic_now"] == 2
    assert state["phase"] == "setup" and state["round"] == 0


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"crew": []}, "crew"),
        ({"enemies": []}, "enemies"),
        ({"ai": "sneaky"}, "ai"),
        ({"enemies": [{"name": "Punks", "count": 2, "profile": PROFILE, "panic": "2-4"}]}, "enemies[0].panic"),
        ({"crew": [{"name": "Ria", "speed": 4, "combat_skill": 0, "toughness": 3}]}, "crew[0].reactions"),
        (
            {"crew": [{"name": "Ria", "reactions": 1, "speed": 4, "combat_skill": 0, "toughness": 3, "weapons": ["Death ray"]}]},
            "crew[0].weapons[0]",
        ),
        ({"options": {"turbo": True}}, "options"),
    ],
)
def test_a_bad_set_up_names_the_field(change: dict[str, Any], field: str) -> None:
    with pytest.raises(TrackerError) as refused:
        new(**change)
    assert refused.value.field == field


def test_typed_core_weapons_are_accepted() -> None:
    crew = [
        {
            "name": "Ria",
            "reactions": 1,
            "speed": 4,
            "combat_skill": 0,
            "toughness": 3,
            "weapons": [{"name": "Our rifle", "range": 20, "shots": 2, "damage": 1, "traits": ["Heavy"]}],
        }
    ]
    state = new(crew=crew)
    assert state["crew"][0]["weapons"][0]["traits"] == ["heavy"] and state["crew"][0]["weapons"][0]["shots"] == 2


# -- Seize the Initiative and the round -------------------------------------------------------------


def test_seize_the_initiative_uses_the_users_core_numbers_and_modifiers() -> None:
    seized, events = play(new(seize_modifier=1), "seize", faces="5, 4")
    assert seized["seize"]["result"] == "seized" and seized["seize"]["total"] == 10
    assert events[0].data["rolls"][0]["faces"] == [5, 4] and events[0].data["rolls"][0]["entered"]
    failed, _ = play(new(), "seize", faces="5, 4")
    assert failed["seize"]["result"] == "failed"
    unmodified, _ = play(new(seize_modifier=1, seize_no_modifiers=True), "seize", faces="5, 4")
    assert unmodified["seize"]["result"] == "failed"
    with pytest.raises(TrackerError) as refused:
        play(new(seize_target=None), "seize")
    assert refused.value.field == "seize_target"
    blocked, events = play(new(seize_allowed=False), "seize")
    assert blocked["seize"]["result"] == "not_allowed" and "rolls" not in events[0].data


def test_reaction_dice_send_figures_to_the_quick_or_slow_phase() -> None:
    state, _ = play(new(), "next_phase")
    assert state["phase"] == "start" and state["round"] == 1
    state, events = play(state, "roll_reactions", faces="2, 2, 1")
    assert events[0].data["rolls"][0]["faces"] == [2, 2, 1]
    state, _ = play(state, "assign_reaction", figure="c1", die=1)  # 2 against Reactions 2: Quick
    state, _ = play(state, "assign_reaction", figure="c2", die=2)  # 2 against Reactions 1: Slow
    with pytest.raises(TrackerError, match="Assign a Reaction die to Kit"):
        play(state, "next_phase")
    with pytest.raises(TrackerError, match=r"Die 1 \(a 2\) is Ria's") as taken:
        play(state, "assign_reaction", figure="c3", die=1)
    assert taken.value.field == "die"
    state, events = play(state, "assign_reaction", figure="c3", die=1, reassign="on")  # the owner moves it, and says so
    assert "taken from Ria" in events[0].text and state["crew"][0]["die"] is None
    assert events[0].data["taken_from"] == "c1"
    state, _ = play(state, "assign_reaction", figure="c1", die=3)
    assert [f["slot"] for f in state["crew"]] == ["quick", "slow", "slow"]
    state, _ = play(state, "next_phase")
    assert state["phase"] == "quick" and "Ria to act" in state["now"]
    with pytest.raises(TrackerError, match="Slow Action phase"):
        play(state, "act", figure="c2")
    state, _ = play(state, "act", figure="c1")
    with pytest.raises(TrackerError, match="already acted"):
        play(state, "act", figure="c1")


def test_players_act_only_for_their_own_figures() -> None:
    state, _ = play(new(), "next_phase")
    state, _ = play(state, "roll_reactions", faces="1, 1, 1")
    state, _ = play(state, "assign_reaction", role=Role.PLAYER, actor="7", figure="c2", die=1)
    assert state["crew"][1]["face"] == 1
    with pytest.raises(NotYours):
        play(state, "assign_reaction", role=Role.PLAYER, actor="7", figure="c1", die=2)
    with pytest.raises(NotYours):
        play(state, "roll_reactions", role=Role.PLAYER, actor="7")


def test_a_die_a_players_figure_holds_is_never_taken_without_saying_so() -> None:
    state, _ = play(new(), "next_phase")
    state, _ = play(state, "roll_reactions", seed=42)  # the app's own seeded dice
    faces = state["reaction_dice"]
    state, _ = play(state, "assign_reaction", role=Role.PLAYER, actor="7", figure="c2", die=1)
    before = copy.deepcopy(state)
    with pytest.raises(TrackerError) as refused:
        play(state, "assign_reaction", figure="c1", die=1)
    assert refused.value.field == "die"
    assert f"Die 1 (a {faces[0]}) is Bo's" in refused.value.message
    assert state == before and state["crew"][1]["die"] == 0


def test_a_player_cannot_reassign_another_figures_die() -> None:
    state, _ = play(new(), "next_phase")
    state, _ = play(state, "roll_reactions", seed=7)
    state, _ = play(state, "assign_reaction", figure="c1", die=2)
    with pytest.raises(NotYours):
        play(state, "assign_reaction", role=Role.PLAYER, actor="7", figure="c2", die=2, reassign="on")
    with pytest.raises(TrackerError, match="is Ria's"):
        play(state, "assign_reaction", role=Role.PLAYER, actor="7", figure="c2", die=2)
    assert state["crew"][0]["die"] == 1 and state["crew"][1]["die"] is None


def test_the_die_picker_offers_the_first_free_die_and_names_the_holders() -> None:
    state, _ = play(new(), "next_phase")
    state, _ = play(state, "roll_reactions", faces="3, 5, 6")
    assert state["reaction_pick"]["first_free"] == 1
    state, _ = play(state, "assign_reaction", figure="c1", die=1)
    pick = state["reaction_pick"]
    assert pick["first_free"] == 2
    assert [(d["die"], d["face"], d["holder"], d["holder_name"]) for d in pick["dice"]] == [
        (1, 3, "c1", "Ria"),
        (2, 5, None, ""),
        (3, 6, None, ""),
    ]


def test_stun_markers_go_on_and_come_off_at_activation() -> None:
    state = to_quick(new())
    state, _ = play(state, "adjust", figure="c1", stun_change=1)
    state, _ = play(state, "adjust", figure="c1", stun_change=1)
    assert state["crew"][0]["stun"] == 2
    state, events = play(state, "act", figure="c1")
    assert state["crew"][0]["stun"] == 1 and "loses a Stun marker" in events[0].text
    state, _ = play(state, "adjust", figure="c1", stun_change=-1)
    with pytest.raises(TrackerError) as refused:
        play(state, "adjust", figure="c1", stun_change=-1)
    assert refused.value.field == "stun_change"


def test_the_reducer_is_deterministic_and_replays() -> None:
    start = new(options={"ai_variations": True})
    log = [
        (Action("next_phase"), 3),
        (Action("roll_reactions"), 4),
        (Action("assign_reaction", {"figure": "c1", "die": 1}), 5),
        (Action("assign_reaction", {"figure": "c2", "die": 2}), 6),
        (Action("assign_reaction", {"figure": "c3", "die": 3}), 7),
        (Action("next_phase"), 8),
        (Action("next_phase"), 9),
        (Action("enemy_act", {"enemy": "e1"}), 10),
    ]

    def reducer(state: dict[str, Any], action: Action, dice: Dice) -> tuple[dict[str, Any], list[Any]]:
        return t.apply(state, action, dice, TABLES)

    frozen = copy.deepcopy(start)
    assert replay(start, log, reducer) == replay(start, log, reducer)
    assert start == frozen  # the reducer never changes its input


# -- options ----------------------------------------------------------------------------------------


def test_deployment_variables_roll_after_a_failed_seize_only_when_on() -> None:
    on = new(ai="cautious", options={"deployment_variables": True})
    with pytest.raises(TrackerError, match="Seize the Initiative first"):
        play(on, "next_phase")
    state, events = play(on, "seize", faces="1, 1", deployment_face=75)
    assert state["deployment"]["key"] == "reinforced"
    assert [f["status"] for f in state["enemies"]] == ["active", "active", "held", "held"]
    assert events[1].data["rolls"][0]["total"] == 75
    seized, _ = play(on, "seize", faces="6, 6", deployment_face=75)
    assert seized["deployment"]["key"] == "line" and all(f["status"] == "active" for f in seized["enemies"])
    off, events = play(new(ai="cautious"), "seize", faces="1, 1", deployment_face=75)
    assert off["deployment"] is None and len(events) == 1


def test_the_set_up_cards_rolls_are_used_and_not_rolled_again() -> None:
    planned = {"deployment_face": 75, "time_limit": 8}
    on = new(ai="cautious", planned=planned, options={"deployment_variables": True, "paying_by_the_hour": True})
    state, events = play(on, "seize", faces="1, 1")
    assert state["deployment"]["key"] == "reinforced"  # the card's D100 75 (Cautious: Reinforced)
    record = events[1].data["rolls"][0]
    assert record["total"] == 75 and "set-up card" in record["reason"]
    state, events = play(state, "next_phase")
    assert state["time_limit"] == 8 and events[0].data == {} and "set-up card" in events[0].text
    # Dice typed at the table still win over the card.
    typed, _ = play(on, "seize", faces="1, 1", deployment_face=5)
    assert typed["deployment"]["key"] != "reinforced"
    typed, _ = play(typed, "next_phase", time_faces="1, 1")
    assert typed["time_limit"] == 5
    with pytest.raises(TrackerError, match="planned"):
        new(planned={"deployment_face": 101})


def test_reinforced_figures_arrive_with_two_more_when_the_die_is_at_or_under_the_round() -> None:
    state, _ = play(new(ai="cautious", options={"deployment_variables": True}), "seize", faces="1, 1", deployment_face=75)
    state = to_quick(state)
    state, events = end_round(state, reinforced_face=2)
    assert "stay away" in texts(events) and len(t._waiting(state)) == 2
    state = to_quick(state)
    state, events = end_round(state, reinforced_face=2)
    assert "come in" in texts(events) and not t._waiting(state) and len(t._on_table(state)) == 6


def test_concealed_groups_appear_in_rounds_two_to_four() -> None:
    state, events = play(new(ai="aggressive", options={"deployment_variables": True}), "seize", faces="1, 1", deployment_face=95)
    assert state["deployment"]["key"] == "concealed" and not t._on_table(state)
    state = to_quick(state)
    state, _ = end_round(state)
    assert state["phase"] == "end" and not t._on_table(state)  # not over: the groups are still to come
    state = to_quick(state)
    state, events = end_round(state, feature_faces=4)
    assert "appears in terrain feature 4" in texts(events) and len(t._on_table(state)) == 2


def test_escalation_checks_only_with_the_option_and_at_most_three() -> None:
    off = to_quick(new())
    off = kill(off, "e1")
    off, events = end_round(off, morale_faces="6", escalation_face=90)
    assert "Escalation" not in texts(events)

    state = to_quick(new(options={"escalating_battles": True}))
    state, events = end_round(state, escalation_face=90)
    assert "Escalation" not in texts(events)  # nothing happened this round
    state = to_quick(state)
    state = kill(state, "e1")
    state, events = end_round(state, morale_faces="6", escalation_face=90)  # Tactical 86-100
    assert "Unconventional tactics" in texts(events) and state["escalation"]["rolls"] == 1
    assert state["reactions_one_round"] == 3
    state = to_quick(state, faces="2, 1, 1")
    assert state["crew"][0]["slot"] == "slow"  # Ria's Reactions 2 count as 1 this round
    for _ in range(2):
        state, _ = play(state, "objective_reached")
        state, events = end_round(state, escalation_face=5)  # Morale increase
        state = to_quick(state)
    assert state["escalation"]["rolls"] == 3 and state["panic_shift"] == 2 and state["groups"][0]["panic_now"] == 0
    state, _ = play(state, "objective_reached")
    state, events = end_round(state, escalation_face=5)
    assert "Escalation" not in texts(events)


def test_variation_mode_ignores_a_repeat_without_counting_it() -> None:
    for variation, rolls in ((False, 2), (True, 1)):
        state = to_quick(new(options={"escalating_battles": True, "escalation_variation": variation}))
        for _ in range(2):
            state, _ = play(state, "objective_reached")
            state, events = end_round(state, escalation_face=50, objective_reached=True)  # Tactical: Sniper!
            state = to_quick(state)
        assert state["escalation"]["rolls"] == rolls
        assert sum(1 for f in state["enemies"] if "sniper" in f["name"]) == rolls
    assert "does not count" in texts(events)


def test_escalation_reinforcements_bring_three_against_a_combat_skill_zero_enemy() -> None:
    state = to_quick(new(options={"escalating_battles": True}))
    state, _ = play(state, "objective_reached")
    state, events = end_round(state, escalation_face=28, pick_faces="5")  # Tactical 26-30, edge 5: enemy edge
    added = [f for f in state["enemies"] if any("Reinforcements" in n for n in f["notes"])]
    assert [f["rank"] for f in added] == ["basic", "basic", "specialist"] and "enemy edge" in texts(events)


def test_morale_dice_per_casualty_against_the_panic_range() -> None:
    state = to_quick(new())
    state = kill(kill(state, "e1"), "e2")
    state, events = end_round(state, morale_faces="2, 3")
    morale = next(e for e in events if e.type == "morale")
    assert morale.data["rolls"][0]["faces"] == [2, 3] and morale.data["fled"] == ["e3"]
    assert state["enemies"][2]["status"] == "fled" and state["enemies"][3]["status"] == "active"


def test_elite_leadership_lowers_the_panic_range_while_the_leader_stands() -> None:
    group = {"name": "Mercs", "count": 3, "profile": PROFILE, "weapons": ["Military rifle"], "panic": "1", "captains": 1}
    plain = new(enemies=[group])
    elite = new(enemies=[{**group, "elite": True}])
    assert plain["groups"][0]["panic_now"] == 1 and elite["groups"][0]["panic_now"] == 0
    captain = next(f for f in elite["enemies"] if f["rank"] == "captain")
    assert captain["fearless"] and captain["save"] == 5 and captain["toughness"] == 5 and captain["combat_skill"] == 1
    assert "Ripper sword" in [w["name"] for w in captain["weapons"]]
    state = kill(to_quick(elite), captain["id"])
    assert state["groups"][0]["panic_now"] == 1  # the Captain is gone
    state, _ = end_round(kill(state, "e1"), morale_faces="1, 1")
    assert len([f for f in state["enemies"] if f["status"] == "fled"]) == 2


def test_fearless_enemies_roll_no_morale() -> None:
    state = to_quick(new(enemies=[{"name": "Bots", "count": 2, "profile": PROFILE, "weapons": ["Auto rifle"], "panic": 0}]))
    state, events = end_round(kill(state, "e1"), morale_faces="1")
    assert "Fearless, no Morale dice" in texts(events) and state["enemies"][1]["status"] == "active"


def test_progressive_option_one_adds_strength_and_respawns() -> None:
    off = new(campaign_turn=10)
    on = new(campaign_turn=10, options={"progressive": [1]})
    assert len(on["enemies"]) == len(off["enemies"]) + 2 and on["respawns"]["allowed"] == 2
    state = to_quick(on)
    state = kill(kill(kill(state, "e1"), "e2"), "e3")
    state, events = end_round(state, morale_faces="6, 6, 6")
    assert "Respawn" in texts(events) and state["respawns"]["used"] == 2
    assert len(t._on_table(state)) == len(on["enemies"]) - 3 + 2
    quiet = to_quick(off)
    quiet, events = end_round(kill(quiet, "e1"), morale_faces="6")
    assert "Respawn" not in texts(events)


def test_progressive_option_two_switches_options_on_by_campaign_turn() -> None:
    early = new(campaign_turn=3, options={"progressive": [2]})
    late = new(campaign_turn=8, options={"progressive": [2]})
    assert not early["options"]["escalating_battles"] and not early["options"]["deployment_variables"]
    assert late["options"]["escalating_battles"] and late["options"]["deployment_variables"] and late["options"]["veteran"]
    assert "escalating_battles" in late["options"]["from_progressive"]


def test_hit_me_harder_toggles_change_the_enemy_profiles() -> None:
    group = {
        "name": "Punks",
        "count": 2,
        "profile": PROFILE,
        "weapons": ["Scrap pistol"],
        "panic": "1-2",
        "specialists": 1,
        "lieutenants": 1,
    }
    off = new(enemies=[group])
    on = new(enemies=[group], options={"actually_specialized": True, "armored_leaders": True, "veteran": True})
    spec = {s["rank"]: s for s in on["enemies"]}
    assert (spec["specialist"]["combat_skill"], spec["specialist"]["toughness"]) == (1, 4)
    assert spec["lieutenant"]["save"] == 5 and on["enemies"][0]["combat_skill"] == 1 and "veteran" in on["enemies"][0]["name"]
    assert all(f["combat_skill"] == 0 and f["save"] is None for f in off["enemies"])


def test_movement_all_over_the_place_brings_a_basic_then_a_specialist() -> None:
    off = to_quick(new())
    off, events = end_round(off, arrival_faces="1, 1")
    assert "Movement" not in texts(events)
    state = to_quick(new(options={"movement_all_over": True}))
    state, events = end_round(state, arrival_faces="2, 1")
    assert "nobody comes" in texts(events)
    state = to_quick(state)
    state, events = end_round(state, arrival_faces="2, 6")
    assert "right edge" in texts(events) and state["enemies"][-1]["rank"] == "basic"
    state = to_quick(state)
    state, events = end_round(state, arrival_faces="1, 3")
    assert "enemy edge" in texts(events) and state["enemies"][-1]["rank"] == "specialist"


def test_paying_by_the_hour_sets_a_time_limit_after_which_objectives_close() -> None:
    off, _ = play(new(objective="Acquire"), "next_phase")
    assert off["time_limit"] is None
    state, events = play(new(objective="Acquire", options={"paying_by_the_hour": True}), "next_phase", time_faces="1, 1")
    assert state["time_limit"] == 5 and events[0].data["rolls"][0]["total"] == 1
    for _ in range(5):
        state = to_quick(state)
        state, events = end_round(state)
    assert state["time_up"] and "Time is up" in texts(events)
    assert t.outcome(state)["objective_possible"] is False
    defend = copy.deepcopy(state)
    defend["objective"] = "Defend"
    assert t.outcome(defend)["objective_possible"] is True


def test_ai_variations_roll_the_d6_only_when_on() -> None:
    def enemy_phase(state: dict[str, Any]) -> dict[str, Any]:
        state = to_quick(state)
        return play(state, "next_phase")[0]

    _, events = play(enemy_phase(new()), "enemy_act", enemy="e1")
    assert "rolls" in events[0].data and events[0].data["rolls"] == [] and "AI" not in events[0].text
    on = enemy_phase(new(options={"ai_variations": True}))
    state, events = play(on, "enemy_act", enemy="e1", faces=1, also="e2")
    assert "Tactical AI D6 1: Hold and fire" in events[0].text and state["enemies"][1]["acted"]
    assert events[0].data["rolls"][0]["total"] == 1
    _, events = play(on, "enemy_act", enemy="e1", base="on")
    assert "base condition" in events[0].text and events[0].data["rolls"] == []
    rampage = enemy_phase(new(ai="rampage", options={"ai_variations": True}))
    _, events = play(rampage, "enemy_act", enemy="e1")
    assert "acts as usual" in events[0].text


# -- combat --------------------------------------------------------------------------------------------


def test_a_shot_that_beats_toughness_makes_a_casualty_without_casualty_tables() -> None:
    state = to_quick(new())
    state, events = play(state, "resolve", attacker="c1", target="e1", range=10, faces="6, 6")
    assert state["enemies"][0]["status"] == "casualty"
    assert [r["faces"] for r in events[0].data["rolls"]] == [[6], [6]]
    assert texts(events).count("is a casualty") == 1  # said once, not by the resolver and the tracker both


def test_casualty_tables_keep_the_figure_in_the_fight_and_critical_hits_roll_again() -> None:
    state = to_quick(new(options={"casualty_tables": True}))
    dazed, events = play(state, "resolve", attacker="c1", target="e1", range=10, faces="6, 6", casualty_faces="2")
    assert dazed["enemies"][0]["status"] == "active" and dazed["enemies"][0]["dazed"] and "Dazed" in events[0].text
    wounded, _ = play(state, "resolve", attacker="c1", target="e1", range=10, faces="6, 6", casualty_faces="3")
    enemy = wounded["enemies"][0]
    assert enemy["wounded"] and (enemy["speed"], enemy["combat_skill"]) == (2, -1)
    again, events = play(wounded, "resolve", attacker="c1", target="e1", range=10, faces="6, 6", casualty_faces="4")
    assert again["enemies"][0]["status"] == "casualty" and "Wounded again" in events[0].text
    critical = to_quick(new(options={"casualty_tables": True, "critical_hits": True}))
    gone, events = play(critical, "resolve", attacker="c1", target="e1", range=10, faces="6, 6", casualty_faces="2, 5")
    assert gone["enemies"][0]["status"] == "casualty" and len(events[0].data["rolls"]) == 4


def test_dazed_figures_keep_their_stun_marker_once() -> None:
    state = to_quick(new(options={"casualty_tables": True}))
    state, _ = play(state, "resolve", attacker="c1", target="e1", range=10, faces="6, 6", casualty_faces="1")
    state, _ = play(state, "adjust", enemy="e1", stun=1)
    state, _ = play(state, "next_phase")
    state, events = play(state, "enemy_act", enemy="e1")
    assert state["enemies"][0]["stun"] == 1 and not state["enemies"][0]["dazed"] and "Dazed" in events[0].text


def test_the_boss_column_is_used_for_the_crew_captain() -> None:
    state = to_quick(new(options={"casualty_tables": True}))
    state, _ = play(state, "next_phase")
    state, _ = play(state, "resolve", attacker="e1", target="c1", range=5, faces="6, 6", casualty_faces="5")
    assert state["crew"][0]["status"] == "active" and state["crew"][0]["wounded"]  # Boss: 3-5 Wounded
    regular = to_quick(new(options={"casualty_tables": True}))
    regular, _ = play(regular, "resolve", attacker="c1", target="e1", range=10, faces="6, 6", casualty_faces="5")
    assert regular["enemies"][0]["status"] == "casualty"  # Regular: 5-6 Goner


def test_a_brawl_applies_hits_to_the_side_that_lost() -> None:
    state = to_quick(new(), faces="1, 1, 1")
    state, events = play(
        state, "resolve", attacker="c2", target="e1", mode="brawl", weapon="Blade", target_weapon="Scrap pistol", faces="6, 1, 6"
    )
    assert state["enemies"][0]["status"] == "casualty" and state["crew"][1]["status"] == "active"
    assert events[0].data["mode"] == "brawl"


def test_shooting_without_dramatic_combat_needs_the_core_hit_numbers() -> None:
    state = to_quick(new(options={"dramatic_combat": False}))
    with pytest.raises(TrackerError) as refused:
        play(state, "resolve", attacker="c1", target="e1", range=10)
    assert refused.value.field == "hit_numbers"
    core = to_quick(new(options={"dramatic_combat": False}, hit_numbers={"open": 3, "cover": 5}))
    hit, events = play(core, "resolve", attacker="c1", target="e1", range=10, faces="2, 1")  # 2 +1 = 3: a hit on 3+
    assert "against 3+" in events[0].text and hit["enemies"][0]["stun"] == 1


def test_a_player_cannot_shoot_with_someone_elses_figure() -> None:
    state = to_quick(new())
    with pytest.raises(NotYours):
        play(state, "resolve", role=Role.PLAYER, actor="7", attacker="c1", target="e1")


# -- end of battle ------------------------------------------------------------------------------------


def test_clearing_the_table_holds_the_field() -> None:
    state = to_quick(new())
    for eid in ("e1", "e2", "e3", "e4"):
        state = kill(state, eid)
    state, events = end_round(state, morale_faces="6, 6, 6")
    assert state["phase"] == "over" and state["held_field"] is True and "Hold the Field" in texts(events)
    summary = t.outcome(state)
    assert (summary["held_field"], summary["enemies_killed"], summary["rounds"], summary["casualties"]) == (True, 4, 1, [])
    with pytest.raises(TrackerError, match="battle is over"):
        play(state, "next_phase")


def test_ending_the_battle_with_both_sides_up_needs_a_word_on_the_field() -> None:
    state = to_quick(new())
    state, _ = play(state, "adjust", figure="c3", status="casualty")
    with pytest.raises(TrackerError) as refused:
        play(state, "end_battle")
    assert refused.value.field == "held_field"
    state, _ = play(state, "end_battle", held_field="off")
    assert t.outcome(state)["held_field"] is False and t.outcome(state)["casualties"] == ["Kit"]


def test_infiltration_places_the_held_half_at_the_end_of_round_two() -> None:
    state, _ = play(new(ai="aggressive", options={"deployment_variables": True}), "seize", faces="1, 1", deployment_face=70)
    assert state["deployment"]["key"] == "infiltration" and len(t._waiting(state)) == 2
    state, events = end_round(to_quick(state))
    assert "Infiltration" not in texts(events)
    state, events = end_round(to_quick(state), placement_face=5)
    assert "Infiltration (D6 5)" in texts(events) and "table center" in texts(events) and not t._waiting(state)


def test_bolstered_line_adds_a_specialist_only_when_the_crew_outnumbers_the_enemy() -> None:
    small = {"name": "Punks", "count": 2, "profile": PROFILE, "weapons": ["Scrap pistol"], "panic": "1-2"}
    outnumbered, _ = play(new(enemies=[small], options={"deployment_variables": True}), "seize", faces="1, 1", deployment_face=55)
    equal, _ = play(new(options={"deployment_variables": True}), "seize", faces="1, 1", deployment_face=55)
    assert [f["rank"] for f in outnumbered["enemies"]][2:] == ["basic", "specialist"]
    assert [f["rank"] for f in equal["enemies"]][4:] == ["basic"]


def test_the_critical_hit_option_adds_a_casualty_roll_for_a_natural_six() -> None:
    results = {}
    for critical in (False, True):
        state = to_quick(new(options={"casualty_tables": True, "critical_hits": critical}))
        state, events = play(state, "resolve", attacker="c1", target="e1", range=10, faces="6, 6", casualty_faces="2, 5")
        results[critical] = (state["enemies"][0]["status"], len(events[0].data["rolls"]))
    assert results == {False: ("active", 3), True: ("casualty", 4)}
