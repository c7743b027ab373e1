from __future__ import annotations

from functools import cache

import pytest
from django.core.management import call_command

from rules.fixturefiles import FIXTURES_DIR, TableSpec, read_all
from rules.models import RuleSystem, RuleTable, TableEntry
from tests.factories import UserFactory


@cache
def _specs() -> tuple[TableSpec, ...]:
    return tuple(s for s in read_all() if s.system == "bughunt")


@pytest.fixture
def bughunt_tables(db: None) -> None:
    """The shipped Bug Hunt tables in the test database, written in bulk (``loaddata`` of the
    same files takes seconds per test; the fixture loader itself is tested in rules)."""
    call_command("loaddata", str(FIXTURES_DIR / "systems.json"), verbosity=0)
    system = RuleSystem.objects.get(slug="bughunt")
    tables = RuleTable.objects.bulk_create(
        RuleTable(
            system=system,
            slug=s.slug,
            title=s.title,
            die=s.die,
            book=s.book,
            chapter=s.chapter,
            source=s.source,
            notes=s.notes,
            columns=s.columns,
            data_keys=s.data_keys,
        )
        for s in _specs()
    )
    TableEntry.objects.bulk_create(
        TableEntry(
            table=table,
            column=e.column,
            position=e.position,
            low=e.low,
            high=e.high,
            result=e.result,
            effect=e.effect,
            data=e.data,
        )
        for table, spec in zip(tables, _specs(), strict=True)
        for e in spec.entries
    )


@pytest.fixture
def player(db: None):  # type: ignore[no-untyped-def]
    return UserFactory.create(username="hicks")


@pytest.fixture
def other(db: None):  # type: ignore[no-untyped-def]
    return UserFactory.create(username="burke")
