"""The mission tracker's constants and the helpers every handler shares: table lookups, finding
units, figures and enemies by id, payload checks, rolls, and the "who acts now" line (Bug Hunt
pp.184-201)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bughunt.engine import contacts as cx
from bughunt.engine.tracker.command import commands
from live.engine.tracker import (
    Action,
    NotYours,
    Role,
    TrackerError,
    payload_faces,
    reaction_pick,
)
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

SOURCE = "Bug Hunt pp.184-201"
PHASES: tuple[str, ...] = ("start", "quick", "enemy", "slow", "spawn")
PHASE_NAMES: dict[str, str] = {
    "start": "Start of round (Reactions)",
    "quick": "Quick Action phase",
    "enemy": "Enemy Action phase",
    "slow": "Slow Action phase",
    "spawn": "Spawn phase (end of round)",
    "over": "Mission over",
}
STATUSES: tuple[str, ...] = ("active", "casualty", "knocked_out", "exited", "evacuated")
ENEMY_STATUSES: tuple[str, ...] = ("active", "killed")
FORMATION_BONUS = 1
"""+1 Reactions for a combat team in formation (p.173): every member within 2" of one chosen figure."""
KNOCKOUT_STUN = 3
"""Three Stun markers knock a figure out (p.178)."""
EVAC_FROM_ROUND = 5
"""Evac may be requested from round 5 (p.201)."""
DEFAULT_WEAPONS: tuple[str, ...] = ("Service pistol", "Combat rifle")
"""Standard load (p.172) plus the usual mission weapon when a setup names none (p.187)."""
DASH_IN = 2
"""A trooper's Dash adds 2" to its move (p.176)."""
TROOPER_ARMOR = 5
"""Trooper armor saves on 5-6 (p.178)."""
POST_BATTLE_CARDS: tuple[str, ...] = ("Escape", "Survived")
SETUP_CARDS: tuple[str, ...] = ("Extra Support",)


# -- tables ---------------------------------------------------------------------------------------------


def _entry_data(tables: Mapping[str, RangeTable], slug: str, result: str) -> Mapping[str, Any]:
    for entry in tables[slug].entries:
        if entry.result == result:
            return entry.data
    raise TrackerError(f"Table {slug} has no row {result!r}.")  # pragma: no cover - shipped tables have them


def _card_names(tables: Mapping[str, RangeTable]) -> list[str]:
    return [e.result for e in tables["bh-movie-magic"].entries]


# -- lookups and checks --------------------------------------------------------------------------------


def _all_figures(state: Mapping[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(unit, fig) for unit in state["units"] for fig in unit["figures"]]


def _unit(state: Mapping[str, Any], uid: Any, *, field: str = "unit") -> dict[str, Any]:
    for unit in state["units"]:
        if unit["id"] == str(uid):
            return unit  # type: ignore[no-any-return]
    known = ", ".join(f"{u['id']} ({u['name']})" for u in state["units"]) or "none"
    raise TrackerError(f"No unit {uid!r}; units: {known}.", field=field)


def _figure(
    state: Mapping[str, Any], fid: Any, *, field: str = "figure", active: bool = True
) -> tuple[dict[str, Any], dict[str, Any]]:
    for unit, fig in _all_figures(state):
        if fig["id"] == str(fid):
            if active and fig["status"] != "active":
                raise TrackerError(f"{fig['name']} is not on the table ({fig['status'].replace('_', ' ')}).", field=field)
            return unit, fig
    known = ", ".join(f"{f['id']} ({f['name']})" for _, f in _all_figures(state) if f["status"] == "active") or "none"
    raise TrackerError(f"No figure {fid!r} on the table; figures: {known}.", field=field)


def _enemy(
    state: Mapping[str, Any], eid: Any, *, field: str = "enemy", active: bool = True
) -> tuple[dict[str, Any], dict[str, Any]]:
    for group in state["groups"]:
        for fig in group["figures"]:
            if fig["id"] == str(eid):
                if active and fig["status"] != "active":
                    raise TrackerError(f"{fig['name']} is already {fig['status']}.", field=field)
                return group, fig
    known = (
        ", ".join(f"{f['id']} ({f['name']})" for g in state["groups"] for f in g["figures"] if f["status"] == "active") or "none"
    )
    raise TrackerError(f"No enemy {eid!r}; enemies on the table: {known}.", field=field)


def _find(items: Sequence[dict[str, Any]], key: Any, field: str, what: str) -> dict[str, Any]:
    for item in items:
        if item["id"] == str(key):
            return item
    known = ", ".join(i["id"] for i in items) or "none"
    raise TrackerError(f"No {what} {key!r}; {what}s: {known}.", field=field)


def _mine(action: Action, unit: Mapping[str, Any]) -> None:
    """Refuse unless the actor is the owner (referee) or plays ``unit`` (:func:`command.commands`)."""
    commands(action, unit)


def _not_viewer(action: Action) -> None:
    if action.role == Role.VIEWER:
        raise NotYours("Viewers cannot act at this table.")


def _choice(action: Action, key: str, allowed: Sequence[str], *, default: str | None = None) -> str:
    raw = action.payload.get(key)
    value = default if raw is None or raw == "" else str(raw).strip()
    if value is None or value not in allowed:
        shown = "nothing" if raw is None or raw == "" else repr(raw)
        raise TrackerError(f"{key} must be one of {', '.join(allowed)}; got {shown}.", field=key)
    return value


def _text(action: Action, key: str, *, limit: int = 80, required: bool = True) -> str:
    value = str(action.payload.get(key, "") or "").strip()
    if required and not value:
        raise TrackerError(f"{key} is required.", field=key)
    return value[:limit]


def _face(action: Action, key: str, sides: int = 6) -> int | None:
    got = payload_faces(action, key, 1, sides)
    return None if got is None else got[0]


def _roll(dice: Dice, notation: str, reason: str, face: int | None, *, modifier: int = 0) -> RollRecord:
    """One die (rolled, or the typed ``face``) plus ``modifier``."""
    if face is None:
        return dice.roll(notation, reason, modifier=modifier)
    return Dice.enter(notation, [face], reason, modifier=modifier)


def _rolls(*records: RollRecord) -> dict[str, Any]:
    return {"rolls": [r.as_dict() for r in records]}


def _phase(state: Mapping[str, Any], *allowed: str, what: str) -> None:
    if state["phase"] not in allowed:
        names = " or ".join(PHASE_NAMES[p] for p in allowed)
        raise TrackerError(f"{what} happens in the {names}; it is now the {PHASE_NAMES[state['phase']]}.", field="type")


def _contact_error(exc: cx.ContactError) -> TrackerError:
    return TrackerError(exc.message, field=exc.field)


def _active_enemies(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [f for g in state["groups"] for f in g["figures"] if f["status"] == "active"]


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else f"-{-n}"


# -- who acts now ----------------------------------------------------------------------------------------


def _refresh(state: dict[str, Any]) -> None:
    """Recompute each unit's Reaction slot and the "who acts now" sentence."""
    for unit in state["units"]:
        alive = [f for f in unit["figures"] if f["status"] == "active"]
        unit["active"] = bool(alive)
        unit["bonus"] = FORMATION_BONUS if unit["kind"] == "team" and unit["formation"] and len(alive) >= 2 else 0
        if unit["face"] is None:
            unit["slot"] = None
        else:
            unit["slot"] = "quick" if unit["face"] <= unit["reactions"] + unit["bonus"] else "slow"
    state["reaction_pick"] = reaction_pick(state["reaction_dice"], state["units"])
    state["now"] = _now(state)


def _names(units: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(u["name"] for u in units) or "nobody"


def pending_prompt(pending: Mapping[str, Any]) -> str:
    """The sentence that asks for the next typed die of a pending roll: "Shooting: type 2 D6
    for Shot gun firing dice at Razor lizard 1." (see :mod:`bughunt.engine.tracker.turns`)."""
    dice = f"{pending['count']} D{pending['sides']}" if pending["count"] > 1 else f"one D{pending['sides']}"
    return f"{pending['label']}: type {dice} for {pending['reason']}."


def _now(state: Mapping[str, Any]) -> str:
    phase = state["phase"]
    if state.get("pending"):
        return f"Waiting for dice. {pending_prompt(state['pending'])}"
    units = [u for u in state["units"] if u["active"]]
    if phase == "over":
        return "The mission is over."
    if phase == "start":
        steps = []
        if not state["beep_done"]:
            steps.append('roll "Beep... Sir?"')
        if not state["reaction_dice"]:
            steps.append("check formations and roll Reactions")
        elif any(u["die"] is None for u in units):
            steps.append(f"assign Reaction dice to {_names([u for u in units if u['die'] is None])}")
        else:
            steps.append("start the Quick Action phase")
        return f"Round {state['round']}: " + ", then ".join(steps) + "."
    if phase == "quick":
        waiting = [u for u in units if u["slot"] == "quick" and not u["acted"] and not u["held"]]
        if not waiting:
            return "Quick Action phase: everyone here has acted or holds; go on to the Enemy Action phase."
        return f"Quick Action phase: {_names(waiting)} may act (or hold for Snap Fire)."
    if phase == "enemy":
        held = [u for u in units if u["held"] and not u["acted"]]
        parts = ["Enemy Action phase: enemies act, nearest a trooper first"]
        if state.get("distract_round") == state["round"]:
            parts.append('enemies within 18" of the Distract location skip this phase')
        if not state["contacts_moved"] and state["contacts"]:
            parts.append("then move the Contact markers")
        if held:
            parts.append(f"Snap Fire ready: {_names(held)}")
        return "; ".join(parts) + "."
    if phase == "slow":
        waiting = [u for u in units if (u["slot"] == "slow" or u["held"]) and not u["acted"]]
        held = [u for u in waiting if u["held"]]
        tail = f" ({_names(held)} held: move or fire, not both)" if held else ""
        if not waiting:
            return "Slow Action phase: every trooper has acted; end the round."
        return f"Slow Action phase: {_names(waiting)} to act{tail}."
    return "Spawn phase: end of round done; start the next round when ready."
