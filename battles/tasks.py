"""Celery tasks for battles: they take ids and call services."""

from __future__ import annotations

from celery import shared_task

from battles import odds_services


# Acknowledged after the run, and handed back to the queue if the worker dies mid-job. The
# service claims only a queued job: given one again, it ends it when its heartbeat is stale
# (the worker was lost) and otherwise leaves it to the worker still beating, so a job never
# stays "running" for good nor runs twice at once.
@shared_task(acks_late=True, reject_on_worker_lost=True)
def battle_odds_run(job_id: int) -> None:
    """Run an odds job (``battles.odds_services.odds_run``)."""
    odds_services.odds_run(job_id=job_id)
