"""Deployment, the start of each round (the third party and the co-op waves arriving), Reaction
rolls, activations and initiative points (pp.35-37, 39-40).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.fp_pvp import coop as coop_rules
from battles.engine.fp_pvp.setup import SIDES
from battles.engine.fp_pvp.tracker.base import (
    DEPLOY_AT_ONCE,
    MOST_AT_ONCE,
    POINT_USES,
    THIRD,
    _able,
    _acting,
    _err,
    _fig,
    _is_coop,
    _is_referee,
    _on_table,
    _other,
    _pass_turn,
    _phase,
    _roll,
    _seated,
    _turn_side,
)
from battles.engine.fp_pvp.tracker.setup import _figure_of
from live.engine.tracker import (
    Action,
    Event,
    NotYours,
    payload_faces,
    payload_int,
    payload_words,
)
from rules.engine.dice import Dice, Keep
from rules.engine.tables import RangeTable

# -- deployment and rounds ---------------------------------------------------------------------


def _deploy(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    _phase(state, "deploy", what="Deployment")
    side = _turn_side(state, action, "figure to place")
    waiting = [f for f in state["figures"] if f["side"] == side and f["status"] == "undeployed"]
    picked = [_fig(state, fid, "figures", status="undeployed") for fid in payload_words(action, "figures")]
    need = min(DEPLOY_AT_ONCE, len(waiting))
    if len(picked) != need or len({f["id"] for f in picked}) != need or any(f["side"] != side for f in picked):
        raise _err(f"Place {need} of your figures not yet on the table ({', '.join(f['id'] for f in waiting)}).", "figures")
    for fig in picked:
        fig["status"] = "active"
    _pass_turn(state, side)
    events = [
        Event("deploy", f"{state['sides'][side]['name']} deploys {' and '.join(f['name'] for f in picked)}.", {"side": side})
    ]
    if state["turn"] is None:
        events.extend(_new_round(state, action, dice))
    return events


def _new_round(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Round start: +1 initiative point each (p.35), fresh Reaction dice, First Player rolls
    first; the third party arrives or is reinforced when its D100 row says this round (p.37)."""
    state["round"] += 1
    state["phase"] = "reactions"
    state["activation"] = None
    coop = _is_coop(state)
    for side in SIDES:
        if not coop:
            state["sides"][side]["points"] += 1
        # A co-op crew with nobody left on the table has no dice to roll; the other crew plays on.
        state["sides"][side]["reaction_dice"] = [] if coop and not _on_table(state, side) else None
        state["sides"][side]["agree_end"] = False
    for fig in state["figures"]:
        fig.update(die=None, face=None, slot=None, acted=False)
    state["turn"] = None if coop else state["first_player"]
    if coop:
        return [
            Event("round", f"Round {state['round']}: each player rolls Reactions for their own crew (p.40).", {}),
            *(_wave_arrives(state, action, dice, 2) if state["round"] == coop_rules.WAVE2_ROUND else []),
        ]
    first = state["sides"][state["first_player"]]["name"]
    return [
        Event(
            "round",
            f"Round {state['round']}: each side gains 1 initiative point (p.35); {first} holds the First Player token and rolls Reactions first.",
            {},
        ),
        *_third_arrives(state, action, dice),
    ]


def _third_arrives(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """The third party's arrival at the start of its round, and 1D6 reinforcements (one a
    specialist when 5-6 come) at the start of the round its row names (p.37)."""
    third = state["third_party"]
    if not third or third["gone"]:
        return []
    events: list[Event] = []
    rnd = state["round"]
    if third.get("round") == rnd:
        waiting = [f for f in state["figures"] if f["side"] == THIRD and f["status"] == "undeployed"]
        for fig in waiting:
            fig["status"] = "active"
        events.append(
            Event("third_party", f"The third party arrives from a random neutral edge: {len(waiting)} figures (p.37).", {})
        )
    if third.get("reinforcement_round") == rnd and third.get("reinforcement"):
        faces = payload_faces(action, "reinforcement_faces", 1)
        record = _roll(
            dice,
            str(third.get("reinforcements") or "1D6"),
            "Third party reinforcements (p.37)",
            faces=faces,
            field="reinforcement_faces",
        )
        count = int(record.total or 0)
        special = count >= int(third.get("specialist_if_at_least") or 99)
        for n in range(count):
            template = third["reinforcement_specialist"] if special and n == 0 else third["reinforcement"]
            raw = {**template, "name": f"{'Specialist' if special and n == 0 else 'Basic'} +{n + 1} (round {rnd})"}
            fig = _figure_of(raw, THIRD, int(third["next"]) - 1)
            fig["status"] = "active"
            third["next"] = int(third["next"]) + 1
            state["figures"].append(fig)
        data = {"rolls": [record.as_dict()], "roll": record.as_dict()}
        said = " one of them a specialist" if special else ""
        events.append(Event("third_party", f"{count} more third-party figures arrive from its edge,{said} (p.37).", data))
    return events


#: Where a co-op wave arrives on its D6 (p.40): Wave 2's faces 3-4 are the enemy's edge, Wave 3's the crews' own.
EDGES: dict[int, tuple[str, str, str]] = {
    2: ("the left battlefield edge", "the enemy's battlefield edge", "the right battlefield edge"),
    3: ("the left battlefield edge", "the crews' own battlefield edge, behind them", "the right battlefield edge"),
}
OPPOSITE: dict[str, str] = {"left": "right", "right": "left", "enemy": "crews", "crews": "enemy"}


def _wave_arrives(state: dict[str, Any], action: Action, dice: Dice, wave: int) -> list[Event]:
    """Wave 2 at the start of round 3, or Wave 3 when its check calls it (p.40): a D6 (typed
    ``wave_faces``) picks the edge, within 4" of its centre; Wave 3 on Wave 2's edge goes to the
    opposite one."""
    third = state["third_party"]
    record = _roll(
        dice,
        "D6",
        f"Wave {wave} arrives: 1-2 left, 3-4 {'enemy' if wave == 2 else 'crews'} edge, 5-6 right (p.40)",
        faces=payload_faces(action, "wave_faces", 1),
        field="wave_faces",
    )
    index = (int(record.total or 1) - 1) // 2
    edge = ("left", "enemy" if wave == 2 else "crews", "right")[index]
    where = EDGES[wave][index]
    if wave == 3 and edge == third["edges"].get("2"):
        edge = OPPOSITE[edge]
        where = (
            f"the {'enemy' if edge == 'enemy' else 'crews'} battlefield edge"
            if edge in ("enemy", "crews")
            else f"the {edge} battlefield edge"
        )
        where += ", opposite Wave 2's"
    came = [f for f in state["figures"] if f["side"] == THIRD and f.get("wave") == wave and f["status"] == "undeployed"]
    for fig in came:
        fig["status"] = "active"
    third["arrived"] = [*third["arrived"], wave]
    third["edges"] = {**third["edges"], str(wave): edge}
    data = {"rolls": [record.as_dict()], "roll": record.as_dict(), "wave": wave, "edge": edge}
    text = f'Wave {wave} arrives: {len(came)} figures within 4" of the centre of {where} (p.40).'
    return [Event("wave", text, data)]


def _coop_roller(state: Mapping[str, Any], action: Action) -> str:
    """The crew a co-op player rolls Reactions for: their own, in any order (p.40)."""
    if _is_referee(state, action):
        raise _err("The referee runs the enemy; each player rolls their own crew's Reactions.", "type")
    seated = _seated(state, action)
    if not seated:
        raise NotYours("Only a player of either crew rolls Reactions.")
    wanted = str(action.payload.get("side") or "")
    waiting = [s for s in seated if state["sides"][s]["reaction_dice"] is None and (not wanted or s == wanted)]
    if not waiting:
        raise _err("Your crew has rolled its Reactions this round.", "type")
    return waiting[0]


def _roll_reactions(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    _phase(state, "reactions", what="Rolling Reactions")
    side = _coop_roller(state, action) if _is_coop(state) else _turn_side(state, action, "Reaction roll")
    own = state["sides"][side]
    count = len(_on_table(state, side))
    faces = payload_faces(action, "faces", count)
    record = _roll(dice, f"{count}D6", f"Reactions, {own['name']}", faces=faces, field="faces", keep=Keep.SEPARATE)
    own["reaction_dice"] = list(record.faces)
    other = _other(side)
    state["turn"] = other if state["sides"][other]["reaction_dice"] is None and not _is_coop(state) else None
    data = {"rolls": [record.as_dict()], "roll": record.as_dict(), "side": side}
    return [Event("reactions", f"{own['name']} rolls Reactions: {', '.join(map(str, record.faces))}.", data)]


def _assign(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    _phase(state, "reactions", what="Assigning a Reaction die")
    fig = _fig(state, action.payload.get("figure"), "figure")
    _acting(state, action, fig["side"])
    if fig["side"] == THIRD:
        raise _err(f"{fig['name']} rolls no Reaction die: it acts in the Enemy Actions phase.", "figure")
    faces = state["sides"][fig["side"]]["reaction_dice"]
    if faces is None:
        raise _err(f"{state['sides'][fig['side']]['name']} has not rolled Reactions yet.", "die")
    index = payload_int(action, "die", low=1, high=len(faces)) - 1
    holder = next((f for f in state["figures"] if f["side"] == fig["side"] and f["die"] == index and f is not fig), None)
    if holder is not None:
        raise _err(f"Die {index + 1} is {holder['name']}'s; pick a free one.", "die")
    face = faces[index]
    fig.update(die=index, face=face, slot="quick" if face <= fig["reactions"] else "slow")
    when = "Quick Actions" if fig["slot"] == "quick" else "Slow Actions"
    return [
        Event(
            "assign",
            f"{fig['name']} takes die {index + 1} ({face}) against Reactions {fig['reactions']}: {when}.",
            {"figure": fig["id"]},
        )
    ]


def _activate(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    _phase(state, "quick", "enemy", "slow", what="Activating figures")
    enemy = state["phase"] == "enemy"
    if enemy:
        side = THIRD
        _acting(state, action, THIRD, "figures")
    else:
        side = _turn_side(state, action, "figure to activate")
    picked = [_fig(state, fid, "figures") for fid in payload_words(action, "figures")]
    able = {f["id"] for f in _able(state, side)}
    most = len(able) if enemy else 1 if _is_coop(state) else MOST_AT_ONCE
    if not 1 <= len(picked) <= max(1, most) or len({f["id"] for f in picked}) != len(picked):
        count = "one" if most == 1 else "one or two"
        raise _err(f"Pick {count} of your figures able to act now ({', '.join(sorted(able))}).", "figures")
    for fig in picked:
        if fig["id"] not in able:
            raise _err(f"{fig['name']} cannot act now: pick from {', '.join(sorted(able))}.", "figures")
    texts = []
    for fig in picked:
        fig["acted"] = True
        if fig["stun"]:
            fig["stun"] -= 1
            texts.append(f"{fig['name']} removes a Stun marker ({fig['stun']} left).")
    state["activation"] = {"side": side, "figures": [f["id"] for f in picked], "fire": []}
    names = " and ".join(f["name"] for f in picked)
    if enemy:
        who = "The enemy" if _is_coop(state) else "The third party"
        return [Event("activate", " ".join([f"{who} acts with {names} (by its AI).", *texts]), {"side": side})]
    _pass_turn(state, side)
    return [Event("activate", " ".join([f"{state['sides'][side]['name']} acts with {names}.", *texts]), {"side": side})]


def _in_activation(state: Mapping[str, Any], action: Action, fid: Any, field: str) -> dict[str, Any]:
    fig = _fig(state, fid, field)
    _acting(state, action, fig["side"], field)
    current = state["activation"]
    if current is None or fig["id"] not in current["figures"]:
        raise _err(f"{fig['name']} is not acting now: activate it first.", field)
    return fig


def _spend(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    _phase(state, "quick", "slow", what="Spending an initiative point")
    if _is_coop(state):
        raise _err("A co-op battle has no initiative points: they are a PvP rule (p.35).", "use")
    use = str(action.payload.get("use") or "")
    if use not in POINT_USES:
        raise _err(f"use must be one of {', '.join(POINT_USES)} (a brawl draw is draw_if_lost on the brawl); got {use!r}.", "use")
    fig = _in_activation(state, action, action.payload.get("figure"), "figure")
    if fig["side"] == THIRD:
        raise _err("The third party has no initiative points (p.35).", "figure")
    own = state["sides"][fig["side"]]
    if own["points"] < 1:
        raise _err(f"{own['name']} has no initiative point left.", "use")
    if use == "fire":
        if fig["id"] in state["activation"]["fire"]:
            raise _err(f"{fig['name']} already has a Fire point waiting for its shot.", "use")
        state["activation"]["fire"].append(fig["id"])
        said = f"{fig['name']}'s next shot gets +1 Shot and rerolls natural 1s to Hit"
    elif use == "remove_stun":
        if not fig["stun"]:
            raise _err(f"{fig['name']} has no Stun marker to remove.", "use")
        fig["stun"] = 0
        said = f"{fig['name']} removes all Stun markers"
    else:
        said = f'{fig["name"]} moves at double Speed ({fig["speed"] * 2}") for one move'
    own["points"] -= 1
    return [
        Event("point", f"{own['name']} spends an initiative point: {said} (p.35). {own['points']} left.", {"side": fig["side"]})
    ]
