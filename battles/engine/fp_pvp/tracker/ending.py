"""Moving the battle on: the phases, the end of each round (the 2D6 against the round number,
the third party's and the waves' Morale, Wave 3, Make it Quick) and ending by agreement
(pp.36-37, 40-41).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.fp_enemies.profiles import _panic_top
from battles.engine.fp_pvp import coop as coop_rules
from battles.engine.fp_pvp.setup import SIDES
from battles.engine.fp_pvp.tracker.base import (
    PHASE_NAMES,
    THIRD,
    _able,
    _err,
    _is_coop,
    _is_referee,
    _on_table,
    _other,
    _phase,
    _roll,
    _runs_third,
    _seated,
)
from battles.engine.fp_pvp.tracker.combat import _third_wiped
from battles.engine.fp_pvp.tracker.rounds import _new_round, _wave_arrives
from live.engine.tracker import (
    Action,
    Event,
    NotYours,
    payload_faces,
)
from rules.engine.dice import Dice, Keep
from rules.engine.tables import RangeTable


def _next_phase(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    phase = state["phase"]
    if phase == "enemy":
        if not _runs_third(state, action):
            raise NotYours("The referee ends the third party's phase." if state.get("referee") else "Only a player can move on.")
    elif not _seated(state, action):
        raise NotYours(
            "The referee runs the third party; the players move the battle on."
            if _is_referee(state, action)
            else "Only a player at this battle can move it on."
        )
    if phase in ("deploy", "over"):
        raise _err(
            "Deployment ends by itself with the last figure placed." if phase == "deploy" else "The battle is over.", "type"
        )
    if phase == "reactions":
        unrolled = [state["sides"][s]["name"] for s in SIDES if state["sides"][s]["reaction_dice"] is None]
        unassigned = [f["name"] for s in SIDES for f in _on_table(state, s) if f["die"] is None]
        if unrolled or unassigned:
            raise _err(
                f"Still to do: {'roll Reactions for ' + ', '.join(unrolled) if unrolled else 'a Reaction die for ' + ', '.join(unassigned)}.",
                "type",
            )
        return _enter(state, "quick")
    if phase in ("quick", "slow"):
        left = [f["name"] for s in SIDES for f in _able(state, s)]
        if left:
            raise _err(f"Still to act in this phase: {', '.join(left)}.", "type")
    if phase == "quick":
        third = state["third_party"]
        # A card from before the third party had figures keeps the phase for the players to run it.
        modelled = any(f["side"] == THIRD for f in state["figures"])
        return _enter(state, "enemy" if third and not third["gone"] and (_on_table(state, THIRD) or not modelled) else "slow")
    if phase == "enemy":
        return _enter(state, "slow")
    if phase == "slow":
        return _end_round(state, action, dice)
    return _new_round(state, action, dice)  # from the end of the round


def _enter(state: dict[str, Any], phase: str) -> list[Event]:
    state["phase"] = phase
    state["activation"] = None
    if phase in ("quick", "slow") and _is_coop(state):
        # The player with the fewest figures to use in the phase starts (p.40); the host on a tie.
        able = {side: len(_able(state, side)) for side in SIDES}
        have = [side for side in SIDES if able[side]]
        state["turn"] = min(have, key=lambda side: (able[side], side != state["first_player"])) if have else None
    elif phase in ("quick", "slow"):
        first = state["first_player"]
        state["turn"] = first if _able(state, first) else _other(first) if _able(state, _other(first)) else None
    else:
        state["turn"] = None
    if phase == "enemy":
        for fig in _on_table(state, THIRD):
            fig.update(slot="enemy", acted=False)
    return [Event("phase", f"{PHASE_NAMES[phase]}.", {})]


def _end_round(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Round end (p.36): the battle ends here if the last roll said so; else 2D6 against the
    round number (under it: over at the end of the next round). The First Player token passes."""
    state.update(phase="end", turn=None, activation=None)
    if _is_coop(state):
        return _coop_end_round(state, action, dice)
    rnd = state["round"]
    events: list[Event] = _third_morale(state, action, dice)
    if state["ending"]["last_round"] == rnd:
        state.update(phase="over", held_field=None)
        return [*events, Event("over", f"Round {rnd} was the last: the battle is over; unfinished objectives fail (p.36).", {})]
    faces = payload_faces(action, "end_faces", 2)
    record = _roll(
        dice,
        "2D6",
        f"End of round {rnd}: under {rnd} ends the battle after the next round (p.36)",
        faces=faces,
        field="end_faces",
    )
    total = int(record.total or 0)
    data = {"rolls": [record.as_dict()], "roll": record.as_dict()}
    if total < rnd:
        state["ending"]["last_round"] = rnd + 1
        events.append(
            Event("ending", f"End roll {total}, under round {rnd}: the battle ends at the end of round {rnd + 1}.", data)
        )
    else:
        events.append(Event("ending", f"End roll {total} against round {rnd}: the battle goes on.", data))
    state["first_player"] = _other(state["first_player"])
    events.append(Event("token", f"{state['sides'][state['first_player']]['name']} takes the First Player token.", {}))
    return events


#: The order in which a third party's figures flee on failed Morale dice (its lowest ranks first).
FLEE_ORDER = {"basic": 0, "specialist": 1, "lieutenant": 2, "captain": 3, "unique": 4}


def _third_morale(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Morale dice for the third party, the one AI force at the table (p.37), at the round's
    end as for any enemy: one D6 per figure of it that became a casualty this round; each die
    in its Panic range makes one figure flee (basic figures first; a Unique Individual never).
    Typed faces: ``morale_faces``. Fearless (Panic 0): no dice."""
    third = state["third_party"]
    if not third or third["gone"]:
        return []
    fallen = [f for f in state["figures"] if f["side"] == THIRD and f.get("down_round") == state["round"]]
    if not fallen:
        return []
    panic = _panic_top(str(third.get("panic") or "0"))
    if panic <= 0:
        return [Event("morale", "The third party is Fearless: no Morale dice.", {})]
    faces = payload_faces(action, "morale_faces", len(fallen))
    record = _roll(dice, f"{len(fallen)}D6", "Third party Morale", faces=faces, field="morale_faces", keep=Keep.SEPARATE)
    failures = sum(1 for face in record.faces if face <= panic)
    able = sorted(
        (f for f in _on_table(state, THIRD) if f.get("rank") != "unique"), key=lambda f: FLEE_ORDER.get(f.get("rank", ""), 0)
    )
    fled = able[:failures]
    for fig in fled:
        fig["status"] = "retreated"
    said = f"{', '.join(f['name'] for f in fled)} flee." if fled else "Nobody flees."
    data = {"rolls": [record.as_dict()], "roll": record.as_dict()}
    text = f"Third party Morale ({len(fallen)} D6, Panic 1-{panic}): {', '.join(map(str, record.faces))}. {said}"
    return [Event("morale", text, data), *_third_wiped(state)]


def _coop_end_round(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """A co-op round's end (pp.40-41): Morale per wave (Tough Fight); from round 3, while Wave 3
    has not come, 2D6 (typed ``end_faces``) under the round number brings it (its edge by
    ``wave_faces``). Checked first: the battle ends, the crews Holding the Field, when no enemy is
    on the table, Wave 2 has come, and Wave 3 has come and gone or this is round 6 or later (Make
    it Quick: no Wave 3 check then)."""
    rnd = state["round"]
    third = state["third_party"]
    events = _waves_morale(state, action, dice)
    if not _on_table(state, THIRD) and 2 in third["arrived"] and (3 in third["arrived"] or rnd >= coop_rules.QUICK_FROM):
        state.update(phase="over", held_field="both")
        why = "Wave 3 came and fell" if 3 in third["arrived"] else f"round {rnd} is round 6 or later (Make it Quick)"
        events.append(Event("over", f"No enemy is left on the table and {why}: both crews Hold the Field (p.40).", {}))
        return events
    if rnd >= coop_rules.WAVE2_ROUND and 3 not in third["arrived"]:
        record = _roll(
            dice,
            "2D6",
            f"End of round {rnd}: Wave 3 check, under {rnd} brings it (p.40)",
            faces=payload_faces(action, "end_faces", 2),
            field="end_faces",
        )
        third["wave3_checks"] = int(third.get("wave3_checks") or 0) + 1
        total = int(record.total or 0)
        data = {"rolls": [record.as_dict()], "roll": record.as_dict()}
        if total < rnd:
            events.append(Event("ending", f"Wave 3 check {total}, under round {rnd}: the enemy brings more forces.", data))
            events.extend(_wave_arrives(state, action, dice, 3))
        else:
            events.append(Event("ending", f"Wave 3 check {total} against round {rnd}: no more enemies this round.", data))
    return events


def _waves_morale(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Morale per wave (Tough Fight, p.41): one D6 per figure of a wave that fell this round,
    each 1 (the Panic range every wave has) makes one figure of that wave flee, basic figures
    first and never a Unique Individual. Typed ``morale_faces``: all the dice, Wave 1's first."""
    fallen = [f for f in state["figures"] if f["side"] == THIRD and f.get("down_round") == state["round"]]
    if not fallen:
        return []
    faces = payload_faces(action, "morale_faces", len(fallen))
    events: list[Event] = []
    at = 0
    panic = _panic_top(coop_rules.TOUGH_PANIC)
    for wave in sorted({int(f.get("wave") or 1) for f in fallen}):
        count = sum(1 for f in fallen if int(f.get("wave") or 1) == wave)
        typed = faces[at : at + count] if faces else None
        at += count
        record = _roll(
            dice,
            f"{count}D6",
            f"Morale, Wave {wave} (Tough Fight: Panic 1, p.41)",
            faces=typed,
            field="morale_faces",
            keep=Keep.SEPARATE,
        )
        failures = sum(1 for face in record.faces if face <= panic)
        able = sorted(
            (f for f in _on_table(state, THIRD) if f.get("wave") == wave and f.get("rank") != "unique"),
            key=lambda f: FLEE_ORDER.get(f.get("rank", ""), 0),
        )
        fled = able[:failures]
        for fig in fled:
            fig["status"] = "retreated"
        said = f"{', '.join(f['name'] for f in fled)} flee." if fled else "Nobody flees."
        data = {"rolls": [record.as_dict()], "roll": record.as_dict(), "wave": wave}
        events.append(
            Event("morale", f"Wave {wave} Morale ({count} D6, Panic 1): {', '.join(map(str, record.faces))}. {said}", data)
        )
    return events


def _agree_end(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    _phase(state, "end", what="Agreeing to end the battle")
    if _is_coop(state):
        raise _err("A co-op battle ends when the enemy is cleared from the table (p.40); a crew may retreat instead.", "type")
    third = state["third_party"]
    if third and not third["gone"]:
        raise _err(
            "A third party is on the table: the battle cannot end by agreement; retreat off an edge instead (p.37).", "type"
        )
    seated = _seated(state, action)
    if not seated:
        raise NotYours("Only a player at this battle can agree to end it.")
    for side in seated:
        state["sides"][side]["agree_end"] = True
    names = " and ".join(state["sides"][s]["name"] for s in seated)
    if all(state["sides"][s]["agree_end"] for s in SIDES):
        state.update(phase="over", held_field="none")
        return [
            Event(
                "over",
                f"{names} agree{'s' if len(seated) == 1 else ''}: the battle ends by agreement; nobody Holds the Field (p.36).",
                {},
            )
        ]
    return [Event("agree_end", f"{names} offers to end the battle here; the other player must agree.", {})]
