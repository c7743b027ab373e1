"""Celery app. Without REDIS_URL tasks run eagerly in the web process."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("dropship")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
