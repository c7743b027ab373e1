from __future__ import annotations

import json

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


def core_table(
    slug: str, title: str, die: str, rows: list[tuple[int, int, str, dict]], data_keys: list[str] | None = None
) -> str:
    """A user's core-rulebook table as import JSON (our own placeholder words, not the book's)."""
    out: list[dict] = [
        {
            "model": "rules.ruletable",
            "fields": {
                "system": ["fiveparsecs"],
                "slug": slug,
                "title": title,
                "die": die,
                "source": "core p.1",
                "data_keys": data_keys or [],
            },
        }
    ]
    for position, (low, high, result, data) in enumerate(rows, start=1):
        fields = {"table": [slug], "position": position, "low": low, "high": high, "result": result, "data": data}
        out.append({"model": "rules.tableentry", "fields": fields})
    return json.dumps(out)
