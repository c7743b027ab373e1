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


class CspViolation(AssertionError):
    """A page broke the Content-Security-Policy (an inline script or handler, code in an attribute)."""


@contextmanager
def chromium() -> Iterator[Browser]:
    """Headless Chromium. Every page of every context it opens is watched: a message in the
    console saying the Content-Security-Policy refused something fails the test at the end."""
    # Playwright's sync API runs an event loop in this thread; Django's ORM calls made by
    # the test itself are still synchronous and safe. The switch is undone afterwards.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    path = chromium_path()
    assert path, "Chromium not found"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
            refused: list[str] = []
            _watch_csp(browser, refused)
            try:
                yield browser
            finally:
                browser.close()
            if refused:
                raise CspViolation("The Content-Security-Policy refused: " + " | ".join(refused[:5]))
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


def _watch_csp(browser: Browser, refused: list[str]) -> None:
    """Record the CSP refusals of every page in contexts made by ``browser.new_context``."""
    make_context = browser.new_context

    def watched(*args, **kwargs):  # type: ignore[no-untyped-def]
        context = make_context(*args, **kwargs)

        def on_console(message) -> None:  # type: ignore[no-untyped-def]
            if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
                refused.append(message.text)

        context.on("page", lambda page: page.on("console", on_console))
        return context

    def watched_page(**kwargs):  # type: ignore[no-untyped-def]
        return watched(**kwargs).new_page()

    browser.new_context = watched  # type: ignore[method-assign]
    browser.new_page = watched_page  # type: ignore[method-assign]


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
