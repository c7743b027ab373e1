"""The kernel hands each tracker kind its rule system's tables, read from memory: a reducer or
an initial state never loads them, and unchanged tables are not read again."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from live import registry, services
from live.engine.tracker import Action, Event
from rules.engine.dice import Dice
from rules.models import TableEntry

pytestmark = pytest.mark.django_db

KIND = "tables-echo"


def _echo(state: dict[str, Any], action: Action, dice: Dice, tables: registry.Tables) -> tuple[dict[str, Any], list[Event]]:
    levels = tables["threat-levels"]
    return {**state, "steps": state["steps"] + 1, "first_level": levels.entries[0].result}, []


def _start(options: dict[str, Any], *, tables: registry.Tables) -> dict[str, Any]:
    return {"steps": 0, "slugs": sorted(tables)}


@pytest.fixture
def echo_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    kind = registry.TrackerKind(
        kind=KIND, title="Echo", app="live", reducer=_echo, initial_state=_start, template="", system="threat-tracker"
    )
    monkeypatch.setitem(registry._KINDS, KIND, kind)


def test_a_kind_starts_and_acts_with_its_systems_tables(owner: Any, threat_tables: None, echo_kind: None) -> None:
    room = services.room_create(user=owner, kind=KIND, title="Echo", unlisted=True)
    assert "threat-levels" in room.state["slugs"] and "threat-outcomes" in room.state["slugs"]
    acted = services.room_act(user=owner, room_id=room.pk, type="step", payload={}, version=0).room
    assert acted.state["first_level"] == "Threat 1"


def test_an_action_does_not_read_unchanged_tables_again(owner: Any, threat_tables: None, echo_kind: None) -> None:
    room = services.room_create(user=owner, kind=KIND, title="Echo", unlisted=True)
    services.room_act(user=owner, room_id=room.pk, type="step", payload={}, version=0)
    with CaptureQueriesContext(connection) as queries:
        services.room_act(user=owner, room_id=room.pk, type="step", payload={}, version=1)
        services.room_undo(user=owner, room_id=room.pk, version=2)
    read = [q["sql"] for q in queries.captured_queries if "rules_ruletable" in q["sql"] or "rules_tableentry" in q["sql"]]
    assert read == []


def test_an_action_after_a_table_change_gets_the_changed_table(owner: Any, threat_tables: None, echo_kind: None) -> None:
    room = services.room_create(user=owner, kind=KIND, title="Echo", unlisted=True)
    services.room_act(user=owner, room_id=room.pk, type="step", payload={}, version=0)
    entry = TableEntry.objects.get(table__slug="threat-levels", position=1)
    entry.result = "Threat one"
    entry.save()
    acted = services.room_act(user=owner, room_id=room.pk, type="step", payload={}, version=1).room
    assert acted.state["first_level"] == "Threat one"
