"""Load every rule-table fixture (``fixtures/systems.json`` then ``fixtures/<system>/*.json``).

Loading is idempotent: natural keys update rows in place, and entries that a fixture no longer
has are removed, so the database matches the fixtures exactly. All or nothing: a bad file
rolls the whole load back.
"""

from __future__ import annotations

from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from rules import fixturefiles
from rules.models import TableEntry
from rules.services import tables_changed


class Command(BaseCommand):
    help = "Load every rule table shipped under fixtures/ (safe to run again)."

    def handle(self, *args: Any, **options: Any) -> None:
        paths = fixturefiles.fixture_files()
        try:
            specs = fixturefiles.read_all(paths)
        except fixturefiles.FixtureError as exc:
            raise CommandError(str(exc)) from exc
        with transaction.atomic():
            call_command("loaddata", str(fixturefiles.FIXTURES_DIR / "systems.json"), verbosity=0)
            for path in paths:
                call_command("loaddata", str(path), verbosity=0)
            stale = 0
            for spec in specs:
                keep = {(e.column, e.position) for e in spec.entries}
                for entry in TableEntry.objects.filter(table__slug=spec.slug, table__owner__isnull=True).only(
                    "id", "column", "position"
                ):
                    if (entry.column, entry.position) not in keep:
                        entry.delete()
                        stale += 1
            tables_changed()
        self.stdout.write(f"Loaded {len(specs)} rule tables from {len(paths)} files ({stale} stale entries removed).")
