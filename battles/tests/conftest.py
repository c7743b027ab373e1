from __future__ import annotations

import pytest

from tests.factories import UserFactory
from tests.tables import load_system_tables


@pytest.fixture
def fiveparsecs_tables(db: None) -> None:
    """The shipped fiveparsecs tables in the test database, written in bulk."""
    load_system_tables("fiveparsecs")


@pytest.fixture
def player(db: None):  # type: ignore[no-untyped-def]
    return UserFactory(username="captain")


@pytest.fixture
def other(db: None):  # type: ignore[no-untyped-def]
    return UserFactory(username="stranger")
