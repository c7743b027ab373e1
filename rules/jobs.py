"""What every background job (odds runs, campaign exports and imports) shares: queueing on
commit without leaving a job behind when the broker is down, a heartbeat, and a sweeper that
ends jobs whose worker was lost.

Export and import jobs of a game's campaigns share one runner, :class:`Transfers`.

A job row carries a status field (``queued``/``pending``, ``running``, ``done``, ``failed``), a
message field and a ``heartbeat`` timestamp the worker writes as it makes progress. There is no
Celery beat: the apps call :func:`sweep` whenever a job is read or listed, or a new one started.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.core.cache import cache
from django.db import models, transaction
from django.utils import timezone
from django.utils.module_loading import import_string
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


def enqueue_on_commit(task: str, job_id: int, *, mark_failed: Callable[[str], None]) -> None:
    """Send the Celery task at the dotted path ``task`` (``"battles.tasks.battle_odds_run"``),
    called with ``job_id``, to the broker once the current transaction commits. A path, not the
    task itself: a service names the task that calls it back without importing it.

    When the broker cannot be reached, ``mark_failed(QUEUE_DOWN)`` ends the job (its row was
    committed already) and :class:`QueueUnavailable` is raised out of the commit, so the service
    that started the job, and the request, answer 503 instead of leaving a job queued for good.
    In eager mode (local play) the task runs here; its own errors end the job (the services
    that run jobs catch everything), so only broker errors reach this point.
    """

    def send() -> None:
        try:
            import_string(task).apply_async(args=[job_id])
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


class _Swept(Exception):
    """The job was ended by the sweeper while it ran: what it made is thrown away."""


@dataclass(frozen=True)
class Transfers:
    """The export and import jobs of one game's campaigns (Five Parsecs campaigns, Bug Hunt
    squads), on a model with the :class:`rules.models.TransferJob` fields, an ``owner`` and a
    foreign key ``target`` to what is exported or was imported.

    ``export(user, target_id)`` returns the document, ``export_words(document)`` says what it
    holds; ``import_(user, document, progress)`` returns the new row (it has a ``name``),
    raising :class:`DropshipError` (nothing written) for a bad document, which ``check``, when
    given, refuses before a job is made. ``task`` is the dotted path of the Celery task that
    calls :meth:`run`."""

    model: Any
    label: str
    app: str
    target: str
    task: str
    export: Callable[[Any, int], dict[str, Any]]
    export_words: Callable[[dict[str, Any]], str]
    import_: Callable[[Any, Any, Callable[[int], None]], Any]
    check: Callable[[Any], None] | None = None
    max_bytes: int = 2_000_000

    def as_dict(self, job: Any) -> dict[str, Any]:
        """The job as the API shows it: the target once known, the document once exported."""
        done = job.state == "done"
        return {
            "id": job.pk,
            "kind": job.kind,
            "state": job.state,
            "progress": self.progress(job),
            "message": job.message,
            self.target: getattr(job, f"{self.target}_id") if job.kind == "export" or done else None,
            "document": job.document if job.kind == "export" and done else None,
            "created": job.created,
        }

    def document_from_body(self, data: Any, content_length: Any) -> dict[str, Any]:
        """The export document an API body carries: the JSON object itself or ``{"text":
        "<JSON>"}``. Refused before it is read when its stated length is over ``max_bytes``;
        raises :class:`DropshipError` naming ``text`` or ``file`` for what is not a JSON object."""
        length = str(content_length or "0")
        self.size_check(int(length) if length.isdigit() else 0, field="file")
        doc: Any = data
        if isinstance(doc, dict) and set(doc) == {"text"} and isinstance(doc["text"], str):
            try:
                doc = json.loads(doc["text"])
            except json.JSONDecodeError as exc:
                raise DropshipError(f"text: this is not JSON ({exc.msg} at line {exc.lineno}).", field="text") from exc
        if not isinstance(doc, dict):
            raise DropshipError(f"Send the {self.label} export (a JSON object) as the body.", field="file")
        return dict(doc)

    def document_from_form(self, upload: Any, text: str) -> Any:
        """The export an import form carries, parsed: the uploaded file ``upload`` or else the
        pasted ``text``. Refused unread when over ``max_bytes`` (naming ``file`` or ``text``);
        raises :class:`DropshipError` naming ``file`` for what is not JSON."""
        if upload:
            self.size_check(upload.size or 0, field="file")
            text = upload.read().decode("utf-8", errors="replace")
        else:
            self.size_check(len(text.encode()), field="text")
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise DropshipError(f"file: this is not JSON ({exc.msg} at line {exc.lineno}).", field="file") from exc

    def size_check(self, size: int, *, field: str) -> None:
        """Refuse an import of ``size`` bytes over ``max_bytes``, naming ``field`` and the limit."""
        if size > self.max_bytes:
            raise DropshipError(
                f"{field}: the import is {size:,} bytes; at most {self.max_bytes:,} bytes "
                f"({self.max_bytes / 1_000_000:g} MB) are allowed. Nothing was stored.",
                field=field,
                extra={"limit": self.max_bytes},
            )

    def progress_key(self, job_id: int) -> str:
        return f"{self.app}:job:{job_id}:progress"

    def progress(self, job: Any) -> int:
        """The job's progress in percent: the live value while it runs, else the stored one."""
        if job.state == "running":
            return int(cache_get(self.progress_key(job.pk), job.progress))
        return int(job.progress)

    def sweep(self, *, user: Any = None, job_id: int | None = None) -> int:
        """End ``user``'s jobs (or the one job ``job_id``) whose worker was lost (:func:`sweep`)."""
        queryset = self.model.objects.all()
        if user is not None:
            queryset = queryset.filter(owner_id=user.pk)
        if job_id is not None:
            queryset = queryset.filter(pk=job_id)
        return sweep(queryset, label=self.label, state_field="state", message_field="message", queued="pending")

    def start(self, *, user: Any, kind: str, target: Any = None, document: Any = None) -> Any:
        """Queue an export of ``target`` or an import of ``document``; a worker runs it after
        commit (at once, in-process, without Redis).

        Raises :class:`DropshipError` for an unknown ``kind`` or an import over ``max_bytes``
        or holding a NUL character or a non-finite number (``field`` the path inside the
        document, from ``file``; nothing is stored), and :class:`QueueUnavailable` (503) when
        the broker cannot take the job, which is then ``failed`` with a message to try again."""
        with transaction.atomic():
            return self._start(user=user, kind=kind, target=target, document=document)

    def _start(self, *, user: Any, kind: str, target: Any, document: Any) -> Any:
        from rules.payloads import check_json

        if kind not in ("export", "import"):
            raise DropshipError("kind must be export or import.", field="kind")
        if kind == "import":
            self.size_check(len(json.dumps(document).encode()), field="file")
            # An uploaded file or pasted text is parsed by the view, not by the API's JSON
            # parser, so nothing has refused NUL characters yet: jsonb cannot store them.
            check_json(document, field="file")
            if self.check is not None:
                self.check(document)
        self.sweep(user=user)
        job = self.model.objects.create(
            owner=user,
            kind=kind,
            document=document if kind == "import" else None,
            heartbeat=timezone.now(),
            **{self.target: target},
        )
        model = self.model

        def mark_failed(message: str) -> None:
            model.objects.filter(pk=job.pk, state="pending").update(state="failed", message=message, document=None)

        enqueue_on_commit(self.task, job.pk, mark_failed=mark_failed)
        return job

    def run(self, *, job_id: int) -> Any:
        """Run a queued job: the export's document or the imported row, or the reason it failed
        (a failed import writes nothing).

        Every error ends the job: a :class:`DropshipError` with its message, anything else with
        a short message (the traceback goes to the server log). A job already ended, or running
        in a live worker (a message delivered again), is left as it is; one whose worker was
        lost is swept to ``failed`` first. The import's document is dropped once the job ends."""
        self.sweep(job_id=job_id)
        job = self.model.objects.select_related("owner").get(pk=job_id)
        claimed = self.model.objects.filter(pk=job.pk, state="pending").update(
            state="running", progress=5, heartbeat=timezone.now()
        )
        if not claimed:
            return job
        job.state = "running"

        def progress(percent: int) -> None:
            # An import runs in one transaction, so its beats go to the cache where the
            # sweeper sees them before the commit.
            cache_set(self.progress_key(job.pk), percent, 3600)
            beat_in_cache(self.label, job.pk)

        running = self.model.objects.filter(pk=job.pk, state="running")
        target_id = getattr(job, f"{self.target}_id")
        try:
            if job.kind == "export":
                if target_id is None:
                    raise DropshipError(f"The {self.label} was deleted before the export ran.", field=self.target)
                progress(30)
                document = self.export(job.owner, target_id)
                message = self.export_words(document)
                running.update(state="done", progress=100, document=document, message=message, heartbeat=timezone.now())
            else:
                with transaction.atomic():
                    made = self.import_(job.owner, job.document, progress)
                    message = f"Imported as {made.name}."
                    ended = running.update(
                        state="done",
                        progress=100,
                        message=message,
                        document=None,
                        heartbeat=timezone.now(),
                        **{self.target: made},
                    )
                    if not ended:
                        raise _Swept
        except _Swept:
            pass
        except DropshipError as exc:
            running.update(state="failed", message=exc.message, document=None if job.kind == "import" else job.document)
        except Exception as exc:
            what = "The import" if job.kind == "import" else "The export"
            message = unexpected(self.label, job.pk, exc, what=what)
            running.update(state="failed", message=message, document=None if job.kind == "import" else job.document)
        with contextlib.suppress(*BROKER_ERRORS):  # an entry left behind expires on its own
            cache.delete(self.progress_key(job.pk))
        job.refresh_from_db()
        return job
