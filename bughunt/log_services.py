"""One squad log: every action taken at a squad mission's tracker, with its rolls, is also a line
of the squad's campaign log (step ``tracker: <action>``, e.g. ``tracker: shoot``), so the log
holds every roll of the campaign and filters by mission and step like the set-up and
post-battle lines. A shot's (or a brawl's) dice typed one at a time are filed under the shot. An undo at the table is a line too and marks the line it took back.

Called by the live kernel through the mission kind's ``on_record`` hook, inside the table
write's transaction: the squad's ``version`` does not move (the table has its own), and a
refused action writes nothing here either.
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.models import Field

from bughunt.models import LogEntry, Mission
from rules.writes import field_of, quoted, table_of

STEP = "tracker"


def _rolls(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every roll record the events carry (``data["roll"]`` or ``data["rolls"]``), in order."""
    found: list[dict[str, Any]] = []
    for event in events:
        data = event.get("data") or {}
        if isinstance(data.get("roll"), dict):
            found.append(data["roll"])
        found.extend(r for r in data.get("rolls") or [] if isinstance(r, dict))
    return found


TYPED_DIE = "roll_die"
"""A typed die answering an action that asked for the player's dice one step at a time."""


def _filed_under(room: Any, entry: Any) -> str:
    """The action a line is filed under: its own type, but a typed die (``roll_die``) goes with
    the action it answers, so that ``tracker: shoot`` holds every shot's dice however they were
    rolled: the action still waiting for dice (``pending``), else the one its dice completed."""
    if entry.type != TYPED_DIE:
        return str(entry.type)
    waiting = (room.state or {}).get("pending") or {}
    if waiting.get("type"):
        return str(waiting["type"])
    done = (str(e.get("type")) for e in entry.events if e.get("type") not in (None, "dice_needed", "override"))
    return next(done, str(entry.type))


def tracker_logged(room: Any, entry: Any) -> LogEntry | None:
    """Copy the table's logged action or undo ``entry`` (a :class:`live.models.RoomAction`) of
    ``room`` into the squad log of the mission it tracks: the events' words prefixed with the
    round and who acted, every roll record, and ``data`` with ``room_action``, ``version``,
    ``round`` and ``type``. An undo marks the line of the action it took back ``undone`` (the
    line's field, as a squad undo does). Returns the new line, or ``None`` for a table that is no
    squad's mission (a standalone one from the rooms page).

    One query: the line is inserted with its squad, mission and turn read from the mission in the
    same statement (:func:`_insert_at_mission`), which inserts nothing at a standalone table; an
    undo also marks the line it took back (one ``UPDATE``)."""
    words = " ".join(str(e.get("text") or "") for e in entry.events).strip() or entry.type.replace("_", " ")
    who = entry.actor.get_username() if entry.actor_id and entry.actor is not None else "the table"
    turn = room.state.get("round")
    if entry.type == "undo":
        undid = (entry.payload or {}).get("undid")
        LogEntry.objects.filter(mission__room_id=room.pk, step__startswith=f"{STEP}:", data__version=undid).update(undone=True)
    line = LogEntry(
        step=f"{STEP}: {_filed_under(room, entry).replace('_', ' ')}",
        text=f"Round {turn} ({who}): {words}" if turn else f"({who}) {words}",
        rolls=_rolls(entry.events),
        data={"room_action": entry.pk, "version": entry.version, "round": turn, "type": entry.type},
    )
    return line if _insert_at_mission(line, room_id=room.pk) else None


# Taken from the mission row by _insert_at_mission, not from the line.
_FROM_MISSION = {"squad": "squad", "mission": "pk", "turn": "turn"}
_INSERT: dict[str, tuple[str, list[Field[Any, Any]]]] = {}


def _insert_at_mission(line: LogEntry, *, room_id: int) -> bool:
    """Insert ``line`` (unsaved; its ``squad``, ``mission`` and ``turn`` unset) for the mission
    whose table is ``room_id``, those three read from the mission in the same statement
    (``INSERT ... SELECT ... FROM`` the mission ``RETURNING``). Returns whether a mission had that
    table: if none, nothing is written and ``line`` stays unsaved."""
    sql, fields = _insert_statement()
    params = [field.get_db_prep_save(field.pre_save(line, True), connection) for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, room_id])
        row = cursor.fetchone()
    if row is None:
        return False
    line.pk, line.squad_id, line.mission_id, line.turn = row  # type: ignore[attr-defined]
    line._state.adding = False
    line._state.db = connection.alias
    return True


def _insert_statement() -> tuple[str, list[Field[Any, Any]]]:
    """The statement of :func:`_insert_at_mission` for this database, written once per process,
    with the line's own fields in the order of its parameters."""
    found = _INSERT.get(connection.vendor)
    if found is None:
        own: list[Field[Any, Any]] = [
            f for f in LogEntry._meta.concrete_fields if not f.primary_key and f.name not in _FROM_MISSION
        ]
        from_mission = [field_of(LogEntry, name) for name in _FROM_MISSION]
        columns = ", ".join(quoted(f) for f in [*from_mission, *own])
        values = ", ".join([*(f"m.{quoted(field_of(Mission, name))}" for name in _FROM_MISSION.values()), *(["%s"] * len(own))])
        found = _INSERT[connection.vendor] = (
            f"INSERT INTO {table_of(LogEntry)} ({columns}) SELECT {values} FROM {table_of(Mission)} m "
            f"WHERE m.{quoted(field_of(Mission, 'room'))} = %s "
            f"RETURNING {', '.join(quoted(f) for f in [field_of(LogEntry, 'pk'), *from_mission])}",
            own,
        )
    return found
