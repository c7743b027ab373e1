"""API authentication: DRF's token authentication with its lookup as one fixed statement.

Every API call with ``Authorization: Token <key>`` looks its token up. DRF builds that query
through the ORM each time (``Token.objects.select_related("user").get(key=...)``), which costs
more CPU than the query itself; here the same join is written once per process and each call
runs it with its key. Answers are DRF's: the user and the token, or 401 ("Invalid token." /
"User inactive or deleted.").
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from rules.writes import RowShape, field_of, quoted, table_of

_STATEMENT: dict[str, str] = {}


def _statement() -> str:
    """The user of a token, with the token's own columns as ``token_key`` and ``token_created``."""
    found = _STATEMENT.get(connection.vendor)
    if found is None:
        user = get_user_model()
        key, created = quoted(field_of(Token, "key")), quoted(field_of(Token, "created"))
        found = _STATEMENT[connection.vendor] = (
            f"SELECT u.*, t.{key} AS token_key, t.{created} AS token_created FROM {table_of(user)} u "
            f"JOIN {table_of(Token)} t ON t.{quoted(field_of(Token, 'user'))} = u.{quoted(field_of(user, 'pk'))} "
            f"WHERE t.{key} = %s"
        )
    return found


#: Per database vendor: how the statement's rows become a user (:class:`rules.writes.RowShape`).
_SHAPE: dict[str, RowShape] = {}


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>``, as DRF's, the token and its user read by one statement
    written once per process (:func:`_statement`), its row built as the ORM builds rows.

    Returns ``(user, token)``; raises :class:`rest_framework.exceptions.AuthenticationFailed`
    (401) for an unknown key or an inactive user."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        with connection.cursor() as cursor:
            cursor.execute(_statement(), [key])
            row = cursor.fetchone()
            if row is None:
                raise exceptions.AuthenticationFailed(_("Invalid token."))
            shape = _SHAPE.get(connection.vendor)
            if shape is None:
                token_fields = {"token_key": field_of(Token, "key"), "token_created": field_of(Token, "created")}
                columns = [column[0] for column in cursor.description]
                shape = _SHAPE[connection.vendor] = RowShape(get_user_model(), columns, token_fields)
        user: Any = shape.build(row)
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        token = Token(key=user.token_key, user=user, created=user.token_created)
        token._state.adding = False
        token._state.db = user._state.db
        return user, token
