"""The test suite's settings: :mod:`config.settings`, with each pytest-xdist worker on a Redis
database of its own, as pytest-django gives each its own test database (``test_<name>_gw1``).

Worker ``gwN`` takes database ``(d - N) mod 16`` of ``REDIS_URL``'s ``d``, so two workers never
flush (the per-test ``cache.clear()``), count or store events in each other's database. The
rewritten ``REDIS_URL`` stays in the environment for the servers a test starts; it is rewritten
once per worker, not again in those servers.
"""

from __future__ import annotations

import os
from urllib.parse import urlparse

REDIS_DATABASES = 16  # Redis's default number of databases


def worker_redis_url(url: str, worker: int) -> str:
    """``url`` with its database number ``d`` (0 when absent) replaced by ``(d - worker) mod 16``."""
    parts = urlparse(url)
    database = int(parts.path.lstrip("/") or 0)
    return parts._replace(path=f"/{(database - worker) % REDIS_DATABASES}").geturl()


_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if os.environ.get("REDIS_URL") and _worker.startswith("gw") and "DROPSHIP_REDIS_WORKER" not in os.environ:
    os.environ["REDIS_URL"] = worker_redis_url(os.environ["REDIS_URL"], int(_worker.removeprefix("gw")))
    os.environ["DROPSHIP_REDIS_WORKER"] = _worker

from config.settings import *  # noqa: E402, F403
