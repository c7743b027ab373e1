"""The configured services are really used: PostgreSQL for data, Redis for cache and Celery."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection

from rules import services
from rules.fixturefiles import FIXTURES_DIR
from rules.models import Roll, RuleTable


@pytest.mark.postgres
@pytest.mark.django_db
def test_rolls_are_stored_and_read_back_on_postgresql() -> None:
    assert connection.vendor == "postgresql"
    call_command("loaddata", str(FIXTURES_DIR / "systems.json"), verbosity=0)
    call_command("loaddata", str(FIXTURES_DIR / "fiveparsecs" / "char-primary-alien.json"), verbosity=0)
    result = services.table_roll(
        table=RuleTable.objects.get(slug="primary-alien"), roller=services.Roller(user_id=None, session_key="s")
    )
    stored = Roll.objects.get(pk=result.roll.pk)
    assert stored.record["faces"] == list(result.outcome.record.faces)
    assert Roll.objects.filter(record__notation="D100").count() == 1


@pytest.mark.redis
def test_cache_and_celery_use_redis() -> None:
    assert settings.CACHES["default"]["BACKEND"].endswith("RedisCache")
    cache.set("dropship-probe", {"ok": 1}, 5)
    assert cache.get("dropship-probe") == {"ok": 1}
    assert settings.CELERY_BROKER_URL.startswith("redis://")
    assert settings.CELERY_TASK_ALWAYS_EAGER is False
