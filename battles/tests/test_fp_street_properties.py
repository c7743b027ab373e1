"""The Street Fight kind's invariants as a property (as tests/test_tracker_properties.py does for
the other kinds): random actions with random dice through the live services; after each accepted
action the chapter's bounds hold (pp.123-136), undo gives back the exact previous state, the same
action and seed give the same state again, and the room's log replays to its stored state."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battles import street_kind
from battles.engine import fp_street
from rules.engine.dice import Dice
from rules.fixturefiles import read_all
from tests.factories import UserFactory
from tests.tables import load_system_tables
from tests.test_tracker_properties import Kind, Move, held_once, no_negative_counts, play

pytestmark = pytest.mark.django_db

TABLES = {t.slug: t.engine() for t in read_all() if t.system == "fiveparsecs"}
CREW = [{"name": "Ria", "savvy": 1, "reactions": 2, "captain": True}, {"name": "Bo", "reactions": 1}, {"name": "Kit", "savvy": 2}]


def street_moves(state: dict[str, Any]) -> list[Move]:
    crew = [f["id"] for f in state["crew"] if f["status"] == "active"] or ["c1"]
    enemies = [e["id"] for e in state["enemies"]][:2] or ["e1"]
    suspects = [m["id"] for m in state["suspects"]][:2] or ["s1"]
    if state["phase"] == "start" and not state["reaction_dice"]:
        return [("roll_reactions", {})]
    if state["phase"] == "start":
        return [("assign_reaction", {"figure": f, "die": d}) for f in crew for d in (1, 2)] + [("next_phase", {})]
    return [
        ("next_phase", {}),
        ("next_phase", {}),
        ("suspects_act", {}),
        *[("identify", {"figure": f, "suspect": m}) for f in crew[:2] for m in suspects],
        *[("city_reveal", {"figure": f}) for f in crew[:2]],
        ("city_reveal", {"figure": crew[0], "face": 85}),
        ("curiosity", {"figure": crew[0]}),
        ("evade", {"figure": crew[-1]}),
        *[("trouble", {"enemy": e}) for e in enemies],
        *[("adjust", {"enemy": e, "stun_change": d}) for e in enemies[:1] for d in (1, -1)],
        ("adjust", {"enemy": enemies[0], "status": "casualty"}),
        ("adjust", {"figure": crew[-1], "status": "casualty"}),
        ("contact", {"figure": crew[0]}),
        ("locate", {"figure": crew[0]}),
        ("surveil", {"figure": crew[0]}),
        ("confront", {"figure": crew[0]}),
        ("threaten", {"figure": crew[0]}),
        ("corral", {"figure": crew[0], "suspect": suspects[0]}),
        ("individual", {"status": "panicked"}),
        ("individual_off", {}),
        ("package", {"figure": crew[0], "do": "pick_up"}),
        ("package", {"figure": crew[0], "do": "place"}),
        ("surrender", {"figure": crew[0]}),
        ("attack_law", {"figure": crew[-1]}),
        ("escape", {"figure": crew[-1]}),
        ("savvy", {"figure": crew[0], "test": "neon_barbarians"}),
        *[("savvy", {"figure": crew[0], "test": "haywire_bot", "enemy": e}) for e in enemies[:1]],
        *[("terror", {"enemy": e}) for e in enemies[:1]],
        *[("terror", {"enemy": e, "plant": "on"}) for e in enemies[:1]],
        *[("terror", {"bomb": b["id"]}) for b in state["bombs"][:1]],
        *[("shout", {"enemy": e}) for e in enemies[:1]],
        ("city_reveal", {"figure": crew[0], "face": 60}),
    ]


def street_check(state: dict[str, Any]) -> None:
    assert state["phase"] in fp_street.PHASES and state["round"] >= 0
    no_negative_counts(state)
    held_once(state["crew"])
    assert all(v >= 0 for v in state["city"].values() if not isinstance(v, bool))
    for fig in state["crew"]:
        assert fig["status"] in ("active", "casualty", "escaped", "detained") and 0 <= fig["stun"] <= 9
    for foe in state["enemies"]:
        assert foe["status"] in ("active", "casualty", "fled", "ally")
        assert foe["stun"] <= (1 if foe["combatant"] else 9)  # Street Combatants hold one Stun marker (p.132)
        if foe["type"] in ("Haywire Bot", "Roid-head", "Combat Bot", "Slasher"):
            assert foe["stun"] == 0  # never Stunned (pp.132-133)
        assert foe["type"] != "Slasher" or foe["status"] != "casualty"  # cannot be eliminated (p.133)
    ids = [m["id"] for m in state["suspects"]]
    assert len(ids) == len(set(ids))
    if state["spooks"]:
        assert all(m["pursuing"] for m in state["suspects"])  # p.129
    assert state["objective"]["surveilled"] <= 3 and state["objective"]["markers_left"] >= 0
    assert not (state["objective"]["done"] and state["objective"]["failed"] and state["won"])
    if state["sirens"] is not None and not state["sirens"]["arrived"]:
        assert state["sirens"]["clock"] < 10  # p.135: the law arrives at 10
    assert (state["phase"] == "over") == (state["held_field"] is not None)
    if state["phase"] not in ("setup", "over"):
        assert any(f["status"] == "active" for f in state["crew"])  # p.136: over once nobody is left


@pytest.fixture
def tables() -> None:
    load_system_tables("fiveparsecs")


@pytest.mark.usefixtures("tables")
@pytest.mark.parametrize("objective", [5, 15, 30, 50, 70, 80, 95])  # every objective row (pp.127-128)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_street_fights_keep_their_bounds_undo_exactly_and_replay(objective: int, data: st.DataObject) -> None:
    enemy = data.draw(
        st.sampled_from(["", "Terror Faction", "Neon Barbarians", "Spooks", "Fanatics", "Roid Gangers"]), label="enemy"
    )
    card = fp_street.generate(Dice(seed=objective), TABLES, crew=CREW, objective_face=objective, weird_place=True, enemy=enemy)
    kind = Kind(street_kind.KIND, {"setup": card}, street_moves, street_check)
    play(kind, data, UserFactory())
