"""Reads for the rules app: table lists, one table, roll history.

Tables with an ``owner`` are a user's own: only their owner sees them (lists, detail, rolls);
everyone else gets "not found", as if they did not exist.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from django.db import connection
from django.db.models import Count, F, Q, QuerySet, Subquery

from rules.display import slugs_in, slugs_in_text
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable, TableError, TableRoll
from rules.errors import DropshipError, NotAllowed, NotFound
from rules.models import Roll, RuleSystem, RuleTable, TablesVersion

HISTORY_LENGTH = 50


def system_list() -> QuerySet[RuleSystem]:
    return RuleSystem.objects.all()


def _owner_id(user: Any) -> int | None:
    """The id of a signed-in user; ``None`` for no user or an anonymous one."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return int(user.pk)


def _visible(user: Any) -> Q:
    owner_id = _owner_id(user)
    return Q(owner__isnull=True) | Q(owner_id=owner_id) if owner_id is not None else Q(owner__isnull=True)


# -- rule tables in memory ---------------------------------------------------------------------

#: How many users' own tables a process keeps in memory at once (least recently read go first).
OWN_TABLES_KEPT = 256


class _TablesCache:
    """The engine tables this process read, under the :class:`TablesVersion` token it read them
    at: book tables by system, and users' own tables by (system, user id)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.token: str | None = None
        self.book: dict[str, dict[str, RangeTable]] = {}
        self.own: OrderedDict[tuple[str, int], dict[str, RangeTable]] = OrderedDict()

    def clear(self) -> None:
        with self.lock:
            self.token = None
            self.book.clear()
            self.own.clear()


_TABLES = _TablesCache()


def tables_version() -> str:
    """The rule tables' version token (one query); empty before the first change is recorded.

    Read on every use of the tables in memory (a tracker action reads it with its room instead,
    :func:`tables_version_column`), so written as plain SQL: the ORM's compiling of
    ``TablesVersion.objects.filter(pk=1)`` cost more than the query."""
    meta, quote = TablesVersion._meta, connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT token FROM {quote(meta.db_table)} WHERE {quote(meta.pk.column or 'id')} = %s", [1])
        row = cursor.fetchone()
    return str(row[0]) if row and row[0] else ""


def tables_version_column() -> Subquery:
    """:func:`tables_version` as an expression, to read the token in the same statement as
    another query (``.annotate(tables_token=tables_version_column())``), saving its round trip:
    how a tracker action reads it with the room it locks. ``None`` before the first change."""
    return Subquery(TablesVersion.objects.filter(pk=1).values("token")[:1])


def forget_cached_tables() -> None:
    """Drop this process's tables in memory (the next read loads them again). Other processes
    notice a change by the version token; see :func:`rules.services.tables_changed`."""
    _TABLES.clear()


def _engine_tables(system: str, owner_id: int | None) -> dict[str, RangeTable]:
    tables = RuleTable.objects.filter(system__slug=system).prefetch_related("entries")
    tables = tables.filter(owner_id=owner_id) if owner_id is not None else tables.filter(owner__isnull=True)
    return {t.slug: t.to_engine() for t in tables}


def system_tables(*, system: str, user: Any = None, token: str | None = None) -> dict[str, RangeTable]:
    """The rule tables of ``system`` (a :class:`RuleSystem` slug) as engine tables by slug.

    Without ``user`` (or for an anonymous one): the book tables. With a signed-in ``user``:
    also that user's own tables of ``system``, which shadow a book table of the same slug (as
    :func:`visible_tables` does). Never another user's.

    Read from this process's memory, keyed by :func:`tables_version`: one query when nothing
    changed since the last read (none when the caller read the version ``token`` already, with
    :func:`tables_version_column`), the tables again when something did. Returns a new dict each
    call (callers may add to it); the tables themselves are frozen. An unknown system or one
    whose tables are not loaded gives an empty dict: callers that need a table say so.
    """
    token = tables_version() if token is None else token
    owner_id = _owner_id(user)
    with _TABLES.lock:
        if _TABLES.token != token:
            _TABLES.token = token
            _TABLES.book.clear()
            _TABLES.own.clear()
        book = _TABLES.book.get(system)
        own = _TABLES.own.get((system, owner_id)) if owner_id is not None else {}
        if owner_id is not None and own is not None:
            _TABLES.own.move_to_end((system, owner_id))
    if book is None:
        book = _engine_tables(system, None)
        with _TABLES.lock:
            if _TABLES.token == token:  # a newer version read meanwhile keeps its own
                _TABLES.book[system] = book
    if own is None:
        own = _engine_tables(system, owner_id)
        with _TABLES.lock:
            if _TABLES.token == token:
                _TABLES.own[(system, owner_id)] = own  # type: ignore[index]
                while len(_TABLES.own) > OWN_TABLES_KEPT:
                    _TABLES.own.popitem(last=False)
    return {**book, **own}


def table_list(*, system: str = "", search: str = "", kind: str = "", user: Any = None) -> QuerySet[RuleTable]:
    """Tables, filtered by system slug, by kind (``random``/``reference``) and by a search that
    matches the title, the chapter or any entry's result name ("Brat Gang").

    Without ``user`` (or for an anonymous one): the book tables only. With a signed-in ``user``:
    the book tables and that user's own tables, never anyone else's."""
    tables = RuleTable.objects.select_related("system").filter(_visible(user))
    if system:
        tables = tables.filter(system__slug=system)
    if kind == "random":
        tables = tables.exclude(die="")
    elif kind == "reference":
        tables = tables.filter(die="")
    if search:
        matching = Q(title__icontains=search) | Q(chapter__icontains=search) | Q(entries__result__icontains=search)
        tables = tables.filter(matching).distinct()
    return tables.order_by("system__position", "book", "chapter", "title")


def visible_tables(*, user: Any, slugs: Iterable[str]) -> dict[str, RuleTable]:
    """The tables ``user`` may use among ``slugs``, by slug: their own, else the book's (a user's
    slug differs from every book slug when made; a book table added later is shadowed)."""
    found: dict[str, RuleTable] = {}
    tables = RuleTable.objects.filter(_visible(user), slug__in=list(slugs)).order_by(F("owner_id").asc(nulls_last=True))
    for table in tables:
        found.setdefault(table.slug, table)
    return found


def table_get_for(*, slug: str, user: Any) -> RuleTable:
    """One table ``user`` may see (their own, else a book table), entries prefetched.

    Raises :class:`NotFound` for a missing table and for another user's table alike."""
    table = (
        RuleTable.objects.select_related("system")
        .prefetch_related("entries")
        .filter(_visible(user), slug=slug)
        .order_by(F("owner_id").asc(nulls_last=True))
        .first()
    )
    if table is None:
        raise NotFound(f"No table called {slug!r}.", field="slug")
    return table


def titles_named_in(*, datas: Iterable[Any], user: Any, texts: Iterable[str] = ()) -> dict[str, str]:
    """``{slug: title}`` for the tables that entries' ``data`` (or ``texts``, such as a table's
    notes) name by slug, limited to the tables ``user`` may see; other slugs are left out."""
    slugs = {slug for data in datas for slug in slugs_in(data)}
    slugs.update(slug for text in texts for slug in slugs_in_text(text))
    if not slugs:
        return {}
    return dict(RuleTable.objects.filter(_visible(user), slug__in=slugs).values_list("slug", "title"))


def user_table_list(*, user: Any) -> QuerySet[RuleTable]:
    """``user``'s own tables with ``entry_count``, by title; none for an anonymous user."""
    owner_id = _owner_id(user)
    if owner_id is None:
        return RuleTable.objects.none()
    return (
        RuleTable.objects.select_related("system")
        .filter(owner_id=owner_id)
        .annotate(entry_count=Count("entries"))
        .order_by("title", "slug")
    )


def user_table_get(*, user: Any, slug: str) -> RuleTable:
    """One of ``user``'s own tables, entries prefetched. Raises :class:`NotFound` for a book
    table, another user's table or a missing one."""
    owner_id = _owner_id(user)
    try:
        if owner_id is None:
            raise RuleTable.DoesNotExist
        return RuleTable.objects.select_related("system").prefetch_related("entries").get(slug=slug, owner_id=owner_id)
    except RuleTable.DoesNotExist:
        raise NotFound(f"You have no table called {slug!r}.", field="slug") from None


def user_table_editable(*, user: Any, slug: str) -> RuleTable:
    """The table ``slug`` if ``user`` may change it (their own). Raises :class:`NotFound` for a
    missing table or another user's, and :class:`NotAllowed` (403) for a book table."""
    table = RuleTable.objects.filter(slug=slug).first()
    owner_id = _owner_id(user)
    if table is None or (table.owner_id is not None and table.owner_id != owner_id):
        raise NotFound(f"You have no table called {slug!r}.", field="slug")
    if table.owner_id is None:
        raise NotAllowed(f"{table.title} is a book table; only your own tables can be changed.", field="slug")
    return table


def roll_history(*, user_id: int | None, session_key: str = "", limit: int = HISTORY_LENGTH) -> QuerySet[Roll]:
    """The last ``limit`` rolls of a user, or of a guest's browser session; newest first."""
    if user_id is not None:
        rolls = Roll.objects.filter(user_id=user_id)
    elif session_key:
        rolls = Roll.objects.filter(user__isnull=True, session_key=session_key)
    else:
        return Roll.objects.none()
    return rolls.select_related("table", "entry").order_by("-created", "-id")[:limit]


def engine_table(table: RuleTable, column: str) -> RangeTable:
    """The engine table for rolling ``table`` in ``column``. Raises :class:`DropshipError` for a
    reference table or an unknown column (naming the columns)."""
    if not table.is_random:
        raise DropshipError(f"{table.title} is a reference table; it has no die to roll.", field="slug")
    engine = table.to_engine()
    if column not in engine.column_names():
        allowed = ", ".join(repr(c) for c in engine.column_names())
        raise DropshipError(f"{table.title} has no column {column!r}; choose one of {allowed}.", field="column")
    return engine


def table_lookup(*, table: RuleTable, value: int, column: str = "") -> TableRoll:
    """Look up ``value`` without logging anything (the API's GET lookup).

    Raises :class:`DropshipError` naming the allowed range when ``value`` is outside the die.
    """
    engine = engine_table(table, column)
    try:
        entry = engine.lookup(value, column)
    except TableError as exc:
        raise DropshipError(str(exc), field="roll") from exc
    record = Dice.enter_total(engine.notation, value, reason=table.title)
    return TableRoll(record=record, value=value, entry=entry, clamped=False)
