"""The crew's tools and tricks (Stay Down, Distraction, Lure, pp.121-122), the objective (search,
take, hand off, pick up, pp.117-119), exfiltration (p.117) and the Individual leaving.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.fp_stealth.tracker.base import EXFILTRATE_FACE, STEPS, _actor, _need_stealth, _s
from battles.engine.fp_stealth.tracker.detection import _raise_alarm
from battles.engine.fp_tracker.base import _err, _roll, _rolls
from battles.engine.fp_tracker.lookups import _crew, _enemy, _mine, _phase
from battles.engine.fp_tracker.setup import _figure
from live.engine.tracker import (
    Action,
    Event,
    payload_faces,
    payload_flag,
    payload_ints,
    payload_words,
    require_owner,
)
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable

# -- tools and tricks (pp.121-122) --------------------------------------------------------------------------


def _tool_figure(state: dict[str, Any], action: Action, what: str) -> dict[str, Any]:
    _need_stealth(state, what)
    fig = _crew(state, action.payload.get("figure"))
    _mine(action, fig)
    _phase(state, "quick", "slow", what=what)
    if fig["slot"] != state["phase"] or fig["acted"]:
        raise _err(f"{what} is done in {fig['name']}'s own activation, staying put (p.121).", "figure")
    return fig


def _stay_down(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Stay Down (p.121): until the figure activates again, spotting against it loses its
    Savvy when it is at least partly obscured."""
    fig = _tool_figure(state, action, "Stay Down")
    _s(state)["stay_down"][fig["id"]] = state["round"]
    return [Event("stay_down", f"{fig['name']} stays down: spotting rolls lose {int(fig.get('savvy') or 0)} while obscured.", {})]


def _distraction(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Distraction (p.122): an enemy within 6"; 1D6+Savvy 6+ turns it the chosen way and it only
    watches at its next activation; a natural 1 turns it toward the figure and it rolls to spot
    (``spot`` next, not scanning)."""
    fig = _tool_figure(state, action, "Distraction")
    enemy = _enemy(state, action.payload.get("enemy"))
    record = _roll(dice, "D6", f"{fig['name']}: Distraction (1D6+Savvy)", payload_faces(action, "faces", 1))
    face = int(record.total or 0)
    total = face + int(fig.get("savvy") or 0)
    if face == 1:
        _s(state)["suspicious"] = {"enemy": enemy["id"], "toward": fig["id"]}
        text = f"Distraction: a natural 1. {enemy['name']} turns to face {fig['name']} and rolls to spot (not scanning)."
    elif total >= 6:
        _s(state)["distracted"].append(enemy["id"])
        text = f"Distraction: {face}+{fig.get('savvy') or 0} = {total}: {enemy['name']} turns where you chose and only watches next time."
    else:
        text = f"Distraction: {face}+{fig.get('savvy') or 0} = {total}: {enemy['name']} is not fooled."
    return [Event("distraction", text, _rolls(record))]


def _lure(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Lure (p.122): every enemy within 8" (``enemies``) moves 1D6" toward the figure (``faces``,
    one per enemy); then one spotting roll applies to all of them (``spot`` with ``enemies``)."""
    fig = _tool_figure(state, action, "Lure")
    enemies = [_enemy(state, e, field="enemies") for e in payload_words(action, "enemies")]
    if not enemies:
        raise _err('enemies is required: the enemies within 8" of the luring figure.', "enemies")
    faces = payload_ints(action, "faces")
    records = [_roll(dice, "D6", f"Lure: {e['name']} moves (inches)", [faces.pop(0)] if faces else None) for e in enemies]
    moves = ", ".join(f'{e["name"]} {r.total}"' for e, r in zip(enemies, records, strict=True))
    text = f"{fig['name']} lures: {moves} toward them; now one spotting roll for all of them (spot with enemies)."
    return [Event("lure", text, _rolls(*records))]


# -- the objective (pp.117-119) ----------------------------------------------------------------------------


def _search(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Finding the target (p.118): a crew figure within 6" and sight of a candidate rolls 1D6+Savvy;
    6+ finds it, else the candidate is empty; the last candidate always holds it."""
    _actor(action)
    objective = _s(state)["objective"]
    if not objective["must_locate"] or objective["located"]:
        raise _err("Nothing needs finding: the target's place is known.", "type")
    fig = _crew(state, action.payload.get("figure"))
    _mine(action, fig)
    _phase(state, "quick", "slow", what="Searching")
    left = objective["candidates"] - objective["searched"]
    if left <= 1:
        objective["located"] = True
        return [Event("search", f"{fig['name']} reaches the last candidate: the target is there (p.118).", {})]
    record = _roll(dice, "D6", f"{fig['name']}: Finding the target (1D6+Savvy)", payload_faces(action, "faces", 1))
    total = int(record.total or 0) + int(fig.get("savvy") or 0)
    if total >= 6:
        objective["located"] = True
        text = f"{fig['name']} rolls {total}: the target is found; place it at the far side of the feature (p.118)."
    else:
        objective["searched"] += 1
        left -= 1
        text = f"{fig['name']} rolls {total}: not here. {left} candidate(s) left" + (
            " (the last one holds it)." if left == 1 else "."
        )
        if left == 1:
            objective["located"] = True
    return [Event("search", text, _rolls(record))]


def _objective(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A step of the objective by a crew figure (pp.118-119): ``step`` pick_up (an item, once found),
    deliver (the carrier at the objective), contact / transmit (within 3" and sight of the
    Individual) or rescue (the Individual joins the crew and must be exfiltrated)."""
    _actor(action)
    s = _s(state)
    objective = s["objective"]
    allowed = STEPS[objective["key"]]
    step = str(action.payload.get("step") or allowed[0]).strip().lower()
    if step not in allowed:
        raise _err(f"step must be one of {', '.join(allowed)} for {objective['name']}; got {step!r}.", "step")
    fig = _crew(state, action.payload.get("figure"))
    _mine(action, fig)
    _phase(state, "quick", "slow", what="Working on the objective")
    if objective["achieved"] or objective["failed"]:
        raise _err("The objective is settled already.", "step")
    if not objective["located"]:
        raise _err("Find the target first (search).", "step")
    if step == "pick_up":
        if objective["carrier"]:
            raise _err("Someone carries the item already.", "step")
        objective["carrier"] = fig["id"]
        return [Event("objective", f"{fig['name']} picks up the item: exfiltrate with it (p.118).", {})]
    if step == "deliver":
        if objective["carrier"] != fig["id"]:
            raise _err("Only the figure carrying the item can deliver it.", "figure")
        objective.update(achieved=True, carrier=None)
        return [Event("objective", f"{fig['name']} delivers the item: objective done; now exfiltrate (p.118).", {})]
    if step in ("contact", "transmit"):
        objective["achieved"] = True
        return [Event("objective", f"{fig['name']} reaches the Individual: objective done; now exfiltrate (p.118).", {})]
    individual = s["individual"]
    if individual is None or individual["joined"] or individual["gone"]:
        raise _err("There is no Individual to rescue here.", "step")
    fid = f"c{state['next']['crew']}"
    state["next"]["crew"] += 1
    profile = individual["profile"]
    joined = _figure(
        fid,
        individual["name"],
        "crew",
        {**profile, "save": None},
        [],
        rank="crew",
        captain=False,
        owner=fig.get("owner") or "",
        die=None,
        face=None,
        slot=None,
    )
    joined["notes"].append("Rescued: unarmed; must be exfiltrated (p.118)")
    state["crew"].append(joined)
    individual["joined"] = fid
    return [
        Event("objective", f"{fig['name']} reaches {individual['name']}, who joins the crew: get them off the table (p.118).", {})
    ]


def _hand_off(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Hand the item to a crew figure within 1" (p.118), once per battle round."""
    _actor(action)
    objective, s = _s(state)["objective"], _s(state)
    fig = _crew(state, action.payload.get("figure"))
    _mine(action, fig)
    _phase(state, "quick", "slow", what="Handing off the item")
    to = _crew(state, action.payload.get("to"), field="to")
    if objective["carrier"] != fig["id"]:
        raise _err(f"{fig['name']} does not carry the item.", "figure")
    if to is fig:
        raise _err("Hand the item to another crew figure.", "to")
    if s["handed_round"] == state["round"]:
        raise _err("The item was handed off this round already (once per round, p.118).", "figure")
    objective["carrier"], s["handed_round"] = to["id"], state["round"]
    return [Event("hand_off", f"{fig['name']} hands the item to {to['name']}.", {})]


def _pick_up(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Pick up a dropped item by moving into contact (p.118); ``destroyed`` on when it fell in
    hazardous terrain: it is lost and the objective fails."""
    _actor(action)
    objective = _s(state)["objective"]
    if objective["carrier"] or not objective.get("dropped"):
        raise _err("No item lies on the ground.", "type")
    if payload_flag(action, "destroyed"):
        require_owner(action)
        objective.update(failed=True, dropped=False)
        return [Event("item", "The item fell into hazardous terrain and is destroyed: the objective fails (p.118).", {})]
    fig = _crew(state, action.payload.get("figure"))
    _mine(action, fig)
    objective.update(carrier=fig["id"], dropped=False)
    return [Event("item", f"{fig['name']} picks the item up.", {})]


def _exfiltrate(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A crew figure leaves the battle for good (p.117): over a table edge in its own activation,
    or, once Reactions are rolled, one figure given a 6 each round. The carrier takes the item
    with it; a rescued Individual leaving completes the Rescue."""
    _actor(action)
    fig = _crew(state, action.payload.get("figure"))
    _mine(action, fig)
    s = _s(state)
    if state["phase"] == "start":
        if fig["face"] != EXFILTRATE_FACE:
            raise _err(f"Only a figure given a {EXFILTRATE_FACE} when Reactions are rolled can slip away now (p.117).", "figure")
        if s["exfiltrated_round"] == state["round"]:
            raise _err("One figure given a 6 has slipped away this round already (p.117).", "figure")
        s["exfiltrated_round"] = state["round"]
        how = "slips away on a 6"
    else:
        _phase(state, "quick", "slow", what="Leaving over a table edge")
        if fig["slot"] != state["phase"]:
            raise _err(f"{fig['name']} leaves in their own activation.", "figure")
        how = "leaves over a table edge"
    fig["status"], fig["die"], fig["face"], fig["slot"] = "exfiltrated", None, None, None
    fig["down_round"] = state["round"]
    texts = [f"{fig['name']} {how}: exfiltrated."]
    objective = s["objective"]
    if objective["carrier"] == fig["id"]:
        objective["carrier"] = None
        if objective["key"] in ("locate_retrieve", "retrieve_package"):
            objective["achieved"] = True
            texts.append("The item is out: objective done.")
    individual = s["individual"]
    if individual and individual["joined"] == fig["id"] and objective["key"] == "rescue":
        objective["achieved"] = True
        texts.append(f"{individual['name']} is rescued: objective done.")
    return [Event("exfiltrate", " ".join(texts), {"figure": fig["id"]})]


def _individual_off(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """The Individual wandered off the table (p.119): a Rescue counts as done, any other
    objective fails."""
    require_owner(action)
    s = _s(state)
    individual = s["individual"]
    if individual is None or individual["joined"] or individual["gone"]:
        raise _err("No wandering Individual is on the table.", "type")
    individual["gone"] = True
    objective = s["objective"]
    if objective["achieved"]:
        return [Event("individual", f"{individual['name']} wanders off the table.", {})]
    if objective["key"] == "rescue":
        objective["achieved"] = True
        return [Event("individual", f"{individual['name']} wanders off the table: they rescued themselves (p.119).", {})]
    objective["failed"] = True
    return [Event("individual", f"{individual['name']} wanders off the table: the objective fails (p.119).", {})]


def _alarm(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Raise the alarm by hand (an attack or power the tracker did not see, p.122): ``cause``."""
    require_owner(action)
    _need_stealth(state, "Raising the alarm")
    _phase(state, "start", "quick", "enemy", "slow", "end", what="Raising the alarm")
    cause = str(action.payload.get("cause") or "The alarm is raised.").strip()[:120]
    return _raise_alarm(state, action, dice, cause)
