"""Who may act now on the mission tracker (Bug Hunt pp.176-178, 191, 193, 198): the activation checks for
troopers and enemies, the referee's override with its logged reason, and the player's own dice
asked for one step at a time.

Troopers: a figure may move (or Dash, not when Wounded) and then take its Combat Action, never
the reverse (p.198); a Stunned trooper, or a held unit in the Slow phase, moves or acts but not
both (pp.178, 198); a Dash rules out firing and entering a Brawl (p.176). A figure takes one
Combat Action (fire one weapon, a Brawl it starts, clearing a Malfunction) when its unit acts:
in the Quick Action phase with a Quick die, in the Slow Action phase with a Slow die or a held
action, or as Snap Fire in the Enemy Action phase when holding (p.198; firing then means no
move this round). The only shots outside an activation are the
free bonus shots at enemies revealed from a "Beep... Sir?" marker at the start of the round
(p.193), once per figure.

Enemies act in the Enemy Action phase only, once a round, and not in the round they were placed
(p.193: revealed enemies take no action that round), nor while Stunned (p.178: a Stunned enemy
stays in place), nor in the round a Distract location holds them (p.191). An enemy Stunned by
Snap Fire while moving loses the rest of its round (p.198).

Override: any action may carry ``override`` (a reason, owner only); the phase and activation
checks are skipped and the reason is logged with the action.

Typed dice step by step: an action sent with ``typed`` on is run against the player's dice
typed so far; when it needs another die the tracker stores ``pending`` (what die, how many,
why) and waits for ``roll_die`` {faces}; ``cancel_roll`` drops it. Nothing else is accepted
while a roll is pending.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bughunt.engine.tracker.base import PHASE_NAMES, pending_prompt
from live.engine.tracker import Action, NotYours, Role, TrackerError, words
from rules.engine.dice import Dice, Keep, Notation, RollRecord, parse

SNAP_FIRE = "snap_fire"
ACTIVATION = "activation"
BONUS = "bonus"
OVERRIDE = "override"
OVERRIDE_LIMIT = 120
"""Longest override reason kept in the log."""

# -- override -------------------------------------------------------------------------------------------


def override_reason(action: Action) -> str:
    """The referee's reason to bypass the phase and activation checks (``override``), or ''.

    Raises :class:`NotYours` when anyone but the owner sends one."""
    reason = str(action.payload.get("override") or "").strip()[:OVERRIDE_LIMIT]
    if reason and action.role != Role.OWNER:
        raise NotYours("Only the referee (the table's owner) can override the turn order.")
    return reason


# -- troopers -------------------------------------------------------------------------------------------


def trooper_turn(
    state: Mapping[str, Any],
    action: Action,
    unit: Mapping[str, Any],
    fig: Mapping[str, Any],
    *,
    what: str,
    group: Mapping[str, Any] | None = None,
) -> str:
    """How ``fig`` (of ``unit``) may take the Combat Action ``what`` now (pp.177, 193, 198):
    ``"activation"`` (its unit acts in this phase), ``"snap_fire"`` (held, Enemy Action phase),
    ``"bonus"`` (a free shot at enemies just revealed by "Beep... Sir?", ``group``) or
    ``"override"`` (the referee's reason). Raises :class:`TrackerError` (``field`` "type",
    "unit" or "figure") saying why not."""
    if override_reason(action):
        return OVERRIDE
    phase, rnd = state["phase"], state["round"]
    name = unit["name"]
    if phase == "start":
        bonus = state.get("bonus_fire")
        if bonus and bonus["round"] == rnd and group is not None and group["id"] == bonus["group"] and what == "Firing":
            if fig["id"] in bonus["fired"]:
                raise TrackerError(f"{fig['name']} has already taken the free bonus shot (p.193).", field="figure")
            return BONUS
        raise TrackerError(
            f"{what} is a Combat Action taken when {name} acts (Quick or Slow Action phase, or Snap Fire in the"
            f" Enemy Action phase, p.198); it is now the {PHASE_NAMES[phase]}.",
            field="type",
        )
    if phase == "spawn":
        raise TrackerError(f"{what} is not possible in the Spawn phase: the round is over (p.198).", field="type")
    if unit["acted"]:
        raise TrackerError(f"{name} has already acted this round (p.198).", field="unit")
    way = ACTIVATION
    if phase == "quick":
        if unit["slot"] != "quick":
            raise TrackerError(f"{name} acts in the Slow Action phase this round (Reaction die {unit['face']}).", field="unit")
        if unit["held"]:
            raise TrackerError(
                f"{name} holds for Snap Fire: it fires when an enemy moves in the Enemy Action phase, or acts in the Slow phase.",
                field="unit",
            )
    elif phase == "enemy":
        if not unit["held"]:
            raise TrackerError(
                f"Only units holding for Snap Fire act in the Enemy Action phase (p.198); {name} does not hold.", field="unit"
            )
        if what != "Firing":
            raise TrackerError(f"Snap Fire is firing only (p.198); {what} waits for {name}'s own action.", field="type")
        way = SNAP_FIRE
    elif unit["slot"] is None:
        raise TrackerError(f"{name} has no Reaction die this round.", field="unit")
    if fig.get("combat_round") == rnd:
        raise TrackerError(
            f"{fig['name']} has already taken a Combat Action this round: one weapon, once per activation (pp.177, 198).",
            field="figure",
        )
    if fig.get("evac_call_round") == rnd:
        raise TrackerError(f"{fig['name']} called Evac this round: no other action (p.201).", field="figure")
    if what == "Firing" and fig.get("hold_fire_round") == rnd:
        raise TrackerError(f"{fig['name']} worked on a Spawn Point this round and cannot fire (p.199).", field="figure")
    if fig.get("moved_round") == rnd:
        _after_move(state, unit, fig, what)
    return way


def _after_move(state: Mapping[str, Any], unit: Mapping[str, Any], fig: Mapping[str, Any], what: str) -> None:
    """Refuse the Combat Action ``what`` of a figure that has moved this round when the rules
    forbid both: a Stunned trooper (p.178), a held unit in the Slow phase (p.198), firing or
    starting a Brawl after a Dash (p.176)."""
    name = fig["name"]
    if fig["stun"] > 0:
        raise TrackerError(
            f"{name} is Stunned and has moved: a Stunned trooper moves or acts, not both (pp.178, 198).", field="figure"
        )
    if unit["held"] and state["phase"] == "slow":
        raise TrackerError(
            f"{name} held for Snap Fire and has moved: in the Slow phase a held unit moves or fires, not both (p.198).",
            field="figure",
        )
    if fig.get("dashed_round") == state["round"]:
        if what == "Firing":
            raise TrackerError(f"{name} Dashed this round: a Dash is for troopers who do not fire (p.176).", field="figure")
        if what == "A Brawl":
            raise TrackerError(f"{name} Dashed this round: troopers cannot enter a Brawl by Dashing (p.176).", field="figure")


def not_firing(state: Mapping[str, Any], action: Action, fig: Mapping[str, Any], *, what: str, field: str = "figure") -> None:
    """Refuse ``what`` (investigating or activating a Tactical Location, p.191; working on or
    helping to close a Spawn Point, p.199) for a figure that fired or started a Brawl this round
    (``fired_round``), unless the referee overrides."""
    if fig.get("fired_round") == state["round"] and not override_reason(action):
        raise TrackerError(f"{fig['name']} fired or fought a Brawl this round: {what} needs a trooper who does not.", field=field)


def hands_busy(state: dict[str, Any], *figs: dict[str, Any]) -> None:
    """Mark ``figs`` as unable to fire for the rest of the round (closing a Spawn Point, p.199)."""
    for fig in figs:
        fig["hold_fire_round"] = state["round"]


def move_turn(state: Mapping[str, Any], action: Action, unit: Mapping[str, Any], fig: Mapping[str, Any], *, dash: bool) -> str:
    """How ``fig`` may move now (p.198: move first, then a Combat Action, never the reverse):
    ``"activation"`` or ``"override"``. Raises :class:`TrackerError` (``field`` "type", "unit",
    "figure" or "dash") saying why not: outside its unit's activation, moved already, after its
    Combat Action (Snap Fire included: no move that round), after calling Evac; a Dash when
    Wounded (p.178). What a move forbids afterwards is checked by :func:`trooper_turn`."""
    if override_reason(action):
        return OVERRIDE
    phase, rnd, name = state["phase"], state["round"], unit["name"]
    if phase == "enemy":
        raise TrackerError(
            "Troopers do not move in the Enemy Action phase: a held unit may only fire (Snap Fire, p.198).", field="type"
        )
    if phase not in ("quick", "slow"):
        raise TrackerError(
            f"Moving is part of a trooper's activation (Quick or Slow Action phase, p.198); it is now the {PHASE_NAMES[phase]}.",
            field="type",
        )
    if unit["acted"]:
        raise TrackerError(f"{name} has already acted this round (p.198).", field="unit")
    if phase == "quick" and (unit["slot"] != "quick" or unit["held"]):
        why = "holds for Snap Fire" if unit["held"] else f"acts in the Slow Action phase (Reaction die {unit['face']})"
        raise TrackerError(f"{name} {why}: it does not move in the Quick Action phase.", field="unit")
    if phase == "slow" and unit["slot"] is None:
        raise TrackerError(f"{name} has no Reaction die this round.", field="unit")
    if fig.get("moved_round") == rnd:
        raise TrackerError(f"{fig['name']} has already moved this round: one move per activation (p.198).", field="figure")
    if fig.get("evac_call_round") == rnd:
        raise TrackerError(f"{fig['name']} called Evac this round and must stay put (p.201).", field="figure")
    if fig.get("combat_round") == rnd:
        raise TrackerError(
            f"{fig['name']} has taken its Combat Action: a figure moves first and then acts, never the reverse"
            + (" (and Snap Fire means no move this round)" if unit["snap_fired"] else "")
            + " (p.198).",
            field="figure",
        )
    if dash and fig["wounded"]:
        raise TrackerError(f"{fig['name']} is Wounded and can no longer Dash (p.178).", field="dash")
    return ACTIVATION


def spend(state: dict[str, Any], unit: dict[str, Any], fig: dict[str, Any], way: str) -> str:
    """Record a trooper's Combat Action taken ``way`` (see :func:`trooper_turn`); returns a
    sentence for the log ('' when nothing needs saying)."""
    if way == BONUS:
        state["bonus_fire"]["fired"].append(fig["id"])
        return "A free bonus shot: it does not use the figure's action this round (p.193)."
    if way == OVERRIDE:
        return ""
    fig["combat_round"] = state["round"]
    if way == SNAP_FIRE:
        unit["snap_fired"] = True
        return f"Snap Fire: {unit['name']} cannot move this round (p.198)."
    return ""


# -- enemies --------------------------------------------------------------------------------------------


def enemy_turn(
    state: Mapping[str, Any], action: Action, enemy: Mapping[str, Any], *, what: str, once: str = "acted_round"
) -> bool:
    """Whether ``enemy`` may take ``what`` now: the Enemy Action phase, once a round (the round
    kept under ``once``), not placed this round (p.193), not Stunned (p.178), not Distracted
    (p.191). Returns True when the referee overrode the check. Raises :class:`TrackerError` saying why not."""
    if override_reason(action):
        return True
    if state["phase"] != "enemy":
        raise TrackerError(
            f"Enemies act in the Enemy Action phase (p.198); it is now the {PHASE_NAMES[state['phase']]}.", field="type"
        )
    if enemy.get("placed_round") == state["round"]:
        raise TrackerError(f"{enemy['name']} was placed this round and takes no action until next round (p.193).", field="enemy")
    if enemy["stun"] > 0:
        raise TrackerError(f"{enemy['name']} is Stunned: it stays in place and takes no action (p.178).", field="enemy")
    if enemy.get("distracted_round") == state["round"]:
        raise TrackerError(
            f"{enemy['name']} is Distracted by the Distract location: no action in this Enemy Action phase (p.191).",
            field="enemy",
        )
    if enemy.get(once) == state["round"]:
        raise TrackerError(f"{enemy['name']} has already acted this round (p.198).", field="enemy")
    return False


def enemy_spent(state: dict[str, Any], enemy: dict[str, Any], *, once: str = "acted_round") -> None:
    """Mark ``enemy`` as having taken its action (``once``) this round."""
    enemy[once] = state["round"]


# -- typed dice, one step at a time -----------------------------------------------------------------------


class FacesNeeded(Exception):
    """Raised by :class:`TypedDice` when the next die the rules ask for has not been typed yet."""

    def __init__(self, reason: str, count: int, sides: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.count = count
        self.sides = sides


class TypedDice(Dice):
    """Dice that hand out the player's typed ``faces`` in order (recorded as entered) and raise
    :class:`FacesNeeded` naming the next roll once they run out."""

    def __init__(self, faces: Sequence[int]) -> None:
        super().__init__(seed=0)
        self.typed = [int(f) for f in faces]
        self.used = 0

    def roll(self, notation: str | Notation, reason: str = "", *, modifier: int = 0, keep: Keep = Keep.SUM) -> RollRecord:
        parsed = parse(notation) if isinstance(notation, str) else notation
        if self.used + parsed.count > len(self.typed):
            raise FacesNeeded(reason or str(parsed), parsed.count, parsed.sides)
        faces = self.typed[self.used : self.used + parsed.count]
        self.used += parsed.count
        return Dice.enter(parsed, faces, reason, modifier=modifier, keep=keep)


def pending_faces(action: Action, pending: Mapping[str, Any]) -> list[int]:
    """The faces a ``roll_die`` action brings for the pending step: exactly ``count`` faces of a
    D``sides``. Raises :class:`TrackerError` naming ``faces`` otherwise."""
    try:
        faces = [int(x) for x in words(action.payload.get("faces"))]
    except (TypeError, ValueError):
        raise TrackerError(f"faces must be whole numbers; {pending_prompt(pending)}", field="faces") from None
    count, sides = int(pending["count"]), int(pending["sides"])
    if len(faces) != count or any(not 1 <= f <= sides for f in faces):
        raise TrackerError(f"faces: {pending_prompt(pending)} Got {', '.join(map(str, faces)) or 'nothing'}.", field="faces")
    return faces


def may_answer(action: Action, pending: Mapping[str, Any]) -> None:
    """Only the player who started the roll, or the referee, types its dice or cancels it."""
    if action.role == Role.OWNER:
        return
    if action.role == Role.VIEWER or action.actor != pending["actor"]:
        raise NotYours("These dice belong to the player who started the roll (or the referee).")
