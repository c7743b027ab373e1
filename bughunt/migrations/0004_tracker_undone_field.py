"""A table action's squad log line taken back by an undo was marked in ``data["undone"]``; it is
now marked, as a squad undo's lines are, by the line's ``undone`` field. Moves the mark."""

from typing import Any

from django.db import migrations


def move_mark(apps: Any, schema_editor: Any) -> None:
    LogEntry = apps.get_model("bughunt", "LogEntry")
    for line in LogEntry.objects.filter(data__has_key="undone").only("pk", "data", "undone").iterator():
        mark = line.data.pop("undone")
        line.undone = line.undone or mark is True
        line.save(update_fields=["data", "undone"])


class Migration(migrations.Migration):
    dependencies = [("bughunt", "0003_squad_undo_and_jobs")]

    operations = [migrations.RunPython(move_mark, migrations.RunPython.noop)]
