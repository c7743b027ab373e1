"""Spawn Points, Tactical Locations and Signals (Bug Hunt pp.190-191, 199) and Objectives (p.185)
on the mission tracker."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bughunt.engine.tracker.base import (
    _active_enemies,
    _enemy,
    _entry_data,
    _face,
    _figure,
    _find,
    _mine,
    _phase,
    _roll,
    _signed,
)
from bughunt.engine.tracker.turns import hands_busy, not_firing, spend, trooper_turn
from live.engine.tracker import (
    Action,
    Event,
    TrackerError,
    payload_flag,
    payload_int,
    require_owner,
    words,
)
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable

# -- Spawn Points, Tactical Locations, Signals (pp.190-191, 199) ---------------------------------------------


def _close_spawn_point(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Close a Spawn Point (p.199): a trooper within 3" and not firing rolls 1D6+Savvy, 6+ removes
    it and its Countdown; one helper within 1" (also not firing) adds +1."""
    point = _find(state["spawn_points"], action.payload.get("spawn"), "spawn", "Spawn Point")
    if point["closed"]:
        raise TrackerError(f"Spawn Point {point['id']} is already closed.", field="spawn")
    unit, fig = _figure(state, action.payload.get("figure"))
    _mine(action, unit)
    not_firing(state, action, fig, what="closing a Spawn Point")
    rule = tables["bh-close-spawn-point"].entries[0].data
    helper = None
    if action.payload.get("helper"):
        _, helper = _figure(state, action.payload.get("helper"), field="helper")
        if helper is fig:
            raise TrackerError("helper must be another trooper within 1 inch of the worker.", field="helper")
        not_firing(state, action, helper, what="helping to close a Spawn Point", field="helper")
    hands_busy(state, fig, *([helper] if helper else []))
    bonus = int(rule["helper_bonus"]) if helper else 0
    record = _roll(dice, "D6", f"Close Spawn Point {point['id']}", _face(action, "faces"), modifier=fig["savvy"] + bonus)
    target = int(rule["target"])
    parts = f"rolled {record.natural} {_signed(fig['savvy'])} Savvy" + (f" +{bonus} {helper['name']} helping" if helper else "")
    if int(record.total or 0) >= target:
        point["closed"] = True
        point["countdown"] = None
        text = f"{fig['name']} works on Spawn Point {point['id']}: {parts} = {record.total} against {target}+: closed, with its Countdown."
    else:
        text = f"{fig['name']} works on Spawn Point {point['id']}: {parts} = {record.total} against {target}+: still open."
    return [Event("close_spawn_point", text + " They cannot fire this round.", {"spawn": point["id"], "roll": record.as_dict()})]


def _investigate(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Investigate a Tactical Location (p.191): a figure ending its move within 3" without firing or
    Brawling rolls D6 on bh-tactical-locations to learn what it is."""
    loc = _find(state["locations"], action.payload.get("location"), "location", "Tactical Location")
    who = "A trooper"
    if action.payload.get("figure"):
        unit, fig = _figure(state, action.payload.get("figure"))
        _mine(action, unit)
        not_firing(state, action, fig, what="investigating a Tactical Location (p.191)")
        who = fig["name"]
    else:
        require_owner(action)
    if loc["type"] is not None:
        raise TrackerError(f"Tactical Location {loc['id']} is already known: {loc['type']}.", field="location")
    rolled = tables["bh-tactical-locations"].resolve(_roll(dice, "D6", f"Tactical Location {loc['id']}", _face(action, "faces")))
    loc.update({"type": rolled.entry.result, "key": str(rolled.entry.data["advantage"]), "rule": rolled.entry.effect})
    text = f"{who} investigates Tactical Location {loc['id']}: rolled {rolled.record.total}, {loc['type']} ({loc['rule']}). Any figure within 3 inches not firing or Brawling may try to activate it."
    return [Event("investigate", text, {"location": loc["id"], "roll": rolled.record.as_dict()})]


def _activate(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Activate a Tactical Location (p.191): 1D6+Savvy 5+ (+1 with an Intel report). A failure
    marks it; a second failure breaks it for the mission. Effects: Distract (enemies within 18"
    skip the next Enemy Action phase), Block (Impassable to enemies and Contacts within 2"; D6 each
    round's end, 6 opens it at the end of the next round), Neutralize (remove one Contact marker,
    ``contact``), Delay (no new Contact markers this round and the next two)."""
    loc = _find(state["locations"], action.payload.get("location"), "location", "Tactical Location")
    unit, fig = _figure(state, action.payload.get("figure"))
    _mine(action, unit)
    not_firing(state, action, fig, what="activating a Tactical Location (p.191)")
    if loc["type"] is None:
        raise TrackerError(f"Investigate Tactical Location {loc['id']} first.", field="location")
    if loc["broken"]:
        raise TrackerError(f"Tactical Location {loc['id']} is broken after two failures.", field="location")
    if loc["active"]:
        raise TrackerError(f"Tactical Location {loc['id']} is already activated.", field="location")
    rule = _entry_data(tables, "bh-tactical-location-activation", "Activate")
    target = int(rule["target"])
    intel = 1 if state["intel_report"] else 0
    contact = None
    if loc["key"] == "neutralize" and state["contacts"]:
        contact = _find(state["contacts"], action.payload.get("contact"), "contact", "Contact marker")
    ticked = [
        key.removeprefix("distract_") for key in action.payload if key.startswith("distract_") and payload_flag(action, key)
    ]
    named = dict.fromkeys([*words(action.payload.get("enemies")), *ticked])
    distracted = [_enemy(state, eid, field="enemies")[1] for eid in named]
    record = _roll(dice, "D6", f"Activate {loc['id']}", _face(action, "faces"), modifier=fig["savvy"] + intel)
    sums = (
        f"rolled {record.natural} {_signed(fig['savvy'])} Savvy"
        + (" +1 Intel report" if intel else "")
        + f" = {record.total} against {target}+"
    )
    if int(record.total or 0) < target:
        loc["failures"] += 1
        if loc["failures"] > int(rule["failures_allowed"]):
            loc["broken"] = True
            text = f"{fig['name']} tries to activate {loc['type']} ({loc['id']}): {sums}: failed again, it is broken for the rest of the mission."
        else:
            text = f"{fig['name']} tries to activate {loc['type']} ({loc['id']}): {sums}: failed; one more failure breaks it."
        return [Event("activate", text, {"location": loc["id"], "roll": record.as_dict()})]
    loc["active"] = True
    effect = ""
    rnd = state["round"]
    if loc["key"] == "distract":
        state["distract_round"] = rnd if state["phase"] in ("start", "quick") else rnd + 1
        effect = _distract(state, distracted)
    elif loc["key"] == "block":
        loc["blocked"] = True
        effect = "Within 2 inches is Impassable to enemies and Contact markers (not troopers); roll each round's end to see if it opens."
    elif loc["key"] == "neutralize":
        if contact is None:
            effect = "There is no Contact marker to remove."
        else:
            state["contacts"].remove(contact)
            effect = f"Contact {contact['id']} is removed."
    elif loc["key"] == "delay":
        rounds = int(_entry_data(tables, "bh-tactical-locations", "Delay")["rounds"])
        state["delay_until"] = rnd + rounds
        effect = f"No new Contact markers this round or the next {rounds} (until the end of round {state['delay_until']})."
    text = f"{fig['name']} activates {loc['type']} ({loc['id']}): {sums}: success. {effect}"
    return [Event("activate", text, {"location": loc["id"], "roll": record.as_dict()})]


def _distract(state: dict[str, Any], named: list[dict[str, Any]]) -> str:
    """Mark the enemies within 18" of an activated Distract location (``named``; none named: every
    enemy on the table) as Distracted: they take no action in the Enemy Action phase of
    ``distract_round`` (p.191, refused by :func:`bughunt.engine.tracker.turns.enemy_turn`)."""
    rnd = state["distract_round"]
    foes = named or _active_enemies(state)
    for foe in foes:
        foe["distracted_round"] = rnd
    who = ", ".join(f["name"] for f in foes) if named else ("every enemy on the table" if foes else "no enemy yet")
    return (
        f"Enemies within 18 inches ({who}) are Distracted and skip the Enemy Action phase of round {rnd};"
        " enemies revealed within 18 inches before then are Distracted too."
    )


def _investigate_signal(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Count one Signal investigated (p.201: with 4+ Signals, fewer than 2 investigated costs one
    Objective). How a Signal is investigated is outside our pages; the referee records it."""
    require_owner(action)
    if state["signals_investigated"] >= state["signals"]:
        raise TrackerError(f"All {state['signals']} Signals are already investigated.", field="type")
    state["signals_investigated"] += 1
    return [Event("signal", f"Signal investigated: {state['signals_investigated']} of {state['signals']}.", {})]


# -- Objectives (p.185) --------------------------------------------------------------------------------------


def _objective(state: Mapping[str, Any], action: Action, *, key: str | None = None) -> dict[str, Any]:
    obj = _find(state["objectives"], action.payload.get("objective"), "objective", "Objective")
    if key is not None and obj["key"] != key:
        raise TrackerError(f"Objective {obj['position']} is {obj['type']}, not {key.title()}.", field="objective")
    if obj["completed"]:
        raise TrackerError(f"Objective {obj['position']} is already completed.", field="objective")
    return obj


def _complete(state: dict[str, Any], obj: dict[str, Any]) -> None:
    obj["completed"] = True
    obj["completed_round"] = state["round"]


def _worker(state: dict[str, Any], action: Action) -> dict[str, Any]:
    unit, fig = _figure(state, action.payload.get("figure"))
    _mine(action, unit)
    return fig


def _combat_worker(state: dict[str, Any], action: Action, what: str) -> dict[str, Any]:
    """The acting figure of a Combat Action other than firing (Hack, taking a package, p.185):
    its unit must be acting now and the figure not have taken its Combat Action this round
    (p.198, :func:`bughunt.engine.tracker.turns.trooper_turn`); the action is then spent."""
    unit, fig = _figure(state, action.payload.get("figure"))
    _mine(action, unit)
    spend(state, unit, fig, trooper_turn(state, action, unit, fig, what=what))
    return fig


def _scout(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Scout (p.185): a trooper moved into contact; completed at the end of this round."""
    obj = _objective(state, action, key="scout")
    fig = _worker(state, action)
    obj["contacted_round"] = state["round"]
    return [
        Event(
            "scout",
            f"{fig['name']} reaches Objective {obj['position']} (Scout): it is completed at the end of this round.",
            {"objective": obj["id"]},
        )
    ]


def _hack(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Hack (p.185): a trooper in contact spends a Combat Action (in its own activation, once a
    round) and rolls 1D6+Savvy, 6+."""
    obj = _objective(state, action, key="hack")
    fig = _combat_worker(state, action, "Hacking")
    rule = next(e.data for e in tables["bh-mission-objectives"].entries if e.data["objective"] == "hack")
    target = int(rule["target"])
    record = _roll(dice, "D6", f"Hack Objective {obj['position']}", _face(action, "faces"), modifier=fig["savvy"])
    sums = f"rolled {record.natural} {_signed(fig['savvy'])} Savvy = {record.total} against {target}+"
    if int(record.total or 0) >= target:
        _complete(state, obj)
        text = f"{fig['name']} hacks Objective {obj['position']}: {sums}: completed."
    else:
        text = f"{fig['name']} hacks Objective {obj['position']}: {sums}: not yet (try again with another Combat Action)."
    return [Event("hack", text, {"objective": obj["id"], "roll": record.as_dict()})]


def _pick_up(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Retrieve (p.185): a trooper in contact spends a Combat Action to take the package; it counts
    only when carried out at Evac."""
    obj = _objective(state, action, key="retrieve")
    fig = _combat_worker(state, action, "Taking the package")
    if obj["package"] not in ("marker", "dropped"):
        raise TrackerError(
            f"The package of Objective {obj['position']} is not lying on the table ({obj['package']}).", field="objective"
        )
    if fig["package"]:
        raise TrackerError(f"{fig['name']} already carries a package.", field="figure")
    obj["package"] = fig["id"]
    fig["package"] = obj["id"]
    return [
        Event(
            "pick_up",
            f"{fig['name']} takes the package of Objective {obj['position']}: carry it out at Evac to complete it.",
            {"objective": obj["id"]},
        )
    ]


def _drop_package(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    fig = _worker(state, action)
    if not fig["package"]:
        raise TrackerError(f"{fig['name']} carries no package.", field="figure")
    obj = _find(state["objectives"], fig["package"], "objective", "Objective")
    obj["package"], fig["package"] = "dropped", None
    return [
        Event("drop_package", f"{fig['name']} puts down the package of Objective {obj['position']}.", {"objective": obj["id"]})
    ]


def _beacon(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Beacon (p.185): a trooper touches it once every Hack, Secure and Scout Objective is done."""
    obj = _objective(state, action, key="beacon")
    fig = _worker(state, action)
    open_ones = [o for o in state["objectives"] if o["key"] in ("hack", "secure", "scout") and not o["completed"]]
    if open_ones:
        names = ", ".join(f"{o['position']} ({o['type']})" for o in open_ones)
        raise TrackerError(
            f"The Beacon needs every Hack, Secure and Scout Objective done first; still open: {names}.", field="objective"
        )
    _complete(state, obj)
    return [
        Event("beacon", f"{fig['name']} sets the Beacon at Objective {obj['position']}: completed.", {"objective": obj["id"]})
    ]


def _set_objective(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Referee correction: mark an Objective completed or not."""
    require_owner(action)
    obj = _find(state["objectives"], action.payload.get("objective"), "objective", "Objective")
    done = payload_flag(action, "completed", default=True)
    obj["completed"] = done
    obj["completed_round"] = state["round"] if done else None
    return [
        Event(
            "objective",
            f"Objective {obj['position']} ({obj['type']}) is marked {'completed' if done else 'not completed'}.",
            {"objective": obj["id"]},
        )
    ]


def _reroll_reaction(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A Precursor explorer lets the squad re-roll one Reaction die each round (p.189): ``die``
    (1-based), ``faces`` optional. Any assignment of that die is kept with the new face."""
    require_owner(action)
    _phase(state, "start", what="Re-rolling a Reaction die")
    if not any(
        u["active"] and "precursor" in f["special"] for u in state["units"] for f in u["figures"] if f["status"] == "active"
    ):
        raise TrackerError("Only a Precursor explorer on the table allows a Reaction re-roll.", field="type")
    if state.get("precursor_round") == state["round"]:
        raise TrackerError("One Reaction die may be re-rolled each round; it is done.", field="type")
    if not state["reaction_dice"]:
        raise TrackerError("Roll Reactions first.", field="type")
    index = payload_int(action, "die", low=1, high=len(state["reaction_dice"])) - 1
    old = state["reaction_dice"][index]
    record = _roll(dice, "D6", "Reaction re-roll (Precursor explorer)", _face(action, "faces"))
    state["reaction_dice"][index] = int(record.total or 0)
    state["precursor_round"] = state["round"]
    for unit in state["units"]:
        if unit["die"] == index:
            unit["face"] = state["reaction_dice"][index]
    return [
        Event(
            "reaction_reroll",
            f"Precursor explorer: die {index + 1} re-rolled from {old} to {record.total}.",
            {"roll": record.as_dict()},
        )
    ]


def _survey(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """The Scientific survey team's Objective (p.188): once per mission, a scientist who reaches
    the table center and spends one entire round there completes one Objective.

    Reading: the whole round is required, as the text says. The first ``survey`` {figure} marks
    the scientist's arrival at the center in this round; a second ``survey`` by the same
    scientist, once a whole round has passed there (from the end of the next round on),
    completes the Objective. The scientist must still be on the table; ``left`` (on) marks that
    they left the center, which clears the arrival. A refusal changes nothing."""
    fig = _worker(state, action)
    if "scientists" not in fig["special"]:
        raise TrackerError(f"{fig['name']} is not a scientist of a Scientific survey team.", field="figure")
    if any(o["key"] == "survey" for o in state["objectives"]):
        raise TrackerError("The survey counts only once per mission.", field="type")
    at_center = state.get("survey_at_center")
    if payload_flag(action, "left"):
        if not at_center or at_center["figure"] != fig["id"]:
            raise TrackerError(f"{fig['name']} is not surveying at the table center.", field="figure")
        state["survey_at_center"] = None
        return [Event("survey", f"{fig['name']} leaves the table center: the survey must start again.", {"figure": fig["id"]})]
    rnd = state["round"]
    if not at_center or at_center["figure"] != fig["id"]:
        state["survey_at_center"] = {"figure": fig["id"], "round": rnd}
        return [
            Event(
                "survey",
                f"{fig['name']} reaches the table center in round {rnd}: after one entire round there (the end of round"
                f" {rnd + 1}), the survey completes one Objective.",
                {"figure": fig["id"]},
            )
        ]
    whole = rnd > at_center["round"] + 1 or (rnd == at_center["round"] + 1 and state["phase"] == "spawn")
    if not whole:
        raise TrackerError(
            f"{fig['name']} reached the center in round {at_center['round']}: the survey needs one entire round there,"
            f" so it completes from the end of round {at_center['round'] + 1}.",
            field="type",
        )
    state["survey_at_center"] = None
    state["objectives"].append(
        {
            "id": "survey",
            "position": 0,
            "rank": "Objective",
            "value": 1,
            "type": "Survey",
            "key": "survey",
            "completed": True,
            "completed_round": rnd,
            "contacted_round": None,
            "package": None,
        }
    )
    return [
        Event(
            "survey",
            f"{fig['name']} spent a whole round at the table center: the survey counts as one completed Objective.",
            {"figure": fig["id"]},
        )
    ]
