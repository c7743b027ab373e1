"""The Stealth mission tracker as a live room kind (``fiveparsecs-stealth``, Compendium pp.117-122).

A Stealth battle set up on the battle screens passes its whole set-up as ``options["setup"]``
(the battle tracker's set-up plus ``"stealth"``, see
:func:`battles.engine.fp_stealth.initial_state`); the API may send it as JSON text. Unlisted:
rooms are opened from a battle. The kernel passes the shipped Five Parsecs tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles import fiveparsecs_kind
from battles.engine import fp_stealth
from live.engine.tracker import Action, Event, TrackerError
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable

KIND = "fiveparsecs-stealth"
SYSTEM = fiveparsecs_kind.SYSTEM
MISSION = "stealth"


def reducer(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    """The Stealth reducer (:func:`fp_stealth.apply`) with the Five Parsecs tables. Raises
    :class:`TrackerError` when the rules refuse the action or the tables are not loaded."""
    if fp_stealth.OBJECTIVES_TABLE not in tables:
        raise TrackerError("The Five Parsecs tables are not loaded: run `manage.py load_tables`.", field="tables")
    return fp_stealth.apply(state, action, dice, tables)


def release(state: dict[str, Any], player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's ``set_player`` actions that hand ``player``'s figures back."""
    return fp_stealth.release(state, player)


def outcome(state: Mapping[str, Any]) -> dict[str, Any]:
    """The mission's result in a standard battle's shape plus ``won`` (:func:`fp_stealth.outcome`)."""
    return fp_stealth.outcome(state)


def initial_state(options: Mapping[str, Any], *, tables: Mapping[str, RangeTable]) -> dict[str, Any]:
    """The first state from ``options["setup"]`` (a mapping or JSON text). Raises
    :class:`TrackerError` naming ``setup`` or the set-up key at fault."""
    setup = fiveparsecs_kind.setup_mapping(options)
    if fp_stealth.OBJECTIVES_TABLE not in tables:
        raise TrackerError("The Five Parsecs tables are not loaded: run `manage.py load_tables`.", field="tables")
    return fp_stealth.initial_state(setup, tables)


def mission_setup(dice: Dice, tables: Mapping[str, RangeTable], *, crew_size: int, ai_type: str | None) -> dict[str, Any]:
    """The Stealth set-up (:func:`fp_stealth.generate`) for :mod:`battles.mission_types`: the card,
    the no-minis answer, the enemy numbers (crew size +1: one Lieutenant, one Specialist, the
    rest basic) and Roving Threats played as Hired Muscle (p.122). Raises ``SetupError``."""
    made = fp_stealth.generate(dice, tables, crew_size=max(1, min(crew_size, 8)), ai_type=ai_type)
    return {
        **made.as_dict(),
        "enemy_counts": {"basic": made.basic, "specialist": made.specialists, "lieutenant": made.lieutenants},
        "enemy_swaps": {"Roving Threats": "Hired Muscle"},
        "no_minis_allowed": False,
    }
