"""Rows of a statement written once become model instances as the ORM would build them
(:class:`rules.writes.RowShape`): whatever order the statement selects the columns in, with the
ORM's converters (booleans and aware datetimes on SQLite), unselected fields deferred and other
columns set as attributes."""

from __future__ import annotations

from datetime import datetime

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from rest_framework.authtoken.models import Token

from rules.writes import RowShape, field_of, quoted, table_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

_FIELDS = ("id", "username", "is_active", "date_joined", "first_name", "last_name", "email", "is_staff")


def _select(columns: list[str], user_id: int) -> tuple[tuple[object, ...], list[str]]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(columns)} FROM {table_of(get_user_model())} WHERE id = %s", [user_id])
        return cursor.fetchone(), [column[0] for column in cursor.description]


def test_a_row_in_any_column_order_builds_the_instance_the_orm_reads() -> None:
    model = get_user_model()
    made = UserFactory.create(username="hicks", first_name="Dwayne", is_active=False)
    columns = [quoted(field) for field in reversed(model._meta.concrete_fields)]  # not the table's order
    row, names = _select(columns, made.pk)
    built = RowShape(model, names).build(row)
    read = model.objects.get(pk=made.pk)
    assert [getattr(built, name) for name in _FIELDS] == [getattr(read, name) for name in _FIELDS]
    assert built.is_active is False and built.date_joined.tzinfo is not None  # converted as the ORM does
    assert built.get_deferred_fields() == set() and not built._state.adding


def test_fields_left_out_are_deferred_and_other_columns_are_attributes() -> None:
    model = get_user_model()
    made = UserFactory.create(username="vasquez")
    token = Token.objects.create(user=made)
    columns = [quoted(field_of(model, "username")), quoted(field_of(model, "id")), "%s AS seat_role"]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(columns)}, t.{quoted(field_of(Token, 'created'))} AS token_created "
            f"FROM {table_of(model)} u JOIN {table_of(Token)} t ON t.{quoted(field_of(Token, 'user'))} = u.id WHERE u.id = %s",
            ["player", made.pk],
        )
        row, names = cursor.fetchone(), [column[0] for column in cursor.description]
    built = RowShape(model, names, {"token_created": field_of(Token, "created")}).build(row)
    assert (built.pk, built.username, built.seat_role) == (made.pk, "vasquez", "player")
    assert "email" in built.get_deferred_fields() and "id" not in built.get_deferred_fields()
    assert isinstance(built.token_created, datetime) and built.token_created == token.created
