from __future__ import annotations

import pytest
from django.core.management import call_command

from rules.fixturefiles import FIXTURES_DIR
from tests.factories import UserFactory


@pytest.fixture
def threat_tables(db: None) -> None:
    call_command("loaddata", str(FIXTURES_DIR / "systems.json"), verbosity=0)
    call_command("loaddata", str(FIXTURES_DIR / "threat-tracker" / "threat-tracker.json"), verbosity=0)


@pytest.fixture
def owner(db: None):  # type: ignore[no-untyped-def]
    return UserFactory(username="referee")


@pytest.fixture
def player(db: None):  # type: ignore[no-untyped-def]
    return UserFactory(username="hudson")


@pytest.fixture
def outsider(db: None):  # type: ignore[no-untyped-def]
    return UserFactory(username="burke")
