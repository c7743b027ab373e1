from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connection


@pytest.fixture(scope="session")
def release_live_server_connections(django_db_setup: None, django_db_blocker) -> Iterator[None]:  # type: ignore[no-untyped-def]
    """The live server answers each request in a thread of its own, and on PostgreSQL those
    threads leave their connections open; end them when the session closes, before the test
    database is dropped. Browser tests request this fixture."""
    yield
    with django_db_blocker.unblock():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
