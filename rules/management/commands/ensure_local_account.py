"""On the first run of a fresh install, create a local account and print its password."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create the local account 'player' with a random password if no account exists yet."

    def handle(self, *args: Any, **options: Any) -> None:
        user_model = get_user_model()
        if user_model.objects.exists():
            return
        password = secrets.token_urlsafe(12)
        user_model.objects.create_superuser(username="player", email="", password=password)
        self.stdout.write(self.style.SUCCESS(f"Created your local account: username 'player', password '{password}'"))
        self.stdout.write("Write it down; it is shown only once. Change it at /admin/password_change/.")
