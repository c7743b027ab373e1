"""The Bug Hunt battle round enforced by the mission tracker (pp.176-180, 193, 195, 198): who may
act in each phase, the automatic results of Area, Stun and Shatter, the referee's override and
the player's own dice asked one step at a time. Dice are typed or seeded."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from bughunt.engine import tracker
from bughunt.tests.test_tracker_engine import (
    SETUP,
    TABLES,
    act,
    enemy_phase,
    new,
    next_round,
    refused,
    rolls,
    text,
    to_quick,
    to_round_end,
)
from live.engine.tracker import Action, NotYours, Role
from rules.engine.dice import Dice

GRENADIER = [{**SETUP["main_characters"][0], "weapons": ["Frag grenade", "Flash grenade", "Shot gun", "Combat rifle"]}]


def robots(**setup: Any) -> dict[str, Any]:
    """Three Berserk robots e1-e3 (Combat Skill +2, Toughness 5, 5+ save, p.195) revealed from c1."""
    return act(
        new(**setup), "detect", contact="c1", faces=[5], enemy_face=[48], variant_face=[1], numbers_faces=[2],
        leader_faces=[12, 12, 12],
    )  # fmt: skip


def typed(state: dict[str, Any], type: str, faces: list[int], **payload: Any) -> dict[str, Any]:
    """Send ``type`` with ``typed`` on, then answer each pending step with exactly the faces it
    asks for, taken in order from ``faces``; returns the final state with every step's events."""
    state = act(state, type, typed="on", **payload)
    events = list(state["_events"])
    left = list(faces)
    while state["pending"]:
        count = state["pending"]["count"]
        step, left = left[:count], left[count:]
        state = act(state, "roll_die", faces=step)
        events.extend(state["_events"])
    assert not left, f"unused faces {left}"
    state["_events"] = events
    return state


def enemy(state: dict[str, Any], eid: str) -> dict[str, Any]:
    return next(e for g in state["groups"] for e in g["figures"] if e["id"] == eid)


# -- who acts when (pp.177, 193, 198) ---------------------------------------------------------------------


def test_nothing_fires_outside_its_phase_and_a_figure_fires_one_weapon_per_activation() -> None:
    state = robots(main_characters=GRENADIER)
    # the start of the round is for Reactions: no shots without an activation (p.198)
    assert "it is now the Start of round" in refused(state, "shoot", "type", figure="f1", weapon="Combat rifle", enemy="e1")
    state = to_quick(state, [1, 5])  # Vasquez Quick, the Fire team Slow
    assert "acts in the Slow Action phase" in refused(state, "shoot", "unit", figure="f2", weapon="Combat rifle", enemy="e1")
    fired = act(state, "shoot", figure="f1", weapon="Combat rifle", enemy="e1", band="open", faces=[2])
    assert fired["units"][0]["figures"][0]["combat_round"] == 1
    # one weapon, once per activation (p.177): not the Shot gun as well
    assert "one weapon, once per activation" in refused(
        fired, "shoot", "figure", figure="f1", weapon="Shot gun", enemy="e1", faces=[2, 2]
    )
    done = act(fired, "act", unit="u1")
    assert "already acted" in refused(done, "brawl", "unit", figure="f1", enemy="e1", by="trooper")
    # the Slow unit fires in the Slow Action phase, each figure once
    slow = act(act(done, "next_phase"), "next_phase")
    slow = act(slow, "shoot", figure="f2", weapon="Combat rifle", enemy="e1", faces=[1])
    slow = act(slow, "shoot", figure="f3", weapon="Combat rifle", enemy="e1", faces=[1])
    refused(slow, "shoot", "figure", figure="f2", weapon="Combat rifle", enemy="e1", faces=[1])
    over = act(slow, "next_phase")
    assert "Spawn phase" in refused(over, "shoot", "type", figure="f4", weapon="Combat rifle", enemy="e1")


def test_snap_fire_is_firing_only_and_costs_the_move() -> None:
    state = act(to_quick(robots(), [1, 1]), "hold", unit="u1")
    state = act(state, "next_phase")  # the Fire team did not act: it holds too
    snap = act(state, "shoot", figure="f1", weapon="Combat rifle", enemy="e1", faces=[2])
    assert snap["units"][0]["snap_fired"] and "cannot move this round" in text(snap)
    assert "Snap Fire is firing only" in refused(state, "brawl", "type", figure="f2", enemy="e1", by="trooper")


def test_enemies_placed_this_round_or_stunned_do_not_act() -> None:
    state = enemy_phase(robots())
    # p.193: revealed enemies take no action in the round they appear
    assert "placed this round" in refused(state, "brawl", "enemy", figure="f2", enemy="e1")
    state = enemy_phase(next_round(to_round_end(to_quick(robots()))))
    assert "Enemy Action phase" in refused(to_quick(next_round(to_round_end(to_quick(robots())))), "brawl", "type",
                                           figure="f2", enemy="e1", by="enemy")  # fmt: skip
    # the robot moves into contact: the enemy's action, not the trooper's (trooper 6 beats 2 + 2)
    fought = act(state, "brawl", figure="f2", enemy="e1", faces=[6, 2, 5])
    assert enemy(fought, "e1")["acted_round"] == 2 and fought["units"][1]["figures"][0]["combat_round"] is None
    assert "already acted" in refused(fought, "brawl", "enemy", figure="f3", enemy="e1")
    state["groups"][0]["figures"][1]["stun"] = 1
    assert "Stunned" in refused(state, "brawl", "enemy", figure="f2", enemy="e2")  # p.178


def test_a_trooper_who_starts_a_brawl_cannot_fire_but_one_attacked_still_can() -> None:
    state = to_quick(robots(), [1, 1])
    # p.176: entering a Brawl on its action uses the trooper's Combat Action; 6 beats 2 + 2
    brawled = act(state, "brawl", figure="f2", enemy="e1", faces=[6, 2, 5])
    assert "cannot fire this round" in text(brawled)
    refused(brawled, "shoot", "figure", figure="f2", weapon="Combat rifle", enemy="e2")


def test_beep_sir_enemies_draw_one_free_bonus_shot_each() -> None:
    state = to_round_end(to_quick(new()))
    state = act(act(state, "next_phase"), "beep_sir", faces=[6, 1, 1], direction_faces=[3])
    beeped = state["contacts"][-1]["id"]
    state = act(state, "detect", contact=beeped, faces=[4], enemy_face=[48], variant_face=[1], numbers_faces=[2],
                leader_faces=[12, 12, 12])  # fmt: skip
    foe = state["groups"][-1]["figures"][0]["id"]
    bonus = act(state, "shoot", figure="f1", weapon="Combat rifle", enemy=foe, faces=[2])
    assert "free bonus shot" in text(bonus) and bonus["units"][0]["figures"][0]["combat_round"] is None
    assert "bonus shot" in refused(bonus, "shoot", "figure", figure="f1", weapon="Combat rifle", enemy=foe)
    # the bonus shot does not take the figure's action this round (p.193)
    later = act(to_quick(bonus, [1, 1]), "shoot", figure="f1", weapon="Combat rifle", enemy=foe, faces=[2])
    assert later["units"][0]["figures"][0]["combat_round"] == 2


def test_the_referee_overrides_with_a_logged_reason() -> None:
    state = robots()
    forced = act(state, "shoot", figure="f1", weapon="Combat rifle", enemy="e1", faces=[2], override="Ambush card house rule")
    override = [e for e in forced["_events"] if e["type"] == "override"]
    assert override and override[0]["data"]["override"] == "Ambush card house rule"
    assert "Referee override (shoot): Ambush card house rule." in forced["last"]["text"]
    with pytest.raises(NotYours):
        tracker.apply(
            state,
            Action("shoot", {"figure": "f1", "weapon": "Combat rifle", "enemy": "e1", "override": "mine"}, actor="7",
                   role=Role.PLAYER),
            Dice(seed=1),
            TABLES,
        )  # fmt: skip


# -- automatic results (pp.178-179, 195, 198) ---------------------------------------------------------------


def test_an_area_weapon_hits_the_figures_near_the_point_by_itself() -> None:
    state = to_quick(robots(main_characters=GRENADIER), [1, 1])
    assert "threaten other troopers" in refused(
        state, "shoot", "near", figure="f1", weapon="Frag grenade", enemy="e1", band="close", near="e2, f2"
    )  # p.180
    # firing 2, 1 (+1: 3 hits at 3+, 2 misses); ammo 4 holds; e1 save 1, Hit 1 + 0: Stunned;
    # e2 splash 5 (4+: hit), e3 splash 2 (missed); e2 save 1, Hit 6 + 0 = 6 > 5: killed (p.179)
    after = typed(state, "shoot", [2, 1, 4, 1, 1, 5, 2, 1, 6], figure="f1", weapon="Frag grenade", enemy="e1",
                  band="close", near="e2 e3")  # fmt: skip
    assert (enemy(after, "e1")["stun"], enemy(after, "e2")["status"], enemy(after, "e3")["status"]) == (1, "killed", "active")
    reasons = [r["reason"] for r in rolls(after)]
    assert "Save for Berserk robots 2 (Frag grenade)" in reasons and not any("robots 3 (" in r for r in reasons)
    assert all(r["entered"] for r in rolls(after))


def test_a_stun_weapon_puts_markers_on_everyone_it_stuns() -> None:
    state = to_quick(robots(main_characters=GRENADIER), [1, 1])
    # target 3 (3+: Stunned), e2 rolls 2 (not), e3 rolls 6 (Stunned) (p.179)
    after = typed(state, "shoot", [3, 2, 6], figure="f1", weapon="Flash grenade", enemy="e1", near="e2, e3")
    assert [enemy(after, e)["stun"] for e in ("e1", "e2", "e3")] == [1, 0, 1]


def test_an_enemy_stunned_by_snap_fire_loses_its_round() -> None:
    state = next_round(to_round_end(to_quick(robots(), [1, 1])))
    state = act(act(to_quick(state, [1, 1]), "hold", unit="u1"), "next_phase")
    # 4 + 1 = 5 hits; save 2 fails; Hit 1 + 0 below Toughness 5: Stunned while moving (p.198)
    snap = act(state, "shoot", figure="f1", weapon="Combat rifle", enemy="e1", faces=[4, 2, 1])
    assert enemy(snap, "e1")["acted_round"] == 2 and "no other action this round" in text(snap)


def test_a_shatter_form_bursts_on_the_trooper_it_fought() -> None:
    state = act(new(), "detect", contact="c1", faces=[5], enemy_face=[85], variant_face=[1], numbers_faces=[1],
                leader_faces=[12, 12, 12])  # fmt: skip
    assert state["enemy"]["name"] == "Shatter-forms"
    state = to_quick(state, [1, 1])
    # Fire team 1 rolls 6, the Shatter-form 2 + 1; Hit 6 + 0 > 4 kills it; the burst: save 1, Hit 2 + 0: Stunned (p.195)
    after = typed(state, "brawl", [6, 2, 6, 1, 2], figure="f2", enemy="e1")
    assert enemy(after, "e1")["status"] == "killed"
    assert after["units"][1]["figures"][0]["stun"] == 1 and "shattering" in text(after)


# -- typed dice one step at a time ---------------------------------------------------------------------------


def test_typed_dice_are_asked_one_step_at_a_time() -> None:
    gunner = [{**SETUP["main_characters"][0], "weapons": ["Shot gun"]}]
    state = to_quick(robots(main_characters=gunner), [1, 1])
    asked = act(state, "shoot", typed="on", figure="f1", weapon="Shot gun", enemy="e1")
    assert (asked["pending"]["count"], asked["pending"]["sides"]) == (2, 6)
    assert "type 2 D6 for Shot gun firing dice" in asked["now"] and asked["units"] == state["units"]
    assert "needs" not in asked["now"]
    refused(asked, "roll_die", "faces", faces=[6])  # the step asks for two, and says so
    assert "Waiting for dice" in refused(asked, "next_phase", "type")
    with pytest.raises(NotYours):
        tracker.apply(asked, Action("roll_die", {"faces": [6, 3]}, actor="9", role=Role.PLAYER), Dice(seed=1), TABLES)
    # 6 + 1 hits, 3 + 1 misses; the 6 gives one Rapid Fire die: now one D6 is asked
    step = act(asked, "roll_die", faces=[6, 3])
    assert step["pending"]["count"] == 1 and "Rapid Fire" in step["pending"]["reason"]
    step = act(step, "roll_die", faces=[2])
    assert step["pending"]["reason"].startswith("Save for Berserk robots 1")
    step = act(step, "roll_die", faces=[2])
    assert step["pending"]["reason"].startswith("Hit on Berserk robots 1")
    done = act(step, "roll_die", faces=[5])
    assert done["pending"] is None and enemy(done, "e1")["status"] == "killed"
    # the same dice typed at once give the same table
    once = act(state, "shoot", figure="f1", weapon="Shot gun", enemy="e1", faces=[6, 3, 2, 2, 5])
    assert {k: v for k, v in done.items() if k not in ("_events", "last", "now")} == {
        k: v for k, v in once.items() if k not in ("_events", "last", "now")
    }
    cancelled = act(step, "cancel_roll")
    assert cancelled["pending"] is None and cancelled["units"] == state["units"] and cancelled["groups"] == state["groups"]


def test_a_refused_typed_action_asks_for_nothing() -> None:
    state = robots()
    before = copy.deepcopy(state)
    refused(state, "shoot", "type", typed="on", figure="f1", weapon="Combat rifle", enemy="e1")
    assert state == before and "No roll is waiting" in refused(state, "roll_die", "type", faces=[1])


def test_a_quick_unit_that_fired_has_acted_and_does_not_hold() -> None:
    state = to_quick(robots(), [1, 1])
    state = act(state, "shoot", figure="f1", weapon="Combat rifle", enemy="e1", faces=[2])
    state = act(state, "next_phase")  # Vasquez fired: acted; the Fire team did nothing: it holds (p.198)
    assert (state["units"][0]["acted"], state["units"][0]["held"], state["units"][1]["held"]) == (True, False, True)
    assert "already acted" in refused(state, "shoot", "unit", figure="f1", weapon="Service pistol", enemy="e2")


def test_a_shatter_form_hit_by_hand_bursts_on_the_figures_named_near_it() -> None:
    state = act(new(), "detect", contact="c1", faces=[5], enemy_face=[85], variant_face=[1], numbers_faces=[1],
                leader_faces=[12, 12, 12])  # fmt: skip
    # Hit 6 + 1 > 4 kills e1; e2 beside it takes the burst: Hit 4 + 0 = 4, Wounded (p.195)
    after = typed(state, "hit", [6, 4], enemy="e1", damage=1, near="e2")
    assert enemy(after, "e1")["status"] == "killed" and enemy(after, "e2")["wounded"]


def test_a_wounded_enemy_attacks_a_trooper_who_comes_close_in_the_troopers_phase() -> None:
    state = to_quick(robots(), [1, 1])
    assert "Enemy Action phase" in refused(state, "brawl", "type", figure="f2", enemy="e1", by="enemy")
    state["groups"][0]["figures"][0]["wounded"] = True
    # p.178: it lies where it fell and attacks at once; the trooper's own action is untouched
    fought = act(state, "brawl", figure="f2", enemy="e1", by="enemy", faces=[6, 2, 5])
    assert fought["units"][1]["figures"][0]["combat_round"] is None and enemy(fought, "e1")["acted_round"] is None


# -- move, then act (pp.176, 178, 198) -------------------------------------------------------------------------


def fig(state: dict[str, Any], fid: str) -> dict[str, Any]:
    return next(f for u in state["units"] for f in u["figures"] if f["id"] == fid)


def test_a_figure_moves_then_acts_never_the_reverse() -> None:
    state = to_quick(robots(), [1, 1])
    moved = act(state, "move", figure="f1")
    assert fig(moved, "f1")["moved_round"] == 1 and "moves up to 4 inches" in text(moved)
    assert "check every Contact marker" in text(moved)  # p.192: a finished move checks Detection
    assert "one move per activation" in refused(moved, "move", "figure", figure="f1")
    fired = act(moved, "shoot", figure="f1", weapon="Combat rifle", enemy="e1", faces=[2])  # move, then fire: allowed
    assert fig(fired, "f1")["combat_round"] == 1
    # the reverse order is refused (p.198): f2 fires, then may not move
    shot = act(state, "shoot", figure="f2", weapon="Combat rifle", enemy="e1", faces=[2])
    assert "never the reverse" in refused(shot, "move", "figure", figure="f2")


def test_moving_happens_only_in_the_figures_activation() -> None:
    state = robots()
    assert "Start of round" in refused(state, "move", "type", figure="f1")
    state = to_quick(state, [1, 5])  # Vasquez Quick, the Fire team Slow
    assert "Slow Action phase" in refused(state, "move", "unit", figure="f2")
    done = act(state, "act", unit="u1")
    assert "already acted" in refused(done, "move", "unit", figure="f1")
    assert "Enemy Action phase" in refused(act(done, "next_phase"), "move", "type", figure="f2")
    slow = act(act(done, "next_phase"), "next_phase")
    assert fig(act(slow, "move", figure="f2"), "f2")["moved_round"] == 1
    # the referee may still move a figure out of turn, with the reason logged
    forced = act(done, "move", figure="f1", override="forgot to move before firing")
    assert fig(forced, "f1")["moved_round"] == 1 and forced["_events"][-1]["type"] == "override"


def test_a_dash_forbids_firing_and_brawling_and_wounded_troopers_cannot_dash() -> None:
    state = to_quick(robots(), [1, 1])
    dashed = act(state, "move", figure="f2", dash="on")
    assert "Dashes up to 6 inches" in text(dashed)  # Speed 4 + 2 (p.176)
    assert "do not fire" in refused(dashed, "shoot", "figure", figure="f2", weapon="Combat rifle", enemy="e1")
    assert "by Dashing" in refused(dashed, "brawl", "figure", figure="f2", enemy="e1", by="trooper")
    # an enemy that charges a Dashed trooper still fights it (its action, not the trooper's)
    state["units"][1]["figures"][1]["wounded"] = True
    assert "can no longer Dash" in refused(state, "move", "dash", figure="f3", dash="on")  # p.178
    assert fig(act(state, "move", figure="f3"), "f3")["moved_round"] == 1


def test_a_stunned_trooper_moves_or_acts_not_both() -> None:
    state = to_quick(robots(), [1, 1])
    state["units"][1]["figures"][0]["stun"] = 1
    state["units"][1]["figures"][1]["stun"] = 2
    moved = act(state, "move", figure="f2")
    assert "that is all it does" in text(moved)
    assert "Stunned and has moved" in refused(moved, "shoot", "figure", figure="f2", weapon="Combat rifle", enemy="e1")
    fired = act(state, "shoot", figure="f3", weapon="Combat rifle", enemy="e1", faces=[2])
    refused(fired, "move", "figure", figure="f3")
    # Done acting takes one Stun marker off each Stunned figure (p.198)
    done = act(fired, "act", unit="u2")
    assert (fig(done, "f2")["stun"], fig(done, "f3")["stun"]) == (0, 1)


def test_a_held_unit_moves_or_fires_in_the_slow_phase_and_snap_fire_costs_the_move() -> None:
    state = to_quick(robots(), [1, 1])
    moved = act(state, "move", figure="f2")
    assert "begun its activation" in refused(moved, "hold", "unit", unit="u2")
    held = act(act(state, "hold", unit="u1"), "hold", unit="u2")
    snap = act(act(held, "next_phase"), "shoot", figure="f1", weapon="Combat rifle", enemy="e1", faces=[2])
    slow = act(snap, "next_phase")
    assert "Snap Fire means no move" in refused(slow, "move", "figure", figure="f1")  # p.198
    slow = act(slow, "move", figure="f2")
    assert "moves or fires, not both" in refused(slow, "shoot", "figure", figure="f2", weapon="Combat rifle", enemy="e1")
    assert fig(act(slow, "shoot", figure="f3", weapon="Combat rifle", enemy="e1", faces=[2]), "f3")["combat_round"] == 1


def test_an_aimed_weapon_loses_its_bonus_after_a_recorded_move() -> None:
    sniper = [{**SETUP["main_characters"][0], "weapons": ["Sniper rifle"]}]
    state = to_quick(robots(main_characters=sniper), [1, 1])
    # p.179: Aimed +1 only when the firer does not move; 4 + 1 Combat Skill + 1 Aimed = 6 hits in cover (6+)
    still = act(state, "shoot", figure="f1", weapon="Sniper rifle", enemy="e1", band="cover", faces=[4, 6])
    assert "Aimed, not moved" in text(still) and enemy(still, "e1")["stun"] + enemy(still, "e1")["wounded"] == 0
    moved = act(act(state, "move", figure="f1"), "shoot", figure="f1", weapon="Sniper rifle", enemy="e1", band="cover",
                faces=[4])  # fmt: skip
    assert "Aimed" not in text(moved) and "totals 5 (miss)" in text(moved)


# -- chained Shatter-form bursts (pp.180, 195) -------------------------------------------------------------------


def shatter_forms(count: int = 4, **setup: Any) -> dict[str, Any]:
    """``count`` Shatter-forms e1.. (Combat Skill +1, Toughness 4, no save, p.195) revealed from c1."""
    state = act(new(**setup), "detect", contact="c1", faces=[5], enemy_face=[85], variant_face=[1], numbers_faces=[count - 1],
                leader_faces=[12, 12, 12])  # fmt: skip
    assert state["enemy"]["name"] == "Shatter-forms" and len(state["groups"][0]["figures"]) == count
    return state


def test_a_shatter_form_killed_by_a_burst_bursts_in_turn() -> None:
    state = shatter_forms()
    # e1: Hit 6 + 1 > 4, killed; its burst reaches e2 first: Hit 6 + 0 > 4, killed, and e2 bursts at once (p.180)
    # on the rest of the figures named (f2): save 1, Hit 2 + 0: Stunned; then e1's burst reaches f2: save 6, shrugged off
    after = typed(state, "hit", [6, 6, 1, 2, 6], enemy="e1", damage=1, near="e2 f2")
    assert [enemy(after, e)["status"] for e in ("e1", "e2", "e3")] == ["killed", "killed", "active"]
    assert fig(after, "f2")["stun"] == 1 and "standing together" in text(after)
    burst = [r for r in rolls(after) if "shattering" in r["reason"]]
    assert len(burst) == 4 and all(r["entered"] for r in rolls(after))
    assert any("Shatter-forms 2 shattering" in r["reason"] for r in burst)


def test_named_figures_near_each_shatter_form_carry_the_chain() -> None:
    state = shatter_forms()
    # near_e2 names e3 by e2: e1 kills e2 (6), e2 kills e3 (6), e3 has nobody else named near it
    after = typed(state, "hit", [6, 6, 6], enemy="e1", damage=1, near="e2", near_e2="e3")
    assert [enemy(after, e)["status"] for e in ("e1", "e2", "e3", "e4")] == ["killed", "killed", "killed", "active"]
    assert "Shatter-forms 3 shatters: no figure was named" in text(after)
    assert "No enemy 'e9'" in refused(state, "hit", "near_e9", enemy="e1", damage=1, near="e2", near_e9="e3")


def test_the_chain_stops_at_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    from bughunt.engine.tracker import fights

    monkeypatch.setattr(fights, "SHATTER_CHAIN_CAP", 2)
    state = shatter_forms()
    after = typed(state, "hit", [6, 6, 6], enemy="e1", damage=1, near="e2", near_e2="e3", near_e3="e4")
    assert enemy(after, "e3")["status"] == "killed" and enemy(after, "e4")["status"] == "active"
    assert "2 bursts in a row is the app's limit" in text(after)


def test_a_shatter_form_killed_by_an_area_splash_bursts_on_the_figures_named_there() -> None:
    state = to_quick(shatter_forms(main_characters=GRENADIER), [1, 1])
    # Frag grenade at e1 (close, 3+): firing 1, 1 miss; ammo 4; splash e2 5 (hit), e3 1 (missed);
    # e2 Hit 6 + 0 > 4 killed: it bursts on the group named at the point: e1 Hit 1 (Stunned), e3 Hit 1 (Stunned)
    after = typed(state, "shoot", [1, 1, 4, 5, 1, 6, 1, 1], figure="f1", weapon="Frag grenade", enemy="e1",
                  band="close", near="e2 e3")  # fmt: skip
    assert enemy(after, "e2")["status"] == "killed"
    assert (enemy(after, "e1")["stun"], enemy(after, "e3")["stun"]) == (1, 1)


# -- Distract (p.191) ----------------------------------------------------------------------------------------


def test_distracted_enemies_take_no_action_in_that_enemy_phase() -> None:
    state = next_round(to_round_end(to_quick(robots())))  # round 2: the robots may act
    state = act(state, "investigate", location="t1", figure="f2", faces=[1])  # 1: Distract
    state = to_quick(state)
    distracted = act(state, "activate", location="t1", figure="f1", enemies="e1", distract_e2="on", distract_e3="off",
                     faces=[6])  # fmt: skip
    assert "Berserk robots 1, Berserk robots 2" in text(distracted)
    assert [enemy(distracted, e).get("distracted_round") for e in ("e1", "e2", "e3")] == [2, 2, None]
    phase = act(distracted, "next_phase")
    assert "Distracted" in refused(phase, "brawl", "enemy", figure="f2", enemy="e1")
    fought = act(phase, "brawl", figure="f2", enemy="e3", faces=[6, 2, 5])  # e3 was beyond 18"
    assert enemy(fought, "e3")["acted_round"] == 2
    # the next round they act again
    later = enemy_phase(next_round(act(act(phase, "next_phase"), "next_phase")))
    assert enemy(act(later, "brawl", figure="f2", enemy="e1", faces=[6, 2, 5]), "e1")["acted_round"] == 3


def test_distract_with_no_enemy_named_holds_every_enemy_and_enemies_revealed_nearby() -> None:
    state = act(new(), "investigate", location="t1", faces=[1])
    state = enemy_phase(state)
    state = act(state, "activate", location="t1", figure="f1", faces=[6])  # late: round 2's Enemy Action phase
    assert "no enemy yet" in text(state)
    state = act(state, "detect", contact="c1", faces=[5], enemy_face=[48], variant_face=[1], numbers_faces=[2],
                leader_faces=[12, 12, 12], distracted="on")  # fmt: skip
    assert "Distracted in round 2" in text(state) and enemy(state, "e1")["distracted_round"] == 2
    state = act(state, "detect", contact="c2", faces=[5], numbers_faces=[1], leader_faces=[12, 12, 12])
    assert enemy(state, "e4").get("distracted_round") is None and 'tick "distracted"' in text(state)


# -- knock-back and malfunctions are the app's to apply (pp.178-179) ------------------------------------------------


def test_every_knock_back_is_named_in_the_log_and_the_event() -> None:
    state = to_quick(robots(), [1, 1])
    saved = act(state, "hit", figure="f2", damage=1, faces=[6])  # 5+ armour: shrugged off, knocked back 1" (p.178)
    assert saved["_events"][-1]["data"]["knocked_back"] == ["Fire team 1"] and "Knocked back 1 inch" in text(saved)
    # a Brawl: trooper 6 against robot 2 + 2; the robot's save 2 fails, Hit 1 + 0 below 5: Stunned and knocked back
    fought = act(state, "brawl", figure="f2", enemy="e1", faces=[6, 2, 2, 1])
    assert enemy(fought, "e1")["stun"] == 1 and fought["_events"][-1]["data"]["knocked_back"] == ["Berserk robots 1"]
    # the bursts of a Shatter chain: each figure they knock back is named once
    chained = typed(shatter_forms(), "hit", [6, 6, 1, 2, 6], enemy="e1", damage=1, near="e2 f2")
    assert chained["_events"][-1]["data"]["knocked_back"] == ["Fire team 1"]
    killed = act(state, "hit", enemy="e1", damage=1, faces=[1, 6])  # save 1, Hit 6 + 1 > 5: no knock-back for the dead
    assert killed["_events"][-1]["data"]["knocked_back"] == [] and "Knocked back" not in text(killed)


def test_a_third_natural_one_over_snap_fire_and_a_later_shot_malfunctions_the_weapon_by_itself() -> None:
    # p.178: the natural 1s of one round add up across the weapon's shots
    state = act(act(to_quick(robots(), [1, 1]), "hold", unit="u1"), "next_phase")
    snap = act(state, "shoot", figure="f1", weapon="Combat rifle", enemy="e1", faces=[1])
    assert snap["units"][0]["figures"][0]["weapons"][1]["ones"] == 1
    again = act(snap, "shoot", figure="f1", weapon="Combat rifle", enemy="e1", faces=[1], override="second Snap Fire house rule")
    rifle = again["units"][0]["figures"][0]["weapons"][1]
    assert rifle["ones"] == 2 and rifle["malfunctioned"] and "malfunction" in text(again).lower()


def test_firing_rules_out_tactical_locations_and_spawn_points_and_closing_one_rules_out_firing() -> None:
    state = to_quick(robots(), [1, 1])
    state = act(state, "investigate", location="t1", figure="f3", faces=[1])
    fired = act(state, "shoot", figure="f2", weapon="Combat rifle", enemy="e1", faces=[2])
    # p.191: a figure that fires or Brawls does not investigate or activate a Tactical Location
    assert "does not" in refused(fired, "investigate", "figure", location="t2", figure="f2")
    assert "does not" in refused(fired, "activate", "figure", location="t1", figure="f2", faces=[6])
    # p.199: the worker on a Spawn Point and its helper do not fire
    fired["spawn_points"] = [{"id": "s1", "where": "edge at 3 o'clock", "countdown": None, "closed": False}]
    assert "closing a Spawn Point" in refused(fired, "close_spawn_point", "figure", spawn="s1", figure="f2")
    assert "helping" in refused(fired, "close_spawn_point", "helper", spawn="s1", figure="f3", helper="f2")
    worked = act(fired, "close_spawn_point", spawn="s1", figure="f4", helper="f5", faces=[1])
    assert "cannot fire this round" in text(worked)
    for fid in ("f4", "f5"):
        assert "Spawn Point" in refused(worked, "shoot", "figure", figure=fid, weapon="Combat rifle", enemy="e1")
