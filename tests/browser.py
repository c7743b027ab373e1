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


def login(page, base: str, username: str, password: str = "correct horse battery") -> None:  # type: ignore[no-untyped-def]
    """Sign ``username`` in through the login form (the factories' password by default)."""
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()


def laptop_and_phone(browser: Browser, base: str, owner: str, player: str):  # type: ignore[no-untyped-def]
    """Two signed-in pages at the table: ``owner`` on a laptop, ``player`` on a touch phone."""
    laptop = browser.new_context(viewport=LAPTOP).new_page()
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    login(laptop, base, owner)
    login(phone, base, player)
    return laptop, phone


def join_by_code(page, base: str, code: str) -> None:  # type: ignore[no-untyped-def]
    """Join a room with the code shown on the owner's screen."""
    page.goto(f"{base}/rooms/join/")
    page.get_by_label("Code from the owner's screen").fill(code)
    page.get_by_role("button", name="Join").click()
