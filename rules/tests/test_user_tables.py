"""Users' own tables: services (create, update, delete, import, export), who sees them, and
the HTML screens (list, editor, import, export, delete)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from rules import selectors, services
from rules.errors import DropshipError, NotAllowed, NotFound
from rules.models import Roll, RuleTable, TableEntry
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

LOOT = [
    {"low": 1, "high": 3, "result": "Nothing", "effect": "", "data": {"credits": 0}},
    {"low": 4, "high": 5, "result": "Scrap", "effect": "Sell it for a little.", "data": {"credits": 1}},
    {"low": 6, "high": 6, "result": "Cache", "effect": "A hidden stash.", "data": {"credits": "1D6"}},
]


def make_loot(user: Any, slug: str = "my-loot", **changes: Any) -> RuleTable:
    fields: dict[str, Any] = {
        "system": "fiveparsecs",
        "slug": slug,
        "title": "My loot",
        "die": "D6",
        "source": "p.12",
        "notes": "House table.",
        "columns": [],
        "data_keys": ["credits"],
        "entries": LOOT,
    }
    fields.update(changes)
    return services.user_table_create(user=user, **fields)


def rows(
    slug: str = "imported", *, die: str = "D6", spans: list[tuple[int, int]] | None = None, system: str = "fiveparsecs"
) -> list[dict[str, Any]]:
    table = {
        "model": "rules.ruletable",
        "fields": {
            "system": [system],
            "slug": slug,
            "title": slug.title(),
            "die": die,
            "source": "core p.64",
            "columns": [],
            "data_keys": [],
        },
    }
    entries = [
        {"model": "rules.tableentry", "fields": {"table": [slug], "position": i, "low": low, "high": high, "result": f"R{i}"}}
        for i, (low, high) in enumerate(spans or [(1, 3), (4, 6)], start=1)
    ]
    return [table, *entries]


@pytest.fixture
def me(tables: None):  # type: ignore[no-untyped-def]
    return UserFactory(username="ripley")


@pytest.fixture
def other(tables: None):  # type: ignore[no-untyped-def]
    return UserFactory(username="burke")


# -- services ------------------------------------------------------------------------------


def test_create_makes_an_owned_table_that_rolls_like_a_fixture(me) -> None:  # type: ignore[no-untyped-def]
    table = make_loot(me, die="d6")
    assert table.owner == me and table.die == "D6"  # notation normalised
    assert [(e.position, e.low, e.high, e.result) for e in table.entries.order_by("position")] == [
        (1, 1, 3, "Nothing"),
        (2, 4, 5, "Scrap"),
        (3, 6, 6, "Cache"),
    ]
    result = services.table_enter(table=table, roller=services.Roller(user_id=me.pk), value=5)
    assert result.outcome.entry.result == "Scrap" and Roll.objects.get().table == table


def test_create_refuses_a_gap_and_names_it_writing_nothing(me) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DropshipError) as caught:
        make_loot(me, entries=LOOT[:2])
    assert caught.value.field == "entries"
    assert "gap at 6" in caught.value.message
    assert not RuleTable.objects.filter(slug="my-loot").exists()


def test_create_refuses_a_book_tables_slug_naming_it(me) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DropshipError) as caught:
        make_loot(me, slug="primary-alien")
    assert caught.value.field == "slug" and "'primary-alien' is the slug of a book table" in caught.value.message
    assert RuleTable.objects.get(slug="primary-alien").owner is None


def test_another_users_slug_is_neither_revealed_nor_taken(me, other) -> None:  # type: ignore[no-untyped-def]
    theirs = make_loot(other, slug="burkes-loot", title="Burke's secret loot")
    mine = make_loot(me, slug="burkes-loot", title="My loot")
    assert (mine.owner, theirs.owner) == (me, other)
    assert RuleTable.objects.get(pk=theirs.pk).title == "Burke's secret loot"
    with pytest.raises(DropshipError) as caught:
        make_loot(me, slug="burkes-loot")
    assert caught.value.message.startswith("You already have a table called 'burkes-loot'")
    assert "Burke" not in caught.value.message


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"slug": "Bad Slug"}, "slug", "lower-case"),
        ({"source": "page 12"}, "source", "core p.64"),
        ({"die": "D7"}, "die", "D7"),
        ({"die": "3"}, "die", "must roll dice"),
        ({"system": "warhammer"}, "system", "fiveparsecs"),
        ({"data_keys": ["credits", "xp"]}, "entries", "lacks data keys ['xp']"),
        ({"columns": ["A", "A"]}, "columns", "twice"),
        ({"slug": "import"}, "slug", "reserved"),
        ({"title": "  "}, "title", "empty"),
    ],
)
def test_create_names_the_field_at_fault(me, changes: dict[str, Any], field: str, words: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DropshipError) as caught:
        make_loot(me, **changes)
    assert caught.value.field == field
    assert words in caught.value.message
    assert not RuleTable.objects.filter(owner=me).exists()


def test_sources_may_name_the_book(me) -> None:  # type: ignore[no-untyped-def]
    assert make_loot(me, source="core p.64").source == "core p.64"
    assert make_loot(me, slug="two", source="pp.17-24").source == "pp.17-24"


def test_effects_may_be_longer_than_fixtures_but_not_endless(me) -> None:  # type: ignore[no-untyped-def]
    long_entries = [dict(LOOT[0], effect="word " * 120), *LOOT[1:]]
    assert make_loot(me, entries=long_entries).entries.get(position=1).effect.count("word") == 120
    endless = [dict(LOOT[0], effect="word " * 301), *LOOT[1:]]
    with pytest.raises(DropshipError) as caught:
        make_loot(me, slug="endless", entries=endless)
    assert caught.value.field == "entries" and caught.value.extra["row"] == 0
    assert "over 300 words" in caught.value.message


def test_reference_table_rows_have_no_ranges(me) -> None:  # type: ignore[no-untyped-def]
    entries = [{"result": "Calm", "data": {"credits": 0}}, {"result": "Storm", "data": {"credits": 1}}]
    table = make_loot(me, die="", entries=entries)
    assert not table.is_random and table.entries.count() == 2
    with pytest.raises(DropshipError, match="cannot have a range"):
        make_loot(me, slug="ref2", die="", entries=LOOT)


def test_columns_each_cover_the_die(me) -> None:  # type: ignore[no-untyped-def]
    entries = [
        {"low": 1, "high": 6, "result": "Run", "column": "Cautious", "data": {"credits": 0}},
        {"low": 1, "high": 2, "result": "Charge", "column": "Aggressive", "data": {"credits": 0}},
    ]
    with pytest.raises(DropshipError, match="'Aggressive' has a gap at 3-6"):
        make_loot(me, columns=["Cautious", "Aggressive"], entries=entries)


def test_update_replaces_fields_and_rows_and_may_rename(me) -> None:  # type: ignore[no-untyped-def]
    make_loot(me)
    new_rows = [{"low": 1, "high": 6, "result": "Everything", "data": {"credits": 9}}]
    table = services.user_table_update(
        user=me,
        slug="my-loot",
        new_slug="better-loot",
        system="bughunt",
        title="Better loot",
        die="D6",
        source="p.3",
        data_keys=["credits"],
        entries=new_rows,
    )
    assert (table.slug, table.title, table.system.slug) == ("better-loot", "Better loot", "bughunt")
    assert list(table.entries.values_list("result", flat=True)) == ["Everything"]
    assert not RuleTable.objects.filter(slug="my-loot").exists()
    assert TableEntry.objects.filter(table__owner=me).count() == 1


def test_a_failed_update_changes_nothing(me) -> None:  # type: ignore[no-untyped-def]
    make_loot(me)
    with pytest.raises(DropshipError, match="gap"):
        services.user_table_update(
            user=me, slug="my-loot", system="fiveparsecs", title="X", die="D6", source="p.1", entries=LOOT[:1]
        )
    table = RuleTable.objects.get(slug="my-loot")
    assert table.title == "My loot" and table.entries.count() == 3


def test_only_the_owner_may_change_or_delete(me, other) -> None:  # type: ignore[no-untyped-def]
    make_loot(me)
    common: dict[str, Any] = {"system": "fiveparsecs", "title": "Mine now", "die": "D6", "source": "p.1", "entries": LOOT}
    with pytest.raises(NotFound):
        services.user_table_update(user=other, slug="my-loot", data_keys=["credits"], **common)
    with pytest.raises(NotFound):
        services.user_table_delete(user=other, slug="my-loot")
    with pytest.raises(NotAllowed, match="book table"):
        services.user_table_delete(user=me, slug="primary-alien")
    with pytest.raises(NotAllowed):
        services.user_table_update(user=me, slug="primary-alien", **common)
    assert RuleTable.objects.get(slug="my-loot").title == "My loot"
    assert RuleTable.objects.filter(slug="primary-alien", owner__isnull=True).exists()


def test_delete_keeps_the_rolls(me) -> None:  # type: ignore[no-untyped-def]
    table = make_loot(me)
    services.table_enter(table=table, roller=services.Roller(user_id=me.pk), value=6)
    services.user_table_delete(user=me, slug="my-loot")
    assert not RuleTable.objects.filter(slug="my-loot").exists()
    roll = Roll.objects.get()
    assert roll.table is None and roll.result == "Cache"


def test_anonymous_users_cannot_make_tables(tables: None) -> None:
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(NotAllowed):
        make_loot(AnonymousUser())


def test_import_several_tables_and_export_round_trips(me) -> None:  # type: ignore[no-untyped-def]
    text = json.dumps([*rows("alpha"), *rows("beta", die="2D6", spans=[(2, 7), (8, 12)], system="bughunt")])
    made = services.user_tables_import(user=me, text=text)
    assert [t.slug for t in made] == ["alpha", "beta"]
    assert all(t.owner == me for t in made)
    exported = services.user_table_export(user=me, slug="beta")
    services.user_table_delete(user=me, slug="beta")
    (again,) = services.user_tables_import(user=me, text=exported)
    assert services.user_table_export(user=me, slug="beta") == exported
    assert again.system.slug == "bughunt" and again.die == "2D6"


def test_a_book_table_can_be_exported_and_copied_under_a_new_slug(me) -> None:  # type: ignore[no-untyped-def]
    exported = json.loads(services.user_table_export(user=me, slug="primary-alien"))
    assert exported[0]["fields"]["slug"] == "primary-alien" and len(exported) == 9
    text = json.dumps(exported).replace('"primary-alien"', '"my-aliens"')
    (copy,) = services.user_tables_import(user=me, text=text)
    assert copy.owner == me and copy.entries.count() == 8


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (json.dumps([*rows("good"), *rows("gappy", spans=[(1, 2), (4, 6)])]), "Table 'gappy' has a gap at 3"),
        (json.dumps([*rows("good"), *rows("primary-alien")]), "'primary-alien' is the slug of a book table"),
        (json.dumps([*rows("good"), *rows("alien", system="warhammer")]), "unknown system 'warhammer'"),
        ('[{"model": "rules.ruletable", ', "cannot read JSON"),
        (json.dumps([*rows("good"), *rows("twice"), *rows("twice")]), "row 6, table 'twice', field 'slug'"),
        (
            json.dumps(
                [
                    *rows("good"),
                    *rows("badrow")[:2],
                    {"model": "rules.tableentry", "fields": {"table": ["badrow"], "low": "four", "result": "x"}},
                ]
            ),
            "row 5, table 'badrow', field 'low'",
        ),
        ('{"model": "rules.ruletable"}', "JSON list"),
        ("[]", "no table"),
    ],
)
def test_a_bad_import_names_the_problem_and_writes_nothing(me, text: str, words: str) -> None:  # type: ignore[no-untyped-def]
    before = (RuleTable.objects.count(), TableEntry.objects.count())
    with pytest.raises(DropshipError) as caught:
        services.user_tables_import(user=me, text=text)
    assert words in caught.value.message, caught.value.message
    assert caught.value.field == "text"
    assert (RuleTable.objects.count(), TableEntry.objects.count()) == before
    assert not RuleTable.objects.filter(slug="good").exists()


def test_import_refuses_my_own_existing_slug_rather_than_overwrite(me) -> None:  # type: ignore[no-untyped-def]
    make_loot(me)
    with pytest.raises(DropshipError, match="You already have a table called 'my-loot'"):
        services.user_tables_import(user=me, text=json.dumps(rows("my-loot")))
    assert RuleTable.objects.get(slug="my-loot").title == "My loot"


# -- selectors -----------------------------------------------------------------------------


def test_lists_show_fixtures_and_my_tables_never_anyone_elses(me, other) -> None:  # type: ignore[no-untyped-def]
    make_loot(me)
    make_loot(other, slug="burkes-loot")
    assert "my-loot" not in {t.slug for t in selectors.table_list()}
    mine = {t.slug for t in selectors.table_list(user=me)}
    assert {"my-loot", "primary-alien"} <= mine and "burkes-loot" not in mine
    assert [t.slug for t in selectors.user_table_list(user=me)] == ["my-loot"]
    assert [t.slug for t in selectors.table_list(user=me, search="Cache")] == ["my-loot"]
    assert selectors.table_get_for(slug="my-loot", user=me).owner == me
    assert selectors.table_get_for(slug="primary-alien", user=other).owner is None
    with pytest.raises(NotFound):
        selectors.table_get_for(slug="my-loot", user=other)
    with pytest.raises(NotFound):
        selectors.table_get_for(slug="my-loot", user=None)


# -- screens -------------------------------------------------------------------------------


@pytest.fixture
def browser(me) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(me)
    return client


def editor_post(**changes: Any) -> dict[str, str]:
    data = {
        "system": "fiveparsecs",
        "title": "Salvage finds",
        "slug": "salvage-finds",
        "die": "D6",
        "source": "core p.64",
        "book": "",
        "chapter": "",
        "notes": "",
        "columns": "",
        "data_keys": "credits",
        "entries-TOTAL_FORMS": "3",
        "entries-INITIAL_FORMS": "0",
        "entries-MIN_NUM_FORMS": "0",
        "entries-MAX_NUM_FORMS": "1000",
        "entries-0-low": "1",
        "entries-0-high": "2",
        "entries-0-result": "Junk",
        "entries-0-data_json": '{"credits": 0}',
        "entries-1-low": "3",
        "entries-1-high": "6",
        "entries-1-result": "Parts",
        "entries-1-effect": "Worth a little.",
        "entries-1-data_json": '{"credits": 2}',
        "save": "1",
    }
    data.update(changes)
    return data


def test_my_tables_needs_a_sign_in(tables: None) -> None:
    response = Client().get("/my-tables/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_table_list_links_to_my_tables_and_lists_mine(browser: Client, me) -> None:  # type: ignore[no-untyped-def]
    make_loot(me)
    page = browser.get("/tables/").content.decode()
    assert 'href="/my-tables/"' in page and 'data-testid="my-tables-in-list"' in page and "My loot" in page
    assert "My loot" not in Client().get("/tables/").content.decode()


def test_editor_round_trip(browser: Client, me) -> None:  # type: ignore[no-untyped-def]
    page = browser.get("/my-tables/new/")
    assert page.status_code == 200 and b'name="entries-5-result"' in page.content  # six blank rows
    response = browser.post("/my-tables/new/", editor_post())
    assert response.status_code == 302 and response["Location"] == "/tables/salvage-finds/"
    table = RuleTable.objects.get(slug="salvage-finds")
    assert table.owner == me and table.source == "core p.64"
    assert [(e.low, e.high, e.result, e.data) for e in table.entries.order_by("low")] == [
        (1, 2, "Junk", {"credits": 0}),
        (3, 6, "Parts", {"credits": 2}),
    ]
    detail = browser.get("/tables/salvage-finds/").content.decode()
    assert 'data-testid="owner-links"' in detail and "/my-tables/salvage-finds/edit/" in detail
    edit = browser.get("/my-tables/salvage-finds/edit/").content.decode()
    assert 'value="Parts"' in edit and "{&quot;credits&quot;: 2}" in edit
    changed = editor_post(**{"entries-INITIAL_FORMS": "2", "entries-1-result": "Good parts", "title": "Salvage"})
    response = browser.post("/my-tables/salvage-finds/edit/", changed)
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.title == "Salvage" and table.entries.get(low=3).result == "Good parts"
    roll = browser.post("/tables/salvage-finds/roll/", {"action": "enter", "value": "4"})
    assert b"Good parts" in roll.content and Roll.objects.get().user == me


def test_editor_shows_a_gap_and_keeps_the_typed_input(browser: Client) -> None:
    response = browser.post("/my-tables/new/", editor_post(**{"entries-1-high": "5", "entries-1-result": "Typed by hand"}))
    assert response.status_code == 400
    page = response.content.decode()
    assert "has a gap at 6" in page and 'data-testid="entry-errors"' in page
    assert 'value="Typed by hand"' in page and 'value="Salvage finds"' in page
    assert not RuleTable.objects.filter(slug="salvage-finds").exists()


def test_editor_puts_errors_on_their_field_and_row(browser: Client) -> None:
    response = browser.post("/my-tables/new/", editor_post(slug="primary-alien"))
    assert response.status_code == 400 and b'data-testid="error-slug"' in response.content
    assert b"the slug of a book table" in response.content
    response = browser.post("/my-tables/new/", editor_post(**{"entries-1-data_json": "[1, 2]"}))
    assert response.status_code == 400 and b"Row 2, data: Data must be a JSON object" in response.content
    response = browser.post("/my-tables/new/", editor_post(die="D7"))
    assert response.status_code == 400 and b'data-testid="error-die"' in response.content


def test_add_row_and_remove_row(browser: Client) -> None:
    response = browser.post("/my-tables/new/", editor_post(save="", add_row="1"))
    assert response.status_code == 200
    assert b'name="entries-3-result"' in response.content and b'value="Parts"' in response.content
    assert not RuleTable.objects.filter(slug="salvage-finds").exists()
    data = editor_post(**{"entries-2-low": "6", "entries-2-high": "6", "entries-2-result": "Oops", "entries-2-DELETE": "on"})
    assert browser.post("/my-tables/new/", data).status_code == 302
    assert RuleTable.objects.get(slug="salvage-finds").entries.count() == 2


def test_delete_asks_first(browser: Client, me) -> None:  # type: ignore[no-untyped-def]
    make_loot(me)
    confirm = browser.get("/my-tables/my-loot/delete/")
    assert confirm.status_code == 200 and b'data-testid="confirm-delete"' in confirm.content
    assert RuleTable.objects.filter(slug="my-loot").exists()
    response = browser.post("/my-tables/my-loot/delete/")
    assert response.status_code == 302 and not RuleTable.objects.filter(slug="my-loot").exists()


def test_import_page_by_text_and_by_file_and_export_download(browser: Client) -> None:
    assert browser.get("/my-tables/import/").status_code == 200
    response = browser.post("/my-tables/import/", {"text": json.dumps(rows("pasted"))})
    assert response.status_code == 302 and RuleTable.objects.filter(slug="pasted").exists()
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("t.json", json.dumps(rows("uploaded")).encode(), content_type="application/json")
    response = browser.post("/my-tables/import/", {"text": "", "file": upload})
    assert response.status_code == 302 and RuleTable.objects.filter(slug="uploaded").exists()
    download = browser.get("/my-tables/uploaded/export/")
    assert download["Content-Disposition"] == 'attachment; filename="uploaded.json"'
    assert json.loads(download.content)[0]["fields"]["slug"] == "uploaded"


def test_a_bad_import_on_the_page_keeps_the_text_and_names_the_problem(browser: Client) -> None:
    text = json.dumps([*rows("fine"), *rows("gappy", spans=[(1, 2), (4, 6)])])
    response = browser.post("/my-tables/import/", {"text": text})
    assert response.status_code == 400
    assert b"Table &#x27;gappy&#x27; has a gap at 3" in response.content
    assert b"&quot;gappy&quot;" in response.content  # the text is still in the box
    assert not RuleTable.objects.filter(slug__in=["fine", "gappy"]).exists()


def test_another_user_cannot_see_roll_edit_or_export_my_table(me, other) -> None:  # type: ignore[no-untyped-def]
    make_loot(me)
    outsider = Client()
    outsider.force_login(other)
    for client in (outsider, Client()):
        assert client.get("/tables/my-loot/").status_code == 404
        assert client.post("/tables/my-loot/roll/", {"action": "roll"}).status_code == 404
        assert "My loot" not in client.get("/tables/?q=loot").content.decode()
    for url in ("/my-tables/my-loot/edit/", "/my-tables/my-loot/delete/", "/my-tables/my-loot/export/"):
        assert outsider.get(url).status_code == 404
        assert outsider.post(url, editor_post(slug="my-loot")).status_code in (404, 405)
    assert RuleTable.objects.get(slug="my-loot").owner == me and not Roll.objects.exists()


def test_book_tables_are_not_editable_from_the_screens(browser: Client) -> None:
    assert browser.get("/my-tables/primary-alien/edit/").status_code == 404
    assert browser.post("/my-tables/primary-alien/delete/").status_code == 404
    assert RuleTable.objects.filter(slug="primary-alien").exists()
