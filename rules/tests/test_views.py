from __future__ import annotations

import pytest
from django.test import Client
from django.utils.html import escape

from rules.models import Roll, RuleTable

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


def _form_html(page: str, testid: str) -> str:
    start = page.index(f'data-testid="{testid}"')
    return page[start : page.index("</form>", start)]


def test_the_number_i_rolled_has_its_own_form_whose_only_button_looks_it_up(client: Client, tables: None) -> None:
    page = client.get("/tables/primary-alien/").content.decode()
    lookup = _form_html(page, "lookup-form")
    roll = _form_html(page, "roll-form")
    # Enter in a field submits with the form's first button: in the lookup form that can only
    # be "Look up my roll", and the form itself says it is a lookup.
    assert 'name="value"' in lookup and 'name="action" value="enter"' in lookup
    assert lookup.count('type="submit"') == 1 and "Look up my roll" in lookup
    assert 'name="value"' not in roll and 'name="action" value="roll"' in roll
    assert roll.index('name="modifier"') < roll.index("Roll D100")


def test_looking_up_without_a_number_is_refused_and_nothing_is_rolled(client: Client, tables: None) -> None:
    page = client.post("/tables/primary-alien/roll/", {"action": "enter", "value": "", "modifier": "0"})
    assert page.status_code == 400
    assert "Type the number your D100 shows, 1 to 100." in page.content.decode()
    assert not Roll.objects.exists()


def test_a_value_sent_without_an_action_is_looked_up_not_rolled(client: Client, tables: None) -> None:
    page = client.post("/tables/primary-alien/roll/", {"value": "72"}, HTTP_HX_REQUEST="true")
    assert page.status_code == 200
    assert Roll.objects.get().record["entered"] is True


def test_the_result_card_reads_as_a_sentence(client: Client, tables: None) -> None:
    page = client.post("/tables/primary-alien/roll/", {"action": "enter", "value": "72"}, HTTP_HX_REQUEST="true")
    card = page.content.decode()
    card = card[card.index('data-testid="result"') : card.index("</article>")]
    assert "You rolled 72 on D100:" in card
    assert "Skulker" in card and "(Compendium p.16)" in card
    # The data only repeats the result's name ("skulker"), so it is not shown at all.
    assert "Species:" not in card and "skulker" not in card


def test_entry_data_is_shown_in_words_without_slugs_or_raw_keys(client: Client, tables: None) -> None:
    table = RuleTable.objects.get(slug="primary-alien")
    ref = RuleTable.objects.create(system=table.system, slug="enemy-escalation", title="Escalation", source="p.1")
    ref.entries.create(
        position=1,
        result="Wave",
        data={
            "escalation": "morale_increase",
            "enemy_table_slug": "primary-alien",
            "range_in": 6,
            "traits": ["Pistol", "Melee"],
            "brawl_only": False,
            "profile": {"combat_skill": 1},
        },
    )
    page = client.get("/tables/enemy-escalation/").content.decode()
    data = page[page.index('class="data"') : page.index("</small>", page.index('class="data"'))]
    assert "Escalation: morale increase" in data
    assert "Enemy table: New Primary Alien table" in data
    assert 'Range: 6"' in data or "Range: 6&quot;" in data
    assert "Traits: Pistol, Melee" in data and "Brawl only: no" in data and "Profile: Combat skill 1" in data
    for raw in ("morale_increase", "primary-alien", "enemy_table", "range_in", "brawl_only", "combat_skill", "{"):
        assert raw not in data


def test_a_tables_data_and_notes_show_no_snake_case_keys_or_slugs(client: Client, tables: None) -> None:
    page = client.get("/tables/threat-offense-outcomes/").content.decode()
    assert "Extra action: yes" in page
    assert "extra_action" not in page and "band:" not in page
    # The notes name the 2D6 bands' table by its title, not by its slug.
    assert "(Outcomes)" in page and "threat-outcomes" not in page
