from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client

from rules import services
from rules.engine import names
from rules.engine.dice import Dice
from rules.errors import DropshipError
from rules.fixturefiles import FIXTURES_DIR
from rules.models import Roll, RuleTable

pytestmark = pytest.mark.django_db


@pytest.fixture
def name_tables(db: None) -> None:
    call_command("loaddata", str(FIXTURES_DIR / "systems.json"), verbosity=0)
    call_command("loaddata", str(FIXTURES_DIR / "fiveparsecs" / "world-names.json"), verbosity=0)


def _engine_tables() -> dict:  # type: ignore[type-arg]
    return {t.slug: t.to_engine() for t in RuleTable.objects.prefetch_related("entries")}


def test_the_books_examples_come_out_whole(name_tables: None) -> None:
    tables = _engine_tables()
    # Entered rolls from the book's own examples: 43 and 3 give Gough III; 72 and 19 Willet's Road.
    world = [tables["names-world-1"].lookup(43).result, tables["names-world-2"].lookup(3).result]
    assert " ".join(world) == "Gough III"
    colony = [tables["names-colony-1"].lookup(72).result, tables["names-colony-2"].lookup(19).result]
    assert " ".join(colony) == "Willet's Road" or " ".join(colony) == "Willet\u2019s Road"
    assert tables["names-ship-1"].lookup(34).result + " " + tables["names-ship-2"].lookup(57).result == "Majestic Raccoon"
    assert (
        tables["names-corporate-1"].lookup(11).result + " " + tables["names-corporate-2"].lookup(47).result
        == "Calibrated Acquisitions"
    )


def test_every_recipe_makes_a_name_with_seeded_dice(name_tables: None) -> None:
    tables = _engine_tables()
    for recipe in names.RECIPES:
        made = names.generate(recipe, tables, Dice(seed=3))
        assert made.name.startswith(recipe.prefix)
        assert len(made.rolls) == len(recipe.parts)
        assert made.name == names.generate(recipe, tables, Dice(seed=3)).name


def test_service_logs_one_roll_per_part(name_tables: None) -> None:
    made = services.name_generate(generator="ship", roller=services.Roller(user_id=None, session_key="abc"), dice=Dice(seed=1))
    assert made.name.startswith("The ")
    assert Roll.objects.filter(session_key="abc").count() == 2


def test_unknown_generator_is_refused_with_the_choices(name_tables: None) -> None:
    with pytest.raises(DropshipError, match="choose one of world, colony"):
        services.name_generate(generator="moon", roller=services.Roller(user_id=None))


def test_missing_tables_say_how_to_load_them(db: None) -> None:
    with pytest.raises(DropshipError, match="not loaded"):
        services.name_generate(generator="world", roller=services.Roller(user_id=None))
    assert not Roll.objects.exists()


def test_name_screen_gives_a_whole_name(client: Client, name_tables: None) -> None:
    page = client.post("/names/world/", HTTP_HX_REQUEST="true")
    assert page.status_code == 200 and b'class="name-out"' in page.content
