"""rules.writes.bump_and_log on the live kernel's own rows: one statement on PostgreSQL, the
two ORM saves elsewhere, the same rows either way."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from live.models import Room, RoomAction
from rules.writes import bump, bump_and_log


@pytest.mark.django_db
def test_bump_and_log_writes_the_rows_bump_and_save_write(player) -> None:  # type: ignore[no-untyped-def]
    def room() -> Room:
        return Room.objects.create(kind="threat", title="Sulaco", owner=player, initial_state={}, state={"round": 1}, version=3)

    by_orm, together = room(), room()
    by_orm.state = together.state = {"round": 2}

    def entry(row: Room) -> RoomAction:
        return RoomAction(room=row, version=4, actor=player, role="owner", type="end_phase", seed=7, state_before={"round": 1})

    bump(by_orm, fields=["state"])
    entry(by_orm).save()
    logged = entry(together)
    with CaptureQueriesContext(connection) as queries:
        assert bump_and_log(together, logged, fields=["state"]) == 4
    assert len(queries) == (1 if connection.vendor == "postgresql" else 2)
    assert logged.pk is not None and not logged._state.adding
    columns = ["state", "version", "kind", "title"]
    assert Room.objects.filter(pk=together.pk).values(*columns).get() == Room.objects.filter(pk=by_orm.pk).values(*columns).get()
    stored = RoomAction.objects.get(pk=logged.pk)
    assert (
        stored.created is not None
        and stored.created == logged.created
        and Room.objects.get(pk=together.pk).updated == together.updated
    )
    fields = ["version", "actor", "role", "type", "payload", "seed", "rolls", "events", "undone", "state_before"]
    assert (
        RoomAction.objects.filter(pk=logged.pk).values(*fields).get()
        == RoomAction.objects.filter(room=by_orm).values(*fields).get()
    )
