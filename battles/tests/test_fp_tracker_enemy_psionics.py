"""Enemy Psionics on the live battle tracker (Compendium pp.22-23), and a crew Psionic's Barrier at
the shot resolver (p.18): each power changes play while its Psionic is on the table, and stops when
it is not. Dice are typed."""

from __future__ import annotations

from typing import Any

import pytest

from battles.engine import fp_tracker as t
from battles.tests.test_fp_tracker_engine import TABLES, end_round, kill, play, setup, texts, to_quick
from live.engine.tracker import TrackerError


def with_psionic(*powers: str, rank: str = "specialist", **changes: Any) -> dict[str, Any]:
    """A battle whose Punks specialist (e4) is an enemy Psionic with ``powers``."""
    base = setup(**changes)
    base["enemies"][0]["psionic"] = {"rank": rank, "powers": list(powers), "toughness": 4, "weapons": ["Hand gun", "Blade"]}
    return t.initial_state(base, TABLES)


def psionic_of(state: dict[str, Any]) -> dict[str, Any]:
    return next(f for f in state["enemies"] if f.get("psionic"))


def test_the_groups_psionic_takes_its_powers_kit_and_toughness() -> None:
    state = with_psionic("Crush")
    fig = psionic_of(state)
    assert fig["id"] == "e4" and fig["powers"] == ["Crush"] and fig["toughness"] == 4
    assert [w["name"] for w in fig["weapons"]] == ["Hand gun", "Blade"] and "psionics" in state
    with pytest.raises(TrackerError, match="no lieutenant"):
        with_psionic("Crush", rank="lieutenant")


def test_bolster_makes_every_enemy_fearless_until_the_psionic_falls() -> None:  # p.23
    state = to_quick(with_psionic("Bolster"))
    state = kill(state, "e1")
    state, events = end_round(state, morale_faces=[1])
    assert "Bolster" in texts(events) and all(f["status"] != "fled" for f in state["enemies"])
    plain = to_quick(t.initial_state(setup(), TABLES))
    plain = kill(plain, "e1")
    plain, events = end_round(plain, morale_faces=[1])
    assert any(f["status"] == "fled" for f in plain["enemies"])  # the same die makes a Punk flee without Bolster
    gone = kill(kill(to_quick(with_psionic("Bolster")), "e4"), "e1")
    gone, events = end_round(gone, morale_faces=[1, 1])
    assert "Bolster" not in texts(events) and any(f["status"] == "fled" for f in gone["enemies"])


def test_slow_sets_one_reaction_die_to_six() -> None:  # p.23
    state, _ = play(with_psionic("Slow"), "next_phase")
    with pytest.raises(TrackerError):
        play(state, "roll_reactions", faces="1, 2, 3")  # only two dice are rolled
    state, events = play(state, "roll_reactions", faces="1, 2")
    assert state["reaction_dice"] == [1, 2, 6] and "Slow" in texts(events)


def test_paralyze_stops_a_crew_figure_on_a_six_and_it_is_struck_without_a_roll() -> None:  # p.23
    state = to_quick(with_psionic("Paralyze"), faces="6, 1, 2")  # Ria gets the 6: Slow phase, Paralyzed
    while state["phase"] != "slow":
        state, _ = play(state, "next_phase")
    with pytest.raises(TrackerError, match="Paralyzed"):
        play(state, "resolve", attacker="c1", target="e1", range=10, faces="6")
    state, events = play(state, "act", figure="c1")
    assert "Paralyzed and takes no action" in texts(events)
    struck, events = play(state, "resolve", attacker="e1", target="c1", mode="brawl", faces="6")
    assert "without a Brawl roll" in texts(events) and struck["crew"][0]["status"] == "casualty"


def test_crush_hits_the_closest_crew_figure_but_only_wounds_or_does_nothing() -> None:  # p.23
    state = with_psionic("Crush")
    state, _ = play(state, "next_phase")
    state = play(state, "roll_reactions", faces="1, 5, 6")[0]
    for n, fig in enumerate(state["crew"]):
        state, _ = play(state, "assign_reaction", figure=fig["id"], die=n + 1)
    while state["phase"] != "enemy":
        state, _ = play(state, "next_phase")
    missed, events = play(state, "enemy_act", enemy="e4", psionic_target="c2", psionic_faces="1")
    assert "Crush" in texts(events) and missed["crew"][1]["stun"] == 0 and "No Stun" in texts(events)
    downed, events = play(state, "enemy_act", enemy="e4", psionic_target="c2", psionic_faces="6")
    assert downed["crew"][1]["status"] == "casualty"
    _, events = play(state, "enemy_act", enemy="e4")
    assert "no crew figure in sight" in texts(events)
    gone = kill(state, "e4")
    with pytest.raises(TrackerError):
        play(gone, "enemy_act", enemy="e4", psionic_target="c2", psionic_faces="6")


def _enemy_phase(state: dict[str, Any]) -> dict[str, Any]:
    state = to_quick(state)
    while state["phase"] != "enemy":
        state, _ = play(state, "next_phase")
    return state


def test_assail_pushes_and_stuns_when_the_2d6_reach() -> None:  # p.23
    state = _enemy_phase(with_psionic("Assail"))
    short, events = play(state, "enemy_act", enemy="e4", psionic_target="c1", psionic_distance=9, psionic_faces="2, 3")
    assert short["crew"][0]["stun"] == 0 and "falls short" in texts(events)
    hit, events = play(state, "enemy_act", enemy="e4", psionic_target="c1", psionic_distance=9, psionic_faces="5, 4, 3")
    assert hit["crew"][0]["stun"] == 1 and 'pushed 3"' in texts(events)


def test_dominate_is_resisted_on_five_plus_and_stuns_with_no_ally_in_sight() -> None:  # p.23
    state = _enemy_phase(with_psionic("Dominate"))
    _, events = play(state, "enemy_act", enemy="e4", psionic_target="c1", psionic_faces="4")  # 4 + Savvy 1
    assert "resists" in texts(events)
    alone, _ = play(state, "enemy_act", enemy="e4", psionic_target="c2", psionic_faces="2", no_ally_in_sight="on")
    assert alone["crew"][1]["stun"] == 1
    turned, events = play(state, "enemy_act", enemy="e4", psionic_target="c2", psionic_faces="2")
    assert turned["crew"][1]["stun"] == 0 and "closest visible ally" in texts(events)


def test_reflect_wards_the_psionic_against_shots_and_deflects_on_a_six() -> None:  # p.23
    state = to_quick(with_psionic("Reflect"))
    # Ria fires her Military rifle (1 Shot): a hit die of 6, then the Reflect die.
    warded, events = play(state, "resolve", attacker="c1", target="e4", range=10, faces="6, 6")
    assert warded["enemies"][3]["status"] == "active" and "deflected" in texts(events)
    failed, events = play(state, "resolve", attacker="c1", target="e4", range=10, faces="6, 2, 6")
    assert "Reflect fails" in texts(events) and failed["enemies"][3]["status"] == "casualty"


def test_obscure_needs_a_natural_six_unless_the_shooter_is_close() -> None:  # p.23
    state = to_quick(with_psionic("Obscure"))
    missed, events = play(state, "resolve", attacker="c1", target="e4", range=10, faces="5")
    assert "only a natural 6" in texts(events) and missed["enemies"][3]["status"] == "active"
    close, _ = play(state, "resolve", attacker="c1", target="e4", range=3, faces="5, 6", obscured="off")
    assert close["enemies"][3]["status"] == "casualty"
    with pytest.raises(TrackerError, match="obscured"):
        play(
            to_quick(t.initial_state(setup(), TABLES)),
            "resolve",
            attacker="c1",
            target="e1",
            range=10,
            faces="6, 6",
            obscured="on",
        )


def test_a_crew_barrier_negates_ranged_hits_on_four_plus() -> None:  # p.18
    base = setup()
    base["crew"][1] = {**base["crew"][1], "psionic": True, "powers": ["Barrier"]}
    state = to_quick(t.initial_state(base, TABLES))
    while state["phase"] != "slow":
        state, _ = play(state, "next_phase")
    state, _ = play(state, "psionic", figure="c2", power="Barrier")
    # The owner resolves a Punk's shot at Bo: a hit (6), then the Barrier die 5: negated, no Stun.
    shot, events = play(state, "resolve", attacker="e1", target="c2", range=6, faces="6, 5")
    assert "Barrier negates the hit" in texts(events) and shot["crew"][1]["stun"] == 0
