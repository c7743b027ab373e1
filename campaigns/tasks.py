"""Celery tasks for campaigns: they take ids and call services."""

from __future__ import annotations

from celery import shared_task

from campaigns import services


# Acknowledged after the run, and handed back to the queue if the worker dies mid-job. The
# service claims only a queued job: given one again, it ends it when its heartbeat is stale
# (the worker was lost) and otherwise leaves it to the worker still beating, so a job never
# stays "running" for good nor runs twice at once.
@shared_task(acks_late=True, reject_on_worker_lost=True)
def campaign_job_run(job_id: int) -> str:
    """Run an export or import job (``campaigns.services.job_run``); returns its state."""
    return services.job_run(job_id=job_id).state
