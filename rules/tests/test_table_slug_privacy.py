"""User table slugs are per owner: making, renaming or importing a table never answers with,
or is blocked by, another user's table, and every lookup by slug finds the user's own."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from rules import selectors, services
from rules.models import RuleTable
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

SECRET = "Burke's company orders"


@pytest.fixture
def me(tables: None):  # type: ignore[no-untyped-def]
    return UserFactory(username="ripley")


@pytest.fixture
def burkes(tables: None) -> RuleTable:
    """Another user's private table."""
    return _make(UserFactory(username="burke"), "company-orders", SECRET)


def _make(user: Any, slug: str, title: str, result: str = "Bring it back") -> RuleTable:
    entries = [{"low": 1, "high": 6, "result": result, "effect": "", "data": {}}]
    return services.user_table_create(
        user=user, system="fiveparsecs", slug=slug, title=title, die="D6", source="p.1", entries=entries
    )


def _rows(slug: str, title: str) -> str:
    fields = {"system": ["fiveparsecs"], "slug": slug, "title": title, "die": "D6", "source": "p.1"}
    entry = {"table": [slug], "position": 1, "low": 1, "high": 6, "result": "Crew expendable", "data": {}}
    return json.dumps([{"model": "rules.ruletable", "fields": fields}, {"model": "rules.tableentry", "fields": entry}])


def test_an_outsider_making_a_table_with_another_users_slug_gets_their_own(me: Any, burkes: RuleTable) -> None:
    mine = _make(me, "company-orders", "Ripley's orders", result="Nuke it from orbit")
    assert mine.owner == me and mine.pk != burkes.pk
    burkes.refresh_from_db()
    assert burkes.title == SECRET and burkes.entries.get().result == "Bring it back"
    shown = selectors.table_get_for(slug="company-orders", user=me)
    assert shown.pk == mine.pk and shown.entries.get().result == "Nuke it from orbit"


def test_an_outsider_importing_or_renaming_to_another_users_slug_learns_nothing(me: Any, burkes: RuleTable) -> None:
    (imported,) = services.user_tables_import(user=me, text=_rows("company-orders", "Imported orders"))
    assert imported.owner == me
    services.user_table_delete(user=me, slug="company-orders")
    _make(me, "my-orders", "My orders")
    renamed = services.user_table_update(
        user=me,
        slug="my-orders",
        new_slug="company-orders",
        system="fiveparsecs",
        title="My orders",
        die="D6",
        source="p.1",
        entries=[{"low": 1, "high": 6, "result": "Mine", "effect": "", "data": {}}],
    )
    assert renamed.slug == "company-orders" and renamed.owner == me
    burkes.refresh_from_db()
    assert (burkes.slug, burkes.title) == ("company-orders", SECRET)


def test_an_outsider_creating_over_the_api_or_the_editor_sees_no_trace_of_another_users_table(me: Any, burkes: RuleTable) -> None:
    api = APIClient()
    api.force_authenticate(me)
    body = {
        "system": "fiveparsecs",
        "slug": "company-orders",
        "title": "Mine",
        "die": "D6",
        "source": "p.1",
        "entries": [{"low": 1, "high": 6, "result": "Mine"}],
    }
    response = api.post("/api/v1/my-tables/", body, format="json")
    assert response.status_code == 201 and SECRET not in response.content.decode()
    again = api.post("/api/v1/my-tables/", body, format="json")
    assert again.status_code == 400 and again.json()["field"] == "slug"
    assert "You already have" in again.json()["detail"] and SECRET not in again.content.decode()
    browser = Client()
    browser.force_login(me)
    page = browser.post("/my-tables/import/", {"text": _rows("company-orders", "Another")})
    assert page.status_code == 400 and b"You already have a table called" in page.content
    assert SECRET.encode() not in page.content and b"Bring it back" not in page.content
    assert RuleTable.objects.filter(slug="company-orders").count() == 2
