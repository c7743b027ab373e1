"""The ASGI entry point (what uvicorn serves): startup's objects are frozen out of the garbage
collector's way, with every view imported before the first request."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import gc, sys
before = gc.get_freeze_count()
import config.asgi
print(before, gc.get_freeze_count(), "live.apis" in sys.modules, "bughunt.views" in sys.modules)
"""


def test_serving_freezes_what_startup_built_with_the_views_loaded() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    before, frozen, apis, views = out.stdout.split()
    assert int(before) == 0 and int(frozen) > 10_000  # modules, classes, settings, URL patterns
    assert apis == views == "True"  # the URLconf's views came in before the freeze, not at the first request
