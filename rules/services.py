"""Writes for the rules app. Every roll, rolled or entered, is logged as one :class:`Roll`."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from rules.engine import names
from rules.engine.dice import Dice, DiceError, RollRecord
from rules.engine.tables import TableRoll
from rules.errors import DropshipError
from rules.models import Roll, RuleTable
from rules.selectors import engine_table


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
    try:
        record = Dice.enter_total(engine.notation, value, reason=table.title)
    except DiceError as exc:
        raise DropshipError(str(exc), field="value") from exc
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
    tables = {t.slug: t for t in RuleTable.objects.filter(slug__in=chosen.parts).prefetch_related("entries")}
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
