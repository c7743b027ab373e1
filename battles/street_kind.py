"""Five Parsecs Street Fights as a live room kind (``fiveparsecs-street-fight``, Compendium pp.123-136).

A street fight's room gets its set-up card (made by :func:`battles.engine.fp_street.generate`)
as ``options["setup"]``: a mapping, or the same as JSON text. The kind is unlisted: its rooms are
opened by the battles services. The kernel passes the shipped Five Parsecs tables in.
:func:`outcome` gives the result in the standard battle's shape for the post-battle steps.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from live.engine.tracker import Action, Event, TrackerError
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable

KIND = "fiveparsecs-street-fight"
SYSTEM = "fiveparsecs"


def _loaded(tables: Mapping[str, RangeTable]) -> Mapping[str, RangeTable]:
    if "street-fight-objectives" not in tables:
        raise TrackerError("The Five Parsecs tables are not loaded: run `manage.py load_tables`.", field="tables")
    return tables


def reducer(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    """The street fight reducer, given the Five Parsecs tables. Raises :class:`TrackerError` when
    the rules refuse the action or the tables are not loaded."""
    from battles.engine import fp_street

    return fp_street.apply(state, action, dice, _loaded(tables))


def release(state: dict[str, Any], player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's ``set_player`` actions that hand ``player``'s crew figures back."""
    from battles.engine import fp_street

    return fp_street.release(state, player)


def outcome(state: Mapping[str, Any]) -> dict[str, Any]:
    """The finished fight's result for ``battle_finish`` (see :func:`battles.engine.fp_street.outcome`)."""
    from battles.engine import fp_street

    return fp_street.outcome(state)


def initial_state(options: Mapping[str, Any], *, tables: Mapping[str, RangeTable]) -> dict[str, Any]:
    """The tracker's first state from ``options["setup"]``, the generated set-up card (a mapping
    or JSON text of one). Raises :class:`TrackerError` naming ``setup`` or the key at fault."""
    from battles.engine import fp_street

    setup = options.get("setup")
    if isinstance(setup, str):
        try:
            setup = json.loads(setup) if setup.strip() else None
        except json.JSONDecodeError as exc:
            raise TrackerError(f"setup must be JSON: {exc.msg} at line {exc.lineno}.", field="setup") from None
    if not isinstance(setup, Mapping):
        raise TrackerError("setup is required: a Street Fight set-up card (see the set-up generator).", field="setup")
    return fp_street.initial_state(setup, _loaded(tables))
