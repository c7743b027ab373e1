"""Export and import jobs always end: every error ends the job with a readable message and
writes nothing, a job whose worker was lost is swept to failed, a broker that cannot be
reached leaves no job pending and answers 503, and an import over the size cap is refused
before anything is stored."""

from __future__ import annotations

import copy
import json
import logging
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
import redis
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape
from kombu.exceptions import OperationalError
from rest_framework.test import APIClient

from campaigns import crew_services, services
from campaigns.models import Campaign, CampaignJob
from campaigns.tasks import campaign_job_run
from campaigns.tests.test_services import _v, make
from live.models import Room
from rules import jobs
from rules.errors import DropshipError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]

DOWN = OperationalError("Error 111 connecting to 127.0.0.1:1. Connection refused.")


def api_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def browser_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def exported(player: Any) -> dict[str, Any]:
    campaign = make(player)
    crew_services.character_create(user=player, campaign_id=campaign.pk, version=_v(campaign), name="A", species="krag")
    return services.campaign_export(user=player, campaign_id=campaign.pk)


def job_at(user: Any, *, state: str, beat_ago: timedelta, kind: str = "import") -> CampaignJob:
    job = CampaignJob.objects.create(owner=user, kind=kind, state=state, progress=40, document={"format": "x"})
    CampaignJob.objects.filter(pk=job.pk).update(heartbeat=timezone.now() - beat_ago, created=timezone.now() - beat_ago)
    job.refresh_from_db()
    return job


# -- every error ends the job ----------------------------------------------------------------------


def _bad_ref(doc: dict[str, Any]) -> None:
    doc["characters"][0]["ref"] = "first"


def _no_name(doc: dict[str, Any]) -> None:
    doc["campaign"]["name"] = None


def _log_of_text(doc: dict[str, Any]) -> None:
    doc["log"] = ["a line of text, not an entry"]


def _turn_without_plan(doc: dict[str, Any]) -> None:
    doc["turns"] = [{"number": 1}]


def _slot_of_a_list(doc: dict[str, Any]) -> None:
    doc["slots"] = {"loot": ["not", "a", "slug"]}


def _turn_of_words(doc: dict[str, Any]) -> None:
    doc["campaign"]["turn"] = "soon"


# Some spoiled files are caught by the import's check, which names what is wrong; the others
# fail while the campaign is being built, and the job names the error's kind.
UNEXPECTED = "The import stopped on an unexpected error ({})"


@pytest.mark.parametrize(
    ("spoil", "error"),
    [
        (_bad_ref, "characters[0].ref must be a whole number"),
        (_no_name, UNEXPECTED.format("IntegrityError")),
        (_log_of_text, UNEXPECTED.format("TypeError")),
        (_turn_without_plan, "turns[0] must be a turn with its steps"),
        (_slot_of_a_list, "The export maps slots to tables it does not carry"),
        (_turn_of_words, UNEXPECTED.format("ValueError")),
    ],
)
def test_an_import_that_fails_while_building_ends_failed_and_writes_nothing(
    player: Any,
    settings: Any,
    django_capture_on_commit_callbacks: Any,
    caplog: pytest.LogCaptureFixture,
    spoil: Callable[[dict[str, Any]], None],
    error: str,
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True  # the job runs in this process, as without Redis
    doc = copy.deepcopy(exported(player))
    spoil(doc)
    campaigns, rooms = Campaign.objects.count(), Room.objects.count()
    with django_capture_on_commit_callbacks(execute=True), caplog.at_level(logging.ERROR, logger="rules.jobs"):
        started = api_for(player).post("/api/v1/campaigns/import/", doc, format="json")
    assert started.status_code == 202, started.content
    job = CampaignJob.objects.get(pk=started.json()["id"])
    assert job.state == "failed" and error in job.message, job.message
    assert job.document is None  # the file is not kept
    assert (Campaign.objects.count(), Room.objects.count()) == (campaigns, rooms)
    unexpected = error.startswith("The import stopped")
    # An unexpected error's traceback is in the server log; a refusal by the check needs none.
    assert any(record.exc_info for record in caplog.records) == unexpected
    page = browser_for(player).get(reverse("campaigns:job", args=[job.pk])).content.decode()
    assert 'data-state="failed"' in page and "hx-trigger" not in page and escape(error) in page


def test_an_export_that_crashes_ends_failed(player: Any) -> None:
    campaign = make(player)
    job = CampaignJob.objects.create(owner=player, kind="export", campaign=campaign)
    with mock.patch("campaigns.documents.campaign_document", side_effect=AttributeError("crew")):
        ended = services.job_run(job_id=job.pk)
    assert ended.state == "failed" and "The export stopped on an unexpected error (AttributeError)" in ended.message


# -- a lost worker ------------------------------------------------------------------------------------


def test_a_job_with_a_stale_heartbeat_is_swept_to_failed_when_read(player: Any) -> None:
    stale = job_at(player, state="running", beat_ago=jobs.RUNNING_LIMIT + timedelta(seconds=5))
    fresh = job_at(player, state="running", beat_ago=timedelta(seconds=20))
    body = api_for(player).get(f"/api/v1/campaign-jobs/{stale.pk}/").json()
    assert body["state"] == "failed" and body["message"] == jobs.WORKER_LOST
    assert api_for(player).get(f"/api/v1/campaign-jobs/{fresh.pk}/").json()["state"] == "running"
    page = browser_for(player).get(reverse("campaigns:job", args=[stale.pk])).content.decode()
    assert jobs.WORKER_LOST in page and "hx-trigger" not in page


def test_an_import_beating_in_the_cache_is_not_swept(player: Any) -> None:
    job = job_at(player, state="running", beat_ago=timedelta(hours=1))
    jobs.beat_in_cache(services.JOB_LABEL, job.pk)  # its transaction hides its own writes
    assert services.job_sweep(user=player) == 0
    job.refresh_from_db()
    assert job.state == "running"


def test_a_job_no_worker_picked_up_is_given_up(player: Any) -> None:
    waiting = job_at(player, state="pending", beat_ago=timedelta(minutes=5))
    lost = job_at(player, state="pending", beat_ago=jobs.QUEUED_LIMIT + timedelta(minutes=1))
    assert services.job_sweep(user=player) == 1
    waiting.refresh_from_db()
    lost.refresh_from_db()
    assert waiting.state == "pending" and (lost.state, lost.message) == ("failed", jobs.NEVER_STARTED)


def test_an_outsider_reading_a_job_sweeps_nothing_and_gets_404(player: Any, other: Any) -> None:
    stale = job_at(player, state="running", beat_ago=timedelta(hours=1))
    assert api_for(other).get(f"/api/v1/campaign-jobs/{stale.pk}/").status_code == 404
    stale.refresh_from_db()
    assert stale.state == "running"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_an_import_swept_while_it_builds_keeps_nothing(player: Any) -> None:
    doc = exported(player)
    job = CampaignJob.objects.create(owner=player, kind="import", document=doc)
    campaigns = Campaign.objects.count()
    real_build = services.documents.build

    def sweep_from_another_connection() -> None:
        try:
            CampaignJob.objects.filter(pk=job.pk).update(state="failed", message=jobs.WORKER_LOST)  # as the sweeper would
        finally:
            connection.close()

    def swept_while_building(*args: Any, **kwargs: Any) -> None:
        real_build(*args, **kwargs)
        sweeper = threading.Thread(target=sweep_from_another_connection)
        sweeper.start()
        sweeper.join(timeout=30)

    with mock.patch("campaigns.documents.build", side_effect=swept_while_building):
        ended = services.job_run(job_id=job.pk)
    assert (ended.state, ended.message) == ("failed", jobs.WORKER_LOST)
    assert Campaign.objects.count() == campaigns


def test_a_message_delivered_again_leaves_a_live_job_alone(player: Any) -> None:
    live = job_at(player, state="running", beat_ago=timedelta(seconds=5))
    with mock.patch("campaigns.services.campaign_import") as imported:
        services.job_run(job_id=live.pk)
    assert not imported.called
    live.refresh_from_db()
    assert live.state == "running"


def test_the_task_is_acknowledged_late_and_handed_back_when_its_worker_dies() -> None:
    assert campaign_job_run.acks_late and campaign_job_run.reject_on_worker_lost


# -- a broker that cannot be reached ------------------------------------------------------------------


def test_a_broker_that_cannot_be_reached_fails_the_job_in_the_service(
    player: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = False
    with (
        mock.patch.object(campaign_job_run, "apply_async", side_effect=DOWN),
        pytest.raises(jobs.QueueUnavailable) as refused,
        django_capture_on_commit_callbacks(execute=True),
    ):
        services.job_start(user=player, kind="import", document=exported(player))
    job = CampaignJob.objects.get()
    assert refused.value.status == 503 and refused.value.extra == {"job": job.pk}
    assert (job.state, job.message, job.document) == ("failed", jobs.QUEUE_DOWN, None)


@pytest.mark.django_db(transaction=True)
def test_a_broker_that_cannot_be_reached_answers_503_with_retry_after_and_leaves_no_job_pending(
    player: Any, settings: Any
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = False
    doc = exported(player)
    campaign_id = Campaign.objects.get().pk
    with mock.patch.object(campaign_job_run, "apply_async", side_effect=DOWN):
        imported = api_for(player).post("/api/v1/campaigns/import/", doc, format="json")
        exported_job = api_for(player).post(f"/api/v1/campaigns/{campaign_id}/export/", format="json")
        page = browser_for(player).post(reverse("campaigns:import"), {"text": services.documents.dumps(doc)})
    for response in (imported, exported_job, page):
        assert response.status_code == 503 and response["Retry-After"] == str(jobs.RETRY_AFTER)
    assert imported.json() == {"detail": jobs.QUEUE_DOWN, "job": CampaignJob.objects.order_by("pk")[0].pk}
    assert jobs.QUEUE_DOWN in page.content.decode() and "hx-trigger" not in page.content.decode()
    assert set(CampaignJob.objects.values_list("state", flat=True)) == {"failed"}
    assert Campaign.objects.count() == 1


def test_with_the_cache_down_jobs_still_run_and_their_pages_answer(player: Any) -> None:
    down = mock.Mock(**{f"{name}.side_effect": redis.ConnectionError("Connection refused") for name in ("get", "set", "delete")})
    doc = exported(player)
    stale = job_at(player, state="running", beat_ago=timedelta(hours=1))
    with mock.patch("rules.jobs.cache", down):
        body = api_for(player).get(f"/api/v1/campaign-jobs/{stale.pk}/").json()
        imported = services.job_run(job_id=CampaignJob.objects.create(owner=player, kind="import", document=doc).pk)
    assert down.get.called and down.set.called  # the cache was tried, and its errors did not stop anything
    assert (body["state"], body["message"]) == ("failed", jobs.WORKER_LOST)
    assert imported.state == "done" and imported.campaign is not None


# -- the size cap -------------------------------------------------------------------------------------


def test_an_oversized_import_body_is_refused_naming_the_field_and_the_limit(player: Any) -> None:
    doc = {"format": "dropship-campaign", "notes": "<html>" + "x" * services.MAX_IMPORT_BYTES + "</html>"}
    response = api_for(player).post("/api/v1/campaigns/import/", doc, format="json")
    assert response.status_code == 400 and response.json()["field"] == "file"
    assert response.json()["limit"] == services.MAX_IMPORT_BYTES and "2 MB" in response.json()["detail"]
    pasted = api_for(player).post("/api/v1/campaigns/import/", {"text": "x" * (services.MAX_IMPORT_BYTES + 1)}, format="json")
    assert pasted.status_code == 400 and pasted.json()["field"] == "file"
    with pytest.raises(DropshipError) as refused:  # a body sent without its length is measured here
        services.job_start(user=player, kind="import", document=doc)
    assert refused.value.field == "file"
    assert not CampaignJob.objects.exists()


def test_an_oversized_import_file_or_text_is_refused_unread(player: Any) -> None:
    html = SimpleUploadedFile("page.html", b"<html>" + b"<p>spam</p>" * 1_000_000 + b"</html>", content_type="text/html")
    browser = browser_for(player)
    response = browser.post(reverse("campaigns:import"), {"file": html})
    page = response.content.decode()
    assert response.status_code == 400 and "at most 2,000,000 bytes (2 MB)" in page and page.count("spam") == 0
    assert 'name="file" accept=".json,application/json" aria-invalid="true"' in page
    pasted = browser.post(reverse("campaigns:import"), {"text": "x" * (services.MAX_IMPORT_BYTES + 10)})
    assert pasted.status_code == 400 and "text: the import is 2,000,010 bytes" in pasted.content.decode()
    assert not CampaignJob.objects.exists()


def test_an_import_holding_an_infinity_is_refused_by_the_service_itself(player: Any) -> None:
    doc = exported(player)
    doc["campaign"]["rumors"] = [float("inf")]
    before = Campaign.objects.count()
    with pytest.raises(DropshipError) as refused:
        services.campaign_import(user=player, doc=doc)
    assert refused.value.field == "file.campaign.rumors[0]" and "finite" in refused.value.message
    assert Campaign.objects.count() == before


def test_an_import_holding_a_nul_character_is_refused_naming_where_it_sits(player: Any) -> None:
    doc = exported(player)
    doc["campaign"]["name"] = "Bad\u0000name"
    text = json.dumps(doc)
    upload = SimpleUploadedFile("crew.json", text.encode(), content_type="application/json")
    page = browser_for(player).post(reverse("campaigns:import"), {"file": upload})
    assert page.status_code == 400 and "file.campaign.name must not contain NUL" in page.content.decode()
    pasted = api_for(player).post("/api/v1/campaigns/import/", {"text": text}, format="json")
    assert pasted.status_code == 400 and pasted.json()["field"] == "file.campaign.name"
    assert not CampaignJob.objects.exists()
