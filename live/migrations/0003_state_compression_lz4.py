"""The rooms' large JSON columns compressed with LZ4 on PostgreSQL.

A tracker action writes the room's state twice (the room's new ``state`` and the log entry's
``state_before``, 8-10 kB each for a Five Parsecs battle or a Bug Hunt mission), so PostgreSQL
compresses both. Its default method (pglz) took about 220 us of PostgreSQL's CPU per 8 kB
document here, LZ4 about 110 us (reading one back took the same 0.2 ms either way). Rows
already written keep their compression until rewritten; nothing else changes. Other databases,
and PostgreSQL servers built without LZ4 (it needs 14 or newer, built ``--with-lz4``), are left
as they are.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

# (model, field) of the columns a tracker action writes or reads in full.
COLUMNS = (("Room", "state"), ("Room", "initial_state"), ("RoomAction", "state_before"), ("RoomAction", "events"))


def lz4_available(connection: Any) -> bool:
    """Whether this PostgreSQL server can compress with LZ4 (it lists ``lz4`` among the values of
    ``default_toast_compression`` only when built with it)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'")
        row = cursor.fetchone()
    return bool(row and row[0])


def _set_compression(method: str) -> Any:
    def run(apps: Any, schema_editor: Any) -> None:
        connection = schema_editor.connection
        if connection.vendor != "postgresql" or not lz4_available(connection):
            return
        quote = schema_editor.quote_name
        for model_name, field_name in COLUMNS:
            model = apps.get_model("live", model_name)
            column = model._meta.get_field(field_name).column
            schema_editor.execute(
                f"ALTER TABLE {quote(model._meta.db_table)} ALTER COLUMN {quote(column)} SET COMPRESSION {method}"
            )

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("live", "0002_roomaction_state_before"),
    ]

    operations = [
        migrations.RunPython(_set_compression("lz4"), _set_compression("DEFAULT"), elidable=False),
    ]
