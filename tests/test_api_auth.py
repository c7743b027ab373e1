"""The API's token authentication (config.authentication): one statement, DRF's answers."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from config.authentication import TokenAuthentication
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_a_token_is_looked_up_in_one_query_and_answers_as_drf_does() -> None:
    api, player = APIClient(), UserFactory.create(username="ripley")
    token = Token.objects.create(user=player)
    ours, drf = TokenAuthentication(), authentication.TokenAuthentication()
    with CaptureQueriesContext(connection) as queries:
        user, found = ours.authenticate_credentials(token.key)
    assert len(queries) == 1
    assert (user, found) == drf.authenticate_credentials(token.key)
    assert user.username == "ripley" and found.user is user and found.created == token.created
    with pytest.raises(exceptions.AuthenticationFailed, match="Invalid token"):
        ours.authenticate_credentials(token.key[::-1])
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key[::-1]}")
    refused = api.get("/api/v1/rooms/")
    assert refused.status_code == 401 and refused.json()["detail"] == "Invalid token."
    player.is_active = False
    player.save(update_fields=["is_active"])
    with pytest.raises(exceptions.AuthenticationFailed, match="User inactive or deleted"):
        ours.authenticate_credentials(token.key)
