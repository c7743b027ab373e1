"""Evac and leaving the table (Bug Hunt p.201), corrections to figures, and Movie magic (p.181) on
the mission tracker."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bughunt.engine import combat
from bughunt.engine import support as support_rules
from bughunt.engine.tracker.base import (
    EVAC_FROM_ROUND,
    KNOCKOUT_STUN,
    PHASE_NAMES,
    POST_BATTLE_CARDS,
    SETUP_CARDS,
    STATUSES,
    _all_figures,
    _card_names,
    _choice,
    _entry_data,
    _figure,
    _find,
    _mine,
    _rolls,
)
from bughunt.engine.tracker.outcome import _objectives_done_final
from bughunt.engine.tracker.places import _complete, _worker
from bughunt.engine.tracker.rounds import _evac_roll
from bughunt.engine.tracker.setup import _add_unit, _new_weapon, _weapon_names
from bughunt.engine.tracker.turns import spend, trooper_turn
from live.engine.tracker import (
    Action,
    Event,
    TrackerError,
    payload_faces,
    payload_flag,
    payload_int,
    require_owner,
)
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

# -- Evac and leaving the table (p.201) ---------------------------------------------------------------------


def _request_evac(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Call Evac (p.201), from round 5: a stationary, un-Stunned character who takes no other action
    rolls 2D6 + Objectives completed (packages held count) + 1 with Savvy +1 or more; 10+ lands the
    drop ship at the end of the next round, otherwise roll again at the end of every round."""
    unit, fig = _figure(state, action.payload.get("figure"))
    _mine(action, unit)
    if state["round"] < EVAC_FROM_ROUND:
        raise TrackerError(f"Evac can be called from round {EVAC_FROM_ROUND}; this is round {state['round']}.", field="type")
    if state["evac"]["status"] not in ("none", "left"):
        raise TrackerError(f"Evac is already {state['evac']['status']}.", field="type")
    if fig["stun"]:
        raise TrackerError(f"{fig['name']} is Stunned and cannot call Evac.", field="figure")
    rnd = state["round"]
    if rnd in (fig.get("moved_round"), fig.get("combat_round")):
        raise TrackerError(
            f"{fig['name']} has moved or acted this round: the caller stands still and does nothing else (p.201).",
            field="figure",
        )
    state["evac"]["caller"] = fig["id"]
    fig["evac_call_round"] = rnd
    event = _evac_roll(
        state, dice, tables, payload_faces(action, "faces", 2), why=f"{fig['name']} calls, standing still and doing nothing else"
    )
    return [event]


def _leave(state: dict[str, Any], fig: dict[str, Any], status: str) -> str:
    """Take a figure off the table; a carried package is dropped (casualty), carried out (Evac)
    or lost with a trooper leaving by an edge. Returns a sentence about the package, or ''."""
    fig["status"] = status
    if not fig["package"]:
        return ""
    obj = _find(state["objectives"], fig["package"], "objective", "Objective")
    fig["package"] = None
    if status == "evacuated":
        obj["package"] = "evacuated"
        _complete(state, obj)
        return f" The package of Objective {obj['position']} is carried out: completed."
    if status == "exited":
        obj["package"] = "lost"
        return f" The package of Objective {obj['position']} leaves the table with them and does not count."
    obj["package"] = "dropped"
    return f" The package of Objective {obj['position']} is dropped where they fell."


def _evacuate(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Troopers within 3" of the landed drop ship leave the table safely (p.201). ``figure`` is a
    figure id, or a unit id for all its figures."""
    if state["evac"]["status"] != "hovering":
        raise TrackerError("The drop ship is not on the ground: call Evac and wait for it to land.", field="type")
    target = str(action.payload.get("figure") or action.payload.get("unit") or "")
    unit = next((u for u in state["units"] if u["id"] == target), None)
    if unit is not None:
        _mine(action, unit)
        figs = [f for f in unit["figures"] if f["status"] == "active"]
        if not figs:
            raise TrackerError(f"{unit['name']} has no figure on the table.", field="figure")
    else:
        unit, fig = _figure(state, target)
        _mine(action, unit)
        figs = [fig]
    texts = []
    for fig in figs:
        texts.append(f"{fig['name']} boards the drop ship.{_leave(state, fig, 'evacuated')}")
    return [Event("evacuate", " ".join(texts), {"figures": [f["id"] for f in figs]})]


def _exit_edge(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A trooper leaves by a battlefield edge (p.200): off the table, a Lost Marine roll after the battle."""
    unit, fig = _figure(state, action.payload.get("figure"))
    _mine(action, unit)
    tail = _leave(state, fig, "exited")
    return [
        Event(
            "exit_edge",
            f"{fig['name']} leaves by a battlefield edge and will roll on the Lost Marine column.{tail}",
            {"figure": fig["id"]},
        )
    ]


def _end_mission(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """End the mission (everyone is off the table, or the referee calls it)."""
    require_owner(action)
    state["phase"] = "over"
    left = [f["name"] for _, f in _all_figures(state) if f["status"] == "active"]
    tail = f" Still on the table: {', '.join(left)}." if left else ""
    done = _objectives_done_final(state)
    return [
        Event(
            "end_mission",
            f"The mission ends after round {state['round']} with {done} Objective(s) completed.{tail}",
            {"objectives": done},
        )
    ]


# -- figures ----------------------------------------------------------------------------------------------


def _adjust(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Referee correction of a trooper: Stun markers (3 knock out), Wounded, status."""
    require_owner(action)
    _, fig = _figure(state, action.payload.get("figure"), active=False)
    tail = ""
    if "stun" in action.payload:
        fig["stun"] = payload_int(action, "stun", low=0, high=KNOCKOUT_STUN)
    if "wounded" in action.payload:
        fig["wounded"] = payload_flag(action, "wounded")
    if "status" in action.payload:
        status = _choice(action, "status", STATUSES)
        if status != "active" and fig["status"] == "active":
            tail = _leave(state, fig, status)
        fig["status"] = status
    if fig["stun"] >= KNOCKOUT_STUN and fig["status"] == "active":
        tail = _leave(state, fig, "knocked_out")
    text = f"{fig['name']}: {fig['status'].replace('_', ' ')}, {fig['stun']} Stun marker(s){', Wounded' if fig['wounded'] else ''}.{tail}"
    return [Event("adjusted", text, {"figure": fig["id"]})]


def _weapon_of(fig: Mapping[str, Any], action: Action) -> dict[str, Any]:
    name = str(action.payload.get("weapon") or "").strip().lower()
    for weapon in fig["weapons"]:
        if weapon["name"].lower() == name:
            return weapon  # type: ignore[no-any-return]
    have = ", ".join(w["name"] for w in fig["weapons"]) or "none"
    raise TrackerError(f"{fig['name']} carries no weapon {action.payload.get('weapon')!r}; weapons: {have}.", field="weapon")


def _clear_malfunction(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Clear a malfunctioned weapon (p.178): a Combat Action (in the figure's own activation,
    once a round, see :func:`bughunt.engine.tracker.turns.trooper_turn`) and 1D6+Savvy, 7+."""
    fig = _worker(state, action)
    weapon = _weapon_of(fig, action)
    if not weapon["malfunctioned"]:
        raise TrackerError(f"{fig['name']}'s {weapon['name']} works.", field="weapon")
    unit = next(u for u in state["units"] if fig in u["figures"])
    spend(state, unit, fig, trooper_turn(state, action, unit, fig, what="Clearing a Malfunction"))
    check = combat.clear_malfunction(fig["savvy"], dice, tables=tables, faces=payload_faces(action, "faces", 1))
    if check.success:
        weapon["malfunctioned"] = False
    text = f"{fig['name']} works on the {weapon['name']} (a Combat Action): {check.text}"
    return [Event("clear_malfunction", text, {"figure": fig["id"], **_rolls(*check.rolls)})]


# -- Movie magic (p.181) -------------------------------------------------------------------------------------


ROUND_CARDS: tuple[str, ...] = ("Barricade", "Reinforcements", "Remove Contact")
"""Played at the beginning or the end of a round (p.181): the round's start or its Spawn phase."""
ACTING_CARDS: tuple[str, ...] = ("Double-Up", "Lucky Find", "You want some too?")
"""Played when a character is selected to act (p.181)."""


def _may_act_now(state: Mapping[str, Any], unit: Mapping[str, Any]) -> str:
    """Why ``unit`` cannot be selected to act now, or ``""`` when it can: in the Quick Action phase
    a Quick unit that has not acted or held; a held unit taking Snap Fire in the Enemy Action
    phase; in the Slow Action phase a Slow or held unit that has not acted (p.198)."""
    phase = state["phase"]
    if unit["acted"]:
        return f"{unit['name']} has already acted this round"
    if phase == "quick" and unit["slot"] == "quick" and not unit["held"]:
        return ""
    if phase == "enemy" and unit["held"]:
        return ""
    if phase == "slow" and (unit["slot"] == "slow" or unit["held"]):
        return ""
    return f"{unit['name']} is not the one to act in the {PHASE_NAMES[phase]}"


def _movie_magic(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Play a Movie magic card (p.181), each once per campaign, at the moment the book gives:

    - at the beginning or end of a round (the start of the round or its Spawn phase): Barricade
      (noted), Reinforcements (``support``: a Support option placed at the center of an edge,
      its figures armed as pp.188-189 give them; ``arms`` for the Sarge), Remove Contact
      (``contact``);
    - when selecting a character to act (``figure``, whose unit may act now and has not):
      Double-Up (an Incinerator that never malfunctions), Lucky Find (``weapon``, given to the
      actor or to ``ally``, a figure within 4"; no malfunctions, gone after the mission), You
      want some too? (three shots this round without malfunction);
    - after a failed Evac roll: Evac (lands at the end of next round, no roll).

    Extra Support is played in the mission set-up, Escape and Survived after the battle (the
    post-battle sequence): the tracker refuses them. A refused play changes nothing."""
    cards = _card_names(tables)
    card = _choice(action, "card", cards)
    if card in state["movie_magic_used"]:
        raise TrackerError(f"{card} is already used in this campaign.", field="card")
    if card in SETUP_CARDS:
        raise TrackerError(
            f"{card} is played while rolling for Support before the mission; use it in the mission set-up.", field="card"
        )
    if card in POST_BATTLE_CARDS:
        when = "before the Lost Marine rolls" if card == "Escape" else "after the injury rolls"
        raise TrackerError(f"{card} is played after the battle, {when}, in the post-battle sequence (p.181).", field="card")
    if card in ROUND_CARDS and state["phase"] not in ("start", "spawn"):
        raise TrackerError(
            f"{card} is played at the beginning or end of a round (p.181); it is now the {PHASE_NAMES[state['phase']]}.",
            field="card",
        )
    data = _entry_data(tables, "bh-movie-magic", card)
    if card in ACTING_CARDS:
        unit, fig = _figure(state, action.payload.get("figure"))
        _mine(action, unit)
        why = _may_act_now(state, unit)
        if why:
            raise TrackerError(f"{card} is played when a character is selected to act (p.181): {why}.", field="figure")
    else:
        require_owner(action)
    text = ""
    magic_rolls: list[RollRecord] = []
    if card == "Barricade":
        text = f"Barricade: place a straight barrier up to {data['width_in']} inches wide; nothing can cross it (Contact markers too) for the rest of the battle."
    elif card == "Double-Up":
        fig["weapons"].append(_new_weapon(str(data["weapon"]), no_malfunction=True, temporary=True))
        text = f"Double-Up: {fig['name']} gains an Incinerator that never malfunctions and may fire it or their own weapon each round."
    elif card == "Evac":
        if state["evac"]["status"] != "pending":
            raise TrackerError("The Evac card is played after a failed Evac roll; no call is waiting.", field="card")
        state["evac"].update({"status": "coming", "arrives_round": state["round"] + 1})
        text = f"Evac: the drop ship lands at the end of round {state['round'] + 1} with no roll."
    elif card == "Lucky Find":
        name = _weapon_names(tables, str(action.payload.get("weapon") or ""), "weapon")[0] if action.payload.get("weapon") else ""
        if not name:
            raise TrackerError("weapon is required: a weapon from the Weapons table.", field="weapon")
        holder = fig
        if action.payload.get("ally") not in (None, "", fig["id"]):
            _, holder = _figure(state, action.payload.get("ally"), field="ally")
        holder["weapons"].append(_new_weapon(name, no_malfunction=True, temporary=True))
        to = "" if holder is fig else f" for {holder['name']}, within {data['range_in']} inches"
        text = f"Lucky Find: {fig['name']} finds a {name}{to} that never malfunctions (gone after the mission)."
    elif card == "Reinforcements":
        support = {e.result: e.data for e in tables["bh-support"].entries if e.data.get("profile")}
        choice = _choice(action, "support", list(support))
        option = support[choice]
        try:
            per_figure = support_rules.team_weapons(option, arms=str(action.payload.get("arms") or "") or None)
        except support_rules.SupportError as exc:
            raise TrackerError(exc.message, field="arms") from None
        new = _add_unit(
            state,
            kind="team",
            name=choice,
            owner=str(action.payload.get("owner") or ""),
            reactions=int(option["profile"]["reactions"]),
            figures=int(option["figures"]),
            profile=option["profile"],
            save=option.get("armor_save"),
            weapons=list(option.get("weapons") or []),
            special=[combat.BRAWL_BEST_OF_TWO] if option.get("brawl_dice") else [],
            figure_weapons=per_figure,
        )
        text = f"Reinforcements: {new['name']} ({option['figures']} figure(s)) enters at the center of a battlefield edge of your choice, no roll needed."
        if state["phase"] == "start" and state["reaction_dice"]:
            record = dice.d6(f"Reactions for {new['name']}")
            state["reaction_dice"].append(int(record.total or 0))
            text += f" Their Reaction die ({record.total}) joins this round's dice as die {len(state['reaction_dice'])}."
            magic_rolls.append(record)
        elif state["phase"] != "start":
            text += " They roll Reactions from next round."
    elif card == "Remove Contact":
        contact = _find(state["contacts"], action.payload.get("contact"), "contact", "Contact marker")
        state["contacts"].remove(contact)
        text = f"Remove Contact: Contact {contact['id']} is taken off the table."
    elif card == "You want some too?":
        fig["three_shots_round"] = state["round"]
        text = f"You want some too?: {fig['name']} moves normally, then fires three times with no risk of malfunction this round."
    state["movie_magic_used"].append(card)
    state["movie_magic_mission"].append(card)
    return [Event("movie_magic", text + " The card is used for the campaign.", {"card": card, **_rolls(*magic_rolls)})]
