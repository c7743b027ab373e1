"""Application errors raised by services; views and the API turn them into clear answers.

Each carries an HTTP status so that the HTML views and the API answer alike: a bad request
names the field and the allowed values (400), a missing role is refused (403), and a write made
against an old version is refused with the current state (409).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rules.engine.dice import DiceError
from rules.engine.errors import RuleError
from rules.engine.tables import TableError


class DropshipError(Exception):
    """A request the rules cannot carry out. ``field`` names the input at fault, if one is."""

    status = 400

    def __init__(self, message: str, *, field: str | None = None, extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.extra = extra or {}

    def as_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"detail": self.message}
        if self.field:
            body["field"] = self.field
        body.update(self.extra)
        return body


class NotAllowed(DropshipError):
    """The user's role does not allow this."""

    status = 403


class NotFound(DropshipError):
    status = 404


class StaleVersion(DropshipError):
    """The write was made against an older version than the stored one."""

    status = 409


def translate(exc: RuleError, *, field: str | None = None, dice_field: str | None = None, where: str = "") -> DropshipError:
    """The 400 answer for an engine's refusal: its message, and the field it names.

    ``field`` is named when the refusal names none. ``dice_field`` names the input that carried
    the dice when the refusal is about impossible dice or a table lookup outside the die
    (:class:`DiceError`, :class:`TableError`). ``where`` prefixes the field (``"enemy."`` gives
    ``enemy.faces``); a refusal that still names no field then names ``where`` itself."""
    named = exc.field or field
    if dice_field is not None and isinstance(exc, (DiceError, TableError)):
        named = dice_field
    if where:
        named = f"{where}{named}" if named else where.rstrip(".")
    return DropshipError(exc.message, field=named or None)


@contextmanager
def rule_errors(*, field: str | None = None, dice_field: str | None = None, where: str = "") -> Iterator[None]:
    """Turn any engine refusal (:class:`RuleError`) raised inside the block into the
    :class:`DropshipError` that views and the API answer with (400 naming the field; see
    :func:`translate` for ``field``, ``dice_field`` and ``where``)."""
    try:
        yield
    except RuleError as exc:
        raise translate(exc, field=field, dice_field=dice_field, where=where) from exc
