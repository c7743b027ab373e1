"""On PostgreSQL each process keeps a pool of connections (``OPTIONS["pool"]`` in
config/settings.py): a request borrows a connection and gives it back, so a server started as
``make run`` starts it serves one request after another on the same PostgreSQL backends instead
of starting a backend for each; and a request that cannot get a connection in time answers 503,
like a lost database."""

from __future__ import annotations

import urllib.request
from unittest import mock

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from psycopg_pool import PoolTimeout

from tests.asgi_server import asgi_server, database_connections

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_the_server_serves_request_after_request_on_the_same_backends() -> None:
    options = settings.DATABASES["default"]["OPTIONS"]["pool"]
    assert options["max_size"] >= options["min_size"] >= 1
    with asgi_server() as server:
        for _ in range(2):  # the pool opens
            with urllib.request.urlopen(f"{server}/tables/", timeout=30) as answer:
                assert answer.status == 200
        held = database_connections(server.pid)
        for _ in range(5):
            with urllib.request.urlopen(f"{server}/tables/", timeout=30) as answer:
                assert answer.status == 200
        # kept between requests (without the pool each request closes its own: none would be left)
        assert held, "the server kept no connection between requests"
        assert database_connections(server.pid) == held  # and no new one opened for the next five
        assert len(held) <= options["max_size"]


def test_a_request_that_gets_no_connection_in_time_answers_503() -> None:
    connection.close()  # the next query asks the pool
    pool = connection.pool  # type: ignore[attr-defined]  # PostgreSQL's wrapper has it
    with mock.patch.object(pool, "getconn", side_effect=PoolTimeout("couldn't get a connection after 5.00 sec")):
        response = Client(raise_request_exception=False).get("/api/v1/tables/")
    assert response.status_code == 503
    assert response["Retry-After"] == "10"
