"""What every background job (odds runs, campaign exports and imports) shares: queueing on
commit without leaving a job behind when the broker is down, a heartbeat, and a sweeper that
ends jobs whose worker was lost.

A job row carries a status field (``queued``/``pending``, ``running``, ``done``, ``failed``), a
message field and a ``heartbeat`` timestamp the worker writes as it makes progress. There is no
Celery beat: the apps call :func:`sweep` whenever a job is read or listed, or a new one started.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.core.cache import cache
from django.db import models, transaction
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError

from rules.errors import DropshipError

logger = logging.getLogger(__name__)

#: A running job whose heartbeat is older than this is taken for dead. Workers beat at least
#: every few seconds while they play battles or write rows, so five minutes is generous.
RUNNING_LIMIT = timedelta(minutes=5)
#: A job still waiting for a worker after this long is given up: the message was lost.
QUEUED_LIMIT = timedelta(minutes=30)
#: Seconds a client is asked to wait before trying again when the queue is down.
RETRY_AFTER = 30

WORKER_LOST = "Stopped: the worker was lost; start it again."
NEVER_STARTED = "Stopped: no worker picked the job up in 30 minutes; start it again."
QUEUE_DOWN = "The job queue is unreachable; try again in a minute."


class QueueUnavailable(DropshipError):
    """The broker refused the job: answered 503 with ``Retry-After``."""

    status = 503

    def __init__(self, message: str = QUEUE_DOWN, *, field: str | None = None, extra: dict[str, Any] | None = None) -> None:
        super().__init__(message, field=field, extra=extra)
        self.headers = {"Retry-After": str(RETRY_AFTER)}


class JobBusy(DropshipError):
    """A job of the same kind is still queued or running (409)."""

    status = 409


def _broker_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [KombuOperationalError, ConnectionError, TimeoutError, OSError]
    try:
        import redis

        errors.append(redis.RedisError)
    except ImportError:  # pragma: no cover - redis is a dependency; a broker without it still works
        pass
    return tuple(errors)


BROKER_ERRORS = _broker_errors()


def enqueue_on_commit(task: Any, job_id: int, *, mark_failed: Callable[[str], None]) -> None:
    """Send ``task(job_id)`` to the broker once the current transaction commits.

    When the broker cannot be reached, ``mark_failed(QUEUE_DOWN)`` ends the job (its row was
    committed already) and :class:`QueueUnavailable` is raised out of the commit, so the service
    that started the job, and the request, answer 503 instead of leaving a job queued for good.
    In eager mode (local play) the task runs here; its own errors end the job (the services
    that run jobs catch everything), so only broker errors reach this point.
    """

    def send() -> None:
        try:
            task.apply_async(args=[job_id])
        except BROKER_ERRORS:
            logger.exception("Could not queue job %s", job_id)
            mark_failed(QUEUE_DOWN)
            raise QueueUnavailable(extra={"job": job_id}) from None

    transaction.on_commit(send)


def cache_get(key: str, default: Any = None) -> Any:
    """``cache.get`` that reads a cache which cannot be reached (Redis down) as empty: a job's
    page must still answer, from the database alone."""
    try:
        return cache.get(key, default)
    except BROKER_ERRORS:
        logger.warning("The cache is unreachable; reading %s as empty", key)
        return default


def cache_set(key: str, value: Any, timeout: int) -> None:
    """``cache.set`` that lets a job go on when the cache cannot be reached."""
    try:
        cache.set(key, value, timeout)
    except BROKER_ERRORS:
        logger.warning("The cache is unreachable; %s not written", key)


def heartbeat_key(label: str, job_id: int) -> str:
    return f"jobs:{label}:{job_id}:heartbeat"


def beat_in_cache(label: str, job_id: int) -> None:
    """Record a heartbeat outside the database: for work inside a transaction (an import) whose
    own writes nobody sees until it commits."""
    cache_set(heartbeat_key(label, job_id), timezone.now().timestamp(), int(RUNNING_LIMIT.total_seconds()) * 2)


def last_beat(label: str, job_id: int, stored: datetime | None) -> datetime | None:
    """The freshest of the stored heartbeat and the one in the cache."""
    cached = cache_get(heartbeat_key(label, job_id))
    if cached is None:
        return stored
    beat = datetime.fromtimestamp(float(cached), tz=timezone.get_current_timezone())
    return max(beat, stored) if stored else beat


def sweep(
    queryset: models.QuerySet[Any],
    *,
    label: str,
    state_field: str,
    message_field: str,
    queued: str,
    now: datetime | None = None,
) -> int:
    """End the jobs in ``queryset`` whose worker is gone: ``running`` with a heartbeat older
    than :data:`RUNNING_LIMIT`, or ``queued`` (named by ``queued``) for longer than
    :data:`QUEUED_LIMIT`. Each becomes ``failed`` with a message saying to start it again;
    the update is conditional on the state, so a worker finishing at that moment wins or loses
    cleanly. Returns how many were ended."""
    now = now or timezone.now()
    ended = 0
    candidates = queryset.filter(**{f"{state_field}__in": (queued, "running")}).only("pk", state_field, "heartbeat", "created")
    for job in candidates:
        state = getattr(job, state_field)
        if state == "running":
            beat = last_beat(label, job.pk, job.heartbeat) or job.created
            if now - beat <= RUNNING_LIMIT:
                continue
            message = WORKER_LOST
        else:
            if now - (job.heartbeat or job.created) <= QUEUED_LIMIT:
                continue
            message = NEVER_STARTED
        ended += (
            type(job).objects.filter(pk=job.pk, **{state_field: state}).update(**{state_field: "failed", message_field: message})
        )
        logger.warning("Job %s %s was swept: %s", label, job.pk, message)
    return ended


def unexpected(job_label: str, job_id: int, exc: BaseException, *, what: str) -> str:
    """Log ``exc`` with its traceback and return the short message a user reads for it."""
    logger.error("Job %s %s failed", job_label, job_id, exc_info=exc)
    return f"{what} stopped on an unexpected error ({type(exc).__name__}); nothing was kept. Try again, or report job {job_id}."
