"""The Five Parsecs battle tracker as a live room kind (``fiveparsecs-battle``).

A battle set up on the battle screens passes its whole set-up as ``options["setup"]`` (a mapping,
see :func:`battles.engine.fp_tracker.initial_state`); the API may send the same set-up as JSON
text. The kind is unlisted: rooms of it are opened from a battle, not from the rooms page. The
kernel passes the shipped Five Parsecs tables (from memory) to the reducer and the set-up.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from live.engine.tracker import Action, Event, TrackerError
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable

KIND = "fiveparsecs-battle"
SYSTEM = "fiveparsecs"


def _loaded(tables: Mapping[str, RangeTable]) -> Mapping[str, RangeTable]:
    if "campaign-turn-sequence" not in tables:
        raise TrackerError("The Five Parsecs tables are not loaded: run `manage.py load_tables`.", field="tables")
    return tables


def reducer(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    """The battle tracker's reducer, given the Five Parsecs tables. Raises :class:`TrackerError`
    when the rules refuse the action or the tables are not loaded."""
    from battles.engine import fp_tracker

    return fp_tracker.apply(state, action, dice, _loaded(tables))


def release(state: dict[str, Any], player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's ``set_player`` actions that hand ``player``'s figures back (see the engine's ``release``)."""
    from battles.engine import fp_tracker

    return fp_tracker.release(state, player)


def initial_state(options: Mapping[str, Any], *, tables: Mapping[str, RangeTable]) -> dict[str, Any]:
    """The tracker's first state from ``options["setup"]``: a mapping, or JSON text of one (crew,
    enemies, options, campaign_turn, ai, seize_dice, seize_target, seize_modifier, hit_numbers).

    Raises :class:`TrackerError` naming the option (``setup``) or the set-up key at fault."""
    from battles.engine import fp_tracker

    return fp_tracker.initial_state(setup_mapping(options), _loaded(tables))


def setup_mapping(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options["setup"]`` as a mapping (it may come as JSON text). Raises :class:`TrackerError`
    naming ``setup`` when it is missing or not JSON."""
    setup = options.get("setup")
    if isinstance(setup, str):
        if not setup.strip():
            raise TrackerError("setup is required: the battle set-up as JSON (crew, enemies, options).", field="setup")
        try:
            setup = json.loads(setup)
        except json.JSONDecodeError as exc:
            raise TrackerError(f"setup must be JSON: {exc.msg} at line {exc.lineno}.", field="setup") from None
    if not isinstance(setup, Mapping):
        raise TrackerError("setup is required: the battle set-up as JSON (crew, enemies, options).", field="setup")
    return dict(setup)
