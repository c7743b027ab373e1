"""A played Expanded Connection's round limit and late arrivals on the live tracker
(Compendium pp.82-84)."""

from __future__ import annotations

from typing import Any

import pytest

from battles.engine import fp_tracker as t
from battles.tests.test_fp_tracker_engine import TABLES, end_round, play, setup, to_quick
from live.engine.tracker import TrackerError

TIP = {"entry": "Anonymous tip", "page": "p.82", "arrival_round": 4, "reinforcements": "1D6", "specialist_if_at_least": 5}
FAVOR = {"entry": "Favor owed", "page": "p.82", "round_limit": 6}


def battle(terms: dict[str, Any]) -> dict[str, Any]:
    return play(t.initial_state(setup(connection_terms=terms), TABLES), "seize", faces="3, 3")[0]


def rounds(state: dict[str, Any], count: int, **payload: Any) -> tuple[dict[str, Any], list[Any]]:
    events: list[Any] = []
    for _ in range(count):
        state, events = end_round(to_quick(state), **payload)
    return state, events


@pytest.mark.parametrize(("count", "specialists"), [(3, 0), (5, 1)])
def test_late_arrivals_come_at_the_end_of_round_four(count: int, specialists: int) -> None:
    state, _ = rounds(battle(TIP), 3, connection_faces=f"{count}, 5")
    assert len(state["enemies"]) == 4 and not state["connection"]["arrived"]  # 3 Punks and their specialist
    state, events = rounds(state, 1, connection_faces=f"{count}, 5")
    arrived = state["enemies"][4:]
    assert len(arrived) == count and sum(1 for f in arrived if f["rank"] == "specialist") == specialists
    assert "arrive at the enemy edge" in " ".join(e.text for e in events)
    again, _ = rounds(state, 1, connection_faces="6, 1")
    assert len(again["enemies"]) == len(state["enemies"])  # once only


def test_the_round_limit_says_whether_the_objective_was_reached_in_time() -> None:
    late, events = rounds(battle(FAVOR), 6)
    assert late["connection"]["in_time"] is False and "not reached in time" in events[-1].text
    assert t.outcome(late)["connection_in_time"] is False
    state, _ = rounds(battle(FAVOR), 2)
    state = to_quick(state)
    state, _ = play(state, "objective_reached")
    state, _ = end_round(state)
    state, events = rounds(state, 3)
    assert state["connection"]["in_time"] is True and t.outcome(state)["connection_in_time"] is True
    assert "connection_in_time" not in t.outcome(t.initial_state(setup(), TABLES))


def test_bad_connection_terms_are_refused_naming_the_field() -> None:
    with pytest.raises(TrackerError) as refused:
        t.initial_state(setup(connection_terms={**TIP, "reinforcements": "9D9"}), TABLES)
    assert refused.value.field == "connection_terms.reinforcements"


@pytest.mark.parametrize("size", [2, 3, 4, 5, 8])
def test_a_random_pick_among_any_number_of_figures_rolls_a_die_the_app_has(size: int) -> None:
    from battles.engine.fp_tracker.end_round import _pick
    from rules.engine.dice import Dice

    figs = [{"id": f"e{n}"} for n in range(size)]
    for seed in range(20):
        fig, records = _pick(Dice(seed=seed), [], figs, "test pick")
        assert fig in figs and len(records) == 1 and records[0].reason == "test pick"
    assert _pick(Dice(seed=1), [2], figs, "typed")[0] == figs[0 if size == 2 else 1]
