"""The battle round as properties (Bug Hunt pp.176-180, 191, 195, 198): random sequences of
tracker actions with seeded dice, checking after every accepted action the bounds the rules
state and, from the state before and after, that no figure moved or took a Combat Action twice
in a round, nor in the wrong order. The same invariants run through the live kernel (undo and
replay) in tests/test_tracker_properties.py."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bughunt.engine import tracker
from bughunt.tests.test_tracker_engine import SETUP, TABLES
from live.engine.tracker import Action, NotYours, Role, TrackerError
from rules.engine.dice import Dice

Move = tuple[str, dict[str, Any]]

ROUND_SETUP = {
    **SETUP,
    "main_characters": [{**SETUP["main_characters"][0], "weapons": ["Sniper rifle", "Frag grenade", "Flash grenade"]}],
    "contacts_at_center": 2,
}


def figures(state: dict[str, Any]) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    return {f["id"]: (u, f) for u in state["units"] for f in u["figures"]}


def moves(state: dict[str, Any]) -> list[Move]:
    """What a table might send now: mostly legal, some out of turn, a few overrides."""
    figs = [f for f in figures(state) if figures(state)[f][1]["status"] == "active"] or ["f0"]
    units = [u["id"] for u in state["units"]]
    foes = [f["id"] for g in state["groups"] for f in g["figures"] if f["status"] == "active"] or ["e0"]
    contacts = [c["id"] for c in state["contacts"]]
    locations = [t["id"] for t in state["locations"]][:2]
    if state.get("pending"):
        count = state["pending"]["count"]
        return [("roll_die", {"faces": [face] * count}) for face in (1, 4, 6)] + [("cancel_roll", {})]
    reveal = [
        ("detect", {"contact": c, "band": "open", "faces": [5], "enemy_face": [kind], "numbers_faces": [3],
                    "variant_face": [1], "leader_faces": [12, 12, 12], "distracted": "on"})
        for c in contacts[:1] for kind in (85, 48)
    ]  # fmt: skip
    if state["phase"] == "start" and not state["reaction_dice"]:
        return [("roll_reactions", {}), ("next_phase", {}), ("move", {"figure": figs[0]}), *reveal]
    if state["phase"] == "start":
        free = state["reaction_pick"]["first_free"] or 1
        waiting = [u["id"] for u in state["units"] if u["active"] and u["die"] is None]
        return [*[("assign_reaction", {"unit": u, "die": free}) for u in waiting[:1]], ("next_phase", {})]
    return [
        ("next_phase", {}),
        *[("act", {"unit": u}) for u in units],
        *[("hold", {"unit": u}) for u in units],
        *[("move", {"figure": f, **dash}) for f in figs[:3] for dash in ({}, {"dash": "on"})],
        *[("shoot", {"figure": f, "enemy": e, "weapon": w["name"], "near": foes[1:3]}) for f in figs[:3] for e in foes[:1]
          for w in figures(state)[f][1]["weapons"] if f in figures(state)],
        ("shoot", {"figure": figs[0], "enemy": foes[0], "weapon": "Sniper rifle", "typed": "on"}),
        *[("brawl", {"figure": f, "enemy": e, "by": by, "near": foes[1:2], f"near_{foes[1 % len(foes)]}": foes[2:4]})
          for f in figs[:2] for e in foes[:2] for by in ("trooper", "enemy")],
        *[("hit", {"enemy": e, "damage": 1, "near": [*foes[1:3], figs[-1]]}) for e in foes[:1]],
        *reveal,
        ("move_contacts", {}),
        *[("investigate", {"location": t, "figure": figs[0]}) for t in locations],
        *[("activate", {"location": t, "figure": figs[0], "enemies": foes[:1]}) for t in locations],
        *[("adjust", {"figure": f, "stun": 1}) for f in figs[:2]],
        ("adjust", {"figure": figs[0], "wounded": "on"}),
        ("shoot", {"figure": figs[0], "enemy": foes[0], "weapon": "Sniper rifle", "override": "house rule"}),
        ("move", {"figure": figs[-1], "override": "forgot"}),
    ]  # fmt: skip


def invariants(state: dict[str, Any]) -> None:
    """Bounds that hold after every action whatever was sent."""
    rnd = state["round"]
    assert state["phase"] in (*tracker.PHASES, "over")
    seen = [f["id"] for u in state["units"] for f in u["figures"]]
    assert len(seen) == len(set(seen)), seen  # every figure in exactly one unit
    foes = [f for g in state["groups"] for f in g["figures"]]
    assert len({f["id"] for f in foes}) == len(foes)
    for _, fig in figures(state).values():
        assert fig["status"] in tracker.STATUSES  # exactly one state
        assert 0 <= fig["stun"] <= tracker.KNOCKOUT_STUN and (fig["stun"] < tracker.KNOCKOUT_STUN or fig["status"] != "active")
        for key in ("moved_round", "dashed_round", "combat_round", "evac_call_round"):
            assert fig.get(key) is None or fig[key] <= rnd, (key, fig)
        if fig.get("dashed_round") == rnd:
            assert fig["moved_round"] == rnd  # a Dash is a move
    for foe in foes:
        assert foe["status"] in tracker.ENEMY_STATUSES
        assert 0 <= foe["stun"] <= tracker.KNOCKOUT_STUN and (foe["stun"] < tracker.KNOCKOUT_STUN or foe["status"] != "active")
        acted = foe.get("acted_round")
        assert acted is None or foe["placed_round"] < acted <= rnd, foe  # never the round it was placed (p.193)
        assert acted is None or acted != foe.get("distracted_round"), foe  # Distracted: no action (p.191)
    pending = state.get("pending")
    assert not pending or (pending["count"] >= 1 and pending["reason"])


def step(before: dict[str, Any], after: dict[str, Any], move: Move, events: list[dict[str, Any]]) -> None:
    """No figure moves twice or acts twice in a round, acts then moves, or does what its move
    forbade (p.198); the referee's override is the only way round, and it is logged."""
    type_, payload = move
    if payload.get("override"):
        assert any(e["type"] == "override" for e in events)
        return
    rnd = before["round"]
    if type_ == "move":
        _, fig = figures(before)[payload["figure"]]
        assert fig.get("moved_round") != rnd and fig.get("combat_round") != rnd, fig
        assert before["phase"] in ("quick", "slow")
        assert not (payload.get("dash") and fig["wounded"])
    way = next((e["data"].get("way") for e in events if e["type"] == "shoot"), None)
    if type_ == "shoot" and way in ("activation", "snap_fire"):
        unit, fig = figures(before)[payload["figure"]]
        assert fig.get("combat_round") != rnd, fig  # one weapon, once per activation
        assert fig.get("dashed_round") != rnd, fig  # no firing after a Dash (p.176)
        if fig.get("moved_round") == rnd:
            assert fig["stun"] == 0 and not (unit["held"] and before["phase"] == "slow"), fig


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_random_rounds_keep_the_rules_bounds_and_each_figure_acts_once(data: st.DataObject) -> None:
    state = tracker.initial_state(copy.deepcopy(ROUND_SETUP), TABLES)
    invariants(state)
    for _ in range(data.draw(st.integers(min_value=10, max_value=60), label="steps")):
        move = data.draw(st.sampled_from(moves(state)), label="action")
        seed = data.draw(st.integers(min_value=0, max_value=2**32), label="seed")
        before = copy.deepcopy(state)
        try:
            after, events = tracker.apply(state, Action(move[0], dict(move[1]), role=Role.OWNER), Dice(seed=seed), TABLES)
        except (TrackerError, NotYours):
            assert state == before, "a refused action changed the state"
            continue
        assert state == before, "the reducer changed its input"
        again, _ = tracker.apply(before, Action(move[0], dict(move[1]), role=Role.OWNER), Dice(seed=seed), TABLES)
        assert again == after, "the same action and seed gave another state"
        invariants(after)
        step(before, after, move, [e.as_dict() for e in events])
        state = after
