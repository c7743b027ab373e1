"""Writes for the rules app. Every roll, rolled or entered, is logged as one :class:`Roll`;
users' own tables are made, changed, imported, exported and deleted here."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.db import IntegrityError, transaction

from rules import fixturefiles
from rules.engine import names
from rules.engine.dice import Dice, DiceError, RollRecord, parse
from rules.engine.tables import TableRoll
from rules.errors import DropshipError, NotAllowed, NotFound, rule_errors
from rules.models import Roll, RuleSystem, RuleTable, TableEntry, TablesVersion
from rules.selectors import engine_table, forget_cached_tables, table_get_for


@dataclass(frozen=True)
class Roller:
    """Who rolls: a signed-in user (``user_id``) or a guest known by their session key."""

    user_id: int | None
    session_key: str = ""


@dataclass(frozen=True)
class TableResult:
    """What a roll on a table gave: the stored roll, the engine result and the table."""

    roll: Roll
    outcome: TableRoll
    table: RuleTable


def tables_changed() -> str:
    """Record that rule tables changed: a new :class:`TablesVersion` token, so every process
    reads the tables again on its next :func:`rules.selectors.system_tables`. Call it in the
    transaction that changes them (a rollback takes the new token back with the change).
    Returns the new token."""
    token = uuid.uuid4().hex
    if not TablesVersion.objects.filter(pk=1).update(token=token):
        TablesVersion.objects.update_or_create(pk=1, defaults={"token": token})
    forget_cached_tables()
    return token


def _log(*, roller: Roller, table: RuleTable, outcome: TableRoll, column: str, seed: int | None) -> Roll:
    entry = table.entries.get(column=outcome.entry.column, position=outcome.entry.position)
    return Roll.objects.create(
        user_id=roller.user_id,
        session_key="" if roller.user_id else roller.session_key,
        table=table,
        column=column,
        value=outcome.value,
        result=outcome.entry.result,
        entry=entry,
        record=outcome.record.as_dict(),
        seed=seed,
    )


@transaction.atomic
def table_roll(*, table: RuleTable, roller: Roller, modifier: int = 0, column: str = "", dice: Dice | None = None) -> TableResult:
    """Roll ``table``'s die plus ``modifier`` and log it.

    The total is clamped to the table's span, as the books do. Raises :class:`DropshipError`
    for a reference table or an unknown column (the message lists the columns).
    """
    engine = engine_table(table, column)
    dice = dice or Dice()
    outcome = engine.roll(dice, modifier=modifier, column=column)
    roll = _log(roller=roller, table=table, outcome=outcome, column=column, seed=dice.seed)
    return TableResult(roll=roll, outcome=outcome, table=table)


@transaction.atomic
def table_enter(*, table: RuleTable, roller: Roller, value: int, modifier: int = 0, column: str = "") -> TableResult:
    """Log a physical roll: ``value`` is what the player's dice show (before ``modifier``).

    Raises :class:`DropshipError` naming the possible range when the dice cannot show ``value``.
    """
    engine = engine_table(table, column)
    with rule_errors(dice_field="value"):
        record = Dice.enter_total(engine.notation, value, reason=table.title)
    if modifier:
        record = RollRecord(
            notation=record.notation,
            reason=record.reason,
            faces=record.faces,
            kept=record.kept,
            natural=record.natural,
            modifier=record.modifier + modifier,
            total=(record.total or 0) + modifier,
            entered=True,
        )
    outcome = engine.resolve(record, column=column)
    roll = _log(roller=roller, table=table, outcome=outcome, column=column, seed=None)
    return TableResult(roll=roll, outcome=outcome, table=table)


@dataclass(frozen=True)
class NameResult:
    name: str
    rolls: list[Roll]


@transaction.atomic
def name_generate(*, generator: str, roller: Roller, dice: Dice | None = None) -> NameResult:
    """Make a whole name (world, colony, ship, Corporate Patron; Compendium pp.157-160).

    Every die rolled is logged. Raises :class:`DropshipError` for an unknown generator or when
    its tables are not loaded.
    """
    try:
        chosen = names.recipe(generator)
    except KeyError as exc:
        raise DropshipError(str(exc.args[0]), field="generator") from exc
    books = RuleTable.objects.filter(slug__in=chosen.parts, owner__isnull=True)
    tables = {t.slug: t for t in books.prefetch_related("entries")}
    missing = [slug for slug in chosen.parts if slug not in tables]
    if missing:
        raise DropshipError(
            f"The name tables {', '.join(missing)} are not loaded; run `make run` or load_tables.", field="generator"
        )
    dice = dice or Dice()
    made = names.generate(chosen, {slug: t.to_engine() for slug, t in tables.items()}, dice)
    logged = [
        _log(roller=roller, table=tables[slug], outcome=outcome, column="", seed=dice.seed)
        for slug, outcome in zip(chosen.parts, made.rolls, strict=True)
    ]
    return NameResult(name=made.name, rolls=logged)


# -- user tables --------------------------------------------------------------------------
#
# A user's own table has the shape of a fixture table and is checked by the same code
# (rules.fixturefiles: row shape, slug format, coverage of the die per column, unique positions,
# data keys), with three differences: the owner is always set, effects may run to
# MAX_USER_EFFECT_WORDS words (the user types their own book for their own use), and the source may
# name the book before the page ("core p.64", "Bug Hunt pp.12-13") since a user may copy a table
# of a book we do not ship.

MAX_USER_EFFECT_WORDS = 300
USER_SOURCE_RE = re.compile(r"^(?:[A-Za-z][A-Za-z0-9 '&-]{0,29} )?pp?\.\d+(?:-\d+)?$")
USER_SOURCE_HELP = "'p.18', 'pp.17-24' or, naming the book, 'core p.64'"
MAX_IMPORT_CHARS = 1_000_000
MAX_IMPORT_TABLES = 50
MAX_TABLE_ENTRIES = 1000
MAX_NOTES_CHARS = 5000
RESERVED_SLUGS = frozenset({"new", "import"})
TABLE_LENGTHS = {"slug": 120, "title": 200, "die": 20, "book": 120, "chapter": 200, "source": 40}
ENTRY_LENGTHS = {"result": 200, "column": 80}


def _require_user(user: Any) -> int:
    if user is None or not getattr(user, "is_authenticated", False):
        raise NotAllowed("Sign in to keep tables of your own.", field="user")
    return int(user.pk)


def _table_rows(
    *,
    system: str,
    slug: str,
    title: str,
    die: str,
    source: str,
    notes: str,
    columns: Sequence[str],
    data_keys: Sequence[str],
    entries: Sequence[Mapping[str, Any]],
    book: str,
    chapter: str,
) -> list[dict[str, Any]]:
    """Keyword arguments as fixture rows, so that they are read and checked like a fixture file.
    Entries without a ``position`` are numbered 1, 2, 3 ... per column in the order given."""
    table = {
        "system": [system],
        "slug": slug,
        "title": title,
        "die": die,
        "book": book,
        "chapter": chapter,
        "source": source,
        "notes": notes,
        "columns": list(columns),
        "data_keys": list(data_keys),
    }
    rows: list[dict[str, Any]] = [{"model": "rules.ruletable", "fields": table}]
    counters: dict[Any, int] = {}
    for entry in entries:
        fields = {"table": [slug], **entry}
        column = fields.get("column") or ""
        fields["column"] = column
        if fields.get("position") is None:
            counters[column] = counters.get(column, 0) + 1
            fields["position"] = counters[column]
        rows.append({"model": "rules.tableentry", "fields": fields})
    return rows


def _spec_problems(spec: fixturefiles.TableSpec, *, systems: Mapping[str, RuleSystem]) -> tuple[str | None, list[str]]:
    """What is wrong with ``spec`` beyond the fixture format, as ``(field, messages)``: the first
    problem with a table field, or every problem with the rows (``"entries"``: coverage,
    positions, data keys); ``(None, [])`` when it is fine. Normalises ``spec.die`` ("d6" → "D6")."""
    name = f"Table {spec.slug!r}"
    if spec.system not in systems:
        allowed = ", ".join(sorted(systems))
        return "system", [f"{name}: unknown system {spec.system!r}; choose one of {allowed}."]
    if spec.slug in RESERVED_SLUGS:
        return "slug", [f"{name}: the slug {spec.slug!r} is reserved; choose another."]
    for field_name, limit in TABLE_LENGTHS.items():
        if len(getattr(spec, field_name)) > limit:
            return field_name, [f"{name}: {field_name} has more than {limit} characters."]
    if not spec.title.strip():
        return "title", [f"{name}: the title is empty."]
    if len(spec.notes) > MAX_NOTES_CHARS:
        return "notes", [f"{name}: notes have more than {MAX_NOTES_CHARS} characters."]
    if spec.die:
        try:
            notation = parse(spec.die)
        except DiceError as exc:
            return "die", [f"{name}: {exc}"]
        if notation.count == 0:
            return "die", [f"{name}: the die must roll dice, such as D6, 2D6 or D100; got {spec.die!r}."]
        spec.die = str(notation)
    for field_name, listed in (("columns", spec.columns), ("data_keys", spec.data_keys)):
        if any(not n.strip() for n in listed):
            return field_name, [f"{name}: {field_name.replace('_', ' ')} has an empty name."]
        if len(set(listed)) != len(listed):
            return field_name, [f"{name}: {field_name.replace('_', ' ')} names one name twice."]
    if len(spec.entries) > MAX_TABLE_ENTRIES:
        return "entries", [f"{name} has {len(spec.entries)} rows; at most {MAX_TABLE_ENTRIES} are allowed."]
    found: list[str] = []
    for entry in spec.entries:
        if not entry.result.strip():
            found.append(f"{name}: a row has no result.")
        for field_name, limit in ENTRY_LENGTHS.items():
            if len(getattr(entry, field_name)) > limit:
                found.append(f"{name}: the {field_name} of {entry.result[:40]!r} has more than {limit} characters.")
    found.extend(fixturefiles.problems(spec))
    return ("entries", found) if found else (None, [])


def _check_slug_free(slug: str, *, user_id: int) -> None:
    """Refuse a slug the user already has or a book table has. Other users' tables are never
    looked at: slugs are per owner, so the answer reveals nothing of theirs."""
    if RuleTable.objects.filter(slug=slug, owner_id=user_id).exists():
        raise DropshipError(f"You already have a table called {slug!r}; edit it, or choose another slug.", field="slug")
    if RuleTable.objects.filter(slug=slug, owner__isnull=True).exists():
        raise DropshipError(f"{slug!r} is the slug of a book table; choose another slug.", field="slug")


def _read_one(rows: list[dict[str, Any]]) -> fixturefiles.TableSpec:
    """Read the rows of one table built by :func:`_table_rows`; errors name the field, or the
    row (``extra["row"]``, 0 for the first entry)."""
    try:
        (spec,) = fixturefiles.read_rows(
            rows, label="table", max_effect_words=MAX_USER_EFFECT_WORDS, source_re=USER_SOURCE_RE, source_help=USER_SOURCE_HELP
        )
    except fixturefiles.FixtureError as exc:
        if not exc.row:
            raise DropshipError(exc.detail[:1].upper() + exc.detail[1:], field=exc.field) from exc
        raise DropshipError(
            f"Row {exc.row}: {exc.detail}", field="entries", extra={"row": exc.row - 1, "entry_field": exc.field}
        ) from exc
    return spec


def _checked(spec: fixturefiles.TableSpec) -> fixturefiles.TableSpec:
    systems = {s.slug: s for s in RuleSystem.objects.all()}
    field_name, found = _spec_problems(spec, systems=systems)
    if found:
        raise DropshipError(" ".join(found), field=field_name, extra={"problems": found})
    return spec


def _save(spec: fixturefiles.TableSpec, *, owner_id: int, table: RuleTable | None = None) -> RuleTable:
    """Write ``spec`` as a table of ``owner_id`` (a new one, or ``table`` with its rows replaced)."""
    table = table or RuleTable(owner_id=owner_id)
    table.system = RuleSystem.objects.get(slug=spec.system)
    table.slug = spec.slug
    table.title = spec.title.strip()
    table.die = spec.die
    table.book = spec.book
    table.chapter = spec.chapter
    table.source = spec.source
    table.notes = spec.notes
    table.columns = list(spec.columns)
    table.data_keys = list(spec.data_keys)
    table.save()
    table.entries.all().delete()
    TableEntry.objects.bulk_create(TableEntry.from_engine(table, replace(e, result=e.result.strip())) for e in spec.entries)
    tables_changed()
    return table


@transaction.atomic
def user_table_create(
    *,
    user: Any,
    system: str,
    slug: str,
    title: str,
    die: str,
    source: str,
    notes: str = "",
    columns: Sequence[str] = (),
    data_keys: Sequence[str] = (),
    entries: Sequence[Mapping[str, Any]] = (),
    book: str = "",
    chapter: str = "",
) -> RuleTable:
    """Make a table of ``user``'s own, shaped and checked like a fixture table.

    ``system`` is a rule-system slug; ``die`` is notation (``D6``, ``2D6``, ``D100``) or ``""``
    for a reference table; ``entries`` are dicts with ``low``, ``high``, ``result``, ``effect``,
    ``data`` (a dict), ``column`` and optionally ``position`` (numbered in order per column when
    absent). Raises :class:`DropshipError` naming the field: ``slug`` when the user or a book
    table has it already (slugs are per owner; other users' tables are never looked at), ``entries`` for gaps and overlaps
    (``extra["problems"]`` lists them all; ``extra["row"]`` points at a malformed row), and so on.
    """
    owner_id = _require_user(user)
    rows = _table_rows(
        system=system,
        slug=slug,
        title=title,
        die=die,
        source=source,
        notes=notes,
        columns=columns,
        data_keys=data_keys,
        entries=entries,
        book=book,
        chapter=chapter,
    )
    spec = _checked(_read_one(rows))
    _check_slug_free(spec.slug, user_id=owner_id)
    try:
        with transaction.atomic():
            return _save(spec, owner_id=owner_id)
    except IntegrityError as exc:  # made in a request that raced this one
        raise DropshipError(f"You already have a table called {spec.slug!r}; choose another slug.", field="slug") from exc


def _own_table(*, user_id: int, slug: str) -> RuleTable:
    """``slug`` if it is the user's, locked for the write. A book table is refused (403); another
    user's table is "not found" (404), as if it did not exist."""
    table = RuleTable.objects.select_for_update().filter(slug=slug, owner_id=user_id).first()
    if table is None:
        table = RuleTable.objects.filter(slug=slug, owner__isnull=True).first()
    if table is None:
        raise NotFound(f"You have no table called {slug!r}.", field="slug")
    if table.owner_id is None:
        raise NotAllowed(
            f"{table.title} is a book table; only your own tables can be changed. Export it and import a copy under a new slug.",
            field="slug",
        )
    return table


@transaction.atomic
def user_table_update(
    *,
    user: Any,
    slug: str,
    system: str,
    title: str,
    die: str,
    source: str,
    notes: str = "",
    columns: Sequence[str] = (),
    data_keys: Sequence[str] = (),
    entries: Sequence[Mapping[str, Any]] = (),
    book: str = "",
    chapter: str = "",
    new_slug: str | None = None,
) -> RuleTable:
    """Replace ``user``'s table ``slug``: its fields and all its rows (``new_slug`` renames it).

    Checked as :func:`user_table_create`. Raises :class:`NotFound` for a table that is not the
    user's, :class:`NotAllowed` for a book table, :class:`DropshipError` as create does.
    """
    owner_id = _require_user(user)
    table = _own_table(user_id=owner_id, slug=slug)
    target = new_slug if new_slug is not None else slug
    rows = _table_rows(
        system=system,
        slug=target,
        title=title,
        die=die,
        source=source,
        notes=notes,
        columns=columns,
        data_keys=data_keys,
        entries=entries,
        book=book,
        chapter=chapter,
    )
    spec = _checked(_read_one(rows))
    if spec.slug != table.slug:
        _check_slug_free(spec.slug, user_id=owner_id)
    return _save(spec, owner_id=owner_id, table=table)


@transaction.atomic
def user_table_delete(*, user: Any, slug: str) -> None:
    """Delete ``user``'s table ``slug`` and its rows; rolls made on it stay in the history
    without their table. Raises :class:`NotFound` / :class:`NotAllowed` as update does."""
    owner_id = _require_user(user)
    _own_table(user_id=owner_id, slug=slug).delete()
    tables_changed()


@transaction.atomic
def user_tables_import(*, user: Any, text: str) -> list[RuleTable]:
    """Import fixture-format JSON ``text`` (``rules.ruletable`` rows each followed by their
    ``rules.tableentry`` rows; ``system`` a natural key like ``["fiveparsecs"]``) as ``user``'s
    own tables; it may hold several.

    All or nothing: the first problem raises :class:`DropshipError` (``field="text"``) naming the
    row, the table and the field (also in ``extra``), and nothing is written. A slug of a book
    table or of one's own tables is refused, never overwritten (other users' slugs are theirs). At most
    MAX_IMPORT_TABLES tables and MAX_IMPORT_CHARS characters.
    """
    owner_id = _require_user(user)
    if not isinstance(text, str) or not text.strip():
        raise DropshipError("Paste or upload the JSON of one or more tables.", field="text")
    if len(text) > MAX_IMPORT_CHARS:
        raise DropshipError(f"The import has {len(text)} characters; at most {MAX_IMPORT_CHARS} are allowed.", field="text")
    try:
        specs = fixturefiles.read_text(
            text, label="import", max_effect_words=MAX_USER_EFFECT_WORDS, source_re=USER_SOURCE_RE, source_help=USER_SOURCE_HELP
        )
    except fixturefiles.FixtureError as exc:
        where = ", ".join(
            part
            for part in (
                f"row {exc.row}" if exc.row is not None else "",
                f"table {exc.table!r}" if exc.table else "",
                f"field {exc.field!r}" if exc.field and exc.field != "text" else "",
            )
            if part
        )
        message = f"Import {where}: {exc.detail}" if where else f"Import: {exc.detail}"
        raise DropshipError(
            f"{message} Nothing was imported.",
            field="text",
            extra={"row": exc.row, "table": exc.table, "entry_field": exc.field},
        ) from exc
    if not specs:
        raise DropshipError("The import holds no table (no rules.ruletable row). Nothing was imported.", field="text")
    if len(specs) > MAX_IMPORT_TABLES:
        raise DropshipError(
            f"The import holds {len(specs)} tables; at most {MAX_IMPORT_TABLES} at a time. Nothing was imported.", field="text"
        )
    systems = {s.slug: s for s in RuleSystem.objects.all()}
    for spec in specs:
        field_name, found = _spec_problems(spec, systems=systems)
        if found:
            raise DropshipError(
                f"Import: {' '.join(found)} Nothing was imported.",
                field="text",
                extra={"table": spec.slug, "entry_field": field_name, "problems": found},
            )
        try:
            _check_slug_free(spec.slug, user_id=owner_id)
        except DropshipError as exc:
            raise DropshipError(
                f"Import: {exc.message} Nothing was imported.", field="text", extra={"table": spec.slug, "entry_field": "slug"}
            ) from exc
    return [_save(spec, owner_id=owner_id) for spec in specs]


def user_table_export(*, user: Any, slug: str) -> str:
    """The table ``slug`` as fixture-format JSON that :func:`user_tables_import` reads back.

    Any table ``user`` may see can be exported (their own, or a book table to copy under a new
    slug). Raises :class:`NotFound` for another user's table.
    """
    table = table_get_for(slug=slug, user=user)
    rows: list[dict[str, Any]] = [
        {
            "model": "rules.ruletable",
            "fields": {
                "system": [table.system.slug],
                "slug": table.slug,
                "title": table.title,
                "die": table.die,
                "book": table.book,
                "chapter": table.chapter,
                "source": table.source,
                "notes": table.notes,
                "columns": list(table.columns or []),
                "data_keys": list(table.data_keys or []),
            },
        }
    ]
    order = {c: i for i, c in enumerate(table.columns or [""])}
    entries = sorted(table.entries.all(), key=lambda e: (order.get(e.column, len(order)), e.position, e.pk))
    rows.extend(
        {
            "model": "rules.tableentry",
            "fields": {
                "table": [table.slug],
                "column": e.column,
                "position": e.position,
                "low": e.low,
                "high": e.high,
                "result": e.result,
                "effect": e.effect,
                "data": e.data,
            },
        }
        for e in entries
    )
    return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
