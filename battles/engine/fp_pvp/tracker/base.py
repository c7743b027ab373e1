"""The live PvP battle's constants, its phases and who may act (seats, the referee, the turn);
helpers every step uses. Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.fp_pvp.setup import SIDES
from live.engine.tracker import (
    Action,
    NotYours,
    Role,
    TrackerError,
)
from rules.engine.dice import Dice, DiceError, Keep, RollRecord

#: The three-way battle's third party, as a figure's ``side`` (p.37); its figures' ids start with ``t``.
#: In a co-op battle the enemy waves are this side (pp.39-41).
THIRD = "third"
#: ``state["mode"]`` of an expanded co-op battle (pp.39-41); a PvP battle's is ``"pvp"``.
COOP = "coop"
PHASES: tuple[str, ...] = ("deploy", "reactions", "quick", "enemy", "slow", "end", "over")
PHASE_NAMES: dict[str, str] = {
    "deploy": "Deployment",
    "reactions": "Reaction rolls",
    "quick": "Quick Actions",
    "enemy": "Enemy Actions (third party)",
    "slow": "Slow Actions",
    "end": "End of the round",
    "over": "Battle over",
}
#: Initiative point uses (p.35) spent with ``spend_point``; the brawl draw is ``draw_if_lost`` on a brawl.
POINT_USES: dict[str, str] = {
    "fire": "Fire: +1 Shot and natural 1s to Hit rerolled (spend before rolling to Hit)",
    "double_speed": "Double Speed for one move",
    "remove_stun": "Remove all Stun markers (a figure selected to act)",
}
#: Figures a player activates at a time in the Quick and Slow Action phases (p.36).
MOST_AT_ONCE = 2
#: Figures placed per turn at deployment (p.36).
DEPLOY_AT_ONCE = 2


def _err(message: str, field: str | None = None) -> TrackerError:
    return TrackerError(message, field=field)


def _roll(dice: Dice, notation: str, reason: str, *, faces: list[int] | None, field: str, keep: Keep = Keep.SUM) -> RollRecord:
    """Roll ``notation`` for ``reason``, or take the ``faces`` the players typed (the payload's
    ``field``). Raises :class:`TrackerError` naming ``field`` for faces the dice cannot show or
    the wrong number of them."""
    try:
        return dice.roll_or_enter(notation, reason, faces=faces, keep=keep)
    except DiceError as exc:
        raise _err(str(exc), field) from None


def _is_coop(state: Mapping[str, Any]) -> bool:
    return state.get("mode") == COOP


def _other(side: str) -> str:
    return "guest" if side == "host" else "host"


# -- who acts ----------------------------------------------------------------------------------


def _seated(state: Mapping[str, Any], action: Action) -> list[str]:
    """The sides the actor sits on (readers sit nowhere)."""
    if action.role == Role.VIEWER:
        return []
    return [side for side in SIDES if action.actor in state["sides"][side]["players"]]


def _is_referee(state: Mapping[str, Any], action: Action) -> bool:
    return action.role != Role.VIEWER and bool(state.get("referee")) and action.actor == state["referee"]


def _runs_third(state: Mapping[str, Any], action: Action) -> bool:
    """Who acts for the third party: the referee when one is seated, else either player."""
    if state.get("referee"):
        return _is_referee(state, action)
    return bool(_seated(state, action))


def _acting(state: Mapping[str, Any], action: Action, side: str, field: str = "figure") -> None:
    if side == THIRD:
        if not _runs_third(state, action):
            raise NotYours("The referee runs the third party." if state.get("referee") else "Only a player runs the third party.")
        return
    if _is_referee(state, action):
        raise _err(f"The referee runs the third party, not the {state['sides'][side]['name']} crew.", "figure")
    if side not in _seated(state, action):
        raise NotYours(f"You do not play the {state['sides'][side]['name']} side.")


def _turn_side(state: Mapping[str, Any], action: Action, what: str) -> str:
    """The side whose turn it is, refusing anyone who does not play it."""
    side = state["turn"]
    if side is None:
        raise _err(f"Nobody has a {what} left in this phase: go on to the next one.", "type")
    _acting(state, action, side)
    return str(side)


def _fig(state: Mapping[str, Any], fid: Any, field: str, *, status: str | None = "active") -> dict[str, Any]:
    for fig in state["figures"]:
        if fig["id"] == str(fid or "").strip():
            if status is not None and fig["status"] != status:
                raise _err(f"{fig['name']} is {fig['status']}.", field)
            return fig  # type: ignore[no-any-return]
    raise _err(f"{field} must be a figure id such as h1 or g2; got {fid!r}.", field)


def _phase(state: Mapping[str, Any], *allowed: str, what: str) -> None:
    if state["phase"] not in allowed:
        names = " or ".join(PHASE_NAMES[p] for p in allowed)
        raise _err(f"{what} happens in {names}; it is now {PHASE_NAMES[state['phase']]}.", "type")


def _on_table(state: Mapping[str, Any], side: str) -> list[dict[str, Any]]:
    return [f for f in state["figures"] if f["side"] == side and f["status"] == "active"]


def _able(state: Mapping[str, Any], side: str) -> list[dict[str, Any]]:
    """The side's figures still to act in this phase."""
    return [f for f in _on_table(state, side) if f["slot"] == state["phase"] and not f["acted"]]


def _pass_turn(state: dict[str, Any], side: str) -> None:
    """After ``side`` acted: the other player if they have figures left, else ``side`` again, else nobody."""
    other = _other(side)
    if state["phase"] == "deploy":
        left = {s: [f for f in state["figures"] if f["side"] == s and f["status"] == "undeployed"] for s in SIDES}
    else:
        left = {s: _able(state, s) for s in SIDES}
    state["turn"] = other if left[other] else side if left[side] else None
