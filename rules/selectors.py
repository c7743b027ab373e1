"""Reads for the rules app: table lists, one table, roll history."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from rules.engine.dice import Dice
from rules.engine.tables import RangeTable, TableError, TableRoll
from rules.errors import DropshipError, NotFound
from rules.models import Roll, RuleSystem, RuleTable

HISTORY_LENGTH = 50


def system_list() -> QuerySet[RuleSystem]:
    return RuleSystem.objects.all()


def table_list(*, system: str = "", search: str = "", kind: str = "") -> QuerySet[RuleTable]:
    """Tables, filtered by system slug, by kind (``random``/``reference``) and by a search that
    matches the title, the chapter or any entry's result name ("Brat Gang")."""
    tables = RuleTable.objects.select_related("system").filter(owner__isnull=True)
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


def table_get(*, slug: str) -> RuleTable:
    """One table with its entries prefetched. Raises :class:`NotFound`."""
    try:
        return RuleTable.objects.select_related("system").prefetch_related("entries").get(slug=slug)
    except RuleTable.DoesNotExist:
        raise NotFound(f"No table called {slug!r}.", field="slug") from None


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
