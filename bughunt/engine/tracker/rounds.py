"""The round on the mission tracker: Beep... Sir?, Reaction dice, the Quick, Enemy and Slow
Action phases, and the end of the round (Bug Hunt pp.184-186, 191, 195, 199, 201)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bughunt.engine import contacts as cx
from bughunt.engine.tracker import turns
from bughunt.engine.tracker.base import (
    DASH_IN,
    PHASE_NAMES,
    _active_enemies,
    _all_figures,
    _entry_data,
    _face,
    _figure,
    _mine,
    _names,
    _phase,
    _refresh,
    _roll,
    _rolls,
    _unit,
)
from bughunt.engine.tracker.enemies import _add_enemy
from bughunt.engine.tracker.places import _complete
from bughunt.engine.tracker.setup import _delayed, _new_contact, _place
from live.engine.tracker import (
    Action,
    Event,
    TrackerError,
    payload_faces,
    payload_flag,
    payload_int,
    payload_ints,
    require_owner,
)
from rules.engine.dice import Dice, Keep
from rules.engine.tables import RangeTable

# -- round flow --------------------------------------------------------------------------------------------


def _beep_sir(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """ "Beep... Sir?" at the start of each round from round 2 (p.193): Priority D6, a 6 places one
    marker (Living Nightmare: one per 6) at an edge a random direction from the center."""
    require_owner(action)
    _phase(state, "start", what='"Beep... Sir?"')
    if state["beep_done"]:
        raise TrackerError(
            f'"Beep... Sir?" is already rolled this round (or not needed in round {state["round"]}).', field="type"
        )
    priority = int(state["priority"])
    result = cx.beep_sir(
        tables,
        priority,
        dice,
        living_nightmare=state["living_nightmare"],
        faces=payload_faces(action, "faces", priority),
        direction_faces=payload_ints(action, "direction_faces") or None,
    )
    state["beep_done"] = True
    texts = [result.text]
    for edge in result.edges:
        contact, sentence = _new_contact(state, f"at the edge at {edge}", '"Beep... Sir?"')
        if contact is not None:
            contact["beep_round"] = state["round"]
        texts.append(sentence)
    return [Event("beep_sir", " ".join(texts), {**_rolls(*result.rolls), "placed": result.placed})]


def release(state: dict[str, Any], player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's actions that hand every unit ``player`` (a user id as text) plays back to the referee."""
    return [("set_player", {"unit": u["id"], "player": ""}) for u in state["units"] if u.get("owner") == player]


def _set_player(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Hand a unit to a player at the table (their user id as text), or back to the referee with
    ``""`` (co-op: the crew is split between the players, p.166). Only the owner does this."""
    require_owner(action)
    unit = _unit(state, action.payload.get("unit"))
    player = str(action.payload.get("player") or "").strip()
    if player and not player.isdigit():
        raise TrackerError(f"player must be a member's user id, or empty for the referee; got {player!r}.", field="player")
    unit["owner"] = player
    who = "a player" if player else "the referee"
    return [Event("set_player", f"{unit['name']} is now played by {who}.", {"unit": unit["id"], "player": player})]


def _set_formation(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Team formation (p.173): a combat team whose members are all within 2" of one chosen member
    gets +1 Reactions this round. One-figure teams and main characters never do."""
    unit = _unit(state, action.payload.get("unit"))
    _mine(action, unit)
    _phase(state, "start", what="Checking formation")
    formation = payload_flag(action, "formation", default=True)
    alive = [f for f in unit["figures"] if f["status"] == "active"]
    if formation and (unit["kind"] != "team" or len(alive) < 2):
        raise TrackerError(f"{unit['name']} cannot be in formation: only combat teams of two or more figures are.", field="unit")
    unit["formation"] = formation
    text = f"{unit['name']} is in formation: +1 Reactions this round." if formation else f"{unit['name']} is not in formation."
    return [Event("formation", text, {"unit": unit["id"]})]


def _roll_reactions(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """One D6 per main character and combat team still on the table (p.198), to be assigned."""
    require_owner(action)
    _phase(state, "start", what="Rolling Reactions")
    if not state["beep_done"]:
        raise TrackerError('Roll "Beep... Sir?" first: it comes at the start of the round.', field="type")
    if state["reaction_dice"]:
        raise TrackerError("Reactions are already rolled this round.", field="type")
    units = [u for u in state["units"] if u["active"]]
    if not units:
        raise TrackerError("No trooper is left on the table.", field="type")
    faces = payload_faces(action, "faces", len(units))
    record = (
        Dice.enter(f"{len(units)}D6", faces, "Reactions", keep=Keep.SEPARATE)
        if faces
        else dice.separate(len(units), 6, "Reactions")
    )
    state["reaction_dice"] = list(record.faces)
    shown = ", ".join(map(str, record.faces))
    text = f"Reactions: {len(units)} D6 rolled ({shown}); assign one to each of {_names(units)}. At or under Reactions acts Quick, above it Slow."
    return [Event("reactions", text, {"roll": record.as_dict()})]


def _assign_reaction(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Give a unit one of this round's free Reaction dice (``die``, 1-based; any order, p.198).

    A die another unit holds is refused, naming the die and its holder, unless the referee asks
    to ``reassign`` it (``on``): then the holder is left without a die and the log says so. A
    player asking to reassign is refused (:class:`NotYours`)."""
    unit = _unit(state, action.payload.get("unit"))
    _mine(action, unit)
    _phase(state, "start", what="Assigning Reaction dice")
    if not state["reaction_dice"]:
        raise TrackerError("Roll Reactions first.", field="type")
    if not unit["active"]:
        raise TrackerError(f"{unit['name']} has no figure on the table.", field="unit")
    reassign = payload_flag(action, "reassign")
    if reassign:
        require_owner(action)
    index = payload_int(action, "die", low=1, high=len(state["reaction_dice"])) - 1
    holder = next((other for other in state["units"] if other["die"] == index and other is not unit), None)
    taken = ""
    if holder is not None:
        if not reassign:
            raise TrackerError(
                f"Die {index + 1} (a {state['reaction_dice'][index]}) is {holder['name']}'s; pick a free die"
                " (only the referee can reassign a die).",
                field="die",
            )
        holder["die"], holder["face"] = None, None
        taken = f" (taken from {holder['name']}, who now has no die)"
    unit["die"], unit["face"] = index, state["reaction_dice"][index]
    _refresh(state)
    target = unit["reactions"] + unit["bonus"]
    form = " in formation" if unit["bonus"] else ""
    slot = "Quick" if unit["slot"] == "quick" else "Slow"
    text = f"{unit['name']} takes the {unit['face']}{taken} against Reactions {target}{form}: acts in the {slot} Action phase."
    data: dict[str, Any] = {"unit": unit["id"], "face": unit["face"]}
    if holder is not None:
        data["taken_from"] = holder["id"]
    return [Event("reaction_assigned", text, data)]


def _begun(state: Mapping[str, Any], fig: Mapping[str, Any]) -> bool:
    """Whether ``fig`` has moved or taken its Combat Action this round."""
    return state["round"] in (fig.get("moved_round"), fig.get("combat_round"))


def _hold(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Hold a Quick action for Snap Fire in the Enemy Action phase (p.198): firing then means no
    move this round; unused, the unit may move or fire (not both) in the Slow phase."""
    unit = _unit(state, action.payload.get("unit"))
    _mine(action, unit)
    _phase(state, "quick", what="Holding for Snap Fire")
    if unit["slot"] != "quick" or unit["acted"] or unit["held"]:
        raise TrackerError(f"{unit['name']} is not waiting to act in the Quick Action phase.", field="unit")
    begun = [f["name"] for f in unit["figures"] if _begun(state, f)]
    if begun:
        raise TrackerError(
            f"{unit['name']} has begun its activation ({', '.join(begun)} moved or acted): holding means not acting (p.198).",
            field="unit",
        )
    unit["held"] = True
    return [
        Event(
            "hold",
            f"{unit['name']} holds for Snap Fire: may fire when an enemy moves (then no move this round).",
            {"unit": unit["id"]},
        )
    ]


def _move(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A trooper (``figure``) moves in its unit's activation (pp.176, 198): up to its Speed, or
    Dashes (``dash`` on) 2" more, not when Wounded. Move first, then act: after a move a Stunned
    trooper or a held unit in the Slow phase takes no Combat Action, and a Dash forbids firing
    and entering a Brawl (checked by :func:`bughunt.engine.tracker.turns.trooper_turn`). Aimed
    and Heavy weapons read the move (p.179). Ending a move checks every Contact marker for
    Detection (p.192)."""
    unit, fig = _figure(state, action.payload.get("figure"))
    _mine(action, unit)
    dash = payload_flag(action, "dash")
    way = turns.move_turn(state, action, unit, fig, dash=dash)
    rnd = state["round"]
    fig["moved_round"] = rnd
    fig["dashed_round"] = rnd if dash else fig.get("dashed_round")
    inches = int(fig["speed"]) + (DASH_IN if dash else 0)
    how = f"Dashes up to {inches} inches: no firing and no Brawl this round (p.176)" if dash else f"moves up to {inches} inches"
    tails = []
    if fig["stun"] > 0:
        tails.append("Stunned: that is all it does this activation (p.178)")
    elif unit["held"] and state["phase"] == "slow":
        tails.append("held: moving means no firing this round (p.198)")
    elif not dash:
        tails.append("it may still take its Combat Action")
    if state["contacts"]:
        tails.append("check every Contact marker for Detection (p.192)")
    text = f"{fig['name']} {how}" + "".join(f"; {t}" for t in tails) + "."
    return [Event("move", text, {"figure": fig["id"], "dash": dash, "inches": inches, "way": way})]


def _act(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Mark a unit as having acted (move, then a Combat Action, p.198). Each Stunned figure of the
    unit loses one Stun marker (it could move or act, not both). In the Enemy Action phase only
    a unit holding for Snap Fire may act (it fired, so it cannot move this round)."""
    unit = _unit(state, action.payload.get("unit"))
    _mine(action, unit)
    phase = state["phase"]
    if unit["acted"]:
        raise TrackerError(f"{unit['name']} has already acted this round.", field="unit")
    if phase == "quick":
        if unit["slot"] != "quick" or unit["held"]:
            raise TrackerError(f"{unit['name']} acts in the Slow Action phase this round.", field="unit")
        how = "acts in the Quick Action phase"
    elif phase == "enemy":
        if not unit["held"]:
            raise TrackerError(
                f"Only units holding for Snap Fire act in the Enemy Action phase; {unit['name']} is not.", field="unit"
            )
        unit["snap_fired"] = True
        how = "takes Snap Fire (no move this round)"
    elif phase == "slow":
        if unit["slot"] not in ("slow", "quick"):
            raise TrackerError(f"{unit['name']} has no Reaction die this round.", field="unit")
        if unit["slot"] == "quick" and not unit["held"]:
            raise TrackerError(
                f"{unit['name']} acted in the Quick Action phase.", field="unit"
            )  # pragma: no cover - quick units are acted or held
        how = "acts in the Slow Action phase" + (" (held: move or fire, not both)" if unit["held"] else "")
    else:
        raise TrackerError(
            f"Troopers act in the Quick, Enemy (Snap Fire) or Slow phases; it is the {PHASE_NAMES[phase]}.", field="type"
        )
    unit["acted"] = True
    calmer = []
    for fig in unit["figures"]:
        if fig["status"] == "active" and fig["stun"] > 0:
            fig["stun"] -= 1
            calmer.append(f"{fig['name']} (Stunned: move or act, not both) now has {fig['stun']} Stun marker(s)")
    tail = f" {'; '.join(calmer)}." if calmer else ""
    return [Event("act", f"{unit['name']} {how}.{tail}", {"unit": unit["id"]})]


def _next_phase(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Advance the round: start -> Quick -> Enemy -> Slow -> Spawn (end of round) -> next round (p.198)."""
    require_owner(action)
    phase = state["phase"]
    if phase == "start":
        return _to_quick(state)
    if phase == "quick":
        held = []
        for unit in state["units"]:
            if unit["active"] and unit["slot"] == "quick" and not unit["acted"] and not unit["held"]:
                if any(_begun(state, f) for f in unit["figures"]):
                    unit["acted"] = True  # it moved or took a Combat Action: it has acted, nothing to hold (p.198)
                    continue
                unit["held"] = True
                held.append(unit)
        state["phase"] = "enemy"
        tail = (
            f" {_names(held)} did not act and hold their action (Snap Fire, or move or fire in the Slow phase)." if held else ""
        )
        distract = (
            ' Distracted enemies (within 18" of the Distract location) do nothing this phase.'
            if state.get("distract_round") == state["round"]
            else ""
        )
        return [
            Event(
                "phase",
                f"Enemy Action phase: enemies act nearest a trooper first, then Contact markers move.{distract}{tail}",
                {"phase": "enemy"},
            )
        ]
    if phase == "enemy":
        return _to_slow(state, action, dice, tables)
    if phase == "slow":
        return _end_of_round(state, action, dice, tables)
    return _new_round(state, action, dice, tables)


def _to_quick(state: dict[str, Any]) -> list[Event]:
    if not state["beep_done"]:
        raise TrackerError('Roll "Beep... Sir?" first (start of every round from round 2).', field="type")
    if not state["reaction_dice"]:
        raise TrackerError("Roll Reactions first.", field="type")
    missing = [u for u in state["units"] if u["active"] and u["die"] is None]
    if missing:
        raise TrackerError(f"Assign a Reaction die to {_names(missing)} first.", field="unit")
    state["phase"] = "quick"
    state["bonus_fire"] = None
    quick = [u for u in state["units"] if u["active"] and u["slot"] == "quick"]
    slow = [u for u in state["units"] if u["active"] and u["slot"] == "slow"]
    return [Event("phase", f"Quick Action phase: {_names(quick)} act now; {_names(slow)} in the Slow phase.", {"phase": "quick"})]


def _to_slow(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """End of the Enemy Action phase: Stunned enemies that stayed put lose one Stun marker (p.198);
    Screamers roll a D10 (p.196)."""
    events: list[Event] = []
    calmed = 0
    for group in state["groups"]:
        for fig in group["figures"]:
            if fig["status"] == "active" and fig["stun"] > 0 and fig["placed_round"] < state["round"]:
                fig["stun"] -= 1
                calmed += 1
    if state["variant"] and state["variant"]["key"] == "screamers" and not state["screamers_done"]:
        on_table = len(_active_enemies(state))
        record = _roll(dice, "D10", "Screamers", _face(action, "faces", 10))
        state["screamers_done"] = True
        if int(record.total or 0) <= on_table and state["groups"]:
            fig = _add_enemy(state, state["groups"][-1], note="placed at the table center by Screamers; cannot act this round")
            text = f"Screamers: D10 rolled {record.total}, at or under the {on_table} enemies on the table: {fig['name']} appears at the table center (it cannot act this round)."
        else:
            text = f"Screamers: D10 rolled {record.total}, above the {on_table} enemies on the table: none comes."
        events.append(Event("screamers", text, {"roll": record.as_dict()}))
    state["phase"] = "slow"
    tail = f" {calmed} Stunned enemy figure(s) stayed put and lose one Stun marker." if calmed else ""
    events.insert(0, Event("phase", f"Slow Action phase: the remaining troopers act.{tail}", {"phase": "slow"}))
    return events


def _new_round(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    state["round"] += 1
    state["phase"] = "start"
    state["beep_done"] = state["round"] < int(tables["bh-beep-sir"].entries[0].data["from_round"])
    state["contacts_moved"] = False
    state["screamers_done"] = False
    state["reaction_dice"] = []
    for unit in state["units"]:
        unit.update({"die": None, "face": None, "held": False, "acted": False, "snap_fired": False})
        for fig in unit["figures"]:
            for weapon in fig["weapons"]:
                weapon["ones"] = 0
    need = ' Roll "Beep... Sir?", then' if not state["beep_done"] else ""
    return [
        Event("round", f"Round {state['round']} begins.{need} check formations and roll Reactions.", {"round": state["round"]})
    ]


# -- end of round (pp.185, 186, 191, 195, 199, 201) ------------------------------------------------------------


def _end_of_round(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Everything that happens as a round closes, in order: Objectives (Scout, Patrol, Secure),
    enemy rules (Horde, Strangle worms, Dimensional distorts), Block rolls, the Living Nightmare
    top-up, the Spawn phase, then Evac (ship leaves, arrives, or the pending call is re-rolled).

    Payload: ``near_<objective>`` on for a Patrol Objective with a trooper within 6" (optional
    ``patrol_face_<objective>``), ``secure_<objective>`` on for a Secure Objective with a trooper
    within 6" and no enemy within 6". Faces for other end-of-round dice are rolled.
    """
    events: list[Event] = []
    rnd = state["round"]
    for unit in state["units"]:
        unit["acted"] = True
    # Objectives (p.185)
    patrol = tables["bh-mission-objectives"]
    patrol_rule = next(e.data for e in patrol.entries if e.data["objective"] == "patrol")
    for obj in state["objectives"]:
        if obj["completed"]:
            continue
        if obj["key"] == "scout" and obj["contacted_round"] == rnd:
            _complete(state, obj)
            events.append(
                Event(
                    "objective",
                    f"Objective {obj['position']} (Scout) is completed: a trooper reached it this round.",
                    {"objective": obj["id"]},
                )
            )
        elif obj["key"] == "patrol" and payload_flag(action, f"near_{obj['id']}"):
            record = _roll(dice, "D6", f"Patrol Objective {obj['position']}", _face(action, f"patrol_face_{obj['id']}"))
            target = int(patrol_rule["target"])
            if int(record.total or 0) >= target:
                _complete(state, obj)
                text = f"Objective {obj['position']} (Patrol): a trooper is within {patrol_rule['radius_in']} inches; rolled {record.total} against {target}+: completed."
            else:
                text = f"Objective {obj['position']} (Patrol): a trooper is within {patrol_rule['radius_in']} inches; rolled {record.total} against {target}+: not yet."
            events.append(Event("objective", text, {"objective": obj["id"], "roll": record.as_dict()}))
        elif obj["key"] == "secure" and payload_flag(action, f"secure_{obj['id']}"):
            _complete(state, obj)
            events.append(
                Event(
                    "objective",
                    f"Objective {obj['position']} (Secure) is completed: a trooper within 6 inches and no enemy within 6 inches.",
                    {"objective": obj["id"]},
                )
            )
    # Enemy rules at the end of the round (p.195)
    events.extend(_enemy_round_end(state, dice))
    # Block (p.191)
    for loc in state["locations"]:
        if not loc["blocked"]:
            continue
        if loc["reopens_after"] is not None:
            if loc["reopens_after"] <= rnd:
                loc["blocked"] = False
                loc["reopens_after"] = None
                events.append(
                    Event(
                        "block",
                        f"Tactical Location {loc['id']}: the Block opens again; enemies and Contacts may pass.",
                        {"location": loc["id"]},
                    )
                )
            continue
        reopen_on = int(_entry_data(tables, "bh-tactical-locations", "Block")["reopen_on"])
        record = dice.d6(f"Block at {loc['id']}")
        if int(record.total or 0) >= reopen_on:
            loc["reopens_after"] = rnd + 1
            text = f"Tactical Location {loc['id']} Block: rolled {record.total}: it opens again at the end of next round."
        else:
            text = f"Tactical Location {loc['id']} Block: rolled {record.total}: it holds."
        events.append(Event("block", text, {"location": loc["id"], "roll": record.as_dict()}))
    # Living Nightmare (p.186)
    minimum = state.get("minimum_contacts")
    if minimum is not None and len(state["contacts"]) < int(minimum):
        if _delayed(state):
            events.append(
                Event("nightmare", f"Living Nightmare: fewer than {minimum} Contact markers, but Delay stops a new one.", {})
            )
        else:
            edge, record = cx.random_edge(dice, "Living Nightmare edge")
            contact = _place(state, f"at the center of the {edge}")
            events.append(
                Event(
                    "nightmare",
                    f"Living Nightmare: fewer than {minimum} Contact markers, so {contact['id']} comes in at the center of the {edge}.",
                    {"roll": record.as_dict()},
                )
            )
    # Spawn phase (p.199)
    events.extend(_spawn_phase(state, dice, tables))
    # Evac (p.201)
    events.extend(_evac_round_end(state, dice, tables))
    if state["delay_until"] is not None and state["delay_until"] == rnd:
        events.append(Event("delay", "The Delay ends: new Contact markers can be placed from next round.", {}))
    state["phase"] = "spawn"
    events.insert(0, Event("phase", f"End of round {rnd}.", {"phase": "spawn"}))
    return events


def _enemy_round_end(state: dict[str, Any], dice: Dice) -> list[Event]:
    """Horde invasion force, Strangle worms and Dimensional distorts at a round's end (p.195)."""
    events: list[Event] = []
    enemy = state["enemy"]
    if not enemy or not _active_enemies(state):
        return events
    name = enemy["name"]
    if name == "Horde invasion force":
        edge, record = cx.random_edge(dice, "Horde arrival edge")
        fig = _add_enemy(state, state["groups"][-1], note=f"arrived at the center of the {edge}")
        events.append(Event("horde", f"Horde: {fig['name']} arrives at the center of the {edge}.", {"roll": record.as_dict()}))
    elif name == "Strangle worms":
        worms = _active_enemies(state)
        record = dice.separate(len(worms), 6, "Strangle worms")
        born = []
        for worm, face in zip(worms, record.faces, strict=True):
            if face == 6:
                group = next(g for g in state["groups"] if worm in g["figures"])
                born.append(_add_enemy(state, group, note=f"placed next to {worm['name']}")["name"])
        shown = ", ".join(map(str, record.faces))
        tail = f"a 6 places {', '.join(born)} next to its parent" if born else "no 6, no new Worm"
        events.append(Event("worms", f"Strangle worms: one D6 per Worm ({shown}): {tail}.", {"roll": record.as_dict()}))
    elif name == "Dimensional distorts":
        events.append(Event("distorts", "Dimensional distorts: pick one Distort at random and move it to the table center.", {}))
    return events


def _spawn_phase(state: dict[str, Any], dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Spawn phase (p.199), when the Spawn Rating is above 0: (1) reveal one unrevealed Spawn Point
    at the edge a random direction from the center; (2) from round 2, count every Countdown down
    by 1, at 0 a Contact marker appears on that Spawn Point (unless Delay); (3) each open Spawn
    Point without a Countdown rolls on bh-spawn-countdown (1-4: that Countdown; 5-6: none)."""
    events: list[Event] = []
    if state["spawn_rating"] <= 0:
        return events
    if state["spawn_unrevealed"] > 0:
        direction, record = cx.random_direction(dice, "Spawn Point direction")
        sid = f"s{state['next']['spawn']}"
        state["next"]["spawn"] += 1
        state["spawn_points"].append({"id": sid, "where": f"edge at {direction}", "countdown": None, "closed": False})
        state["spawn_unrevealed"] -= 1
        events.append(
            Event("spawn_revealed", f"Spawn Point {sid} is revealed at the edge at {direction}.", {"roll": record.as_dict()})
        )
    open_points = [s for s in state["spawn_points"] if not s["closed"]]
    if state["round"] > 1:
        for point in open_points:
            if point["countdown"] is None:
                continue
            point["countdown"] -= 1
            if point["countdown"] <= 0:
                point["countdown"] = None
                _, sentence = _new_contact(state, f"on Spawn Point {point['id']}", "its Countdown ran out")
                events.append(
                    Event("spawn_contact", f"Spawn Point {point['id']} Countdown reaches 0. {sentence}", {"spawn": point["id"]})
                )
            else:
                events.append(
                    Event("countdown", f"Spawn Point {point['id']} Countdown: {point['countdown']}.", {"spawn": point["id"]})
                )
    table = tables["bh-spawn-countdown"]
    for point in open_points:
        if point["countdown"] is not None:
            continue
        rolled = table.roll(dice, reason=f"Spawn Point {point['id']} countdown")
        value = rolled.entry.data.get("countdown")
        point["countdown"] = None if value is None else int(value)
        text = (
            f"Spawn Point {point['id']}: rolled {rolled.record.total}, Countdown {value}."
            if value is not None
            else f"Spawn Point {point['id']}: rolled {rolled.record.total}, no Countdown this round."
        )
        events.append(Event("countdown", text, {"spawn": point["id"], "roll": rolled.record.as_dict()}))
    return events


def _evac_round_end(state: dict[str, Any], dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Evac at a round's end (p.201): a hovering ship that has stayed 3 rounds leaves; a ship due
    this round lands (Priority +1); a pending call rolls again (10+: lands at the end of next round)."""
    events: list[Event] = []
    evac = state["evac"]
    rnd = state["round"]
    if evac["status"] == "hovering" and evac["leaves_after"] is not None and rnd >= evac["leaves_after"]:
        evac.update({"status": "left", "arrives_round": None, "leaves_after": None})
        events.append(Event("evac", "The drop ship has waited 3 rounds and leaves; call Evac again to bring it back.", {}))
    if evac["status"] == "coming" and evac["arrives_round"] == rnd:
        ship = {e.result: e.data for e in tables["bh-drop-ship"].entries}
        loiter = int(ship["Loiter time"]["rounds"])
        rise = int(ship["They are coming!"]["priority"])
        evac.update({"status": "hovering", "leaves_after": rnd + loiter, "arrivals": evac["arrivals"] + 1, "fired_round": None})
        state["priority"] += rise
        events.append(
            Event(
                "evac",
                f"The drop ship lands: place its marker anywhere. Troopers within {ship['Landing zone']['inches']} inches may leave; "
                f"it stays {loiter} rounds and gives supporting fire each round. Priority rises to {state['priority']}.",
                {"priority": state["priority"]},
            )
        )
    elif evac["status"] == "pending":
        events.append(_evac_roll(state, dice, tables, None, why="roll again at the end of the round"))
    return events


def _objectives_done(state: Mapping[str, Any]) -> int:
    return sum(int(o["value"]) for o in state["objectives"] if o["completed"])


def _packages_held(state: Mapping[str, Any]) -> int:
    held = {f["package"] for _, f in _all_figures(state) if f["status"] == "active" and f["package"]}
    return sum(int(o["value"]) for o in state["objectives"] if o["id"] in held and not o["completed"])


def _evac_roll(state: dict[str, Any], dice: Dice, tables: Mapping[str, RangeTable], face: list[int] | None, *, why: str) -> Event:
    """2D6 + Objectives completed (packages held count) + 1 if the caller has Savvy +1 or more, on bh-evac."""
    evac = state["evac"]
    caller = None
    for _, fig in _all_figures(state):
        if fig["id"] == evac["caller"]:
            caller = fig
    done, held = _objectives_done(state), _packages_held(state)
    savvy = 1 if caller is not None and caller["savvy"] >= 1 else 0
    modifier = done + held + savvy
    record = Dice.enter("2D6", face, "Evac", modifier=modifier) if face else dice.roll("2D6", "Evac", modifier=modifier)
    looked = tables["bh-evac"].resolve(record)
    parts = [f"2D6 {record.natural}"]
    if done:
        parts.append(f"+{done} Objectives")
    if held:
        parts.append(f"+{held} packages held")
    if savvy:
        parts.append(f"+1 {caller['name'] if caller else 'caller'}'s Savvy")
    sums = " ".join(parts) + f" = {record.total}"
    if looked.entry.data.get("arrives"):
        evac.update({"status": "coming", "arrives_round": state["round"] + 1})
        text = f"Evac ({why}): {sums}, 10+: the drop ship lands at the end of round {state['round'] + 1}."
    else:
        evac["status"] = "pending"
        text = f"Evac ({why}): {sums}, under 10: no ship yet; roll again at the end of each round."
    return Event("evac", text, {"roll": record.as_dict()})
