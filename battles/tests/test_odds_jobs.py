"""Odds jobs always end: every error ends the job with a readable message, a job whose worker
was lost is swept to failed, a broker that cannot be reached leaves no job queued and answers
503, one queued or running odds job per user, and runs are bounded (lower in eager local play,
where the run happens inside the request)."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from kombu.exceptions import OperationalError
from rest_framework.test import APIClient

from battles import odds_services
from battles.models import Battle, BattleJob
from battles.tasks import battle_odds_run
from battles.tests.test_fp_services import standalone
from rules import jobs
from rules.errors import DropshipError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]


def api_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def running_job(battle: Battle, user: Any, *, beat_ago: timedelta, status: str = "running") -> BattleJob:
    job = BattleJob.objects.create(battle=battle, owner=user, runs=20, status=status, progress=35)
    BattleJob.objects.filter(pk=job.pk).update(heartbeat=timezone.now() - beat_ago, created=timezone.now() - beat_ago)
    job.refresh_from_db()
    return job


# -- every error ends the job ----------------------------------------------------------------------


@pytest.mark.parametrize("error", [RuntimeError("boom"), KeyError("crew"), ZeroDivisionError("division by zero")])
def test_an_odds_run_that_crashes_ends_failed_with_a_readable_message(
    player: Any, error: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    job = BattleJob.objects.create(battle=standalone(player), owner=player, runs=20)
    with mock.patch("battles.engine.odds.run_odds", side_effect=error), caplog.at_level(logging.ERROR, logger="rules.jobs"):
        odds_services.odds_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == "failed" and job.result is None
    assert f"({type(error).__name__})" in job.error and f"job {job.pk}" in job.error
    assert any(record.exc_info and record.exc_info[0] is type(error) for record in caplog.records)  # traceback kept


def test_the_failed_odds_page_stops_polling_and_shows_the_message(player: Any) -> None:
    job = BattleJob.objects.create(battle=standalone(player), owner=player, runs=20)
    with mock.patch("battles.engine.odds.run_odds", side_effect=RuntimeError("boom")):
        odds_services.odds_run(job_id=job.pk)
    client = Client()
    client.force_login(player)
    page = client.get(reverse("battles:job", args=[job.pk])).content.decode()
    assert 'data-testid="job-error"' in page and "unexpected error (RuntimeError)" in page
    assert "hx-trigger" not in page


# -- a lost worker ------------------------------------------------------------------------------------


def test_an_odds_job_with_a_stale_heartbeat_is_swept_to_failed_when_read(player: Any) -> None:
    battle = standalone(player)
    stale = running_job(battle, player, beat_ago=jobs.RUNNING_LIMIT + timedelta(seconds=5))
    fresh = running_job(battle, player, beat_ago=timedelta(seconds=10))
    body = api_for(player).get(f"/api/v1/fp-battle-jobs/{stale.pk}/").json()
    assert body["status"] == "failed" and body["error"] == jobs.WORKER_LOST
    assert api_for(player).get(f"/api/v1/fp-battle-jobs/{fresh.pk}/").json()["status"] == "running"


def test_the_battle_page_sweeps_its_lost_jobs_and_the_job_page_stops_polling(player: Any) -> None:
    battle = standalone(player)
    lost = running_job(battle, player, beat_ago=timedelta(hours=1))
    never_started = running_job(battle, player, beat_ago=jobs.QUEUED_LIMIT + timedelta(minutes=1), status="queued")
    client = Client()
    client.force_login(player)
    card = client.get(reverse("battles:detail", args=[battle.pk])).content.decode()
    assert "20 battles: failed" in card and "20 battles: running" not in card
    lost.refresh_from_db()
    never_started.refresh_from_db()
    assert (lost.error, never_started.error) == (jobs.WORKER_LOST, jobs.NEVER_STARTED)
    page = client.get(reverse("battles:job", args=[lost.pk])).content.decode()
    assert jobs.WORKER_LOST in page and "hx-trigger" not in page


def test_a_message_delivered_again_leaves_a_live_job_alone_and_ends_a_lost_one(player: Any) -> None:
    battle = standalone(player)
    live = running_job(battle, player, beat_ago=timedelta(seconds=5))
    with mock.patch("battles.engine.odds.run_odds") as run:
        odds_services.odds_run(job_id=live.pk)
    assert not run.called  # the first worker still has it: no second run at once
    live.refresh_from_db()
    assert live.status == "running" and live.progress == 35
    lost = running_job(battle, player, beat_ago=timedelta(hours=1))
    odds_services.odds_run(job_id=lost.pk)
    lost.refresh_from_db()
    assert lost.status == "failed" and lost.error == jobs.WORKER_LOST


def test_a_run_swept_while_it_plays_stops_and_keeps_no_result(player: Any) -> None:
    job = BattleJob.objects.create(battle=standalone(player), owner=player, runs=40)
    real = odds_services.odds.run_odds
    beats: list[int] = []

    def swept_then_played(*args: Any, **kwargs: Any) -> Any:
        BattleJob.objects.filter(pk=job.pk).update(status="failed", error=jobs.WORKER_LOST)  # as the sweeper would
        progress = kwargs["progress"]

        def counted(done: int, runs: int) -> None:
            beats.append(done)
            progress(done, runs)

        return real(*args, **{**kwargs, "progress": counted})

    with mock.patch("battles.engine.odds.run_odds", side_effect=swept_then_played):
        odds_services.odds_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == "failed" and job.error == jobs.WORKER_LOST and job.result is None
    assert beats == [2]  # it stopped at its first beat instead of playing all 40 battles


def test_the_task_is_acknowledged_late_and_handed_back_when_its_worker_dies() -> None:
    assert battle_odds_run.acks_late and battle_odds_run.reject_on_worker_lost


# -- a broker that cannot be reached ------------------------------------------------------------------


def test_a_broker_that_cannot_be_reached_fails_the_job_in_the_service(
    player: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = False
    battle = standalone(player)
    down = OperationalError("Error 111 connecting to 127.0.0.1:1. Connection refused.")
    with (
        mock.patch.object(battle_odds_run, "apply_async", side_effect=down),
        pytest.raises(jobs.QueueUnavailable) as refused,
        django_capture_on_commit_callbacks(execute=True),
    ):
        odds_services.odds_start(user=player, battle_id=battle.pk, runs=20)
    job = BattleJob.objects.get()
    assert refused.value.status == 503 and refused.value.headers == {"Retry-After": str(jobs.RETRY_AFTER)}
    assert refused.value.extra == {"job": job.pk}
    assert job.status == "failed" and job.error == jobs.QUEUE_DOWN
    with mock.patch.object(battle_odds_run, "apply_async") as sent, django_capture_on_commit_callbacks(execute=True):
        again = odds_services.odds_start(user=player, battle_id=battle.pk, runs=20)  # the failed one does not block
    sent.assert_called_once_with(args=[again.pk])


@pytest.mark.django_db(transaction=True)
def test_a_broker_that_cannot_be_reached_answers_503_with_retry_after_and_leaves_no_job_queued(
    player: Any, settings: Any
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = False
    battle = standalone(player)
    down = OperationalError("Error 111 connecting to 127.0.0.1:1. Connection refused.")
    with mock.patch.object(battle_odds_run, "apply_async", side_effect=down):
        response = api_for(player).post(f"/api/v1/fp-battles/{battle.pk}/odds/", {"runs": 20}, format="json")
        client = Client()
        client.force_login(player)
        page = client.post(reverse("battles:act", args=[battle.pk, "odds"]), {"runs": "20"})
    assert response.status_code == 503 and response["Retry-After"] == str(jobs.RETRY_AFTER)
    assert response.json()["detail"] == jobs.QUEUE_DOWN
    assert page.status_code == 503 and page["Retry-After"] == str(jobs.RETRY_AFTER)
    assert jobs.QUEUE_DOWN in page.content.decode() and "hx-trigger" not in page.content.decode()
    assert list(BattleJob.objects.values_list("status", flat=True)) == ["failed", "failed"]


# -- one at a time, bounded -------------------------------------------------------------------------


def test_a_second_odds_job_of_the_same_user_is_refused_naming_the_running_one(player: Any, other: Any, settings: Any) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = False
    battle = standalone(player)
    first = running_job(battle, player, beat_ago=timedelta(seconds=3))
    with pytest.raises(jobs.JobBusy) as refused:
        odds_services.odds_start(user=player, battle_id=battle.pk, runs=20)
    url = reverse("battles:job", args=[first.pk])
    assert refused.value.status == 409 and refused.value.field == "runs"
    assert refused.value.extra == {"job": first.pk, "url": url} and url in refused.value.message
    assert BattleJob.objects.count() == 1
    response = api_for(player).post(f"/api/v1/fp-battles/{battle.pk}/odds/", {"runs": 20}, format="json")
    assert response.status_code == 409 and response.json()["job"] == first.pk and response.json()["field"] == "runs"
    client = Client()
    client.force_login(player)
    page = client.post(reverse("battles:act", args=[battle.pk, "odds"]), {"runs": "20", "version": battle.version})
    assert page.status_code == 409 and f'href="{url}" data-testid="busy-job"' in page.content.decode()
    with mock.patch.object(battle_odds_run, "apply_async"):
        theirs = odds_services.odds_start(user=other, battle_id=standalone(other).pk, runs=20)  # per user, not per site
    assert theirs.owner == other


def test_an_outsider_cannot_start_odds_on_a_battle_not_theirs(player: Any, other: Any) -> None:
    battle = standalone(player)
    response = api_for(other).post(f"/api/v1/fp-battles/{battle.pk}/odds/", {"runs": 999999}, format="json")
    assert response.status_code == 404 and not BattleJob.objects.exists()


@pytest.mark.parametrize(
    ("eager", "runs", "accepted"),
    [(False, 1000, True), (False, 1001, False), (False, 9, False), (True, 200, True), (True, 201, False)],
)
def test_runs_are_bounded_and_lower_when_the_run_happens_in_the_request(
    player: Any, settings: Any, eager: bool, runs: int, accepted: bool
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = eager
    battle = standalone(player)
    top = odds_services.ODDS_MAX_RUNS_EAGER if eager else odds_services.ODDS_MAX_RUNS
    if accepted:
        with mock.patch.object(battle_odds_run, "apply_async"):
            assert odds_services.odds_start(user=player, battle_id=battle.pk, runs=runs).runs == runs
        return
    with pytest.raises(DropshipError) as refused:
        odds_services.odds_start(user=player, battle_id=battle.pk, runs=runs)
    assert refused.value.field == "runs" and f"from 10 to {top}" in refused.value.message
    assert ("inside your request" in refused.value.message) is eager
    assert not BattleJob.objects.exists()
