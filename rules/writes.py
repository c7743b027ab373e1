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
4. publishes the change to every device with ``transaction.on_commit`` (the caller's, since
   what is published differs by app).

:func:`locked` does 1 and 2 in one call for a query that finds the row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from django.db.models import Model, QuerySet

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
