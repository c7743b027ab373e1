"""The Stealth tracker's numbers (silent weapons, loud powers, move modifiers, the steps of a
Stealth round) and the helpers every step uses (pp.117-122). Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from battles.engine import fp_tracker
from battles.engine.fp_tracker.base import _err, _roll
from live.engine.tracker import (
    Action,
    NotYours,
    Role,
)
from rules.engine.dice import Dice, RollRecord

#: Weapons that can be fired without raising the alarm (p.122).
SILENT_WEAPONS: tuple[str, ...] = ("hand gun", "handgun", "needle rifle")
#: Psionic powers aimed at an enemy that raise the alarm unless it leaves play (p.122).
LOUD_POWERS: tuple[str, ...] = ("grab", "shock", "psionic scare")
#: The Stealth round's movement (p.120): Quick Actions +1", Slow Actions -1", enemies -1".
MOVE_MODIFIERS: Mapping[str, int] = {"quick": 1, "slow": -1, "enemy": -1}
#: Spotting modifiers (p.121).
SCANNING, OBSCURED, FEATURE, SHROUD = -1, -2, -1, -2
OUTSIDE_VISION_BONUS = 2  # p.122
EXFILTRATE_FACE = 6  # p.117
STEPS: Mapping[str, tuple[str, ...]] = {
    "locate_retrieve": ("pick_up",),
    "retrieve_package": ("pick_up",),
    "deliver": ("deliver",),
    "locate_contact": ("contact",),
    "transmit": ("transmit",),
    "rescue": ("rescue",),
}
STATUSES: tuple[str, ...] = (*fp_tracker.STATUSES, "exfiltrated")


# -- small helpers -------------------------------------------------------------------------------------------


#: Die sizes the dice helpers roll (rules.engine.dice).
_DIE_SIZES: tuple[int, ...] = (3, 6, 10, 12, 20, 100)


def _pick(dice: Dice, faces: list[int], figs: Sequence[dict[str, Any]], reason: str) -> tuple[dict[str, Any], list[RollRecord]]:
    """A random figure of ``figs``: the smallest die whose size the count divides (a D6 read 1-3 /
    4-6 for two), else a D100 read in equal bands; ``faces`` holds a typed face."""
    size = len(figs)
    if size == 1:
        return figs[0], []
    sides = next((s for s in _DIE_SIZES if s % size == 0), 100)
    record = _roll(dice, f"D{sides}", f"{reason} (D{sides})", [faces.pop(0)] if faces else None)
    return figs[(int(record.total or 1) - 1) * size // sides], [record]


def _s(state: Mapping[str, Any]) -> dict[str, Any]:
    return state["stealth"]  # type: ignore[no-any-return]


def _stealthy(state: Mapping[str, Any]) -> bool:
    return not _s(state)["alarm"]


def _need_stealth(state: Mapping[str, Any], what: str) -> None:
    if not _stealthy(state):
        raise _err(f"{what} is only for Stealth rounds; the alarm has gone off (p.122).", "type")


def _actor(action: Action) -> None:
    if action.role == Role.VIEWER:
        raise NotYours("Viewers cannot act at this table.")


def _sync(state: dict[str, Any]) -> None:
    """Escalating Battles only from the second battle round after the alarm (p.117)."""
    s = _s(state)
    first = s["first_battle_round"]
    state["options"]["escalating_battles"] = bool(s["escalating_battles"] and first is not None and state["round"] > first)


def _now(state: Mapping[str, Any]) -> str:
    s = _s(state)
    if s["finished"]:
        return f"Mission over: {s['finished']['why']}"
    head = "Stealth round" if not s["alarm"] else "Battle round (alarm raised)"
    return f"{head}. {state['now']}"
