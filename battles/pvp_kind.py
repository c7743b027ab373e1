"""The PvP battle tracker as a live room kind (``fiveparsecs-pvp``, Compendium pp.35-37).

A meeting's set-up (:mod:`battles.pvp_services`) opens the room with ``options["setup"]``: the
set-up card, each side's crew name and players, Dramatic Combat or the core hit numbers (see
:func:`battles.engine.fp_pvp.initial_state`). Unlisted: rooms are opened from a meeting. The
kernel passes the shipped Five Parsecs tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles import fiveparsecs_kind
from battles.engine import fp_pvp
from live.engine.tracker import Action, Event, TrackerError
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable

KIND = "fiveparsecs-pvp"
SYSTEM = fiveparsecs_kind.SYSTEM


def _loaded(tables: Mapping[str, RangeTable]) -> None:
    if "dramatic-weapons" not in tables:
        raise TrackerError("The Five Parsecs tables are not loaded: run `manage.py load_tables`.", field="tables")


def reducer(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    """The PvP reducer (:func:`fp_pvp.apply`). Raises :class:`TrackerError` when the chapter
    refuses the action or the tables are not loaded."""
    _loaded(tables)
    return fp_pvp.apply(state, action, dice, tables)


def initial_state(options: Mapping[str, Any], *, tables: Mapping[str, RangeTable]) -> dict[str, Any]:
    """The first state from ``options["setup"]`` (a mapping or JSON text). Raises
    :class:`TrackerError` naming ``setup`` or the key at fault."""
    _loaded(tables)
    return fp_pvp.initial_state(fiveparsecs_kind.setup_mapping(options), tables)
