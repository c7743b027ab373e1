"""The one base of every engine error.

An engine refuses a request the rules do not allow by raising a :class:`RuleError` (or one of
its subclasses): ``message`` says what is allowed, ``field`` names the input at fault when one
is. The service layer turns any of them into a 400 answer naming that field
(:func:`rules.errors.translate`), so no app needs its own translator.
"""

from __future__ import annotations


class RuleError(ValueError):
    """A request the rules refuse. ``field`` names the input at fault (``None`` when no single
    input is); a subclass may set ``default_field``."""

    default_field: str | None = None

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field if field is not None else self.default_field
