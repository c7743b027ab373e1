"""A crew Psionic's powers in no-minis play (Compendium pp.17-20 read through pp.66-70): the
Psionic Action in the Initiative Actions step, the Projection at 6", Strain, Shock, Rejuvenate and
Psionic Scare, the count of uses, assisted choices and the automatic policy. Dice are typed or
seeded."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from battles.engine import nominis as nm
from battles.engine.nominis import psionics
from battles.tests.test_nominis import TABLES, at_actions, battle, crew_fig, fig, foe, text
from rules.engine.dice import Dice


def psy_battle(powers: Any = None, **extra: Any) -> dict[str, Any]:
    """Ada (captain) and Psy (the crew's Psionic, Hand gun) against a blade and a rifle, at the
    Initiative Actions step of round 1 with Psy eligible."""
    psy = crew_fig("Psy", "Hand gun", psionic=True, powers=powers or {"Shock": False, "Rejuvenate": False}, **extra)
    crew = [crew_fig("Ada", "Military rifle", captain=True), psy]
    start = battle(crew, [foe("E1", "Blade"), foe("E2", "Colony rifle")], enemy_panic="1-3")
    return at_actions(start, "Ada", "Psy")


def act(state: dict[str, Any], **payload: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    return nm.apply(state, {"type": "psionic_action", "actor": "Psy", **payload}, Dice(seed=1), TABLES)


def refused(state: dict[str, Any], **payload: Any) -> str:
    with pytest.raises(nm.NoMinisError) as err:
        act(state, **payload)
    return str(err.value.field)


def test_the_psionic_keeps_its_powers_in_the_no_minis_state() -> None:  # p.17
    st = psy_battle({"Shock": True}, swift=True, shrels=1, focus=True)
    psy = fig(st, "Psy")
    assert psy["powers"] == {"Shock": True} and psy["swift"] and psy["shrels"] == 1 and psy["focus"]
    plain = battle()
    assert "powers" not in plain["crew"][0] and nm.outcome(plain)["psionic_uses"] == 0


def test_shock_in_reach_stuns_the_enemy_counts_a_use_and_keeps_the_initiative_action() -> None:  # p.18, p.19, p.70
    st, events = act(psy_battle(), power="Shock", target="E1", faces=[3, 4])
    assert fig(st, "E1")["stun"] == 1 and nm.outcome(st)["psionic_uses"] == 1
    assert psionics.PSIONIC_DISTANCE_IN == 6 and '(6", no-minis): 2D6 7 = 7"' in text(events)  # pp.67, 69
    assert events[0]["rolls"][0]["reason"] == "Psy: Projection for Shock" and events[0]["rolls"][0]["entered"]
    assert not fig(st, "Psy")["acted"]  # a bonus action: its Initiative Action is still to come
    st, _ = nm.apply(
        st, {"type": "initiative_action", "actor": "Psy", "action": "Take Cover", "faces": [6, 6]}, Dice(seed=1), TABLES
    )
    assert fig(st, "Psy")["taking_cover"]


def test_once_per_round_and_only_before_the_initiative_action() -> None:  # p.19
    st, _ = act(psy_battle(), power="Shock", target="E1", faces=[3, 4])
    assert refused(st, power="Shock", target="E2", faces=[3, 4]) == "actor"
    acted = psy_battle()
    fig(acted, "Psy")["acted"] = True
    assert refused(acted, power="Shock", target="E1") == "actor"


def test_refusals_name_the_field_and_change_nothing() -> None:  # p.17, p.18, p.66
    st = psy_battle()
    before = repr(st)
    with pytest.raises(nm.NoMinisError) as err:
        nm.apply(st, {"type": "psionic_action", "actor": "Ada", "power": "Shock", "target": "E1"}, Dice(seed=1), TABLES)
    assert err.value.field == "actor"  # not a Psionic
    assert refused(st, power="Predict", target="E1") == "power"  # not one of its powers
    assert refused(st, power="Shock") == "target"  # Shock needs an enemy
    assert refused(st, power="Shock", target="Nobody") == "target"
    assert refused(st, power="Rejuvenate", target="Ada") == "target"  # no Stun marker to remove
    bot = psy_battle()
    bot["enemies"][0]["bot"] = True
    assert refused(bot, power="Shock", target="E1") == "target"  # robotic (p.18)
    grab = psy_battle({"Grab": False})
    assert refused(grab, power="Grab", target="E1") == "power"  # needs positions (ruling, p.66)
    not_eligible = psy_battle()
    fig(not_eligible, "Psy")["eligible"] = False
    assert refused(not_eligible, power="Shock", target="E1") == "actor"  # does not activate (p.67)
    assert refused(st, power="Shock", target="E1", faces=[3]) == "faces"
    assert repr(st) == before


def test_a_short_projection_strains_and_the_strain_die_is_logged(  # p.20
) -> None:
    st, events = act(psy_battle(), power="Shock", target="E1", faces=[1, 2], strain_faces=[4])
    assert fig(st, "E1")["stun"] == 1 and fig(st, "Psy")["stun"] == 1  # 4-5: Stunned, the power works
    reasons = [r["reason"] for e in events for r in e["rolls"]]
    assert reasons == ["Psy: Projection for Shock", "Psy: Strain for Shock"]
    st, events = act(psy_battle(), power="Shock", target="E1", faces=[1, 2], strain_faces=[6])
    assert fig(st, "E1")["stun"] == 0 and fig(st, "Psy")["stun"] == 1 and "Shock fails" in text(events)
    st, events = act(psy_battle(), power="Shock", target="E1", faces=[1, 2], strain=False)
    assert fig(st, "E1")["stun"] == 0 and fig(st, "Psy")["stun"] == 0 and nm.outcome(st)["psionic_uses"] == 1


def test_a_swift_psionic_strains_on_the_swift_column_and_a_shrel_takes_the_stun() -> None:  # p.20, p.27
    st, _ = act(psy_battle(swift=True), power="Shock", target="E1", faces=[1, 2], strain_faces=[4])
    assert fig(st, "Psy")["stun"] == 0 and fig(st, "E1")["stun"] == 1
    st, events = act(psy_battle(shrels=1), power="Shock", target="E1", faces=[1, 2], strain_faces=[6])
    assert fig(st, "Psy")["stun"] == 0 and fig(st, "Psy")["shrel_spent"] and fig(st, "E1")["stun"] == 1
    assert "Warding Shrel" in text(events)


def test_an_enhanced_power_rolls_three_dice_and_a_focus_adds_an_inch() -> None:  # p.20, p.27
    assert refused(psy_battle({"Shock": True}), power="Shock", target="E1", faces=[1, 2]) == "faces"
    st, events = act(psy_battle({"Shock": True}), power="Shock", target="E1", faces=[1, 2, 1])
    assert "3D6 4" in text(events) and [r["reason"] for r in events[0]["rolls"]][1] == "Psy: Strain for Shock"  # short: Strains
    st, events = act(psy_battle(focus=True), power="Shock", target="E1", faces=[2, 3])
    assert '+1" Psionic Focus = 6"' in text(events) and fig(st, "E1")["stun"] == 1 and len(events[0]["rolls"]) == 1


def test_rejuvenate_on_itself_works_without_a_roll() -> None:  # p.19
    st = psy_battle()
    fig(st, "Psy")["stun"] = 1
    st, events = act(st, power="Rejuvenate")
    assert fig(st, "Psy")["stun"] == 0 and events[0]["rolls"] == [] and "works at once" in text(events)


def test_psionic_scare_makes_the_enemy_check_morale() -> None:  # p.18
    st = psy_battle({"Psionic Scare": False})
    fled, events = act(st, power="Psionic Scare", target="E2", faces=[3, 4], effect_faces=[2])
    assert fig(fled, "E2")["status"] == "fled" and any(
        r["reason"] == "Psionic Scare: Morale for E2" for e in events for r in e["rolls"]
    )
    held, _ = act(st, power="Psionic Scare", target="E2", faces=[3, 4], effect_faces=[5])
    assert fig(held, "E2")["status"] == "active"
    fig(st, "E2")["fearless"] = True
    immune, events = act(st, power="Psionic Scare", target="E2", faces=[3, 4])
    assert fig(immune, "E2")["status"] == "active" and "immune" in text(events)


def test_assisted_choices_offer_the_power_and_the_policy_uses_it() -> None:  # p.19
    st = psy_battle()
    offered = [c for c in nm.choices(st, TABLES) if c["type"] == "psionic_action"]
    assert {(c["power"], c["target"]) for c in offered} == {("Shock", "E1"), ("Shock", "E2")}
    auto = nm.auto_action(st, TABLES)
    assert auto["type"] == "initiative_action"  # Ada (captain) comes first in crew order
    fig(st, "Ada")["acted"] = True
    auto = nm.auto_action(st, TABLES)
    assert auto == {**auto, "type": "psionic_action", "actor": "Psy", "power": "Shock", "target": "E1"}  # the Blade (p.70)
    fig(st, "Ada")["stun"] = 1
    assert nm.auto_action(st, TABLES)["power"] == "Rejuvenate"


def test_automatic_play_uses_powers_and_counts_them_seeded() -> None:  # p.19, p.20
    crew = [
        crew_fig("Ada", "Military rifle", captain=True, reactions=6),
        crew_fig("Psy", "Hand gun", reactions=6, psionic=True, powers={"Shock": False}),
    ]
    start = battle(crew, [foe("E1", "Blade"), foe("E2", "Blade"), foe("E3", "Colony rifle")])
    end, events = nm.play_automatic(start, Dice(seed=5), TABLES)
    uses = [e for e in events if e["kind"] == "psionic" and "projects" in e["text"]]
    assert uses and nm.outcome(end)["psionic_uses"] == len(uses)
    assert all(e["rolls"][0]["reason"] == "Psy: Projection for Shock" for e in uses)
    again, _ = nm.play_automatic(start, Dice(seed=5), TABLES)
    assert again == end


def test_barrier_wards_each_ranged_hit_on_a_4_plus_until_the_end_of_the_next_round() -> None:  # p.18
    from battles.engine.nominis.combat import _shoot

    st, events = act(psy_battle({"Barrier": False}), power="Barrier", target="Ada", faces=[3, 4])
    assert fig(st, "Ada")["barrier_until"] == 2 and "end of round 2" in text(events)
    ada, rifle = fig(st, "Ada"), fig(st, "E2")
    wards = []
    for seed in range(12):
        shot: list[dict[str, Any]] = []
        _shoot(st, Dice(seed=seed), rifle, ada, rifle["weapons"][0], range_in=12, cover=False, moved=False,
               natural_six=False, why="test", events=shot, tables=TABLES, apply_result=False)  # fmt: skip
        wards += [r for e in shot for r in e["rolls"] if r["reason"].startswith("Barrier for Ada")]
    assert wards  # a hit on Ada rolls the Barrier die
    st["round"] = 3  # the Barrier has lapsed
    for seed in range(12):
        shot = []
        _shoot(st, Dice(seed=seed), rifle, ada, rifle["weapons"][0], range_in=12, cover=False, moved=False,
               natural_six=False, why="test", events=shot, tables=TABLES, apply_result=False)  # fmt: skip
        assert not [r for e in shot for r in e["rolls"] if r["reason"].startswith("Barrier")]
    policy = psy_battle({"Barrier": False})
    fig(policy, "Ada")["acted"] = True
    assert nm.auto_action(policy, TABLES)["target"] == "Psy"  # the policy shields the Psionic first


def test_guide_gives_an_ally_one_shot_at_once_that_is_not_its_fire_this_round() -> None:  # p.18, p.71
    st = psy_battle({"Guide": False})
    assert refused(st, power="Guide", target="Ada") == "enemy"  # Guide names the enemy shot at
    assert refused(st, power="Guide", target="Ada", enemy="Nobody") == "enemy"
    offered = {(c["target"], c["enemy"]) for c in nm.choices(st, TABLES) if c["type"] == "psionic_action"}
    assert ("Ada", "E2") in offered and ("Psy", "E1") in offered
    after, events = act(st, power="Guide", target="Ada", enemy="E2", faces=[3, 4])
    shot = next(e for e in events if e["kind"] == "shot")
    assert shot["text"].startswith('Ada fires Military rifle at E2 (24", in Cover): Guide: one Shot')
    assert not fig(after, "Ada")["fired"] and nm.outcome(after)["psionic_uses"] == 1


@settings(max_examples=15, deadline=None)
@given(seed=st_.integers(min_value=0, max_value=10_000))
def test_property_uses_match_the_log_and_replay_gives_the_same_state(seed: int) -> None:  # p.19, p.20
    crew = [
        crew_fig("Ada", "Military rifle", captain=True, reactions=4),
        crew_fig("Psy", "Hand gun", reactions=5, psionic=True, powers={p: False for p in psionics.PLAYED}),
    ]
    start = battle(crew, [foe("E1", "Blade"), foe("E2", "Colony rifle"), foe("E3", "Colony rifle")], enemy_panic="1-2")
    state, log, events = start, [], []
    for step in range(400):
        if state["finished"]:
            break
        action = {k: v for k, v in nm.auto_action(state, TABLES).items() if k != "label"}
        state, made = nm.apply(state, action, Dice(seed=seed + step), TABLES)
        log.append((action, seed + step))
        events += made
        psy = fig(state, "Psy")
        assert psy.get("psionic_round", 0) <= state["round"] and psy["stun"] >= 0
    uses = [e for e in events if e["kind"] == "psionic" and ("projects" in e["text"] or "on itself" in e["text"])]
    assert nm.outcome(state)["psionic_uses"] == len(uses)
    again = start
    for action, s in log:
        again, _ = nm.apply(again, action, Dice(seed=s), TABLES)
    assert again == state
