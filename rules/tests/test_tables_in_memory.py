"""The rule tables a process keeps in memory: read once per tables version, read again after
any change, whichever process made it."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rules import selectors, services
from rules.models import TableEntry, TablesVersion
from rules.tests.test_user_tables import LOOT, make_loot
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def me(tables: None):  # type: ignore[no-untyped-def]
    return UserFactory(username="ripley")


def test_unchanged_tables_are_read_from_memory_with_one_query(tables: None) -> None:
    first = selectors.system_tables(system="threat-tracker")
    with CaptureQueriesContext(connection) as queries:
        again = selectors.system_tables(system="threat-tracker")
    assert len(queries) == 1  # the version token alone
    assert again == first and "threat-levels" in again


def test_the_caller_may_add_to_what_it_gets_without_changing_the_memory(tables: None) -> None:
    got = selectors.system_tables(system="threat-tracker")
    got.pop("threat-levels")
    assert "threat-levels" in selectors.system_tables(system="threat-tracker")


def test_an_edit_of_my_table_is_seen_by_the_next_read(me: Any) -> None:
    make_loot(me)
    before = selectors.system_tables(system="fiveparsecs", user=me)["my-loot"]
    services.user_table_update(
        user=me, slug="my-loot", system="fiveparsecs", title="Loot", die="D6", source="p.1",
        entries=[{"low": 1, "high": 6, "result": "Everything"}],
    )  # fmt: skip
    after = selectors.system_tables(system="fiveparsecs", user=me)["my-loot"]
    assert [e.result for e in before.entries] == [e["result"] for e in LOOT]
    assert [e.result for e in after.entries] == ["Everything"]


def test_a_made_imported_or_deleted_table_changes_the_version(me: Any) -> None:
    seen = {selectors.tables_version()}
    make_loot(me)
    seen.add(selectors.tables_version())
    services.user_table_delete(user=me, slug="my-loot")
    seen.add(selectors.tables_version())
    assert "my-loot" not in selectors.system_tables(system="fiveparsecs", user=me)
    assert len(seen) == 3


def test_my_tables_are_mine_alone_and_book_tables_are_everyones(me: Any) -> None:
    make_loot(me)
    other = UserFactory(username="burke")
    assert "my-loot" in selectors.system_tables(system="fiveparsecs", user=me)
    assert "my-loot" not in selectors.system_tables(system="fiveparsecs", user=other)
    assert "my-loot" not in selectors.system_tables(system="fiveparsecs")
    assert "primary-alien" in selectors.system_tables(system="fiveparsecs", user=other)


def test_another_processes_change_is_noticed_by_its_version(tables: None) -> None:
    selectors.system_tables(system="threat-tracker")
    # What another process does: rows changed with no signal in this one, then the version bumped.
    TableEntry.objects.filter(table__slug="threat-levels", position=1).update(result="Changed elsewhere")
    assert selectors.system_tables(system="threat-tracker")["threat-levels"].entries[0].result != "Changed elsewhere"
    TablesVersion.objects.update_or_create(pk=1, defaults={"token": "bumped-by-another-process"})
    assert selectors.system_tables(system="threat-tracker")["threat-levels"].entries[0].result == "Changed elsewhere"


def test_load_tables_changes_the_version(tables: None) -> None:
    before = selectors.tables_version()
    call_command("load_tables", verbosity=0)
    assert selectors.tables_version() != before
    assert "bh-origin" in selectors.system_tables(system="bughunt")
