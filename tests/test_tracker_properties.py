"""Invariants of every tracker kind as properties: random sequences of actions with random dice
(seeded by hypothesis) played through the live services, checking after each accepted action
that the bounds the rules state hold, that undo gives back the exact previous state, that the
same action with the same seed gives the same state again, and that replaying the room's log
gives its stored state. A refused action must change nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battles.engine import fp_tracker
from bughunt.engine import tracker as bughunt_tracker
from live import services
from live.models import Room
from live.selectors import room_replay_matches
from rules.errors import DropshipError
from tests.factories import UserFactory
from tests.tables import load_system_tables

pytestmark = pytest.mark.django_db

Move = tuple[str, dict[str, Any]]
SEEDS = st.integers(min_value=0, max_value=2**32)


def ids(items: list[dict[str, Any]]) -> list[str]:
    return [str(i["id"]) for i in items] or ["x1"]


def numbers(state: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every (key path, value) of a JSON state, depth first."""
    if isinstance(state, dict):
        for key, value in state.items():
            yield from numbers(value, f"{path}.{key}")
    elif isinstance(state, list):
        for value in state:
            yield from numbers(value, f"{path}[]")
    else:
        yield path, state


# Counts the rules never take below zero, whatever the kind.
COUNTS = {
    "round", "turn", "next_id", "next_item", "actions_left", "stun", "wounds", "stress", "load", "surges",
    "engines_fired", "successes", "checks", "spawn_rating", "priority", "encounter",
}  # fmt: skip


def no_negative_counts(state: dict[str, Any]) -> None:
    for path, value in numbers(state):
        if path.rsplit(".", 1)[-1] in COUNTS and isinstance(value, int) and not isinstance(value, bool):
            assert value >= 0, f"{path} = {value}"


def held_once(units: list[dict[str, Any]]) -> None:
    """Each Reaction die is held by one figure at most."""
    held = [u["die"] for u in units if u.get("die") is not None]
    assert len(held) == len(set(held)), held


# -- the kinds --------------------------------------------------------------------------------


def threat_moves(state: dict[str, Any]) -> list[Move]:
    chars = ids(state["characters"])
    offer = state["offer"]
    choices = (state["complications"] if offer and offer["kind"] == "complication" else state["ultra_successes"])[:3]
    if offer:
        return [("choose", {"name": name}) for name in choices]
    if not state["characters"]:
        return [("add_character", {"name": "Ripley"}), ("set_threat", {"level": 4})]
    return [
        ("add_character", {"name": "Ripley"}),
        ("remove_character", {"id": chars[-1]}),
        ("set_threat", {"level": 1 + len(chars) % 5}),
        ("set_threat", {"level": 5}),
        ("set_mapping", {"threat": 2, "offense": 1, "defence": 3}),
        *[("combat_action", {"characters": [c]}) for c in chars],
        ("combat_action", {"characters": chars[:2], "modifier": 2}),
        ("combat_action", {"characters": chars[:1], "faces": [6, 6]}),
        ("end_phase", {}),
    ]


def threat_check(state: dict[str, Any]) -> None:
    assert 1 <= state["threat"] <= 5
    assert state["phase"] in ("offense", "defence")
    assert state["round"] >= 1 and state["actions_left"] >= 0
    assert len(ids(state["characters"])) == len(set(ids(state["characters"])))


def stack_moves(state: dict[str, Any]) -> list[Move]:
    stacks, targets = ids(state["stacks"]), ids(state["targets"])
    members = [m["id"] for s in state["stacks"] for m in s["members"]] or ["m0"]
    if not state["stacks"]:
        return [("add_stack", {"name": "Ripley's team", "kind": "party"}), ("add_target", {"name": "Warrior", "health": 12})]
    if state["pending"]:
        return [("roll_damage", {"characters": members[:2]}), ("roll_damage", {})]
    return [
        ("add_stack", {"name": "Ripley's team", "kind": "party"}),
        ("add_stack", {"name": "Drones", "kind": "creatures", "damage": "1D6"}),
        ("add_member", {"stack": stacks[-1], "name": "Ripley", "role": "pc", "health": 8, "save": 40}),
        ("add_member", {"stack": stacks[-1], "name": "Merc", "role": "contractor", "loyalty": 30, "max_wounds": 2}),
        ("add_member", {"stack": stacks[0], "name": "Drone", "role": "creature", "count": 2, "health": 4}),
        ("add_target", {"name": "Warrior", "health": 12, "max_wounds": 1}),
        ("remove", {"id": targets[0]}),
        ("new_turn", {}),
        *[("loyalty_check", {"stack": s}) for s in stacks],
        *[("combat_check", {"stack": s, "target": t}) for s in stacks for t in targets[:2] + stacks[:1]],
        *[("stacked_save", {"stack": s, "damage": "1D6"}) for s in stacks],
        *[("take_hit", {"target": s, "damage": 5}) for s in stacks],
        ("roll_damage", {"characters": members[:2]}),
        ("roll_damage", {}),
    ]


def stack_check(state: dict[str, Any]) -> None:
    assert state["turn"] >= 1
    for entity in [m for s in state["stacks"] for m in s["members"]] + state["targets"]:
        assert 0 <= entity["health"] <= entity["max_health"], entity
        assert 0 <= entity["wounds"] <= max(entity["max_wounds"], 0) or entity["down"], entity
    for stack in state["stacks"]:
        live = [m for m in stack["members"] if not m["down"]]
        assert stack["sums"]["size"] == len(live) and 0 <= stack["sums"]["acting"] <= stack["sums"]["size"]


def stress_moves(state: dict[str, Any]) -> list[Move]:
    chars = ids(state["characters"])
    c = chars[-1]
    sheet = {"strength": 3, "agility": 4, "wits": 4, "empathy": 3}
    adds = [("add_character", {"name": "Ripley", **sheet}), ("add_character", {"name": "Bishop", "android": True, **sheet})]
    if not state["characters"]:
        return adds
    return [
        *adds,
        ("new_round", {}),
        ("turn_passes", {}),
        *[("check", {"id": x, "skill": "ranged_combat"}) for x in chars],
        ("check", {"id": c, "skill": "close_combat", "modifier": 2}),
        *[("push", {"id": x}) for x in chars],
        *[("panic_roll", {"id": x, "trigger": "pinned"}) for x in chars],
        ("help", {"id": chars[0], "target": c}),
        ("withdraw_help", {"id": chars[0]}),
        ("aim", {"id": c}),
        ("take_action", {"id": c, "action": "slow"}),
        ("stress_up", {"id": c, "amount": 2}),
        ("stress_down", {"id": c, "reason": "rest"}),
        ("add_condition", {"id": c, "name": "Starving", "modifier": -1}),
        ("add_item", {"id": c, "name": "Pulse rifle", "slots": 2}),
        ("set_broken", {"id": c, "broken": "on"}),
        ("set_broken", {"id": c, "broken": "off"}),
    ]


def stress_check(state: dict[str, Any]) -> None:
    assert state["round"] >= 1
    for char in state["characters"]:
        assert char["stress"] >= 0 and char["load"] >= 0
        assert char["load"] == sum(i["slots"] for i in char["items"]), char
        assert len(char["helpers"]) <= 3
        if char["android"]:
            assert char["stress"] == 0, char


def mass_moves(state: dict[str, Any]) -> list[Move]:
    squads, heroes = ids(state["squads"]), ids(state["heroes"])
    a = [s["id"] for s in state["squads"] if s["side"] == "a"] or ["s0"]
    b = [s["id"] for s in state["squads"] if s["side"] == "b"] or ["s0"]
    combat = state.get("combat") or {}
    return [
        ("add_squad", {"side": "a", "name": "Iron Guard", "squad_type": "soldiers", "level": 3, "position": "C4"}),
        ("add_squad", {"side": "b", "name": "Horde", "squad_type": "casters", "level": 2, "position": "C6"}),
        ("add_squad", {"side": "b", "name": "Skulls", "squad_type": "paladins", "level": 1, "undead": True}),
        ("add_hero", {"side": "a", "name": "Aria", "at": a[0], "surges": 2}),
        ("advance", {}),
        *[("priority_check", {"hero": h, "skill": "History", "result": r}) for h in heroes for r in ("success", "failure")],
        ("choose_priority", {"side": "a"}),
        ("choose_priority", {"side": "b"}),
        *[("move", {"squad": s, "position": "D5"}) for s in squads],
        *[("start_combat", {"squads": [x, y]}) for x in a[:2] for y in b[:2]],
        *[("combat_roll", {"squad": s}) for s in combat.get("to_roll", [])],
        ("press", {}),
        ("retreat", {}),
        *[("set_surges", {"hero": h, "surges": 0}) for h in heroes],
    ]


def mass_check(state: dict[str, Any]) -> None:
    assert state["phase"] in ("setup", "priority", "action", "reposition")
    assert state["round"] >= 0
    assert state["priority"]["successes"] <= state["priority"]["checks"]
    for squad in state["squads"]:
        assert 1 <= squad["level"] <= 20 and squad["engines_fired"] >= 0
    for hero in state["heroes"]:
        assert hero["surges"] >= 0


def bughunt_moves(state: dict[str, Any]) -> list[Move]:
    units = ids(state["units"])
    figures = [f["id"] for u in state["units"] for f in u["figures"]] or ["f0"]
    enemies = [f["id"] for g in state["groups"] for f in g["figures"]] or ["e0"]
    contacts = ids(state.get("contacts", []))
    pending = state.get("pending")
    if pending:  # typed dice, one step at a time: exactly the count asked for, or a wrong count
        count = pending["count"]
        return [
            *[("roll_die", {"faces": [face] * count}) for face in (1, 3, 6)],
            ("roll_die", {"faces": [2] * (count + 1)}),
            ("cancel_roll", {}),
            ("next_phase", {}),
        ]
    detect = [("detect", {"contact": c, "band": "open"}) for c in contacts[:1]]
    if state["phase"] == "start" and not state["reaction_dice"]:
        return [("roll_reactions", {}), *detect, ("shoot", {"figure": figures[0], "enemy": enemies[0], "weapon": "Combat rifle"})]
    if state["phase"] == "start":
        free = state["reaction_pick"]["first_free"] or 1
        waiting = [u["id"] for u in state["units"] if u["active"] and u["die"] is None]
        return [
            *[("assign_reaction", {"unit": u, "die": free}) for u in waiting[:1]],
            ("next_phase", {}),
        ]
    return [
        ("next_phase", {}),
        ("roll_reactions", {}),
        *[("assign_reaction", {"unit": u, "die": d}) for u in units for d in (1, 2, 3)],
        *[("act", {"unit": u}) for u in units],
        *[("hold", {"unit": u}) for u in units],
        ("move_contacts", {}),
        *[("detect", {"contact": c, "band": "open"}) for c in contacts[:2]],
        *[("adjust", {"figure": f, "stun": 1}) for f in figures[:2]],
        ("adjust", {"figure": figures[0], "stun": 0}),
        *[("shoot", {"figure": f, "enemy": e, "weapon": w}) for f in figures[:2] for e in enemies[:2]
          for w in ("Combat rifle", "Service pistol")],
        *[("shoot", {"figure": f, "enemy": e, "weapon": "Combat rifle", "typed": "on"}) for f in figures[:3] for e in enemies[:2]],
        *[("brawl", {"figure": f, "enemy": e, "typed": "on"}) for f in figures[:3] for e in enemies[:1]],
        ("shoot", {"figure": figures[0], "enemy": enemies[0], "weapon": "Combat rifle", "override": "house rule"}),
        *[("shoot", {"figure": figures[0], "enemy": enemies[0], "weapon": w, "near": near})
          for w in ("Frag grenade", "Flash grenade") for near in (enemies[1:3], [*enemies[1:2], figures[-1]])],
        *[("brawl", {"figure": f, "enemy": e, "by": by}) for f in figures[:1] for e in enemies[:2] for by in ("trooper", "enemy")],
        *[("adjust_enemy", {"enemy": e, "stun": 2}) for e in enemies[:1]],
        *[("move", {"figure": f, **dash}) for f in figures[:2] for dash in ({}, {"dash": "on"})],
        *[("hit", {"enemy": e, "damage": 1, "near": enemies[1:3], f"near_{enemies[1 % len(enemies)]}": figures[:1]})
          for e in enemies[:1]],
        *[("activate", {"location": t["id"], "figure": figures[0], "enemies": enemies[:1]}) for t in state["locations"][:1]],
        *[("investigate", {"location": t["id"], "figure": figures[0]}) for t in state["locations"][:1]],
    ]  # fmt: skip


def bughunt_check(state: dict[str, Any]) -> None:
    assert state["phase"] in bughunt_tracker.PHASES and state["round"] >= 1
    held_once(state["units"])
    rnd = state["round"]
    for unit in state["units"]:
        for fig in unit["figures"]:
            assert fig["status"] in bughunt_tracker.STATUSES, fig
            assert 0 <= fig["stun"] <= bughunt_tracker.KNOCKOUT_STUN, fig
            # a Combat Action is taken in an activation: never at the start of a round, never without a die
            combat_round = fig.get("combat_round")
            assert combat_round is None or combat_round <= rnd, fig
            if combat_round == rnd:
                assert state["phase"] != "start" and unit["die"] is not None, (state["phase"], unit)
            # a move is part of the figure's activation too; a Dash is a move (pp.176, 198)
            if fig.get("moved_round") == rnd:
                assert state["phase"] != "start" and unit["die"] is not None, (state["phase"], unit)
            assert fig.get("dashed_round") != rnd or fig.get("moved_round") == rnd, fig
    ids_ = [f["id"] for unit in state["units"] for f in unit["figures"]]
    assert len(ids_) == len(set(ids_)), ids_  # each figure in exactly one unit, with one status
    for group in state["groups"]:
        for foe in group["figures"]:
            # enemies never act in the round they were placed (p.193), nor in the future
            acted = foe.get("acted_round")
            assert acted is None or foe["placed_round"] < acted <= rnd, foe
            assert acted is None or acted != foe.get("distracted_round"), foe  # Distracted: no action (p.191)
            assert foe["stun"] < bughunt_tracker.KNOCKOUT_STUN or foe["status"] != "active", foe
    pending = state.get("pending")
    if pending:
        assert pending["count"] >= 1 and pending["sides"] >= 2 and pending["reason"], pending


def fp_moves(state: dict[str, Any]) -> list[Move]:
    crew, enemies = ids(state["crew"]), ids(state["enemies"])
    # Grid-based movement (pp.90-93): set-up on the own edge (and refusals), then moves by square.
    places = [("grid_place", {"figure": c, "square": s}) for c in crew for s in ("A1", "B2")]
    places += [("grid_place", {"enemy": e, "square": s}) for e in enemies[:2] for s in ("C3", "B1")]
    if state["phase"] == "setup" and state["seize"]["result"] is None:
        return [("seize", {}), *places]
    if state["phase"] == "setup":
        return [("next_phase", {}), *places]
    if state["phase"] == "start" and not state["reaction_dice"]:
        return [("roll_reactions", {})]
    if state["phase"] == "start":
        return [("assign_reaction", {"figure": f, "die": d}) for f in crew for d in (1, 2)] + [("next_phase", {})]
    return [
        ("next_phase", {}),
        *[("assign_reaction", {"figure": f, "die": d}) for f in crew for d in (1, 2)],
        *[("act", {"figure": f}) for f in crew],
        *[("enemy_act", {"enemy": e}) for e in enemies[:2]],
        *[("resolve", {"attacker": f, "target": e, "range": 8}) for f in crew for e in enemies[:2]],
        *[("adjust", {"enemy": e, "stun_change": d}) for e in enemies[:1] for d in (1, -1)],
        ("adjust", {"figure": crew[0], "wounded": "on"}),
        *[("grid_move", {"figure": f, "square": s}) for f in crew for s in ("A2", "B2", "A3")],
        *[("grid_move", {"enemy": e, "square": s}) for e in enemies[:2] for s in ("C2", "B2", "A1")],
        ("grid_place", {"neutral": "Civilian", "square": "A2"}),
        *[
            ("psionic", {"figure": crew[0], "power": p, "target": t, "distance": d})
            for p in ("Shock", "Rejuvenate", "Psionic Scare")
            for t in [*enemies[:1], *crew]
            for d in (4, 9)
        ],
        *[("psionic_strain", {"figure": crew[0], "strain": s}) for s in ("on", "off")],
    ]


def fp_check(state: dict[str, Any]) -> None:
    assert state["phase"] in fp_tracker.PHASES
    held_once(state["crew"])
    for fig in state["crew"] + state["enemies"]:
        assert fig["status"] in fp_tracker.STATUSES, fig
        assert 0 <= fig["stun"] <= 9, fig
    # Grid-based movement: a square is on the grid, its status matches who shares it, one move a round.
    grid = state["grid"]
    for fig in state["crew"] + state["enemies"]:
        assert fig.get("square") is None or fig["square"] in grid["squares"], fig
        assert fig.get("grid_move") is None or fig["grid_move"]["round"] <= state["round"]
        if fig["status"] == "active" and fig.get("square"):
            foes = state["enemies"] if fig["side"] == "crew" else state["crew"]
            close = any(o["status"] == "active" and o.get("square") == fig["square"] for o in foes)
            assert fig["square_status"] == ("close" if close else "open"), fig
    # Psionics (pp.19-22): one Psionic Action per round, uses never fewer than rounds acted in,
    # reinforcements called once and only from a Projection; a single Warding Shrel spent at most once.
    book = state["psionics"]
    ria = state["crew"][0]
    assert book["uses"] >= (1 if ria["psionic_round"] is not None else 0)
    assert ria["psionic_round"] is None or ria["psionic_round"] <= state["round"]
    assert book["pending"] is None or book["pending"]["figure"] == ria["id"]
    if book["reinforcements"] is not None:
        assert book["reinforcements"]["basic"] + book["reinforcements"]["specialists"] <= 3
    assert all(effect["until"] >= state["round"] for effect in book["effects"])


BH_SETUP = {
    "priority": 2,
    "difficulty": "Mess Me Up",
    "contacts_at_center": 3,
    "main_characters": [
        {"name": "Alpha", "reactions": 3, "weapons": ["Combat rifle", "Frag grenade", "Flash grenade"]},
        {"name": "Bravo", "reactions": 2},
    ],
}

FP_SETUP = {
    "crew": [
        {
            "name": "Ria",
            "reactions": 2,
            "speed": 5,
            "combat_skill": 1,
            "toughness": 4,
            "weapons": ["Hand gun"],
            "psionic": True,
            "powers": {"Shock": False, "Rejuvenate": True, "Psionic Scare": False},
            "shrels": 1,
        },
        {"name": "Bo", "reactions": 1, "speed": 4, "combat_skill": 0, "toughness": 3, "weapons": ["Hand gun"]},
    ],
    "psionic_legality": "unusual",
    "enemies": [
        {"name": "Punks", "count": 3, "profile": {"speed": 4, "combat_skill": 0, "toughness": 3}, "weapons": ["Scrap pistol"]}
    ],
    "options": {"dramatic_combat": True, "grid": "3x3"},
    "seize_dice": "2D6",
    "seize_target": 10,
    "ai": "tactical",
}


def salvage_moves(state: dict[str, Any]) -> list[Move]:
    """A Salvage job (Compendium pp.137-147): the round, Contacts, Points of Interest, markers."""
    if state["phase"] == "setup":
        return [("start", {}), ("next_round", {})]
    crew = ids(state["crew"])
    return [
        ("next_round", {}),
        ("scanner_check", {}),
        *[("reveal_contact", {"contact": k, "crew": crew[0]}) for k in ids(state["contacts"])[:2]],
        *[("investigate", {"poi": p, "crew": c}) for p in ("p1", "p2", "p3", "p4") for c in crew[:2]],
        *[("use_marker", {"marker": m, "crew": crew[0]}) for m in ids(state["markers"])[:1]],
        ("pick_up_salvage", {"crew": crew[-1]}),
        *[("adjust", {"enemy": e, "status": "casualty"}) for e in ids(state["enemies"])[:2]],
        ("grab_salvage", {"enemy": "e1"}),
        *[("caught", {"target": t, "by": b}) for t in ("c1", "k1", "p3") for b in ("evac", "swarm")],
        ("end_mission", {}),
    ]


def salvage_check(state: dict[str, Any]) -> None:
    assert state["phase"] in ("setup", "round", "over")
    assert state["tension"]["value"] >= 0 and (not state["tension"]["locked"] or state["tension"]["value"] == 0)
    assert 0 <= state["salvage"]["markers"] <= 4 and state["salvage"]["units"] >= 0
    assert state["hostiles"]["encounters"] >= 0 and all(v >= 0 for v in state["finds"].values())
    no_negative_counts(state)


@dataclass(frozen=True)
class Kind:
    kind: str
    options: dict[str, Any]
    moves: Callable[[dict[str, Any]], list[Move]]
    check: Callable[[dict[str, Any]], None]


KINDS = {
    "threat": Kind("threat", {"threat": 3}, threat_moves, threat_check),
    "stack": Kind("stack", {}, stack_moves, stack_check),
    "stress": Kind("stress", {}, stress_moves, stress_check),
    "mass": Kind("mass", {}, mass_moves, mass_check),
    "bughunt-mission": Kind("bughunt-mission", {"setup": BH_SETUP}, bughunt_moves, bughunt_check),
    "fiveparsecs-battle": Kind("fiveparsecs-battle", {"setup": FP_SETUP}, fp_moves, fp_check),
    "fiveparsecs-salvage": Kind(
        "fiveparsecs-salvage",
        # Typed set-up dice: a replayed example must start from the same state (hypothesis re-runs it).
        {"crew": "Ria 1, Bo, Zed 2 bot", "rivals": "Vex", "marker_face": 2, "edge_face": 5},
        salvage_moves,
        salvage_check,
    ),
}


@pytest.fixture
def tables() -> None:
    """Every system's tables in the test database (the kernel keeps them in memory: the replay
    after every action reads them once)."""
    for system in ("threat-tracker", "fiveparsecs", "bughunt"):
        load_system_tables(system)


def play(kind: Kind, data: st.DataObject, owner: Any) -> int:
    """Play up to 25 drawn actions on a new room of ``kind``; returns how many were accepted."""
    room = services.room_create(user=owner, kind=kind.kind, title="Property", options=dict(kind.options), unlisted=True)
    kind.check(room.state)
    accepted = 0
    for _ in range(data.draw(st.integers(min_value=5, max_value=25), label="steps")):
        room.refresh_from_db()
        before, version = room.state, room.version
        type_, payload = data.draw(st.sampled_from(kind.moves(before)), label="action")
        seed = data.draw(SEEDS, label="seed")
        try:
            result = services.room_act(user=owner, room_id=room.pk, type=type_, payload=payload, version=version, seed=seed)
        except DropshipError:
            room.refresh_from_db()
            assert (room.state, room.version) == (before, version), "a refused action changed the room"
            continue
        accepted += 1
        after = result.room.state
        kind.check(after)
        assert room_replay_matches(result.room)
        if data.draw(st.integers(min_value=0, max_value=3), label="undo") == 0:
            undone = services.room_undo(user=owner, room_id=room.pk, version=result.room.version)
            assert undone.room.state == before
            assert room_replay_matches(undone.room)
            again = services.room_act(
                user=owner, room_id=room.pk, type=type_, payload=payload, version=undone.room.version, seed=seed
            )
            assert again.room.state == after
    room = Room.objects.get(pk=room.pk)
    assert room_replay_matches(room)
    return accepted


@pytest.mark.usefixtures("tables")
@pytest.mark.parametrize("kind", list(KINDS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_every_tracker_kind_keeps_its_bounds_undoes_exactly_and_replays_to_its_state(kind: str, data: st.DataObject) -> None:
    owner = UserFactory()
    play(KINDS[kind], data, owner)
