"""The one versioned write every app's services make.

A row that people change together (a room, a battle, a campaign, a Bug Hunt squad) carries a
``version`` (a whole number, 1 when made) that every write moves on by one. A write names the
version it was made against; the service then, inside its one transaction:

1. takes the row for update (:func:`lock`): concurrent writers of the same row wait their turn;
2. checks the version (:func:`check_version`): a missing one is refused (400, naming
   ``version``, when the operation requires one) and a stale one with :class:`StaleVersion` (409)
   carrying the current version, and the current state when the caller gives it, so the client
   can redraw without another request; nothing is written then;
3. makes its change, then bumps the version (:func:`bump`) and logs the change in its own log;
4. announces the change to every device (:func:`live.events.announce_room`, the caller's, since
   what is announced differs by app): the event is stored in the same transaction and sent when
   it commits.

:func:`locked` does 1 and 2 in one call for a query that finds the row; :func:`bump_and_log`
does 3's bump and log in one statement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from django.db import connection
from django.db.models import Field, Model, QuerySet

from rules.errors import DropshipError, StaleVersion

STALE = "Someone else changed this; here is the latest."


class Versioned(Protocol):
    """A row with a ``version`` (whole number, moved on by one per write)."""

    version: int

    def save(self, *args: Any, **kwargs: Any) -> None: ...


def lock[M: Model](rows: QuerySet[M]) -> QuerySet[M]:
    """``rows`` taken for update when read (inside a transaction); rows joined in by
    ``select_related`` are read but not locked."""
    return rows.select_for_update(of=("self",))


def stale(row: Versioned, *, message: str = STALE, state: Any = None) -> StaleVersion:
    """The 409 refusal of a write made against an older version of ``row``: its ``extra`` holds
    the current ``version`` (and ``state`` when given)."""
    extra: dict[str, Any] = {"version": row.version}
    if state is not None:
        extra["state"] = state
    return StaleVersion(message, field="version", extra=extra)


def check_version(row: Versioned, version: int | None, *, message: str = STALE, state: Any = None, required: bool = True) -> None:
    """Refuse a write made against ``version`` unless it is ``row``'s current version.

    ``None`` (no version sent) raises :class:`DropshipError` naming ``version`` (400) when
    ``required``, and passes otherwise. A different version raises :class:`StaleVersion` (409)
    with ``message`` and the current version (and ``state`` when given).
    """
    if version is None:
        if required:
            raise DropshipError(f"version is required: the version you acted on (now {row.version}).", field="version")
        return
    if int(version) != row.version:
        raise stale(row, message=message, state=state)


def locked[M: Model](rows: QuerySet[M], version: int | None, *, message: str = STALE, required: bool = True) -> M | None:
    """The one row of ``rows`` taken for update and checked against ``version``
    (:func:`check_version`); ``None`` when ``rows`` finds none (the caller says what is missing)."""
    row = lock(rows).first()
    if row is not None:
        check_version(row, version, message=message, required=required)  # type: ignore[arg-type]
    return row


def bump(row: Versioned, *, fields: Sequence[str] | None = None) -> int:
    """Count a write: move ``row``'s version on by one and save it (only ``fields`` plus
    ``version`` and ``updated`` when ``fields`` is given, else every column). Returns the new
    version."""
    row.version += 1
    if fields is None:
        row.save()
    else:
        row.save(update_fields=[*fields, "version", "updated"])
    return row.version


# bump_and_log's statement, with the fields whose values it takes (the row's, the log row's).
type _Statement = tuple[str, list[Field[Any, Any]], list[Field[Any, Any]]]
# The statement per shape (row model, fields, log model): built once per process.
_BUMP_AND_LOG: dict[tuple[type[Model], tuple[str, ...], type[Model]], _Statement] = {}


def bump_and_log(row: Model, entry: Model, *, fields: Sequence[str]) -> int:
    """:func:`bump` ``row`` (saving ``fields`` plus ``version`` and ``updated``) and insert
    ``entry``, its new log row (unsaved, its ``version`` already the new one), as one write.

    On PostgreSQL that is one statement (``WITH`` an ``UPDATE``, then the ``INSERT``), built once
    per shape and given each call's values as the ORM prepares them (``pre_save`` fills
    ``updated`` and ``created``); elsewhere the two ORM saves. Either way the rows written are
    those of :func:`bump` and ``entry.save()``, and ``entry`` comes back saved, with its id.
    Models whose saves have signal receivers must not use it (the one statement sends none).
    Returns the new version."""
    if connection.vendor != "postgresql":
        version = bump(row, fields=fields)  # type: ignore[arg-type]
        entry.save()
        return version
    row.version += 1  # type: ignore[attr-defined]
    sql, updated, inserted = _bump_and_log_statement(type(row), tuple(fields), type(entry))
    params = [field.get_db_prep_save(field.pre_save(row, False), connection) for field in updated]
    params.append(row.pk)
    params += [field.get_db_prep_save(field.pre_save(entry, True), connection) for field in inserted]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        entry.pk = cursor.fetchone()[0]
    entry._state.adding = False
    entry._state.db = connection.alias
    return row.version  # type: ignore[attr-defined,no-any-return]


def _bump_and_log_statement(row_model: type[Model], fields: tuple[str, ...], entry_model: type[Model]) -> _Statement:
    key = (row_model, fields, entry_model)
    found = _BUMP_AND_LOG.get(key)
    if found is None:
        updated = [field_of(row_model, name) for name in (*fields, "version", "updated")]
        inserted: list[Field[Any, Any]] = [field for field in entry_model._meta.concrete_fields if not field.primary_key]
        sets = ", ".join(f"{quoted(field)} = %s" for field in updated)
        columns = ", ".join(quoted(field) for field in inserted)
        found = _BUMP_AND_LOG[key] = (
            f"WITH bumped AS (UPDATE {table_of(row_model)} SET {sets} WHERE {quoted(field_of(row_model, 'pk'))} = %s) "
            f"INSERT INTO {table_of(entry_model)} ({columns}) VALUES ({', '.join(['%s'] * len(inserted))}) "
            f"RETURNING {quoted(field_of(entry_model, 'pk'))}",
            updated,
            inserted,
        )
    return found


# -- for statements written once and run with each call's values --------------------------------


def field_of(model: type[Model], name: str) -> Field[Any, Any]:
    """``model``'s concrete field ``name`` (``"pk"``: its primary key)."""
    field = model._meta.pk if name == "pk" else model._meta.get_field(name)
    assert isinstance(field, Field) and field.column, f"{model.__name__}.{name} is no column"
    return field


def quoted(field: Field[Any, Any]) -> str:
    """``field``'s column, quoted for this database."""
    assert field.column
    return connection.ops.quote_name(field.column)


def table_of(model: type[Model]) -> str:
    """``model``'s table, quoted for this database."""
    return connection.ops.quote_name(model._meta.db_table)


class RowShape:
    """Builds ``model`` instances from the rows of a statement written once, as the ORM builds
    them from the same columns (``Model.from_db``, each column through the converters the ORM
    applies to it), without a raw query's per-call set-up.

    ``columns`` names the selected columns in order: a column of one of ``model``'s concrete
    fields, or any other name, which is set on the instance as an attribute (as a raw query sets
    its annotations), read through the converters of ``fields[name]`` when given. Fields not
    selected are deferred."""

    def __init__(self, model: type[Model], columns: Sequence[str], fields: dict[str, Field[Any, Any]] | None = None) -> None:
        order = {field.column: n for n, field in enumerate(model._meta.concrete_fields)}
        by_column = {field.column: field for field in model._meta.concrete_fields}
        self.model = model
        own: list[tuple[int, int, str]] = []  # (place in the model, place in the row, attname)
        self.extras: list[tuple[int, str]] = []  # (place, attribute) of the other columns
        self.readers: list[tuple[int, tuple[Any, ...], Any]] = []  # (place, converters, column) where any apply
        for place, name in enumerate(columns):
            field = by_column.get(name)
            if field is not None:
                own.append((order[name], place, field.attname))
            else:
                self.extras.append((place, name))
                field = (fields or {}).get(name)
            if field is not None:
                column = field.get_col(field.model._meta.db_table)
                converters = (*connection.ops.get_db_converters(column), *column.get_db_converters(connection))
                if converters:
                    self.readers.append((place, converters, column))
        own.sort()  # from_db takes the values in the model's field order, not the table's
        self.names = [name for _, _, name in own]
        self.own = [place for _, place, _ in own]

    def build(self, row: Sequence[Any]) -> Any:
        """The instance for one ``row`` of the statement."""
        values = list(row)
        for place, converters, column in self.readers:
            for convert in converters:
                values[place] = convert(values[place], column, connection)
        instance = self.model.from_db(connection.alias, self.names, [values[place] for place in self.own])
        for place, name in self.extras:
            setattr(instance, name, values[place])
        return instance
