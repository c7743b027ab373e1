from __future__ import annotations

import pytest

from tests.factories import UserFactory
from tests.tables import load_system_tables


@pytest.fixture
def bughunt_tables(db: None) -> None:
    """The shipped bughunt tables in the test database, written in bulk."""
    load_system_tables("bughunt")


@pytest.fixture
def player(db: None):  # type: ignore[no-untyped-def]
    return UserFactory.create(username="hicks")


@pytest.fixture
def other(db: None):  # type: ignore[no-untyped-def]
    return UserFactory.create(username="burke")
