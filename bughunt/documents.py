"""A Bug Hunt squad as JSON: the snapshot a change keeps so that it can be undone, and the export
document an import turns back into a squad.

``snapshot`` and ``restore`` work on row ids (a snapshot is written by the server and read back
only into the squad it came from; ``restore`` refuses a ref to another squad's row).

``squad_document`` writes the export; ``check`` reads one and names the first bad field;
``build`` fills a new squad from it. An export never carries row ids: troopers and missions get
refs counted from 1 within the document, trooper ids inside missions and log lines (loadouts,
the tracker's report, log data) are written as those refs, and ids of other rows (rooms,
members) are left out. An import maps the refs to its new rows, so exporting the imported
squad gives the same document.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import models

from bughunt.models import LogEntry, Mission, Squad, Trooper
from rules.errors import DropshipError
from rules.payloads import check_json

FORMAT = "dropship-bughunt-squad"
FORMAT_VERSION = 1


def _columns(model: type[models.Model], *, skip: tuple[str, ...]) -> tuple[str, ...]:
    """The model's own columns a document carries: every concrete field but ids, links to other
    rows and timestamps (``skip``)."""
    return tuple(f.name for f in model._meta.concrete_fields if f.name not in ("id", "created", "updated", *skip))


SQUAD_FIELDS = _columns(Squad, skip=("owner", "room", "version"))
TROOPER_FIELDS = _columns(Trooper, skip=("squad", "player"))
MISSION_FIELDS = _columns(Mission, skip=("squad", "room"))
LOG_FIELDS = ("turn", "step", "text", "rolls", "data", "undone")
#: Keys whose value names a trooper by id (in setup, outcome, post-battle results and log data).
TROOPER_KEYS = frozenset({"trooper", "trooper_id", "hand_cannon"})
#: Keys whose value is the id of a row an export does not carry (a room, a room action, a user).
FOREIGN_KEYS = frozenset({"room", "room_action", "user", "player", "squad", "mission"})


class DocumentError(DropshipError):
    """A squad export that cannot be used (400); ``field`` is the path of the first bad value."""


# -- undo ---------------------------------------------------------------------------------------


def snapshot(squad: Squad) -> dict[str, Any]:
    """The squad as it is: its fields, troopers (with who commands them), the ids of its
    missions and every mission not done yet (with its table), rows by id. What an undo puts back.

    A done mission is never changed again, so it is named but not copied: a snapshot's size
    follows the squad's roster and open missions, not the length of its campaign."""
    return {
        "squad": {f: getattr(squad, f) for f in SQUAD_FIELDS},
        "troopers": [
            {"ref": t.pk, "player": t.player_id, **{f: getattr(t, f) for f in TROOPER_FIELDS}}
            for t in squad.troopers.order_by("id")
        ],
        "mission_ids": list(squad.missions.order_by("id").values_list("pk", flat=True)),
        "missions": [
            {"ref": m.pk, "room": m.room_id, **{f: getattr(m, f) for f in MISSION_FIELDS}}
            for m in squad.missions.exclude(stage="done").order_by("id")
        ],
    }


_marks = threading.local()
#: Log steps of changes an undo does not take back (members and who commands which marine are
#: changed back on the members screen); a later one of them stops an undo past it.
KEPT_STEP = "co-op:"
#: Log steps of lines that are no squad change (the mission tracker's actions, undone there).
TABLE_STEP = "tracker:"


def remember(squad: Squad) -> None:
    """Before a write changes the (locked) ``squad``: keep its :func:`snapshot` and where its
    log ends, for :func:`keep`. One per thread: the write runs in one transaction."""
    last = squad.log.order_by("-id").values_list("id", flat=True).first() or 0
    _marks.pending = (squad.pk, last, snapshot(squad))


def keep(squad: Squad) -> None:
    """After a write changed ``squad`` (as :func:`remember` saw it): the first log line it
    added keeps the snapshot from before it (a line ``Squad changed: <fields>.`` is added when
    it wrote none), so that :func:`restore` can put it back. Changes of :data:`KEPT_STEP` and undos
    keep none."""
    pending = getattr(_marks, "pending", None)
    _marks.pending = None
    if pending is None or pending[0] != squad.pk:
        return
    _squad_id, last, before = pending
    first = squad.log.filter(id__gt=last).exclude(step__startswith=TABLE_STEP).order_by("id").first()
    if first is None:
        changed = [f.replace("_", " ") for f in SQUAD_FIELDS if before["squad"][f] != getattr(squad, f)]
        text = f"Squad changed: {', '.join(changed)}." if changed else "Squad changed."
        LogEntry.objects.create(squad=squad, turn=squad.turn, step="edit", text=text, before=before)
    elif not first.step.startswith(KEPT_STEP) and first.step != "undo":  # an undo is not undone
        first.before = before
        first.save(update_fields=["before"])


def _plan(squad: Squad, model: type[models.Model], items: Sequence[Mapping[str, Any]]) -> dict[int, Mapping[str, Any]]:
    wanted = {int(item["ref"]): item for item in items}
    others = model._default_manager.filter(pk__in=list(wanted)).exclude(squad=squad)
    if others.exists():
        raise DropshipError("This undo names rows that are not this squad's; nothing was changed.", field="log")
    return wanted


def restore(squad: Squad, snap: Mapping[str, Any]) -> None:
    """Put the squad back as ``snap`` (a :func:`snapshot`) has it: fields, troopers and missions
    updated in place, rows made since deleted (their log lines kept, without the mission), rows
    deleted since made again with their ids; done missions are left as they are. Touches only
    rows of ``squad``."""
    troopers = _plan(squad, Trooper, snap["troopers"])
    missions = _plan(squad, Mission, snap["missions"])
    kept = [int(pk) for pk in snap["mission_ids"]]
    for f in SQUAD_FIELDS:
        setattr(squad, f, snap["squad"][f])
    squad.save(update_fields=[*SQUAD_FIELDS, "updated"])
    gone = squad.missions.exclude(pk__in=kept)
    LogEntry.objects.filter(mission__in=gone).update(mission=None)
    gone.delete()
    squad.troopers.exclude(pk__in=list(troopers)).delete()
    for model, wanted, fields, extra in (
        (Trooper, troopers, TROOPER_FIELDS, "player"),
        (Mission, missions, MISSION_FIELDS, "room"),
    ):
        existing = {o.pk: o for o in model._default_manager.filter(squad=squad)}
        for ref, item in wanted.items():
            row = existing.get(ref)
            made = row is None
            if row is None:
                row = model(pk=ref, squad=squad)
            for f in fields:
                setattr(row, f, item[f])
            setattr(row, f"{extra}_id", item[extra])
            row.save(force_insert=made)


# -- export ---------------------------------------------------------------------------------------


def _remap(value: Any, troopers: Mapping[int, int]) -> Any:
    """``value`` with every trooper id (a :data:`TROOPER_KEYS` value, a loadout's keys) mapped
    through ``troopers`` (unknown: ``None``, dropped from a loadout) and ids of rows an export
    does not carry (:data:`FOREIGN_KEYS`) blanked."""

    def one(ref: Any) -> Any:
        if isinstance(ref, bool) or not isinstance(ref, int | str) or not str(ref).isdecimal():
            return ref
        mapped = troopers.get(int(ref))
        return None if mapped is None else (str(mapped) if isinstance(ref, str) else mapped)

    if isinstance(value, list):
        return [_remap(v, troopers) for v in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key in TROOPER_KEYS:
            out[key] = one(item)
        elif key == "loadout" and isinstance(item, dict):
            out[key] = {str(one(k)): v for k, v in item.items() if one(k) is not None}
        elif key in FOREIGN_KEYS and isinstance(item, int) and not isinstance(item, bool):
            out[key] = None
        else:
            out[key] = _remap(item, troopers)
    return out


def squad_document(squad: Squad) -> dict[str, Any]:
    """The whole squad for export: its fields, troopers, missions with their set-up, outcome and
    post-battle results, and the log. Members and who commands which marine are not in it."""
    trooper_refs = {pk: n for n, pk in enumerate(squad.troopers.order_by("id").values_list("pk", flat=True), start=1)}
    mission_refs = {pk: n for n, pk in enumerate(squad.missions.order_by("id").values_list("pk", flat=True), start=1)}
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "squad": {f: _remap(getattr(squad, f), trooper_refs) for f in SQUAD_FIELDS},
        "troopers": [
            {"ref": trooper_refs[t.pk], **{f: _remap(getattr(t, f), trooper_refs) for f in TROOPER_FIELDS}}
            for t in squad.troopers.order_by("id")
        ],
        "missions": [
            {"ref": mission_refs[m.pk], **{f: _remap(getattr(m, f), trooper_refs) for f in MISSION_FIELDS}}
            for m in squad.missions.order_by("id")
        ],
        "log": [
            {
                "mission": mission_refs.get(e.mission_id) if e.mission_id else None,
                **{f: _remap(getattr(e, f), trooper_refs) for f in LOG_FIELDS},
            }
            for e in squad.log.order_by("id")
        ],
    }


# -- import ---------------------------------------------------------------------------------------


def _value(model: type[models.Model], name: str, value: Any, where: str) -> None:
    """Refuse ``value`` for ``model.name`` unless it has the column's type, length, range and
    choices."""
    field = model._meta.get_field(name)
    assert isinstance(field, models.Field)  # a column, not a relation
    kind = field.get_internal_type()
    path = f"{where}.{name}"
    if kind == "CharField" or kind == "TextField":
        if not isinstance(value, str):
            raise DocumentError(f"{path} must be text.", field=path)
        if getattr(field, "max_length", None) and len(value) > int(field.max_length or 0):
            raise DocumentError(f"{path} is longer than {field.max_length} characters.", field=path)
        choices = [c for c, _ in field.choices or []]
        if choices and value not in choices:
            raise DocumentError(f"{path} must be one of: {', '.join(map(str, choices))}.", field=path)
    elif kind == "BooleanField":
        if not isinstance(value, bool):
            raise DocumentError(f"{path} must be true or false.", field=path)
    elif kind.endswith("IntegerField"):
        low = 0 if "Positive" in kind else (-32768 if "Small" in kind else -(2**31))
        high = 32767 if "Small" in kind else 2**31 - 1
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise DocumentError(f"{path} must be a whole number from {low} to {high}.", field=path)
    elif kind == "JSONField":
        shape = type(field.get_default())
        if not isinstance(value, shape):
            raise DocumentError(f"{path} must be a JSON {'object' if shape is dict else 'list'}.", field=path)


class _Refs(dict[int, int]):
    """Trooper refs mapped to themselves, noting any ref asked for that is not one of them."""

    def __init__(self, refs: set[int]) -> None:
        super().__init__((ref, ref) for ref in refs)
        self.missing: list[int] = []

    def get(self, key: int, default: Any = None) -> Any:  # type: ignore[override]
        if key not in self:
            self.missing.append(key)
        return super().get(key, default)


def _known_refs(value: Any, troopers: set[int], path: str) -> None:
    """Refuse a trooper ref inside ``value`` (at ``path``) that is not one of the document's."""
    watch = _Refs(troopers)
    _remap(value, watch)
    if watch.missing:
        raise DocumentError(f"{path} names trooper {watch.missing[0]}, which is not one of the troopers' refs.", field=path)


def _rows(doc: Mapping[str, Any], key: str, model: type[models.Model], fields: Sequence[str]) -> set[int]:
    rows = doc.get(key)
    if not isinstance(rows, list):
        raise DocumentError(f"{key} must be a list.", field=key)
    refs: set[int] = set()
    for index, row in enumerate(rows):
        where = f"{key}[{index}]"
        if not isinstance(row, dict):
            raise DocumentError(f"{where} must be an object.", field=where)
        ref = row.get("ref")
        if isinstance(ref, bool) or not isinstance(ref, int) or ref < 1 or ref in refs:
            raise DocumentError(f"{where}.ref must be a whole number from 1, once per row.", field=f"{where}.ref")
        refs.add(ref)
        for name in fields:
            if name not in row:
                raise DocumentError(f"{where}.{name} is missing.", field=f"{where}.{name}")
            _value(model, name, row[name], where)
    return refs


def check(doc: Any) -> None:
    """Refuse a document that is not a Bug Hunt squad export Dropship can read: raises
    :class:`DocumentError` naming the first bad field (its path in the document)."""
    if not isinstance(doc, dict):
        raise DocumentError("A squad export is a JSON object.", field="file")
    check_json(doc, field="")  # NUL characters and infinities: jsonb cannot store them
    if doc.get("format") != FORMAT:
        raise DocumentError(f"format must be {FORMAT!r}; this document says {doc.get('format')!r}.", field="format")
    if doc.get("version") != FORMAT_VERSION:
        raise DocumentError(f"version must be {FORMAT_VERSION}; this document says {doc.get('version')!r}.", field="version")
    squad = doc.get("squad")
    if not isinstance(squad, dict):
        raise DocumentError("squad must be an object.", field="squad")
    for name in SQUAD_FIELDS:
        if name not in squad:
            raise DocumentError(f"squad.{name} is missing.", field=f"squad.{name}")
        _value(Squad, name, squad[name], "squad")
    if not squad["name"].strip():
        raise DocumentError("squad.name must not be blank.", field="squad.name")
    troopers = _rows(doc, "troopers", Trooper, TROOPER_FIELDS)
    missions = _rows(doc, "missions", Mission, MISSION_FIELDS)
    for name in ("operation", "pending"):
        _known_refs(squad[name], troopers, f"squad.{name}")
    for key, names in (("troopers", ("flags", "assignments")), ("missions", ("setup", "outcome", "post_battle"))):
        for index, row in enumerate(doc[key]):
            for name in names:
                _known_refs(row[name], troopers, f"{key}[{index}].{name}")
    numbers = [row["number"] for row in doc["missions"]]
    if len(set(numbers)) != len(numbers):
        raise DocumentError("missions: each number must be used once.", field="missions")
    lines = doc.get("log")
    if not isinstance(lines, list):
        raise DocumentError("log must be a list.", field="log")
    for index, line in enumerate(lines):
        where = f"log[{index}]"
        if not isinstance(line, dict):
            raise DocumentError(f"{where} must be an object.", field=where)
        for name in LOG_FIELDS:
            if name not in line:
                raise DocumentError(f"{where}.{name} is missing.", field=f"{where}.{name}")
            _value(LogEntry, name, line[name], where)
        _known_refs(line["data"], troopers, f"{where}.data")
        ref = line.get("mission")
        if ref is not None and (isinstance(ref, bool) or not isinstance(ref, int) or ref not in missions):
            raise DocumentError(f"{where}.mission must be null or the ref of one of the missions.", field=f"{where}.mission")


def _imported_line(
    squad: Squad, line: Mapping[str, Any], missions: Mapping[int, Mission], troopers: Mapping[int, int]
) -> LogEntry:
    """The log line of an export's ``line`` for ``squad``. A table action's line from an export made
    before its undo mark moved to the ``undone`` field keeps that mark in ``data["undone"]``: it is
    taken from there (as migration 0004 does for stored lines)."""
    entry = LogEntry(
        squad=squad,
        mission=missions[line["mission"]] if line.get("mission") is not None else None,
        **{f: _remap(line[f], troopers) if f == "data" else line[f] for f in LOG_FIELDS},
    )
    if isinstance(entry.data, dict) and "undone" in entry.data:
        mark = entry.data.pop("undone")
        entry.undone = entry.undone or mark is True
    return entry


def build(squad: Squad, doc: Mapping[str, Any], progress: Any = None) -> None:
    """Fill the new, saved ``squad`` from a :func:`check`-ed export: troopers (commanded by the
    owner), missions (without tables: an imported mission in play is finished by hand) and the
    log (nothing in it can be undone), with the document's refs mapped to the new rows."""
    for f in SQUAD_FIELDS:
        setattr(squad, f, doc["squad"][f])
    squad.save()
    troopers: dict[int, int] = {}
    for row in doc["troopers"]:
        troopers[row["ref"]] = Trooper.objects.create(squad=squad, **{f: row[f] for f in TROOPER_FIELDS}).pk
    squad.pending = _remap(squad.pending, troopers)
    squad.operation = _remap(squad.operation, troopers)
    squad.save(update_fields=["pending", "operation"])
    for trooper in squad.troopers.all():
        trooper.flags, trooper.assignments = _remap(trooper.flags, troopers), _remap(trooper.assignments, troopers)
        trooper.save(update_fields=["flags", "assignments"])
    if progress:
        progress(40)
    missions: dict[int, Mission] = {}
    for row in doc["missions"]:
        missions[row["ref"]] = Mission.objects.create(
            squad=squad,
            **{f: _remap(row[f], troopers) if f in ("setup", "outcome", "post_battle") else row[f] for f in MISSION_FIELDS},
        )
    if progress:
        progress(60)
    LogEntry.objects.bulk_create(_imported_line(squad, line, missions, troopers) for line in doc["log"])
    if progress:
        progress(90)
