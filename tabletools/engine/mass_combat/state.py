"""Mass combat: a new battle's state, a squad type's speed and a squad's combat dice (Quickstart Rules for Mass Combat, p.1)."""

from __future__ import annotations

from live.engine.tracker import TrackerError
from tabletools.engine.mass_combat.constants import SIDES, SQUAD_TYPES, State
from tabletools.engine.mass_combat.helpers import _save_die


def initial_state(*, side_a: str = "Heroes", side_b: str = "Foes", save_die: str = "D20", save_target: int = 10) -> State:
    """A new battle in its set-up phase.

    ``side_a`` names the heroes' side, ``side_b`` the other side; ``save_die`` (one of
    ``SAVE_DICE``) and ``save_target`` (1-30) make the Medic saving throw: die + Medic level,
    succeeding at ``save_target`` or more. Raises :class:`TrackerError` naming a bad option.
    Source: Quickstart Rules for Mass Combat, p.1 (the die and target are the host game's).
    """
    die = _save_die(save_die, "save_die")
    if not 1 <= save_target <= 30:
        raise TrackerError(f"save_target must be from 1 to 30; got {save_target}.", field="save_target")
    names = {"a": side_a.strip()[:40] or "Heroes", "b": side_b.strip()[:40] or "Foes"}
    return {
        "round": 0,
        "phase": "setup",
        "settings": {"save_die": die, "save_target": int(save_target)},
        "sides": {side: {"name": names[side], "owner": None, "loss_order": []} for side in SIDES},
        "squads": [],
        "heroes": [],
        "engines": [],
        "defences": [],
        "priority": {"chooser": None, "side": None, "successes": 0, "checks": 0},
        "turn": None,
        "combat": None,
        "losses": [],
        "pending": None,
        "last": [],
        "next_id": 1,
    }


def speed(squad_type: str) -> int:
    """The speed in squares of a squad type (``SQUAD_TYPES`` key). Source: p.1, The troops."""
    return SQUAD_TYPES[squad_type][1]


def combat_dice(squad: State) -> int:
    """D6 a squad rolls in combat: its level, less one per siege engine it fired this round."""
    return max(0, int(squad["level"]) - int(squad["engines_fired"]))
