from __future__ import annotations

import pytest
from django.core.management import call_command

from rules.fixturefiles import FIXTURES_DIR
from tests.factories import UserFactory


@pytest.fixture
def tables(db: None) -> None:
    """The rule systems plus two small tables: New Primary Alien (D100) and threat outcomes (2D6)."""
    call_command("loaddata", str(FIXTURES_DIR / "systems.json"), verbosity=0)
    call_command("loaddata", str(FIXTURES_DIR / "fiveparsecs" / "char-primary-alien.json"), verbosity=0)
    call_command("loaddata", str(FIXTURES_DIR / "threat-tracker" / "threat-tracker.json"), verbosity=0)


@pytest.fixture
def player(db: None):  # type: ignore[no-untyped-def]
    return UserFactory(username="ripley")
