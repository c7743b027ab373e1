"""Celery tasks for campaigns: they take ids and call services."""

from __future__ import annotations

from celery import shared_task

from campaigns import services


@shared_task
def campaign_job_run(job_id: int) -> str:
    """Run an export or import job (``campaigns.services.job_run``); returns its state."""
    return services.job_run(job_id=job_id).state
