"""Write or check ``fixtures/manifest.json``, the list of every shipped rule table."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rules import fixturefiles


class Command(BaseCommand):
    help = "Write (--write) or check (default) fixtures/manifest.json against the fixtures."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--write", action="store_true", help="Rewrite the manifest from the fixtures.")

    def handle(self, *args: Any, **options: Any) -> None:
        rows = fixturefiles.manifest(fixturefiles.read_all())
        text = json.dumps(rows, indent=1, ensure_ascii=False) + "\n"
        if options["write"]:
            fixturefiles.MANIFEST_PATH.write_text(text, encoding="utf-8")
            random = sum(1 for r in rows if r["kind"] == "random")
            self.stdout.write(f"Wrote {len(rows)} tables ({random} random, {len(rows) - random} reference).")
            return
        current = fixturefiles.MANIFEST_PATH.read_text(encoding="utf-8") if fixturefiles.MANIFEST_PATH.exists() else ""
        if current != text:
            raise CommandError("fixtures/manifest.json is out of date: run `manage.py tables_manifest --write`.")
        self.stdout.write(f"Manifest matches the fixtures ({len(rows)} tables).")
