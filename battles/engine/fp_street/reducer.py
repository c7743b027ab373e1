"""The Street Fight reducer ``apply(state, action, dice, tables)``: corrections, the end of the
battle (p.136) and the result for the post-battle sequence.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from battles.engine.fp_street import city, flow, objectives
from battles.engine.fp_street import common as c
from battles.engine.fp_tracker.base import _copy_state, _err, _need, _rolls
from campaigns.engine.view import Change
from live.engine.tracker import Action, Event, payload_int, require_owner
from rules.engine.dice import Dice, DiceError
from rules.engine.tables import RangeTable, TableError

Handler = Callable[[dict[str, Any], Action, Dice, Mapping[str, RangeTable]], list[Event]]

#: Street Combatants never hold more than 1 Stun marker (p.132).
COMBATANT_STUN = 1
MAX_STUN = 9
#: Street Combatants that are never Stunned (pp.132-133).
NEVER_STUNNED: tuple[str, ...] = ("Haywire Bot", "Roid-head", "Combat Bot", "Slasher")


def _fallen(
    state: dict[str, Any], fig: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> list[Event]:
    """What follows an enemy becoming a casualty: a Criminal's D6 (p.133, ``bounty_face``: 1 a
    Gang Rival, 6 a 2-Credit bounty) and the Confront fight won (p.127)."""
    events: list[Event] = []
    if fig["individual"] and state["objective"]["key"] == "confront":
        state["objective"]["done"] = True
        events.append(Event("objective", f"{fig['name']}, the confronted Individual, is down: done.", {}))
    if fig["combatant"] and fig["type"] == "Criminal":
        record = c.roll(dice, "1D6", f"{fig['name']} eliminated", action, "bounty_face")
        if record.total == 1:
            state["pay"]["rivals"].append("Gang")
            events.append(Event("criminal", "The Criminal's friends take it badly: a Gang Rival.", _rolls(record)))
        elif record.total == 6:
            row = next((e for e in _need(tables, c.COMBATANTS).entries if e.result == "Criminal"), None)
            state["pay"]["credits"] += int(row.data.get("bounty_credits", 2)) if row else 2
            events.append(Event("criminal", "A bounty on the Criminal: 2 Credits.", _rolls(record)))
        else:
            events.append(Event("criminal", f"The Criminal is down ({record.total}): nothing more.", _rolls(record)))
    return events


def _gone(state: dict[str, Any], fig: dict[str, Any]) -> list[Event]:
    """A crew figure leaves play: an Assassin it revealed leaves at once (p.132)."""
    out = [e for e in state["enemies"] if e["status"] == "active" and e["type"] == "Assassin" and e["revealed_by"] == fig["id"]]
    for foe in out:
        foe["status"] = "fled"
    return [Event("assassin", f"{foe['name']} slips away: its mark is gone.", {}) for foe in out]


def adjust(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Set what the fight at the table decided (core combat rules, the Shootout of p.128): a crew
    ``figure``'s or an ``enemy``'s ``stun_change`` (+1/-1) or ``stun``, and ``status`` (crew:
    active, casualty; enemies: active, casualty, fled, ally). Street Combatants hold 1 Stun marker
    at most (p.132) and some none; the Slasher cannot be eliminated and a Roid-head ignores its
    first casualty (p.133). A Package carrier going Down drops it (``drop_face``, p.126)."""
    require_owner(action)
    if action.payload.get("figure"):
        fig = c.crew(state, action, active=False)
        statuses: tuple[str, ...] = ("active", "casualty")
        top = MAX_STUN
    else:
        fig = c.enemy(state, action.payload.get("enemy"))
        statuses = c.ENEMY_STATUSES
        top = 0 if fig["type"] in NEVER_STUNNED else COMBATANT_STUN if fig["combatant"] else MAX_STUN
    before = fig["status"]
    events: list[Event] = []
    if action.payload.get("status") == "casualty" and before == "active" and fig in state["enemies"]:
        if fig["type"] == "Slasher":
            raise _err('The Slasher cannot be eliminated: a weapon Hit knocks it back 1" (p.133).', "status")
        if fig["type"] == "Roid-head" and not fig.get("shrugged"):
            fig["shrugged"] = True
            return [Event("adjust", f"{fig['name']} ignores its first casualty (p.133) and keeps coming.", {})]
    if action.payload.get("stun_change") not in (None, ""):
        fig["stun"] = min(top, max(0, fig["stun"] + payload_int(action, "stun_change", low=-1, high=1)))
    if action.payload.get("stun") not in (None, ""):
        fig["stun"] = min(top, payload_int(action, "stun", low=0, high=MAX_STUN))
    status = action.payload.get("status")
    if status not in (None, ""):
        if status not in statuses:
            raise _err(f"status must be one of {', '.join(statuses)}; got {status!r}.", "status")
        if before not in statuses:
            raise _err(f"{fig['name']} is {before}: off the table for good.", "status")
        fig["status"] = status
    events.append(Event("adjust", f"{fig['name']}: {fig['status']}, Stun {fig['stun']}.", {}))
    if before == "active" and fig["status"] == "casualty":
        if fig in state["crew"]:
            events += objectives.drop_package(state, fig, action, dice) + _gone(state, fig)
        else:
            events += _fallen(state, fig, action, dice, tables)
    return events


def shout(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Roid Gangers (p.130): one that sees a crew member as it activates shouts (a Shout marker);
    at the start of its next activation the marker goes, and with it every Stun marker."""
    require_owner(action)
    c.phase(state, "enemy", what="A Roid Ganger's activation")
    fig = c.enemy(state, action.payload.get("enemy"))
    if fig["type"] != "Roid Gangers" or fig["status"] != "active":
        raise _err(f"{fig['name']} is not an active Roid Ganger.", "enemy")
    if fig.get("shout"):
        fig["shout"], fig["stun"] = False, 0
        return [Event("shout", f"{fig['name']} roars off its Shout marker and every Stun marker.", {})]
    fig["shout"] = True
    return [Event("shout", f"{fig['name']} sees your crew and shouts: a Shout marker.", {})]


def end_battle(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """End the Street Fight now (the owner): every crew figure still on the table escapes by
    an edge, as the end game requires (p.136)."""
    require_owner(action)
    for fig in state["crew"]:
        if fig["status"] == "active":
            fig["status"] = "escaped"
    return _finish(state)


def _finish(state: dict[str, Any]) -> list[Event]:
    """The battle is over (p.136): the crew hold the field only with every enemy and Suspect
    marker cleared; the mission is won when its objective is done and not failed (Contact
    needs the messenger not to be a casualty) and someone got away."""
    state["phase"] = "over"
    enemies = [e for e in state["enemies"] if e["status"] == "active" and not e["law"]]
    state["held_field"] = not enemies and not state["suspects"] and any(f["status"] == "escaped" for f in state["crew"])
    objective = state["objective"]
    if objective["key"] == "contact" and objective["done"]:
        messenger = next(f for f in state["crew"] if f["id"] == objective["deliverer"])
        if messenger["status"] == "casualty":
            objective["why"] = f"{messenger['name']}, who delivered the message, became a casualty: it counts only if they live."
    escaped = any(f["status"] == "escaped" for f in state["crew"])
    state["won"] = bool(objective["done"] and not objective["failed"] and escaped)
    verdict = "won" if state["won"] else "not won"
    field = "The crew hold the field." if state["held_field"] else "The crew left the field."
    return [Event("over", f"The street fight is over after round {state['round']}: objective {verdict}. {field}", {})]


def _settle(state: dict[str, Any]) -> list[Event]:
    """End the battle once no crew figure is left on the table."""
    if state["phase"] not in ("setup", "over") and not any(f["status"] == "active" for f in state["crew"]):
        return _finish(state)
    return []


_HANDLERS: dict[str, Handler] = {
    "set_player": flow.set_player,
    "next_phase": flow.next_phase,
    "roll_reactions": flow.roll_reactions,
    "assign_reaction": flow.assign_reaction,
    "suspects_act": flow.suspects_act,
    "identify": flow.identify,
    "trouble": flow.trouble,
    "evade": flow.evade,
    "city_reveal": city.city_reveal,
    "curiosity": city.curiosity,
    "botstruction": city.botstruction,
    "city_clear": city.city_clear,
    "reporter": city.reporter,
    "attack_law": city.attack_law,
    "savvy": city.savvy,
    "terror": city.terror,
    "surrender": city.surrender,
    "contact": objectives.contact,
    "locate": objectives.locate,
    "surveil": objectives.surveil,
    "individual": objectives.individual,
    "corral": objectives.corral,
    "confront": objectives.confront,
    "threaten": objectives.threaten,
    "objective_done": objectives.objective_done,
    "individual_off": objectives.individual_off,
    "package": objectives.package,
    "escape": objectives.escape,
    "adjust": adjust,
    "shout": shout,
    "end_battle": end_battle,
}

ACTIONS: tuple[str, ...] = tuple(sorted(_HANDLERS))


def apply(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    """The reducer: ``(state, action, dice, tables) -> (new_state, events)``; ``tables`` are the
    Five Parsecs rule tables by slug. Raises :class:`TrackerError` (or :class:`NotYours`) naming
    the payload field, changing nothing, when the action is refused. The same state, action and
    seed always give the same result (undo replays the log)."""
    handler = _HANDLERS.get(action.type)
    if handler is None:
        raise _err(f"Unknown action {action.type!r}; use one of {', '.join(ACTIONS)}.", "type")
    if state.get("phase") == "over" and action.type not in ("adjust", "set_player"):
        raise _err("The street fight is over; only corrections (adjust) are allowed.", "type")
    new: dict[str, Any] = _copy_state(state)
    try:
        events = handler(new, action, dice, tables)
    except (DiceError, TableError) as exc:
        raise _err(str(exc), "faces") from None
    events += _settle(new)
    flow.refresh(new)
    if events:
        new["last"] = {"type": events[-1].type, "text": " ".join(e.text for e in events)}
    return new, events


#: Rivals the chapter hands out, by the name the tracker keeps: (Rival name, enemy type).
_RIVALS: dict[str, tuple[str, str]] = {"Enforcer": ("Enforcer Rival", "Enforcers"), "Gang": ("Gang Rival", "Gang")}


def _changes(state: Mapping[str, Any]) -> list[Change]:
    """What the fight pays and takes, as campaign changes (:class:`campaigns.engine.view.Change`):
    a Criminal's bounty in credits (p.133), Rivals gained (Enforcer from the Reporter, p.135;
    Gang from a Criminal), Quest Clues as a note (as Expanded Factions' tip-offs are), and the
    law's hold on surrendered figures with a campaign ``ref`` (p.136): a prison planet takes
    them off the roster, detention is noted with its turns and the weapons taken."""
    pay = state["pay"]
    changes: list[Change] = []
    if pay["credits"]:
        changes.append(Change("credits", {"amount": int(pay["credits"])}))
    for rival in pay["rivals"]:
        name, kind = _RIVALS.get(rival, (f"{rival} Rival", rival))
        changes.append(Change("rival_add", {"name": name, "kind": kind, "notes": "From a street fight (pp.133-135)."}))
    if pay["quest_clues"]:
        changes.append(Change("note", {"text": f"Street fight: +{pay['quest_clues']} Quest Clue(s) (p.134)."}))
    for held in state["detained"]:
        if held.get("ref") is None:
            continue
        if held["prison"]:
            text = f"{held['name']} is sent to a prison planet (p.136)."
            changes.append(Change("character", {"id": held["ref"], "status": "gone", "note": text}))
            continue
        taken = {"all": "all weapons taken", "non-pistol": "weapons without the Pistol trait taken"}.get(
            held["confiscated"] or "", ""
        )
        text = "Held by the law (p.136)" + (
            f" for {held['turns']} campaign turns: no actions or events, heals normally" if held["turns"] else ""
        )
        changes.append(Change("character", {"id": held["ref"], "note": f"{text}{'; ' + taken if taken else ''}."}))
    return changes


def outcome(state: Mapping[str, Any]) -> dict[str, Any]:
    """The street fight summed up for the post-battle sequence, in the shape of
    :func:`battles.engine.fp_tracker.outcome` (``held_field`` None while the fight goes on,
    ``casualties`` crew names, ``enemies_killed``, ``enemies_fled``, ``rounds``, ``objective``,
    ``objective_possible``, ``escalations`` and ``deployment`` (never used here, p.123),
    ``psionic_uses``) plus ``won`` (the objective done and someone escaped, p.136) and
    ``street``: what the chapter pays and takes (``quest_clues``, ``credits``, ``rivals`` gained
    as names such as "Enforcer" or "Gang", ``detained``: figures held by the law with
    ``turns`` or ``prison``, p.136; ``escaped`` names; ``changes``: all of it as campaign
    changes, see :func:`_changes`)."""
    objective = state["objective"]
    foes = [e for e in state["enemies"] if not e["law"]]
    return {
        "held_field": state["held_field"],
        "won": state["won"],
        "casualties": [f["name"] for f in state["crew"] if f["status"] == "casualty"],
        "enemies_killed": sum(1 for e in foes if e["status"] == "casualty"),
        "enemies_fled": sum(1 for e in foes if e["status"] == "fled"),
        "rounds": state["round"],
        "objective": objective["name"],
        "objective_possible": not objective["failed"],
        "escalations": [],
        "deployment": None,
        "psionic_uses": 0,
        "mission": c.MISSION,
        "street": {
            "objective_done": bool(objective["done"]),
            "objective_failed": bool(objective["failed"]),
            "why": objective["why"],
            "quest_clues": int(state["pay"]["quest_clues"]),
            "credits": int(state["pay"]["credits"]),
            "rivals": list(state["pay"]["rivals"]),
            "detained": [dict(d) for d in state["detained"]],
            "escaped": [f["name"] for f in state["crew"] if f["status"] == "escaped"],
            "changes": [change.as_dict() for change in _changes(state)],
        },
    }
