"""The Stealth mission tracker's invariants as properties, as every tracker kind's
(tests/test_tracker_properties.py): random actions with random dice through the live services;
bounds hold after each accepted action, undo gives the exact previous state, the same action
and seed give the same state, replaying the log gives the stored state, a refusal changes
nothing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battles.engine import fp_stealth, fp_tracker
from rules.engine.dice import Dice
from rules.fixturefiles import read_all
from tests.factories import UserFactory
from tests.tables import load_system_tables
from tests.test_tracker_properties import Kind, Move, held_once, ids, no_negative_counts, play

pytestmark = pytest.mark.django_db

TABLES = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}


def _setup(faces: list[int]) -> dict[str, Any]:
    return {
        "crew": [
            {"name": "Ria", "reactions": 2, "speed": 5, "combat_skill": 1, "toughness": 4, "savvy": 1, "weapons": ["Hand gun"]},
            {"name": "Bo", "reactions": 1, "speed": 4, "combat_skill": 0, "toughness": 3, "weapons": ["Military rifle"]},
        ],
        "enemies": [
            {
                "name": "Guards",
                "count": 1,
                "profile": {"speed": 4, "combat_skill": 0, "toughness": 3},
                "weapons": ["Scrap pistol"],
                "panic": "1-2",
                "specialists": 1,
                "lieutenants": 1,
            }
        ],
        "options": {"dramatic_combat": True, "escalating_battles": True},
        "ai": "tactical",
        "stealth": fp_stealth.generate(Dice(seed=1), TABLES, crew_size=2, faces=faces).as_dict(),
    }


def stealth_moves(state: dict[str, Any]) -> list[Move]:
    crew, enemies = ids([c for c in state["crew"] if c["status"] == "active"]), ids(state["enemies"])
    if state["phase"] == "setup":
        return [("next_phase", {})]
    if state["phase"] == "start" and not state["reaction_dice"]:
        return [("roll_reactions", {})]
    if state["phase"] == "start":
        return [
            *[("assign_reaction", {"figure": f, "die": d}) for f in crew for d in (1, 2)],
            *[("exfiltrate", {"figure": f}) for f in crew],
            ("next_phase", {}),
        ]
    steps = ("pick_up", "deliver", "contact", "transmit", "rescue")
    return [
        ("next_phase", {}),
        ("next_phase", {}),
        ("patrol", {}),
        *[("blocked", {"enemy": e}) for e in enemies[:1]],
        *[
            ("spot", {"enemy": e, "figure": f, "distance": d, "scanning": s})
            for e in enemies[:2]
            for f in crew[:1]
            for d in (3, 7, 12)
            for s in ("on", "off")
        ],
        *[("act", {"figure": f}) for f in crew],
        *[("enemy_act", {"enemy": e}) for e in enemies[:2]],
        *[("stay_down", {"figure": f}) for f in crew],
        *[("distraction", {"figure": f, "enemy": e}) for f in crew[:1] for e in enemies[:1]],
        *[("lure", {"figure": f, "enemies": enemies[:2]}) for f in crew[:1]],
        *[("search", {"figure": f}) for f in crew],
        *[("objective", {"figure": f, "step": s}) for f in crew for s in steps],
        *[("hand_off", {"figure": f, "to": t}) for f in crew for t in crew],
        ("pick_up", {"figure": crew[0]}),
        *[("exfiltrate", {"figure": f}) for f in crew],
        *[("resolve", {"attacker": f, "target": e, "range": 4, "unseen": "on"}) for f in crew for e in enemies[:2]],
        ("alarm", {"cause": "Test"}),
        ("individual_off", {}),
        *[("adjust", {"figure": f, "status": "casualty"}) for f in crew[:1]],
    ]


def stealth_check(state: dict[str, Any]) -> None:
    s = state["stealth"]
    assert state["phase"] in fp_tracker.PHASES
    no_negative_counts(state)
    held_once(state["crew"])
    for fig in state["crew"] + state["enemies"]:
        assert fig["status"] in fp_stealth.STATUSES, fig
    objective = s["objective"]
    # An item has at most one carrier, on the table; an exfiltrated carrier delivered its item.
    if objective["carrier"]:
        carrier = next(f for f in state["crew"] if f["id"] == objective["carrier"])
        assert carrier["status"] == "active"
    assert not (objective["achieved"] and objective["failed"]) or objective["key"] == "rescue"
    assert 0 <= objective["searched"] <= max(objective["candidates"], 0)
    # The alarm is one-way; Stealth-only bookkeeping is cleared with it; Escalation only after its first round.
    if s["alarm"]:
        assert s["alarm_round"] is not None and s["first_battle_round"] == s["alarm_round"] + 1
        assert not s["distracted"] and not s["stay_down"]
    if state["options"]["escalating_battles"]:
        assert s["alarm"] and state["round"] > s["first_battle_round"]
    assert state["options"]["deployment_variables"] is False
    if s["finished"]:
        assert state["phase"] == "over"


KINDS = {
    "package": Kind("fiveparsecs-stealth", {"setup": _setup([90, 5])}, stealth_moves, stealth_check),
    "locate": Kind("fiveparsecs-stealth", {"setup": _setup([5, 5])}, stealth_moves, stealth_check),
    "rescue": Kind("fiveparsecs-stealth", {"setup": _setup([60, 20, 5])}, stealth_moves, stealth_check),
}


@pytest.fixture
def tables() -> None:
    load_system_tables("fiveparsecs")


@pytest.mark.usefixtures("tables")
@pytest.mark.parametrize("kind", list(KINDS))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_the_stealth_tracker_keeps_its_bounds_undoes_exactly_and_replays(kind: str, data: st.DataObject) -> None:
    play(KINDS[kind], data, UserFactory())
