"""Crew Psionics on the live battle tracker (Compendium pp.17-22): the Psionic Action, Projection,
Strain, the powers' effects, the psionic gear and the reinforcements of a world where Psionics
draw attention. Dice are typed (``faces``) or seeded."""

from __future__ import annotations

from typing import Any

import pytest

from battles.engine import fp_tracker as t
from battles.tests.test_fp_tracker_engine import TABLES, end_round, play, setup, texts, to_quick
from live.engine.tracker import Action, NotYours, Role, TrackerError
from rules.engine.dice import Dice


def psionic(powers: Any = None, **extra: Any) -> dict[str, Any]:
    """A battle whose captain Ria (Quick phase in :func:`to_quick`) is the crew's Psionic."""
    base = setup()
    ria = {**base["crew"][0], "weapons": ["Hand gun"], "psionic": True, "powers": powers or {"Shock": False, "Barrier": False}}
    ria.update({k: v for k, v in extra.items() if k in ("swift", "shrels", "focus")})
    base["crew"][0] = ria
    if "psionic_legality" in extra:
        base["psionic_legality"] = extra["psionic_legality"]
    return to_quick(t.initial_state(base, TABLES))


def test_a_battle_without_a_psionic_keeps_its_old_state_shape() -> None:
    state = t.initial_state(setup(), TABLES)
    assert "psionics" not in state and "powers" not in state["crew"][0]
    assert t.outcome(state)["psionic_uses"] == 0


def test_shock_in_range_gives_the_target_a_stun_marker_and_counts_a_use() -> None:  # p.18, p.19
    state = psionic()
    state, events = play(state, "psionic", figure="c1", power="Shock", target="e1", distance=6, faces=[3, 4])
    assert state["enemies"][0]["stun"] == 1
    assert "2D6 7" in texts(events) and "Stun marker" in texts(events)
    assert t.outcome(state)["psionic_uses"] == 1
    assert state["crew"][0]["psionic_round"] == 1 and not state["crew"][0]["acted"]  # it still acts afterwards


def test_the_psionic_action_comes_as_it_activates_once_per_round() -> None:  # p.19
    state = psionic()
    state, _ = play(state, "psionic", figure="c1", power="Shock", target="e1", distance=2, faces=[3, 4])
    with pytest.raises(TrackerError, match="this round"):
        play(state, "psionic", figure="c1", power="Shock", target="e2", distance=2, faces=[3, 4])
    acted, _ = play(state, "act", figure="c1")
    acted, _ = play(acted, "next_phase")
    with pytest.raises(TrackerError):  # the Enemy Action phase is not the Psionic's
        play(acted, "psionic", figure="c1", power="Shock", target="e2", distance=2, faces=[3, 4])


def test_only_the_player_of_the_psionic_may_use_its_powers() -> None:
    state = psionic()
    with pytest.raises(NotYours):
        play(state, "psionic", role=Role.PLAYER, actor="7", figure="c1", power="Shock", target="e1", distance=2, faces=[3, 4])


def test_a_power_it_does_not_have_or_a_wrong_target_is_refused_and_changes_nothing() -> None:  # p.18
    state = psionic()
    with pytest.raises(TrackerError, match="Shock, Barrier"):
        play(state, "psionic", figure="c1", power="Grab", target="e1", distance=2)
    with pytest.raises(TrackerError, match="itself"):
        play(state, "psionic", figure="c1", power="Shock", target="self")
    bot = setup()
    bot["enemies"][0]["kind"] = "cybernetic"
    bot["crew"][0] = {**bot["crew"][0], "weapons": ["Hand gun"], "psionic": True, "powers": ["Shock"]}
    robots = to_quick(t.initial_state(bot, TABLES))
    with pytest.raises(TrackerError, match="robotic"):
        play(robots, "psionic", figure="c1", power="Shock", target="e1", distance=2, faces=[3, 4])
    assert robots["psionics"]["uses"] == 0


def test_a_power_on_the_psionic_itself_works_without_a_roll() -> None:  # p.19
    state = psionic()
    state, events = play(state, "psionic", figure="c1", power="Barrier")
    assert "works at once" in texts(events) and not events[0].data["rolls"]
    assert state["psionics"]["effects"] == [{"power": "Barrier", "target": "c1", "until": 2}]


def test_a_short_projection_waits_for_the_choice_to_strain_and_not_straining_fails() -> None:  # p.20
    state = psionic()
    state, events = play(state, "psionic", figure="c1", power="Shock", target="e1", distance=10, faces=[2, 3])
    assert events[0].data["pending"] and "Short by 5" in texts(events)
    with pytest.raises(TrackerError, match="Strains"):
        play(state, "psionic", figure="c1", power="Shock", target="e1", distance=1, faces=[2, 3])
    failed, events = play(state, "psionic_strain", figure="c1", strain=False)
    assert "fails" in texts(events) and failed["enemies"][0]["stun"] == 0
    assert failed["psionics"]["pending"] is None and failed["psionics"]["uses"] == 1


@pytest.mark.parametrize(
    ("face", "stun", "shocked"),
    [(3, 0, 1), (5, 1, 1), (6, 1, 0)],  # p.20: 1-3 no harm, 4-5 Stunned but it works, 6 Stunned and it fails
)
def test_strain_adds_its_die_and_its_risk(face: int, stun: int, shocked: int) -> None:
    state = psionic()
    state, _ = play(state, "psionic", figure="c1", power="Shock", target="e1", distance=8, faces=[2, 3])
    state, _ = play(state, "psionic_strain", figure="c1", strain=True, faces=[face])
    assert state["crew"][0]["stun"] == stun
    assert state["enemies"][0]["stun"] == shocked


def test_a_strain_that_still_falls_short_fails() -> None:
    state = psionic()
    state, _ = play(state, "psionic", figure="c1", power="Shock", target="e1", distance=12, faces=[2, 3])
    state, events = play(state, "psionic_strain", figure="c1", strain=True, faces=[2])
    assert "fails" in texts(events) and state["enemies"][0]["stun"] == 0


def test_a_swift_psionic_is_only_stunned_on_a_six() -> None:  # p.20: Swift Stunned on 5-6, nothing worse
    state = psionic(swift=True)
    state, _ = play(state, "psionic", figure="c1", power="Shock", target="e1", distance=8, faces=[2, 3])
    state, _ = play(state, "psionic_strain", figure="c1", strain=True, faces=[6])
    assert state["crew"][0]["stun"] == 1 and state["enemies"][0]["stun"] == 1


def test_one_warding_shrel_takes_the_strain_once_and_two_cancel() -> None:  # p.27
    state = psionic(shrels=1)
    state, _ = play(state, "psionic", figure="c1", power="Shock", target="e1", distance=8, faces=[2, 3])
    state, events = play(state, "psionic_strain", figure="c1", strain=True, faces=[6])
    assert state["crew"][0]["stun"] == 0 and state["crew"][0]["shrel_spent"] and "Shrel" in texts(events)
    assert state["enemies"][0]["stun"] == 1  # the effect was avoided, so the power works
    two = psionic(shrels=2)
    two, _ = play(two, "psionic", figure="c1", power="Shock", target="e1", distance=8, faces=[2, 3])
    two, events = play(two, "psionic_strain", figure="c1", strain=True, faces=[6])
    assert two["crew"][0]["stun"] == 1 and "cancel" in texts(events)


def test_an_enhanced_power_rolls_three_dice_and_a_focus_adds_an_inch() -> None:  # p.20, p.27
    plain = psionic()
    plain, _ = play(plain, "psionic", figure="c1", power="Shock", target="e1", distance=6, faces=[2, 3])
    assert plain["psionics"]["pending"] is not None
    focused = psionic(focus=True)
    focused, events = play(focused, "psionic", figure="c1", power="Shock", target="e1", distance=6, faces=[2, 3])
    assert focused["psionics"]["pending"] is None and focused["enemies"][0]["stun"] == 1
    enhanced = psionic({"Shock": True})
    with pytest.raises(TrackerError):
        play(enhanced, "psionic", figure="c1", power="Shock", target="e1", distance=6, faces=[2, 3])
    enhanced, events = play(enhanced, "psionic", figure="c1", power="Shock", target="e1", distance=6, faces=[2, 3, 1])
    assert "3D6 6" in texts(events) and enhanced["enemies"][0]["stun"] == 1


def test_psionic_scare_makes_the_enemy_check_morale() -> None:  # p.18
    state = psionic({"Psionic Scare": False})
    fled, events = play(
        state, "psionic", figure="c1", power="Psionic Scare", target="e1", distance=3, faces=[3, 3], effect_faces=[1]
    )
    assert fled["enemies"][0]["status"] == "fled" and "flees" in texts(events)
    held, _ = play(state, "psionic", figure="c1", power="Psionic Scare", target="e1", distance=3, faces=[3, 3], effect_faces=[5])
    assert held["enemies"][0]["status"] == "active"


def test_rejuvenate_needs_a_stun_marker_and_enrage_a_figure_yet_to_act() -> None:  # p.18
    state = psionic({"Rejuvenate": False, "Enrage": False})
    with pytest.raises(TrackerError, match="no Stun marker"):
        play(state, "psionic", figure="c1", power="Rejuvenate", target="c2", distance=2, faces=[3, 3])
    stunned, _ = play(state, "adjust", figure="c2", stun=2)
    stunned, _ = play(stunned, "psionic", figure="c1", power="Rejuvenate", target="c2", distance=2, faces=[3, 3])
    assert stunned["crew"][1]["stun"] == 1
    enraged, events = play(state, "psionic", figure="c1", power="Enrage", target="c2", distance=2, faces=[3, 3])
    assert enraged["crew"][1]["acted"] and 'charges 6"' in texts(events)


def test_barrier_lapses_at_the_end_of_the_following_round() -> None:  # p.18: persists
    state = psionic()
    state, _ = play(state, "psionic", figure="c1", power="Barrier")
    state, _ = end_round(state)
    assert state["psionics"]["effects"] and any(n.startswith("Barrier") for n in state["crew"][0]["notes"])
    state = to_quick(state)
    state, events = end_round(state)
    assert not state["psionics"]["effects"] and "Ends: Barrier" in texts(events)
    assert not any(n.startswith("Barrier") for n in state["crew"][0]["notes"])


def test_two_sixes_on_a_world_where_psionics_draw_attention_bring_reinforcements_next_round() -> None:  # p.21
    state = psionic(psionic_legality="unusual")
    before = len(state["enemies"])
    state, events = play(
        state, "psionic", figure="c1", power="Shock", target="e1", distance=6, faces=[6, 6], reinforcement_faces=[2, 6, 1]
    )
    assert "draws attention" in texts(events) and state["psionics"]["reinforcements"]["due"] == 2
    state, _ = end_round(state)
    assert len(state["enemies"]) == before  # not yet: at the end of the next round
    state = to_quick(state)
    state, events = end_round(state)
    added = state["enemies"][before:]
    assert [f["rank"] for f in added] == ["basic", "specialist"] and "Drawn by the Psionic" in texts(events)


def test_two_sixes_bring_nobody_where_psionics_are_common() -> None:
    state = psionic(psionic_legality="common")
    state, events = play(state, "psionic", figure="c1", power="Shock", target="e1", distance=6, faces=[6, 6])
    assert state["psionics"]["reinforcements"] is None and "attention" not in texts(events)


def test_a_bad_legality_or_powers_for_a_non_psionic_are_refused() -> None:
    with pytest.raises(TrackerError, match="psionic_legality"):
        t.initial_state(setup(psionic_legality="banned"), TABLES)
    base = setup()
    base["crew"][1] = {**base["crew"][1], "powers": ["Shock"]}
    with pytest.raises(TrackerError, match="only a Psionic"):
        t.initial_state(base, TABLES)


def test_psionic_actions_replay_to_the_same_state() -> None:
    start = psionic(psionic_legality="unusual")
    actions = [
        Action("psionic", {"figure": "c1", "power": "Shock", "target": "e1", "distance": 9}, actor="1", role=Role.OWNER),
    ]
    state, _ = t.apply(start, actions[0], Dice(seed=5), TABLES)
    if state["psionics"]["pending"]:
        strain = Action("psionic_strain", {"figure": "c1", "strain": True}, actor="1", role=Role.OWNER)
        actions.append(strain)
        state, _ = t.apply(state, strain, Dice(seed=6), TABLES)
    seeds = [5, 6][: len(actions)]
    again = start
    for action, seed in zip(actions, seeds, strict=True):
        again, _ = t.apply(again, action, Dice(seed=seed), TABLES)
    assert again == state


def test_an_open_strain_choice_blocks_acting_and_lapses_when_the_phase_moves_on() -> None:  # p.20
    state = psionic()
    state, _ = play(state, "psionic", figure="c1", power="Shock", target="e1", distance=10, faces=[2, 3])
    with pytest.raises(TrackerError, match="must first choose"):
        play(state, "act", figure="c1")
    state, events = play(state, "next_phase")
    assert "did not choose to Strain: Shock fails" in texts(events) and state["phase"] == "enemy"
    assert state["psionics"]["pending"] is None and state["enemies"][0]["stun"] == 0
