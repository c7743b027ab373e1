"""A lost database connection answers 503 with ``Retry-After``, not 500: a short page for
HTML, ``{"detail": ...}`` under /api/."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import InterfaceError, OperationalError, connection
from django.test import Client


def _database_gone(error: type[Exception]) -> Callable[..., Any]:
    def execute(*args: Any) -> Any:
        raise error("server closed the connection unexpectedly")

    return execute


@pytest.mark.django_db
@pytest.mark.parametrize("error", [OperationalError, InterfaceError])
def test_a_lost_database_answers_a_page_with_503_and_retry_after(error: type[Exception]) -> None:
    client = Client(raise_request_exception=False)
    with connection.execute_wrapper(_database_gone(error)):
        response = client.get("/tables/")
    assert response.status_code == 503
    assert response["Retry-After"] == "10"
    assert response["Content-Type"].startswith("text/html")
    assert b"Back in a moment" in response.content


@pytest.mark.django_db
@pytest.mark.parametrize("error", [OperationalError, InterfaceError])
def test_a_lost_database_answers_the_api_with_503_json_and_retry_after(error: type[Exception]) -> None:
    client = Client(raise_request_exception=False)
    with connection.execute_wrapper(_database_gone(error)):
        response = client.get("/api/v1/tables/")
    assert response.status_code == 503
    assert response["Retry-After"] == "10"
    assert response.json() == {"detail": "The database is unavailable for a moment; try again in a few seconds."}


@pytest.mark.django_db
def test_other_errors_are_still_a_500() -> None:
    def broken(*args: Any) -> Any:
        raise RuntimeError("a bug, not an outage")

    client = Client(raise_request_exception=False)
    with connection.execute_wrapper(broken):
        response = client.get("/api/v1/tables/")
    assert response.status_code == 500
    assert not response.has_header("Retry-After")
