"""The Bug Hunt mission tracker as a live room kind (``bughunt-mission``).

A mission started from a squad passes its whole generated set-up as ``options["setup"]``; a
table opened from the rooms page takes a Priority, a difficulty and main character names and
plays a standalone mission. The kernel passes the Bug Hunt rule tables (from memory) to the
reducer and the set-up.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from live.engine.tracker import Action, Event, TrackerError
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable

KIND = "bughunt-mission"
SYSTEM = "bughunt"


def _loaded(tables: Mapping[str, RangeTable]) -> Mapping[str, RangeTable]:
    if "bh-origin" not in tables:
        raise TrackerError("The Bug Hunt tables are not loaded: run `manage.py load_tables`.", field="tables")
    return tables


def reducer(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    """The mission tracker's reducer, given the Bug Hunt tables. Raises :class:`TrackerError`
    when the rules refuse the action or the tables are not loaded."""
    from bughunt.engine import tracker

    return tracker.apply(state, action, dice, _loaded(tables))


def release(state: dict[str, Any], player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's ``set_player`` actions that hand ``player``'s figures back (see the engine's ``release``)."""
    from bughunt.engine import tracker

    return tracker.release(state, player)


def on_record(room: Any, entry: Any) -> None:
    """Every action and undo at a squad mission's table also goes into the squad log (see
    :func:`bughunt.log_services.tracker_logged`)."""
    from bughunt.log_services import tracker_logged

    tracker_logged(room, entry)


def initial_state(options: Mapping[str, Any], *, tables: Mapping[str, RangeTable]) -> dict[str, Any]:
    """The tracker's first state. ``options["setup"]`` is a generated mission (see
    ``bughunt.services.tracker_setup``); otherwise ``priority`` (1-6), ``difficulty`` (one of the
    five settings) and ``main_characters`` (names separated by commas) make a standalone one.

    Raises :class:`TrackerError` naming the option at fault."""
    from bughunt.engine import tracker

    setup = options.get("setup")
    if not isinstance(setup, Mapping):  # the engine checks Priority and the difficulty
        names = [n.strip() for n in str(options.get("main_characters") or "").split(",") if n.strip()]
        setup = {
            "priority": options.get("priority") or 2,
            "difficulty": options.get("difficulty") or "Mess Me Up",
            "main_characters": [{"name": n} for n in (names or ["Alpha", "Bravo", "Charlie"])[:5]],
        }
    return tracker.initial_state(dict(setup), _loaded(tables))
