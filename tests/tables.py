"""Shipped rule tables written into a test database in bulk (``loaddata`` of the same files
takes seconds per test; the fixture loader itself is tested in rules)."""

from __future__ import annotations

from functools import cache

from django.core.management import call_command

from rules.fixturefiles import FIXTURES_DIR, TableSpec, read_all
from rules.models import RuleSystem, RuleTable, TableEntry
from rules.services import tables_changed


@cache
def _specs(system: str) -> tuple[TableSpec, ...]:
    return tuple(s for s in read_all() if s.system == system)


def load_system_tables(system: str) -> None:
    """Every shipped table of ``system`` (``bughunt``, ``fiveparsecs`` ...) with its entries."""
    call_command("loaddata", str(FIXTURES_DIR / "systems.json"), verbosity=0)
    specs = _specs(system)
    owner = RuleSystem.objects.get(slug=system)
    fields = ("slug", "title", "die", "book", "chapter", "source", "notes", "columns", "data_keys")
    tables = RuleTable.objects.bulk_create(RuleTable(system=owner, **{f: getattr(s, f) for f in fields}) for s in specs)
    TableEntry.objects.bulk_create(
        TableEntry.from_engine(table, e) for table, spec in zip(tables, specs, strict=True) for e in spec.entries
    )
    tables_changed()  # as load_tables does
