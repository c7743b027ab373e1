"""Celery tasks for battles: they take ids and call services."""

from __future__ import annotations

from celery import shared_task

from battles import services


@shared_task
def battle_odds_run(job_id: int) -> None:
    """Run an odds job (``battles.services.odds_run``)."""
    services.odds_run(job_id=job_id)
