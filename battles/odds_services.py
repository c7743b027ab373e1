"""Odds jobs for Five Parsecs battles: play a battle's no-minis set-up automatically many times
(:mod:`battles.engine.odds`) in a worker, with its progress kept on a :class:`BattleJob`, and end
the jobs a lost worker left running.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from battles.engine import nominis, odds
from battles.models import Battle, BattleJob
from battles.nominis_services import nominis_initial
from battles.selectors import battle_for
from battles.services import _engine, _int
from campaigns.selectors import fiveparsecs_tables
from rules import jobs
from rules.errors import DropshipError

#: The most battles one odds run plays with a worker (about 25 ms each: under half a minute).
ODDS_MAX_RUNS = 1000
#: ... and in local play, where Celery runs eagerly inside the request that starts the job: the
#: page must answer within a few seconds, so the run is cut to what plays in about five.
#: (A background thread would hold SQLite's one writer and outlive the request's errors.)
ODDS_MAX_RUNS_EAGER = 200
ODDS_LABEL = "odds"
#: The Celery task that runs an odds job (it calls :func:`odds_run`).
ODDS_TASK = "battles.tasks.battle_odds_run"


class _OddsSwept(Exception):
    """The job was ended by the sweeper while it ran: stop playing battles."""


def odds_max_runs() -> int:
    """The most battles an odds run may play here: :data:`ODDS_MAX_RUNS` with a worker,
    :data:`ODDS_MAX_RUNS_EAGER` when Celery runs eagerly (local play, no ``REDIS_URL``)."""
    return ODDS_MAX_RUNS_EAGER if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False) else ODDS_MAX_RUNS


def odds_sweep(*, user: Any = None, battle_id: int | None = None, job_id: int | None = None) -> int:
    """End the odds jobs (``user``'s, a battle's, or one) whose worker was lost: ``failed``
    with a message to start it again (``rules.jobs.sweep`` states the limits). Called whenever
    jobs are read, listed or started, as there is no scheduler. Returns how many were ended."""
    queryset = BattleJob.objects.all()
    if user is not None:
        queryset = queryset.filter(owner_id=user.pk)
    if battle_id is not None:
        queryset = queryset.filter(battle_id=battle_id)
    if job_id is not None:
        queryset = queryset.filter(pk=job_id)
    return jobs.sweep(queryset, label=ODDS_LABEL, state_field="status", message_field="error", queued="queued")


@transaction.atomic
def odds_start(*, user: Any, battle_id: int, runs: int) -> BattleJob:
    """Queue an odds run of ``runs`` automatic no-minis battles (10 to :func:`odds_max_runs`);
    a Celery worker runs it after commit (in-process without Redis). Whoever may play the
    battle may ask, one queued or running odds job per user at a time.

    Raises :class:`DropshipError` naming ``runs`` (out of range), :class:`rules.jobs.JobBusy`
    (409, naming ``runs``, with the running job's id and page in ``job`` and ``url``), and
    :class:`rules.jobs.QueueUnavailable` (503) when the broker cannot take the job, which is
    then ``failed`` with a message to try again."""
    battle = battle_for(user, battle_id, write=True)
    top = odds_max_runs()
    try:
        runs = _int(runs, "runs", odds.MIN_RUNS, top)
    except DropshipError as exc:
        if top < ODDS_MAX_RUNS:
            raise DropshipError(
                f"{exc.message} Without a job queue the run happens inside your request, so it is kept short; "
                f"with REDIS_URL and a worker, up to {ODDS_MAX_RUNS}.",
                field="runs",
            ) from exc
        raise
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()  # one start per user at a time
    odds_sweep(user=user)
    busy = BattleJob.objects.filter(owner_id=user.pk, status__in=("queued", "running")).order_by("pk").first()
    if busy is not None:
        url = reverse("battles:job", args=[busy.pk])
        raise jobs.JobBusy(
            f"Your odds run of {busy.runs} battles is still {busy.status} ({url}); one at a time, start this one when it ends.",
            field="runs",
            extra={"job": busy.pk, "url": url},
        )
    nominis_initial(battle)  # refuse a set-up the no-minis rules cannot play, now
    job = BattleJob.objects.create(battle=battle, owner=user, runs=runs, heartbeat=timezone.now())

    def mark_failed(message: str) -> None:
        BattleJob.objects.filter(pk=job.pk, status="queued").update(status="failed", error=message)

    jobs.enqueue_on_commit(ODDS_TASK, job.pk, mark_failed=mark_failed)
    return job


def _odds_stance(battle: Battle) -> str:
    """The stance the odds lead with: the one the battle's no-minis play uses, else the default."""
    options = (((battle.nominis or {}).get("state") or {}).get("options")) or {}
    stance = options.get("stance")
    return str(stance) if stance in nominis.STANCES else nominis.DEFAULT_STANCE


def odds_run(*, job_id: int) -> None:
    """Run a queued odds job: progress and the heartbeat go up as battles are played; the
    result is ``Odds.as_dict()``, or the reason it failed. The job's battles are shared among
    the stances of automatic play (cautious, steady, reckless, on the same seeds), so the result
    shows how the stance changes the chance to Hold the Field; its headline is the stance of the
    battle's no-minis play, else Steady.

    Every error ends the job: a :class:`DropshipError` with its message, anything else with a
    short message (the traceback goes to the server log). A job already ended, or running in a
    live worker (a message delivered again), is left as it is; one whose worker was lost is
    swept to ``failed`` first, and a run swept while it plays stops at its next beat."""
    odds_sweep(job_id=job_id)
    job = BattleJob.objects.select_related("battle").get(pk=job_id)
    if not BattleJob.objects.filter(pk=job.pk, status="queued").update(status="running", progress=0, heartbeat=timezone.now()):
        return
    running = BattleJob.objects.filter(pk=job.pk, status="running")

    def progress(done: int, runs: int) -> None:
        if not running.update(progress=min(100, done * 100 // max(runs, 1)), heartbeat=timezone.now()):
            raise _OddsSwept

    try:
        state = nominis_initial(job.battle, mode="automatic", stance=_odds_stance(job.battle))
        made = _engine(
            lambda: odds.run_odds(
                state,
                fiveparsecs_tables(),
                runs=job.runs,
                seed=int(job.battle.setup.get("seed") or 0) + job.pk,
                progress=progress,
                every=max(1, job.runs // 20),
                stances=tuple(nominis.STANCES),
            ),
            where="",
        )
        running.update(status="done", progress=100, result=made.as_dict(), heartbeat=timezone.now())
    except _OddsSwept:
        pass
    except DropshipError as exc:
        running.update(status="failed", error=exc.message)
    except Exception as exc:
        running.update(status="failed", error=jobs.unexpected(ODDS_LABEL, job.pk, exc, what="The odds run"))
