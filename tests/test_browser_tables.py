"""In real Chromium: open Tables, find a table, roll it, see the result; then look up a roll."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from rules.fixturefiles import FIXTURES_DIR
from rules.models import Roll
from tests.browser import LAPTOP, PHONE, chromium

# The database fixtures come before live_server so that the server stops (and lets go of its
# database connection) before the test database is dropped.
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def loaded_tables(transactional_db: None, release_live_server_connections: None) -> None:
    call_command("loaddata", str(FIXTURES_DIR / "systems.json"), verbosity=0)
    call_command("loaddata", str(FIXTURES_DIR / "fiveparsecs" / "char-primary-alien.json"), verbosity=0)
    call_command("loaddata", str(FIXTURES_DIR / "fiveparsecs" / "world-names.json"), verbosity=0)


def test_open_tables_roll_and_see_the_result(loaded_tables: None, live_server) -> None:  # type: ignore[no-untyped-def]
    with chromium() as browser:
        page = browser.new_page(viewport=LAPTOP)
        page.goto(f"{live_server.url}/tables/")
        page.get_by_placeholder("Search titles and results").fill("Skulker")
        page.wait_for_url("**q=Skulker**")
        page.get_by_role("link", name="New Primary Alien table").click()
        page.get_by_role("button", name="Roll D100").click()
        card = page.get_by_test_id("result")
        card.wait_for()
        roll = Roll.objects.get()
        assert roll.result in card.inner_text()
        assert "D100" in card.inner_text()
        # The swap kept the page: the entries table is still there and the hit is marked.
        assert page.locator("tr.hit").count() == 1

        page.get_by_label("I rolled").fill("72")
        page.get_by_role("button", name="Look up my roll").click()
        page.get_by_text("You rolled 72 on D100").wait_for()
        assert "Skulker" in page.get_by_test_id("result").inner_text()
        assert Roll.objects.count() == 2


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_enter_in_i_rolled_looks_the_number_up_and_never_rolls(  # type: ignore[no-untyped-def]
    loaded_tables: None, live_server, viewport, tmp_path
) -> None:
    with chromium() as browser:
        page = browser.new_page(viewport=viewport)
        page.goto(f"{live_server.url}/tables/primary-alien/")
        field = page.get_by_label("I rolled")
        field.fill("47")
        field.press("Enter")
        card = page.get_by_test_id("result")
        card.wait_for()
        text = card.inner_text()
        assert "You rolled 47 on D100" in text and "Krag" in text
        assert "Dropship rolled" not in text
        roll = Roll.objects.get()
        assert roll.record["entered"] is True and roll.value == 47 and roll.result == "Krag"
        assert page.locator("tr.hit").inner_text().startswith("41-50")
        # Players read words: no data keys or slugs on the page.
        body = page.locator("main").inner_text()
        assert "species:" not in body and "primary-alien" not in body
        page.screenshot(path=str(tmp_path / f"table-lookup-{viewport['width']}.png"), full_page=True)


def test_a_whole_name_in_one_tap_on_a_phone(loaded_tables: None, live_server) -> None:  # type: ignore[no-untyped-def]
    with chromium() as browser:
        page = browser.new_page(viewport=PHONE)
        page.goto(f"{live_server.url}/names/")
        page.get_by_test_id("name-colony").click()
        out = page.locator("#name-colony .name-out")
        out.wait_for()
        words = out.inner_text().split(" ")
        assert len(words) >= 2
        assert Roll.objects.count() == 2
