"""Imports have a size cap: an oversized upload or body is refused naming the field and the
limit, nothing stored; an API body over Django's DATA_UPLOAD_MAX_MEMORY_SIZE gets a readable
413, not a bare HTML page."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from rules import services
from rules.forms import TableImportForm
from rules.models import RuleTable
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def me(tables: None):  # type: ignore[no-untyped-def]
    return UserFactory(username="vasquez")


def test_an_oversized_table_file_is_refused_on_the_file_field_unread(me) -> None:  # type: ignore[no-untyped-def]
    browser = Client()
    browser.force_login(me)
    upload = SimpleUploadedFile("tables.json", b"[" + b'"spam",' * 200_000 + b"1]", content_type="application/json")
    response = browser.post("/my-tables/import/", {"file": upload})
    page = response.content.decode()
    assert response.status_code == 400 and 'data-testid="file-error"' in page
    assert f"at most {TableImportForm.MAX_BYTES:,} bytes (1 MB)" in page and "spam" not in page
    assert not RuleTable.objects.filter(owner=me).exists()


def test_oversized_table_text_through_the_api_is_refused_naming_the_field(me) -> None:  # type: ignore[no-untyped-def]
    api = APIClient()
    api.force_authenticate(me)
    response = api.post("/api/v1/my-tables/import/", {"text": "x" * (services.MAX_IMPORT_CHARS + 1)}, format="json")
    assert response.status_code == 400 and response.json()["field"] == "text"
    assert f"at most {services.MAX_IMPORT_CHARS}" in response.json()["detail"]
    assert not RuleTable.objects.filter(owner=me).exists()


def test_an_api_body_over_the_servers_limit_gets_a_readable_413(me, settings) -> None:  # type: ignore[no-untyped-def]
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    api = APIClient()
    api.force_authenticate(me)
    response = api.post("/api/v1/my-tables/import/", {"text": "x" * 20_000}, format="json")
    assert response.status_code == 413 and response["Content-Type"] == "application/json"
    assert response.json() == {
        "detail": "The request body is larger than 10,000 bytes, the most this server reads.",
        "field": "body",
        "limit": 10_000,
    }
    assert not RuleTable.objects.filter(owner=me).exists()
