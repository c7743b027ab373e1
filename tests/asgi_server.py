"""A real ASGI server (uvicorn) in a subprocess, sharing the test database, for browser tests
that need Server-Sent Events. Django's own live server is WSGI and cannot hold streams."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


def database_url() -> str:
    """The test database as a DATABASE_URL the server process can open."""
    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{s['NAME']}"
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RunningServer(str):
    """The server's base URL, with the process id for measurements."""

    pid: int


@contextmanager
def asgi_server(*, redis_url: str | None = None, env: Mapping[str, str] | None = None) -> Iterator[RunningServer]:
    """Start uvicorn on a free loopback port; yields its base URL; stops it afterwards. ``env``:
    more environment for the server (``DATABASE_POOL_MAX``, say)."""
    port = free_port()
    environment = {k: v for k, v in os.environ.items() if k not in {"DJANGO_ALLOW_ASYNC_UNSAFE", "REDIS_URL"}}
    environment.update({"DATABASE_URL": database_url(), "DEBUG": "false", "DJANGO_SETTINGS_MODULE": "config.settings"})
    environment.update(env or {})
    if redis_url:
        environment["REDIS_URL"] = redis_url
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=environment,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if process.poll() is not None:
                    raise RuntimeError("the ASGI server exited while starting") from None
                time.sleep(0.2)
        else:
            raise RuntimeError("the ASGI server did not start within 30 s")
        running = RunningServer(f"http://127.0.0.1:{port}")
        running.pid = process.pid
        yield running
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def database_connections(pid: int) -> set[str]:
    """The database connections process ``pid`` holds: on PostgreSQL the local addresses of its
    TCP sockets to the server's port (not every backend of the test database: threads of the
    test process, such as browser tests' live servers, may hold some), otherwise its open file
    descriptors on the SQLite file."""
    fds = os.listdir(f"/proc/{pid}/fd")
    if connection.vendor != "postgresql":
        name = os.path.realpath(connection.settings_dict["NAME"])
        return {fd for fd in fds if _link(f"/proc/{pid}/fd/{fd}") == name}
    port = int(connection.settings_dict.get("PORT") or 5432)
    inodes = {link[len("socket:[") : -1] for fd in fds if (link := _link(f"/proc/{pid}/fd/{fd}")).startswith("socket:[")}
    held = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, remote, state, inode = fields[1], fields[2], fields[3], fields[9]
            if state == "01" and int(remote.rsplit(":", 1)[1], 16) == port and inode in inodes:  # established
                held.add(local)
    return held


def _link(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return ""
