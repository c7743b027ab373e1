"""The API for users' own tables: /api/v1/my-tables/ (list, create, read, replace, delete,
import, export), and that nobody else can see or roll them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from rules.models import Roll, RuleTable
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

BODY: dict[str, Any] = {
    "system": "fiveparsecs",
    "slug": "ship-trouble",
    "title": "Ship trouble",
    "die": "2D6",
    "source": "core p.64",
    "notes": "Our house table.",
    "data_keys": ["days"],
    "entries": [
        {"low": 2, "high": 6, "result": "Leak", "effect": "Patch it.", "data": {"days": 1}},
        {"low": 7, "high": 12, "result": "Fine", "data": {"days": 0}},
    ],
}


def import_rows(slug: str, spans: list[tuple[int, int]]) -> list[dict[str, Any]]:
    return [
        {
            "model": "rules.ruletable",
            "fields": {"system": ["bughunt"], "slug": slug, "title": slug, "die": "D6", "source": "p.2"},
        },
        *(
            {"model": "rules.tableentry", "fields": {"table": [slug], "position": i, "low": lo, "high": hi, "result": f"R{i}"}}
            for i, (lo, hi) in enumerate(spans, start=1)
        ),
    ]


@pytest.fixture
def me(tables: None):  # type: ignore[no-untyped-def]
    return UserFactory(username="hicks")


@pytest.fixture
def api(me) -> APIClient:  # type: ignore[no-untyped-def]
    client = APIClient()
    client.force_authenticate(me)
    return client


@pytest.fixture
def outsider(tables: None) -> APIClient:
    client = APIClient()
    client.force_authenticate(UserFactory.create(username="bishop"))
    return client


def test_auth_is_required(tables: None) -> None:
    anonymous = APIClient()
    assert anonymous.get("/api/v1/my-tables/").status_code == 401
    assert anonymous.post("/api/v1/my-tables/", BODY, format="json").status_code == 401
    assert anonymous.post("/api/v1/my-tables/import/", {"text": "[]"}, format="json").status_code == 401
    assert not RuleTable.objects.filter(owner__isnull=False).exists()


def test_create_list_read_replace_delete(api: APIClient, me) -> None:  # type: ignore[no-untyped-def]
    created = api.post("/api/v1/my-tables/", BODY, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["slug"] == "ship-trouble" and [e["result"] for e in created.json()["entries"]] == ["Leak", "Fine"]
    assert [t["slug"] for t in api.get("/api/v1/my-tables/").json()] == ["ship-trouble"]
    assert api.get("/api/v1/my-tables/ship-trouble/").json()["data_keys"] == ["days"]
    assert "ship-trouble" in {t["slug"] for t in api.get("/api/v1/tables/").json()}

    replaced = api.put(
        "/api/v1/my-tables/ship-trouble/",
        {**BODY, "slug": "ship-woes", "entries": [{"low": 2, "high": 12, "result": "Woe", "data": {"days": 3}}]},
        format="json",
    )
    assert replaced.status_code == 200, replaced.json()
    assert replaced.json()["slug"] == "ship-woes" and len(replaced.json()["entries"]) == 1
    assert api.get("/api/v1/my-tables/ship-trouble/").status_code == 404

    rolled = api.post("/api/v1/tables/ship-woes/roll/", {"modifier": 0}, format="json")
    assert rolled.status_code == 200 and rolled.json()["entry"]["result"] == "Woe"
    assert Roll.objects.get().user == me

    assert api.delete("/api/v1/my-tables/ship-woes/").status_code == 204
    assert not RuleTable.objects.filter(owner=me).exists()


def test_a_gap_is_named_and_nothing_is_written(api: APIClient) -> None:
    body = {**BODY, "entries": BODY["entries"][:1]}
    response = api.post("/api/v1/my-tables/", body, format="json")
    assert response.status_code == 400
    assert response.json()["field"] == "entries" and "gap at 7-12" in response.json()["detail"]
    assert not RuleTable.objects.filter(slug="ship-trouble").exists()


def test_a_taken_slug_is_refused(api: APIClient) -> None:
    response = api.post("/api/v1/my-tables/", {**BODY, "slug": "primary-alien"}, format="json")
    assert response.status_code == 400 and response.json()["field"] == "slug"
    assert "'primary-alien' is the slug of a book table" in response.json()["detail"]
    assert RuleTable.objects.get(slug="primary-alien").owner is None


def test_book_tables_cannot_be_changed_or_deleted(api: APIClient) -> None:
    assert api.delete("/api/v1/my-tables/primary-alien/").status_code == 403
    assert api.put("/api/v1/my-tables/primary-alien/", {**BODY, "slug": "primary-alien"}, format="json").status_code == 403
    assert api.get("/api/v1/my-tables/primary-alien/").status_code == 404  # not one of mine
    assert RuleTable.objects.get(slug="primary-alien").title == "New Primary Alien table"


def test_another_user_cannot_see_roll_or_change_my_table(api: APIClient, outsider: APIClient) -> None:
    assert api.post("/api/v1/my-tables/", BODY, format="json").status_code == 201
    anonymous = APIClient()
    for client in (outsider, anonymous):
        assert client.get("/api/v1/tables/ship-trouble/").status_code == 404
        assert client.get("/api/v1/tables/ship-trouble/lookup/?roll=7").status_code == 404
        assert client.post("/api/v1/tables/ship-trouble/roll/", {}, format="json").status_code == 404
        assert "ship-trouble" not in {t["slug"] for t in client.get("/api/v1/tables/").json()}
    assert outsider.get("/api/v1/my-tables/").json() == []
    assert outsider.get("/api/v1/my-tables/ship-trouble/").status_code == 404
    assert outsider.put("/api/v1/my-tables/ship-trouble/", BODY, format="json").status_code == 404
    assert outsider.delete("/api/v1/my-tables/ship-trouble/").status_code == 404
    assert outsider.get("/api/v1/my-tables/ship-trouble/export/").status_code == 404
    assert RuleTable.objects.get(slug="ship-trouble").title == "Ship trouble" and not Roll.objects.exists()


def test_import_as_text_or_as_the_list_and_export_round_trips(api: APIClient) -> None:
    as_text = api.post("/api/v1/my-tables/import/", {"text": json.dumps(import_rows("one", [(1, 6)]))}, format="json")
    assert as_text.status_code == 201 and [t["slug"] for t in as_text.json()] == ["one"]
    as_list = api.post(
        "/api/v1/my-tables/import/", [*import_rows("two", [(1, 2), (3, 6)]), *import_rows("three", [(1, 6)])], format="json"
    )
    assert as_list.status_code == 201 and [t["slug"] for t in as_list.json()] == ["two", "three"]
    exported = api.get("/api/v1/my-tables/two/export/").json()
    assert exported[0]["fields"]["system"] == ["bughunt"] and len(exported) == 3
    assert api.delete("/api/v1/my-tables/two/").status_code == 204
    assert api.post("/api/v1/my-tables/import/", exported, format="json").status_code == 201
    assert api.get("/api/v1/my-tables/two/export/").json() == exported


def test_a_bad_import_names_row_table_and_field_and_writes_nothing(api: APIClient) -> None:
    rows = [*import_rows("fine", [(1, 6)]), *import_rows("bad", [(1, 6)])]
    rows[-1]["fields"]["high"] = "six"
    response = api.post("/api/v1/my-tables/import/", {"text": json.dumps(rows)}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["field"] == "text" and body["row"] == 3 and body["table"] == "bad" and body["entry_field"] == "high"
    assert "row 3, table 'bad', field 'high'" in body["detail"] and "Nothing was imported" in body["detail"]
    assert not RuleTable.objects.filter(slug__in=["fine", "bad"]).exists()
    assert api.post("/api/v1/my-tables/import/", {"nope": 1}, format="json").status_code == 400
    assert api.post("/api/v1/my-tables/import/", {"text": "{not json"}, format="json").json()["field"] == "text"


def test_an_outsider_sending_a_bad_table_body_gets_404_and_a_book_table_403(api: APIClient, outsider: APIClient) -> None:
    assert api.post("/api/v1/my-tables/", BODY, format="json").status_code == 201
    bad = {"title": "", "entries": "none"}
    assert outsider.put(f"/api/v1/my-tables/{BODY['slug']}/", bad, format="json").status_code == 404
    assert api.put("/api/v1/my-tables/primary-alien/", bad, format="json").status_code == 403
    assert outsider.get(f"/api/v1/tables/{BODY['slug']}/lookup/?roll=many").status_code == 404


def test_an_entry_position_beyond_the_column_is_refused_naming_it(api: APIClient) -> None:
    entries = [{**e, "position": 2**40 + i} for i, e in enumerate(BODY["entries"])]
    response = api.post("/api/v1/my-tables/", {**BODY, "entries": entries}, format="json")
    assert response.status_code == 400
    assert "from 0 to 2147483647" in str(response.json()["entries"])
    assert not RuleTable.objects.filter(slug=BODY["slug"]).exists()


def test_the_entry_form_bounds_a_range_to_the_column() -> None:
    from rules.forms import EntryForm

    form = EntryForm(data={"low": "2147483648", "high": "1", "result": "Leak"})
    assert not form.is_valid() and "low" in form.errors
