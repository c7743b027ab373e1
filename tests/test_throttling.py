"""Guessing passwords and mass sign-ups are throttled: the login page and the API token endpoint
lock a user name out from one address after AXES_FAILURE_LIMIT wrong passwords (django-axes),
the token endpoint is rate-limited (DRF), and sign-ups are limited per address."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client
from django.test.utils import override_settings
from rest_framework.test import APIClient

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

RIGHT = "correct horse battery"


def test_the_right_password_after_too_many_wrong_ones_is_refused_on_the_login_page() -> None:
    UserFactory.create(username="vasquez")
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        wrong = client.post("/accounts/login/", {"username": "vasquez", "password": "guess"})
        assert wrong.status_code == 200  # the form again, with its error
    assert client.post("/accounts/login/", {"username": "vasquez", "password": "guess"}).status_code == 429
    locked = client.post("/accounts/login/", {"username": "vasquez", "password": RIGHT})
    assert locked.status_code == 429
    assert "Too many failed log-ins" in locked.content.decode()
    assert "_auth_user_id" not in client.session


def test_a_few_wrong_passwords_then_the_right_one_signs_in() -> None:
    UserFactory.create(username="hicks")
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        client.post("/accounts/login/", {"username": "hicks", "password": "guess"})
    assert client.post("/accounts/login/", {"username": "hicks", "password": RIGHT}).status_code == 302
    assert "_auth_user_id" in client.session


def test_the_token_endpoint_shares_the_lockout() -> None:
    UserFactory.create(username="apone")
    api = APIClient()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert api.post("/api/v1/auth/token/", {"username": "apone", "password": "guess"}).status_code == 400
    assert api.post("/api/v1/auth/token/", {"username": "apone", "password": "guess"}).status_code == 429
    locked = api.post("/api/v1/auth/token/", {"username": "apone", "password": RIGHT})
    assert locked.status_code == 429
    assert "token" not in locked.json()
    assert "Too many failed log-ins" in locked.json()["detail"]


def test_the_token_endpoint_is_rate_limited_per_address(monkeypatch: pytest.MonkeyPatch) -> None:
    from rest_framework.throttling import ScopedRateThrottle

    # DRF reads the rates once, at import; TOKEN_RATE sets them in production.
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"token": "3/min"})
    UserFactory.create(username="gorman")
    api = APIClient()
    answers = [api.post("/api/v1/auth/token/", {"username": "gorman", "password": RIGHT}).status_code for _ in range(4)]
    assert answers == [200, 200, 200, 429]


@override_settings(SIGNUP_RATE="2/h")
def test_signups_are_limited_per_address() -> None:
    from django.contrib.auth import get_user_model

    client = Client()
    made = []
    for n in range(3):
        form = {"username": f"recruit{n}", "password1": "a long pass phrase 42", "password2": "a long pass phrase 42"}
        made.append(client.post("/accounts/signup/", form).status_code)
        client.logout()
    assert made == [302, 302, 429]
    assert not get_user_model().objects.filter(username="recruit2").exists()
