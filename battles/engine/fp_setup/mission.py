"""The mission: objectives, Extraction, Patron conditions and the mission plan (Compendium
pp.74-77), the battle type by mission source (p.116), and rolls on the user's core-rulebook
tables.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from battles.engine.fp_setup.base import (
    BATTLE_TYPES,
    EXTRACTION_TABLE,
    MISSION_TABLE,
    SOURCES,
    SetupError,
    _Feed,
    _int_or_none,
    _key,
    _roll,
    _source_alias,
    _table,
    _table_roll,
)
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import Entry, RangeTable, TableError, TableRoll

# -- mission ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Objective:
    """One mission objective.

    - ``name``, ``effect``: the objective and what it asks (our words, or "as the core rulebook").
    - ``core_page``: core rulebook page of a core objective, else ``None``.
    - ``time_limit``: rounds in which it must be done (``None``: no limit); ``time_text`` names it.
    - ``extraction_unknown``: this objective's time roll held back the Extraction roll.
    - ``markers``: markers to place (Investigate 6, Sweep 3), else ``None``.
    - ``placement``: where it goes when rolled at set-up (``'4" from the centre toward 3 o'clock'``).
    """

    number: int
    name: str
    effect: str
    core_page: int | None = None
    time_limit: int | None = None
    time_text: str = ""
    extraction_unknown: bool = False
    markers: int | None = None
    placement: str = ""

    @property
    def core_rulebook(self) -> bool:
        return self.core_page is not None

    def line(self) -> str:
        core = f" (core rulebook p.{self.core_page})" if self.core_page else ""
        parts = [f"{self.name}{core}: {self.effect}".rstrip(": ")]
        if self.time_text:
            parts.append(f"Time: {self.time_text}.")
        if self.placement:
            parts.append(f"Place it {self.placement}.")
        return " ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "name": self.name,
            "effect": self.effect,
            "core_rulebook": self.core_rulebook,
            "core_page": self.core_page,
            "time_limit": self.time_limit,
            "time_text": self.time_text,
            "extraction_unknown": self.extraction_unknown,
            "markers": self.markers,
            "placement": self.placement,
        }


@dataclass(frozen=True)
class Extraction:
    """How the mission ends once the objectives are done (p.76). ``round_limit`` in rounds;
    ``basic_enemies`` arriving for the reinforcement result."""

    result: str
    effect: str
    round_limit: int | None = None
    basic_enemies: int = 0
    roll: RollRecord | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "effect": self.effect,
            "round_limit": self.round_limit,
            "basic_enemies": self.basic_enemies,
            "roll": self.roll.as_dict() if self.roll else None,
        }


@dataclass(frozen=True)
class PatronCondition:
    """A Patron job special condition (pp.76-77). ``crew_only``: it binds the crew, not the
    enemy. ``data``: the row's numbers. ``edge``: the rolled edge for Flash flooding."""

    result: str
    effect: str
    crew_only: bool
    data: Mapping[str, Any] = field(default_factory=dict)
    edge: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "effect": self.effect,
            "crew_only": self.crew_only,
            "data": dict(self.data),
            "edge": self.edge,
        }


@dataclass(frozen=True)
class MissionPlan:
    """The mission for one battle.

    - ``source`` (key of :data:`SOURCES`) and ``source_label``; ``battle_type`` (key of
      :data:`BATTLE_TYPES`), ``battle_label`` and ``battle_rules`` (where its rules are);
      ``chosen``: the player picked the type (no Mission Selection roll).
    - ``patron``: a Patron job (Patron source, a Conventional Faction mission, or said so).
    - ``expanded``: Expanded Missions were used (conventional battles only).
    - ``overview``, ``required``: the objective overview and how many objectives must be done;
      ``completion_xp``: XP to a random crew member for doing them all.
    - ``objectives``: the :class:`Objective` list (a core objective when given or rolled on the
      user's table; empty when the core rulebook roll is still to make).
    - ``extraction``: :class:`Extraction`, or ``None`` when held back (``extraction_deferred``)
      or not expanded.
    - ``table_ft``, ``enemy_edge``, ``crew_edge``, ``enemy_deploy_in``, ``crew_deploy_in``
      (inches from their edge; ``None``: the crew walks on in Round 1): the expanded set-up.
    - ``patron_condition``: :class:`PatronCondition` for an expanded Patron job.
    - ``time_limit_round``: They are Paying us by the Hour's last round, else ``None``.
    - ``notes``: reminders in our words; ``rolls``: every roll, in order.
    """

    source: str
    source_label: str
    battle_type: str
    battle_label: str
    battle_rules: str
    chosen: bool
    patron: bool
    expanded: bool
    overview: str = ""
    required: int = 0
    completion_xp: int = 0
    objectives: tuple[Objective, ...] = ()
    extraction: Extraction | None = None
    extraction_deferred: bool = False
    table_ft: int | None = None
    enemy_edge: str | None = None
    crew_edge: str | None = None
    enemy_deploy_in: int | None = None
    crew_deploy_in: int | None = None
    patron_condition: PatronCondition | None = None
    time_limit_round: int | None = None
    notes: tuple[str, ...] = ()
    rolls: tuple[RollRecord, ...] = ()

    def lines(self) -> tuple[str, ...]:
        """Card lines: mission, objectives, extraction, set-up, special condition, notes."""
        how = "chosen" if self.chosen else "Mission Selection p.116"
        out = [f"Mission: {self.source_label or 'Salvage job'}, {self.battle_label} ({self.battle_rules}; {how})."]
        if self.patron:
            out.append("Patron job.")
        if self.overview:
            out.append(f"Objectives (Expanded Missions pp.74-77): {self.overview}.")
        for objective in self.objectives:
            out.append(f"Objective {objective.number}: {objective.line()}")
        if self.extraction:
            out.append(f"Extraction: {self.extraction.result}. {self.extraction.effect}")
        elif self.extraction_deferred:
            out.append("Extraction: unknown; roll it once the objectives are done.")
        if self.table_ft:
            crew = (
                f'crew within {self.crew_deploy_in}" of the {self.crew_edge}'
                if self.crew_deploy_in is not None
                else f"crew walk on from the {self.crew_edge} in Round 1"
            )
            out.append(
                f'Set-up ({self.table_ft}-foot table): enemy within {self.enemy_deploy_in}" of the {self.enemy_edge}; {crew}.'
            )
        if self.patron_condition:
            who = " Crew only." if self.patron_condition.crew_only else ""
            edge = f" Start at the {self.patron_condition.edge}." if self.patron_condition.edge else ""
            out.append(f"Special condition: {self.patron_condition.result}. {self.patron_condition.effect}{who}{edge}")
        if self.time_limit_round is not None:
            out.append(f"Paying us by the Hour: after round {self.time_limit_round} only Defend and Fight Off objectives count.")
        out.extend(self.notes)
        return tuple(out)

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "source_label": self.source_label,
            "battle_type": self.battle_type,
            "battle_label": self.battle_label,
            "battle_rules": self.battle_rules,
            "chosen": self.chosen,
            "patron": self.patron,
            "expanded": self.expanded,
            "overview": self.overview,
            "required": self.required,
            "completion_xp": self.completion_xp,
            "objectives": [o.as_dict() for o in self.objectives],
            "extraction": self.extraction.as_dict() if self.extraction else None,
            "extraction_deferred": self.extraction_deferred,
            "table_ft": self.table_ft,
            "enemy_edge": self.enemy_edge,
            "crew_edge": self.crew_edge,
            "enemy_deploy_in": self.enemy_deploy_in,
            "crew_deploy_in": self.crew_deploy_in,
            "patron_condition": self.patron_condition.as_dict() if self.patron_condition else None,
            "time_limit_round": self.time_limit_round,
            "notes": list(self.notes),
            "rolls": [r.as_dict() for r in self.rolls],
        }


def _battle_type(dice: Dice, feed: _Feed, tables: Mapping[str, RangeTable], source: str, rolls: list[RollRecord]) -> str:
    """Mission Selection (p.116): the battle type for ``source``; no roll for a one-row column."""
    if source == "salvage":
        return "salvage"
    table = _table(tables, MISSION_TABLE)
    column = SOURCES[source]
    try:
        rows = table.rows(column)
    except TableError as exc:
        raise SetupError(str(exc), field="tables") from exc
    if len(rows) == 1:
        entry = rows[0]
    else:
        roll = _table_roll(dice, feed, table, f"Mission Selection: {column}", column=column)
        rolls.append(roll.record)
        entry = roll.entry
    kind = str(entry.data.get("battle_type", ""))
    if kind not in BATTLE_TYPES:
        raise SetupError(
            f"Table {MISSION_TABLE!r}: battle_type must be one of {', '.join(BATTLE_TYPES)}; got {kind!r}.", field="tables"
        )
    return kind


#: The reason on the roll of the user's own mission objective table.
CORE_OBJECTIVE_REASON = "Mission objective (core rulebook table)"


def _matching_column(table: RangeTable, wanted: Sequence[str], field: str) -> str:
    """The column of the user's ``table`` named by the first of ``wanted`` (case-insensitive); ``""``
    for a one-column table. Raises :class:`SetupError` naming ``field`` when none matches."""
    if not table.columns:
        return ""
    columns = table.column_names()
    lowered = [w.lower() for w in wanted if w]
    for want in lowered:
        for column in columns:
            if column.lower() == want:
                return column
    raise SetupError(
        f"{field}: {table.title} has no column for {' or '.join(map(repr, lowered))}; its columns are "
        f"{', '.join(map(repr, columns))}.",
        field=field,
    )


def _source_names(source: str) -> list[str]:
    return [source, SOURCES[source], SOURCES[source].split()[0]]


@dataclass(frozen=True)
class CoreRoll:
    """One roll on a core-rulebook table the player mapped to a campaign slot (the Compendium
    has no such table): ``part`` (the slot key, e.g. ``deployment_conditions``), ``title`` (the
    table's), ``column``, the entry's ``result``, ``effect`` and ``data`` (the keys the player's
    rows carry), and the ``roll`` record (``None`` when the result came from elsewhere, such as a
    step of the campaign turn; ``origin`` says where)."""

    part: str
    title: str
    result: str
    effect: str = ""
    data: Mapping[str, Any] = field(default_factory=dict)
    column: str = ""
    origin: str = ""
    roll: RollRecord | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "part": self.part,
            "title": self.title,
            "result": self.result,
            "effect": self.effect,
            "data": dict(self.data),
            "column": self.column,
            "origin": self.origin,
            "roll": self.roll.as_dict() if self.roll else None,
        }


def roll_core_table(
    dice: Dice,
    table: RangeTable,
    *,
    part: str,
    source: str,
    columns: Sequence[str] = (),
    value: int | None = None,
) -> CoreRoll:
    """Roll (or look up ``value``, the natural total on the player's dice) the player's own copy
    of a core-rulebook table. A table with columns is read in the column named by ``columns``
    (tried first, e.g. the enemy category) or by the mission ``source`` (a :data:`SOURCES` key:
    ``patron`` matches a column called "patron" or "Patron job").

    Raises :class:`SetupError` naming ``part`` for a column that is not there, a reference table
    (no die) or a ``value`` the die cannot show."""
    source = _key(_source_alias(source), tuple(SOURCES), "source")
    if table.is_reference:
        raise SetupError(f"{part}: {table.title} has no die to roll; map a table with a die.", field=part)
    column = _matching_column(table, [*columns, *_source_names(source)], part)
    try:
        rolled = table.roll_or_enter(dice, value=value, column=column, reason=f"{table.title} (core rulebook table)")
    except TableError as exc:
        raise SetupError(f"{part}: {exc}", field=part) from exc
    entry = rolled.entry
    return CoreRoll(
        part=part,
        title=table.title,
        result=entry.result,
        effect=entry.effect,
        data=dict(entry.data),
        column=column,
        origin=table.title,
        roll=rolled.record,
    )


def _core_objective(
    dice: Dice, feed: _Feed, source: str, objective: str | None, core_objectives: RangeTable | None, rolls: list[RollRecord]
) -> tuple[Objective, ...]:
    if objective is not None:
        name = str(objective).strip()
        if not name:
            raise SetupError("objective must name the core rulebook objective, or be left out.", field="objective")
        return (Objective(1, name[:60], "As the core rulebook objective."),)
    if core_objectives is None:
        return ()
    column = _matching_column(core_objectives, _source_names(source), "core_objectives")
    roll = _table_roll(dice, feed, core_objectives, CORE_OBJECTIVE_REASON, column=column)
    rolls.append(roll.record)
    return (Objective(1, roll.entry.result, roll.entry.effect or "As the core rulebook objective."),)


def _placement(dice: Dice, feed: _Feed, entry: Entry, number: int, rolls: list[RollRecord]) -> str:
    notation = entry.data.get("placement_in")
    if not notation:
        return ""
    distance = _roll(dice, feed, str(notation), f"Objective {number} ({entry.result}): inches from the centre")
    direction = _roll(dice, feed, "D12", f"Objective {number} ({entry.result}): direction (clock face)")
    rolls += [distance, direction]
    return f"{distance.total}\" from the centre toward {direction.total} o'clock"


def _extraction(roll: TableRoll) -> Extraction:
    data = roll.entry.data
    return Extraction(
        result=roll.entry.result,
        effect=roll.entry.effect,
        round_limit=_int_or_none(data.get("round_limit")),
        basic_enemies=int(data.get("basic_enemies", 0)),
        roll=roll.record,
    )


def roll_extraction(dice: Dice, tables: Mapping[str, RangeTable], *, faces: Sequence[int] | None = None) -> Extraction:
    """The Extraction roll (D100, p.76), for a mission that held it back ("Extraction unknown").

    ``faces``: the player's D100 as one value 1-100. Raises :class:`SetupError` for a missing
    table or a bad face.
    """
    feed = _Feed(faces, "faces")
    roll = _table_roll(dice, feed, _table(tables, EXTRACTION_TABLE), "Expanded mission: extraction")
    feed.finish()
    return _extraction(roll)
