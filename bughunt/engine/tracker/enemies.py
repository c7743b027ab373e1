"""Contact markers and enemies on the mission tracker (Bug Hunt pp.192-197)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bughunt.engine import contacts as cx
from bughunt.engine.tracker.base import (
    ENEMY_STATUSES,
    KNOCKOUT_STUN,
    _choice,
    _enemy,
    _face,
    _figure,
    _find,
    _not_viewer,
    _phase,
    _roll,
    _rolls,
    _text,
)
from bughunt.engine.tracker.screen import distract_ahead
from bughunt.engine.tracker.setup import _delayed, _new_contact, _place
from bughunt.engine.tracker.turns import enemy_spent, enemy_turn
from live.engine.tracker import (
    Action,
    Event,
    TrackerError,
    payload_faces,
    payload_flag,
    payload_int,
    payload_ints,
    require_owner,
    words,
)
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable

# -- contacts and enemies (pp.192-197) -----------------------------------------------------------------------


def _leader_near(action: Action, contact_id: str) -> bool:
    return payload_flag(action, f"leader_{contact_id}") or contact_id in words(action.payload.get("leader"))


def _move_contacts(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Move every Contact marker in the Enemy Action phase, after the enemies (p.192), nearest a
    trooper first (list order; the referee may reorder by moving them one at a time in that
    order). A marker split off this round stays put. ``leader_<contact>`` on: a pack Leader is
    within 9", so only Aggression is rolled. ``faces``: two D6 per marker (Aggression, Chance),
    one for Leader-led ones, in list order."""
    require_owner(action)
    _phase(state, "enemy", what="Moving Contact markers")
    if state["contacts_moved"]:
        raise TrackerError("Contact markers have already moved this round.", field="type")
    movers = [c for c in state["contacts"] if c.get("split_round") != state["round"]]
    if not movers:
        raise TrackerError("There are no Contact markers to move.", field="type")
    need = sum(1 if _leader_near(action, c["id"]) else 2 for c in movers)
    typed = payload_faces(action, "faces", need)
    directions = payload_ints(action, "direction_faces")
    events: list[Event] = []
    cursor = 0
    for contact in movers:
        leader = _leader_near(action, contact["id"])
        count = 1 if leader else 2
        faces = typed[cursor : cursor + count] if typed else None
        cursor += count
        face = directions[0] if directions else None
        move = cx.move_contact(
            tables, dice, leader_near=leader, faces=faces, direction_face=face, label=f"Contact {contact['id']}"
        )
        if move.outcome == "random" and directions:
            directions.pop(0)
        contact["moved_round"] = state["round"]
        text = move.text
        if move.outcome == "split":
            if _delayed(state):
                text += " Delay is in force, so no new marker appears."
            else:
                new = _place(state, f"with {contact['id']} ({contact['where']})")
                new["split_round"] = state["round"]
                text += f" The new marker is {new['id']}."
        elif move.outcome == "advance":
            contact["note"] = f"moved {move.inches} inches toward the nearest trooper in round {state['round']}"
        else:
            contact["note"] = f"moved {move.inches} inches toward {move.direction} in round {state['round']}"
        events.append(
            Event("contact_moved", text + " Check it for Detection.", {"contact": contact["id"], **_rolls(*move.rolls)})
        )
    state["contacts_moved"] = True
    return events


def _detect(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A marker is Detected (p.192): within 6" in sight and not in cover (``band`` open) or 3" in
    cover or out of sight (``cover``); Line of Sight is not needed. Roll the Contact table (p.193)
    at once: Stay frosty, movement all over the place, or CONTACT! (see :func:`contacts.reveal`)."""
    _not_viewer(action)
    contact = _find(state["contacts"], action.payload.get("contact"), "contact", "Contact marker")
    band = _choice(action, "band", cx.BANDS, default="open")
    reach = cx.detection_range(tables, band)
    if action.payload.get("distance") not in (None, ""):
        distance = payload_int(action, "distance", low=0, high=72)
        if distance > reach:
            where = "in sight and in the open" if band == "open" else "in cover or out of sight"
            raise TrackerError(
                f"A marker {where} is Detected within {reach} inches; {distance} inches is too far.", field="distance"
            )
    rolled = cx.roll_contact(tables, dice, face=_face(action, "faces"), label=f"Contact {contact['id']}")
    rolls = [rolled.record]
    spotter = ""
    if action.payload.get("spotter"):
        _, fig = _figure(state, action.payload.get("spotter"), field="spotter")
        spotter = fig["name"]
    by = f" by {spotter}" if spotter else ""
    head = f"Contact {contact['id']} Detected{by} ({reach}-inch range): rolled {rolled.face}, {rolled.result}."
    texts = [head]
    if rolled.outcome == "remove":
        state["contacts"].remove(contact)
        minimum = cx.minimum_contacts(tables)
        texts.append("The marker is removed.")
        if len(state["contacts"]) < minimum:
            _, sentence = _new_contact(state, "at the edge point farthest from the spotter", f"fewer than {minimum} markers")
            texts.append(sentence)
        return [Event("detect", " ".join(texts), {"contact": contact["id"], **_rolls(*rolls)})]
    if rolled.outcome == "move_and_add":
        move = _roll(dice, "D6", f"Contact {contact['id']} moves away", _face(action, "move_face"))
        rolls.append(move)
        contact["note"] = f"moved {move.total} inches straight away from the spotter"
        texts.append(f"It moves {move.total} inches straight away from the spotter.")
        _, sentence = _new_contact(state, "at the edge point nearest the spotter", "movement all over the place")
        texts.append(sentence)
        return [Event("detect", " ".join(texts), {"contact": contact["id"], **_rolls(*rolls)})]
    revealed = cx.reveal(
        tables,
        dice,
        enemy=state["enemy"]["name"] if state["enemy"] else None,
        variant_name=state["variant"]["name"] if state["variant"] else None,
        variant_checked=state["variant_checked"],
        enemies_met=state["enemies_met"],
        mission_number=state["mission_number"],
        encounter=state["encounter"],
        leader_pool=state["leader_pool"],
        enemy_face=_face(action, "enemy_face", 100),
        numbers_faces=payload_ints(action, "numbers_faces") or None,
        variant_face=_face(action, "variant_face"),
        leader_faces=payload_ints(action, "leader_faces") or None,
        leader_face=_face(action, "leader_face"),
    )
    rolls.extend(revealed.rolls)
    state["enemy"] = revealed.enemy.as_dict()
    state["variant_checked"] = True
    if revealed.variant is not None:
        state["variant"] = {"name": revealed.variant.name, "key": revealed.variant.key, "rule": revealed.variant.rule}
    state["leader_pool"] = revealed.leader_pool
    state["contacts"].remove(contact)
    group = {
        "id": f"g{state['next']['group']}",
        "type": revealed.enemy.name,
        "contact": contact["id"],
        "round": state["round"],
        "figures": [],
    }
    state["next"]["group"] += 1
    state["groups"].append(group)
    for index in range(revealed.count):
        note = "set up on the closest Objective" if index == 0 and revealed.enemy.name == "Converted infiltration team" else ""
        _add_enemy(state, group, note=note)
    if revealed.leader is not None:
        leader = _add_enemy(state, group, note="pack leader: placed farthest from the troopers")
        leader["leader"] = {"name": revealed.leader.name, "key": revealed.leader.key, "rule": revealed.leader.rule}
        leader["name"] = f"{revealed.enemy.name} {revealed.leader.name}"
    texts.append(revealed.text)
    if distract_ahead(state):
        if payload_flag(action, "distracted"):
            for foe in group["figures"]:
                foe["distracted_round"] = state["distract_round"]
            texts.append(
                f"They are within 18 inches of the Distract location: Distracted in round {state['distract_round']} (p.191)."
            )
        else:
            texts.append('Any of them within 18" of the Distract location are Distracted too (tick "distracted").')
    if contact.get("beep_round") == state["round"] and state["phase"] == "start":
        state["bonus_fire"] = {"round": state["round"], "group": group["id"], "fired": []}
        texts.append(
            'It came with "Beep... Sir?": every figure within 12 inches may fire at them now as a free bonus action'
            " (one shot each, not their action this round, p.193)."
        )
    elif spotter:
        texts.append(f"{spotter} may now fire at them if able.")
    return [Event("detect", " ".join(texts), {"contact": contact["id"], "group": group["id"], **_rolls(*rolls)})]


def _add_enemy(state: dict[str, Any], group: dict[str, Any], *, note: str = "") -> dict[str, Any]:
    eid = f"e{state['next']['enemy']}"
    state["next"]["enemy"] += 1
    number = sum(1 for g in state["groups"] for _ in g["figures"]) + 1
    fig = {
        "id": eid,
        "name": f"{group['type']} {number}",
        "leader": None,
        "stun": 0,
        "wounded": False,
        "status": "active",
        "placed_round": state["round"],
        "acted_round": None,
        "note": note,
    }
    group["figures"].append(fig)
    return fig


def _add_contact(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """The referee places a Contact marker by hand (``where`` in words); Delay still forbids it."""
    require_owner(action)
    where = _text(action, "where", limit=60)
    if _delayed(state):
        raise TrackerError(
            f"Delay is in force until the end of round {state['delay_until']}: no new Contact markers.", field="where"
        )
    contact = _place(state, where)
    return [
        Event("contact_added", f"Contact {contact['id']} placed {where}; check it for Detection.", {"contact": contact["id"]})
    ]


def _remove_contact(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    require_owner(action)
    contact = _find(state["contacts"], action.payload.get("contact"), "contact", "Contact marker")
    state["contacts"].remove(contact)
    return [Event("contact_removed", f"Contact {contact['id']} is taken off the table.", {"contact": contact["id"]})]


def _note_contact(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    require_owner(action)
    contact = _find(state["contacts"], action.payload.get("contact"), "contact", "Contact marker")
    contact["where"] = _text(action, "where", limit=60)
    return [Event("contact_noted", f"Contact {contact['id']} is {contact['where']}.", {"contact": contact["id"]})]


def _adjust_enemy(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Referee correction of one enemy figure: Stun markers, Wounded, killed."""
    require_owner(action)
    _, fig = _enemy(state, action.payload.get("enemy"), active=False)
    if "stun" in action.payload:
        fig["stun"] = payload_int(action, "stun", low=0, high=KNOCKOUT_STUN)
    if "wounded" in action.payload:
        fig["wounded"] = payload_flag(action, "wounded")
    if "status" in action.payload:
        fig["status"] = _choice(action, "status", ENEMY_STATUSES)
    if fig["stun"] >= KNOCKOUT_STUN:
        fig["status"] = "killed"
    text = f"{fig['name']}: {fig['status']}, {fig['stun']} Stun marker(s){', Wounded' if fig['wounded'] else ''}."
    return [Event("enemy_adjusted", text, {"enemy": fig["id"]})]


def _caller(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A Caller pack leader activates (p.197) in the Enemy Action phase, once a round, not in the
    round it was placed nor while Stunned: 1D6 above the Contact markers on the table places a
    new one next to it."""
    require_owner(action)
    _, fig = _enemy(state, action.payload.get("enemy"))
    if not fig["leader"] or fig["leader"]["key"] != "caller":
        raise TrackerError(f"{fig['name']} is not a Caller.", field="enemy")
    enemy_turn(state, action, fig, what="Calling", once="called_round")
    enemy_spent(state, fig, once="called_round")
    record = _roll(dice, "D6", "Caller", _face(action, "faces"))
    count = len(state["contacts"])
    if int(record.total or 0) > count:
        _, sentence = _new_contact(state, f"next to {fig['name']}", "the Caller")
        text = f"{fig['name']} calls: rolled {record.total}, above the {count} Contact markers. {sentence}"
    else:
        text = f"{fig['name']} calls: rolled {record.total}, not above the {count} Contact markers: nothing comes."
    return [Event("caller", text, {"enemy": fig["id"], "roll": record.as_dict()})]
