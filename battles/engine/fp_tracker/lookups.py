"""Finding figures and groups in a battle state, putting a figure down, the Panic range now
(Compendium pp.47, 49), and the fields recomputed after every action (each crew figure's phase,
Panic ranges, the "now" sentence).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from battles.engine.fp_tracker.base import PHASE_NAMES, _err, _need, _panic, _panic_text
from live.engine.tracker import (
    Action,
    NotYours,
    Role,
    reaction_pick,
)
from rules.engine.tables import RangeTable

# -- lookups -----------------------------------------------------------------------------------------------


def _crew(state: Mapping[str, Any], fid: Any, *, field: str = "figure", active: bool = True) -> dict[str, Any]:
    for fig in state["crew"]:
        if fig["id"] == str(fid):
            if active and fig["status"] != "active":
                raise _err(f"{fig['name']} is not on the table ({fig['status']}).", field)
            return fig  # type: ignore[no-any-return]
    known = ", ".join(f"{f['id']} ({f['name']})" for f in state["crew"] if f["status"] == "active") or "none"
    raise _err(f"No crew figure {fid!r} on the table; crew: {known}.", field)


def _enemy(state: Mapping[str, Any], eid: Any, *, field: str = "enemy", active: bool = True) -> dict[str, Any]:
    for fig in state["enemies"]:
        if fig["id"] == str(eid):
            if active and fig["status"] != "active":
                raise _err(f"{fig['name']} is not on the table ({fig['status']}).", field)
            return fig  # type: ignore[no-any-return]
    known = ", ".join(f"{f['id']} ({f['name']})" for f in _on_table(state)) or "none"
    raise _err(f"No enemy {eid!r} on the table; enemies: {known}.", field)


def _any_figure(state: Mapping[str, Any], fid: Any, field: str, *, active: bool = True) -> dict[str, Any]:
    text = str(fid or "")
    if text.startswith("e"):
        return _enemy(state, text, field=field, active=active)
    return _crew(state, text, field=field, active=active)


def _group(state: Mapping[str, Any], gid: str) -> dict[str, Any]:
    return next(g for g in state["groups"] if g["id"] == gid)  # type: ignore[no-any-return]


def _on_table(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [f for f in state["enemies"] if f["status"] == "active"]


def _crew_up(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [f for f in state["crew"] if f["status"] == "active"]


def _waiting(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [f for f in state["enemies"] if f["status"] == "held"]


def _mine(action: Action, fig: Mapping[str, Any]) -> None:
    """Refuse unless the actor is the owner or plays this crew figure."""
    if action.role == Role.VIEWER or (action.role == Role.PLAYER and (not fig.get("owner") or fig["owner"] != action.actor)):
        raise NotYours(f"{fig['name']} is not one of your figures.")


def _phase(state: Mapping[str, Any], *allowed: str, what: str) -> None:
    if state["phase"] not in allowed:
        names = " or ".join(PHASE_NAMES[p] for p in allowed)
        raise _err(f"{what} happens in the {names}; it is now the {PHASE_NAMES[state['phase']]}.", "type")


def panic_range(state: Mapping[str, Any], group: Mapping[str, Any], tables: Mapping[str, RangeTable]) -> int:
    """A group's Panic range now, as its top face (0 = Fearless): the set-up range, less the
    Escalation "Morale increase" shifts (p.47), then the elite Leadership table (p.49) for the highest
    rank of the group still on the table."""
    value = max(0, int(group["panic"]) - int(state["panic_shift"]))
    if not group.get("elite") or value == 0:
        return value
    ranks = {f["rank"] for f in _on_table(state) if f["group"] == group["id"]}
    leader = "captain" if "captain" in ranks else "lieutenant" if "lieutenant" in ranks else None
    if leader is None:
        return value
    for entry in _need(tables, "elite-leadership").entries:
        if entry.data["rank"] == leader and entry.data["normal_panic"] == _panic_text(value).replace("Fearless", "0"):
            return _panic(entry.data["modified_panic"], "elite-leadership")
    return value


def _reactions(state: Mapping[str, Any], fig: Mapping[str, Any]) -> int:
    """Reactions this round: 1 for everyone in the round after "Unconventional tactics" (p.47)."""
    return 1 if state.get("reactions_one_round") == state["round"] else int(fig["reactions"])


def _refresh(state: dict[str, Any], tables: Mapping[str, RangeTable] | None = None) -> None:
    """Recompute each crew figure's phase, each group's Panic range now and the "now" sentence."""
    if tables is not None:
        for group in state["groups"]:
            group["panic_now"] = panic_range(state, group, tables)
    for fig in state["crew"]:
        fig["slot"] = None if fig["face"] is None else ("quick" if fig["face"] <= _reactions(state, fig) else "slow")
    state["reaction_pick"] = reaction_pick(state["reaction_dice"], state["crew"])
    state["now"] = _now(state)


def _names(figs: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(f["name"] for f in figs) or "nobody"


def _now(state: Mapping[str, Any]) -> str:
    phase = state["phase"]
    crew = _crew_up(state)
    if phase == "over":
        held = {True: "the crew Hold the Field", False: "the crew did not Hold the Field", None: ""}[state["held_field"]]
        return f"The battle is over after {state['round']} round(s){': ' + held if held else ''}."
    if phase == "setup":
        if state["seize"]["result"] is None:
            return "Set-up: roll to Seize the Initiative, then start round 1."
        return "Set-up done: start round 1."
    if phase == "start":
        if not state["reaction_dice"]:
            return f"Round {state['round']}: roll Reactions (one D6 per crew figure)."
        missing = [f for f in crew if f["die"] is None]
        if missing:
            return f"Round {state['round']}: assign Reaction dice to {_names(missing)}."
        return f"Round {state['round']}: start the Quick Action phase."
    if phase in ("quick", "slow"):
        waiting = [f for f in crew if f["slot"] == phase and not f["acted"]]
        if not waiting:
            return f"{PHASE_NAMES[phase]}: everyone here has acted; go on."
        return f"{PHASE_NAMES[phase]}: {_names(waiting)} to act."
    if phase == "enemy":
        waiting = [f for f in _on_table(state) if not f["acted"]]
        return "Enemy Action phase: " + (f"{_names(waiting)} to act." if waiting else "every enemy has acted; go on.")
    return f"End of round {state['round']}: round-end rules done; start the next round."


def _down(fig: dict[str, Any], status: str, rnd: int) -> None:
    fig["status"] = status
    fig["down_round"] = rnd
    fig["stun"] = 0
