"""Helpers for browser tests: real Chromium through Playwright, headless, no network."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from playwright.sync_api import Browser, ViewportSize, sync_playwright

from conftest import chromium_path

CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

LAPTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}


@contextmanager
def chromium() -> Iterator[Browser]:
    # Playwright's sync API runs an event loop in this thread; Django's ORM calls made by
    # the test itself are still synchronous and safe. The switch is undone afterwards.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    path = chromium_path()
    assert path, "Chromium not found"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
            try:
                yield browser
            finally:
                browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous
