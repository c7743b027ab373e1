"""Celery tasks for Bug Hunt: they take ids and call services."""

from __future__ import annotations

from celery import shared_task

from bughunt import history_services


# Acknowledged after the run and handed back if the worker dies (see campaigns.tasks).
@shared_task(acks_late=True, reject_on_worker_lost=True)
def squad_job_run(job_id: int) -> str:
    """Run a squad export or import job (``rules.jobs.Transfers.run``); returns its state."""
    return str(history_services.JOBS.run(job_id=job_id).state)
