"""Reads for the rules app: table lists, one table, roll history."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from rules.errors import NotFound
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
