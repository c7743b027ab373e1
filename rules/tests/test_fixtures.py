"""Every shipped table: it parses, covers its die, has the data its engine reads, is in the
manifest, and loads into the database."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from rules import fixturefiles
from rules.models import RuleTable, TableEntry

SPECS = fixturefiles.read_all()


def test_there_are_fixture_files() -> None:
    assert len(SPECS) > 100


@pytest.mark.parametrize("spec", SPECS, ids=[s.slug for s in SPECS])
def test_each_table_is_valid(spec: fixturefiles.TableSpec) -> None:
    assert list(fixturefiles.problems(spec)) == []


def test_manifest_agrees_with_fixtures() -> None:
    manifest = json.loads(fixturefiles.MANIFEST_PATH.read_text(encoding="utf-8"))
    assert manifest == fixturefiles.manifest(SPECS), "run `manage.py tables_manifest --write`"


def test_checker_finds_a_gap(tmp_path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "fiveparsecs"
    folder.mkdir()
    bad = folder / "bad.json"
    bad.write_text(
        json.dumps(
            [
                {
                    "model": "rules.ruletable",
                    "fields": {"system": ["fiveparsecs"], "slug": "bad", "title": "Bad", "die": "D6", "source": "p.1"},
                },
                {"model": "rules.tableentry", "fields": {"table": ["bad"], "position": 1, "low": 1, "high": 4, "result": "x"}},
            ]
        )
    )
    (spec,) = fixturefiles.read_file(bad)
    assert list(fixturefiles.problems(spec)) == ["Table 'bad' has a gap at 5-6 (D6)."]


@pytest.mark.django_db
def test_every_fixture_loads_and_loading_twice_changes_nothing() -> None:
    call_command("load_tables", verbosity=0)
    tables, entries = RuleTable.objects.count(), TableEntry.objects.count()
    assert tables == len(SPECS)
    assert entries == sum(len(s.entries) for s in SPECS)
    call_command("load_tables", verbosity=0)
    assert (RuleTable.objects.count(), TableEntry.objects.count()) == (tables, entries)
    for table in RuleTable.objects.prefetch_related("entries"):
        table.to_engine().validate()
