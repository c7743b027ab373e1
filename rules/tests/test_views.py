from __future__ import annotations

import pytest
from django.test import Client
from django.utils.html import escape

from rules.models import Roll

pytestmark = pytest.mark.django_db


def test_table_list_groups_and_searches_entry_names(client: Client, tables: None) -> None:
    page = client.get("/tables/")
    assert page.status_code == 200 and b"New Primary Alien table" in page.content
    found = client.get("/tables/?q=Precursor")
    assert b"New Primary Alien table" in found.content and b"Threat levels" not in found.content
    partial = client.get("/tables/?q=Precursor", HTTP_HX_REQUEST="true")
    assert partial.content.lstrip().startswith(b'<section id="results">')


def test_rolling_shows_a_result_card_and_logs_the_roll(client: Client, tables: None) -> None:
    page = client.post("/tables/primary-alien/roll/", {"action": "roll", "modifier": "0"}, HTTP_HX_REQUEST="true")
    assert page.status_code == 200
    assert b'data-testid="result"' in page.content
    roll = Roll.objects.get()
    assert roll.session_key and roll.user is None
    assert escape(roll.result).encode() in page.content  # K'Erin is shown as K&#x27;Erin


def test_entering_my_own_roll_looks_it_up(client: Client, tables: None) -> None:
    page = client.post("/tables/primary-alien/roll/", {"action": "enter", "value": "72", "modifier": "0"})
    assert b"Skulker" in page.content
    roll = Roll.objects.get()
    assert roll.record["entered"] is True and roll.value == 72


def test_an_impossible_roll_is_refused_with_the_range_and_nothing_is_logged(client: Client, tables: None) -> None:
    page = client.post("/tables/primary-alien/roll/", {"action": "enter", "value": "0"})
    assert page.status_code == 400
    assert b"1 to 100" in page.content
    assert not Roll.objects.exists()


def test_history_shows_only_my_rolls_newest_first(client: Client, tables: None, player) -> None:  # type: ignore[no-untyped-def]
    other = Client()
    other.post("/tables/primary-alien/roll/", {"action": "enter", "value": "5"})
    client.force_login(player)
    client.post("/tables/primary-alien/roll/", {"action": "enter", "value": "45"})
    client.post("/tables/primary-alien/roll/", {"action": "enter", "value": "95"})
    page = client.get("/rolls/").content.decode()
    assert page.index("Swift") < page.index("Krag")
    assert "Engineer" not in page


def test_signup_logs_in(client: Client) -> None:
    response = client.post(
        "/accounts/signup/", {"username": "vasquez", "password1": "let's rock 1986!", "password2": "let's rock 1986!"}
    )
    assert response.status_code == 302
    assert client.get("/rolls/").context["user"].username == "vasquez"
