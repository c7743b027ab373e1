"""The rooms' large JSON columns are compressed with LZ4 on PostgreSQL (migration 0003)."""

from __future__ import annotations

import importlib

import pytest
from django.db import connection

from live.models import Room, RoomAction
from rules.writes import field_of
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

migration = importlib.import_module("live.migrations.0003_state_compression_lz4")

# A state past PostgreSQL's compression threshold (about 2 kB), as a battle's is (8-10 kB).
BIG_STATE = {"figures": [{"name": f"Figure {n}", "notes": "Stun marker " * 20, "toughness": n % 6} for n in range(60)]}


def _compression(table: str, column: str, pk: int) -> str | None:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT pg_column_compression({column}) FROM {table} WHERE id = %s", [pk])
        return cursor.fetchone()[0]  # type: ignore[index,no-any-return]


def test_the_state_columns_are_set_to_lz4_where_the_server_has_it() -> None:
    expected = "l" if migration.lz4_available(connection) else ""  # "" is the server's default (pglz)
    with connection.cursor() as cursor:
        for model_name, field_name in migration.COLUMNS:
            model = {"Room": Room, "RoomAction": RoomAction}[model_name]
            cursor.execute(
                "SELECT attcompression FROM pg_attribute WHERE attrelid = %s::regclass AND attname = %s",
                [model._meta.db_table, field_of(model, field_name).column],
            )
            assert cursor.fetchone()[0] == expected, (model_name, field_name)


def test_a_room_state_and_the_state_before_an_action_are_written_with_lz4() -> None:
    if not migration.lz4_available(connection):
        pytest.skip("this PostgreSQL server was built without LZ4; the columns keep pglz")
    owner = UserFactory.create()
    room = Room.objects.create(kind="threat", title="Compressed", owner=owner, state=BIG_STATE, initial_state=BIG_STATE)
    entry = RoomAction.objects.create(room=room, version=2, role="owner", type="adjust", seed=1, state_before=BIG_STATE)
    assert _compression("live_room", "state", room.pk) == "lz4"
    assert _compression("live_roomaction", "state_before", entry.pk) == "lz4"
    entry.refresh_from_db()
    assert entry.state_before == BIG_STATE  # read back whole
