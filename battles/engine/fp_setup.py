"""Five Parsecs battle set-up: everything on the table before the first round, except the enemy.

- :func:`roll_mission`: the battle type by mission source (Mission Selection, p.116) and, with
  the Expanded Missions option, the objective overview, specific objectives, time constraints,
  extraction, set-up and Patron special conditions (pp.74-77).
- :func:`roll_deployment`: Enemy Deployment Variables by AI type (pp.44-45), when the option is
  on (chosen, or switched on by progressive difficulty option 2 from turn 4, p.31).
- :func:`ai_variation`: the AI Variations activation roll (pp.42-43) that the battle tracker
  makes each time an enemy acts; :func:`ai_reminder` gives the same table as a card reminder.
- :func:`roll_terrain`: the terrain generator (pp.94-98): a notable feature over the centre,
  four quarters of regular features and scatter, for one of :data:`THEMES`.
- :func:`generate`: all of the above plus the difficulty reminders of
  :func:`campaigns.engine.difficulty.battle_brief` (toggles pp.32-34, progressive difficulty
  pp.30-31, elite enemies p.48 ...), as a :class:`BattleSetup` with a printable card.

In-play helpers for the deployment results: :func:`infiltration_placement` (end of Round 2),
:func:`reinforced_arrives` (each round end), :func:`concealed_feature` (end of Rounds 2-4) and
:func:`roll_extraction` (a deferred Extraction roll).

Every roll is made with the :class:`~rules.engine.dice.Dice` passed in and comes back as its
:class:`~rules.engine.dice.RollRecord` (one roll, one record) with a reason. ``faces`` lets a
player type physical dice instead: one value per die, in the order the rolls are made (a D100
is one value, 1-100); too few or too many raise :class:`SetupError`.

Numbers are read from the shipped tables (``mission-selection``, ``expanded-mission-*``,
``deployment-variables``, ``deployment-variable-effects``, ``deployment-infiltration-placement``,
``ai-variations``, ``ai-variation-base-conditions``, ``terrain-*``, the difficulty tables).

Where the Compendium leans on the core rulebook (its mission objective table, its deployment
rules, Seize the Initiative) we take the result as an input and say so.

Rulings:

- Mission Selection: Rival missions and Invasion battles have a single printed result, so no
  die is rolled. ``source="salvage"`` (a Salvage job offered by the p.137 rules) is a Salvage
  battle without a roll. A battle type chosen by the player (``battle_type``) skips the roll,
  since the table is optional.
- A Faction mission that comes up Conventional is played as a Patron mission (p.116), so it
  counts as a Patron job for the Patron special conditions.
- Expanded Missions, their Patron special conditions and Deployment Variables change only
  conventional battles. Stealth missions, street fights and salvage jobs keep their own set-up
  (pp.117, 123, 137), which this module does not generate.
- With two objectives, an "Extraction unknown" time result on either of them holds back the
  Extraction roll until the objectives are done (:func:`roll_extraction`).
- Random edges and directions use a D12 read as a clock face seen from above the table, 12
  o'clock at the far edge (as the Bug Hunt engine does): edges are 11-1 far, 2-4 right, 5-7
  near and 8-10 left. The crew's edge is opposite the enemy's. A random neutral edge (Half
  flank, Bolstered flank) is a D6: 1-3 left, 4-6 right, as seen from the crew's edge.
- Objectives placed a rolled distance from the centre (Rescue, Sneak) get their distance and a
  D12 direction at set-up. Core-rulebook objectives that sit on the centre get only a reminder
  to shift them 1D6" (their placement lives in the core rulebook).
- Deployment Variables are rolled after Seize the Initiative, which the tracker rolls. Given
  ``seized=None`` we roll the D100 now and mark the result conditional: it stands only if the
  crew fails to Seize the Initiative (a success means Line). ``seized=True`` gives Line with no
  roll; ``seized=False`` gives the rolled result outright.
- Guardian AI has no deployment column: it keeps the standard (Line) deployment, no roll. AI
  Variations leave Beast, Rampage and Guardian AI unchanged, so those types make no roll.
- Bolstered line needs the crew and enemy counts; without ``enemy_count`` both cases are shown.
- Industrial quarters: two or more Buildings (face 2) are noted to stand close or merge, and two
  or more areas of open ground (face 3) are noted to make one a hill (p.97).
- They are Paying us by the Hour: its time limit (higher of 2D6, plus 4) is rolled here.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from campaigns.engine.difficulty import Reminder, TurnDifficulty, battle_brief, turn_difficulty
from campaigns.engine.options import CampaignOptions, OptionError
from rules.engine.dice import Dice, DiceError, Keep, Notation, RollRecord, parse
from rules.engine.errors import RuleError
from rules.engine.tables import Entry, RangeTable, TableError, TableRoll

MISSION_TABLE = "mission-selection"
OVERVIEW_TABLE = "expanded-mission-overview"
OBJECTIVE_TABLE = "expanded-mission-objectives"
TIME_TABLE = "expanded-mission-time-constraints"
EXTRACTION_TABLE = "expanded-mission-extraction"
EXPANDED_SETUP_TABLE = "expanded-mission-setup"
PATRON_TABLE = "expanded-mission-patron-conditions"
DEPLOYMENT_TABLE = "deployment-variables"
DEPLOYMENT_EFFECTS_TABLE = "deployment-variable-effects"
INFILTRATION_TABLE = "deployment-infiltration-placement"
AI_TABLE = "ai-variations"
AI_BASE_TABLE = "ai-variation-base-conditions"
TERRAIN_STEPS_TABLE = "terrain-generation-steps"

#: Terrain themes (pp.96-98); the tables are ``terrain-<theme>-notable`` and ``-regular``.
THEMES: tuple[str, ...] = ("industrial", "wilderness", "alien-ruin", "crash-site")

#: Mission sources and their Mission Selection column (p.116); ``salvage`` has no column.
SOURCES: Mapping[str, str] = {
    "rival": "Rival mission",
    "invasion": "Invasion battle",
    "opportunity": "Opportunity mission",
    "patron": "Patron mission",
    "faction": "Faction mission",
    "quest": "Quest mission",
    "salvage": "",
}

#: Battle types (p.116): name and where their rules are.
BATTLE_TYPES: Mapping[str, tuple[str, str]] = {
    "conventional": ("Conventional battle", "core rulebook p.87"),
    "stealth": ("Stealth mission", "p.117"),
    "street_fight": ("Street fight", "p.123"),
    "salvage": ("Salvage job", "p.137"),
}

#: Enemy AI types. Deployment Variables have columns for the first six (p.44); AI Variations
#: for cautious, aggressive, tactical and defensive (pp.42-43).
AI_TYPES: tuple[str, ...] = ("aggressive", "cautious", "defensive", "rampage", "tactical", "beast", "guardian")

#: Table sizes the expanded set-up knows (p.76), in feet.
TABLE_SIZES: tuple[int, ...] = (2, 3)

#: A D12 read as a random battlefield edge, three clock faces per edge (see Rulings).
EDGES: Mapping[int, str] = {
    **dict.fromkeys((11, 12, 1), "far edge (12 o'clock)"),
    **dict.fromkeys((2, 3, 4), "right edge (3 o'clock)"),
    **dict.fromkeys((5, 6, 7), "near edge (6 o'clock)"),
    **dict.fromkeys((8, 9, 10), "left edge (9 o'clock)"),
}
OPPOSITE: Mapping[str, str] = {
    "far edge (12 o'clock)": "near edge (6 o'clock)",
    "near edge (6 o'clock)": "far edge (12 o'clock)",
    "right edge (3 o'clock)": "left edge (9 o'clock)",
    "left edge (9 o'clock)": "right edge (3 o'clock)",
}
#: Neutral edge for a flank, on a D6 (see Rulings): 1-3 left, 4-6 right.
NEUTRAL_LEFT_MAX = 3

#: Industrial Regular Features faces the p.97 notes talk about.
INDUSTRIAL_BUILDING_FACE = 2
INDUSTRIAL_OPEN_GROUND_FACE = 3

#: Reminder for core objectives placed at the centre (p.75): shift them this far, randomly.
CENTRE_SHIFT = "1D6"

FACE_PARTS: tuple[str, ...] = ("mission", "deployment", "terrain")


class SetupError(RuleError):
    """A set-up request the rules do not allow, or a table missing what a rule reads.

    ``field`` names the bad input (``theme``, ``source``, ``ai_type``, ``faces``, ``tables`` ...).
    """


# -- dice and tables --------------------------------------------------------------------


class _Feed:
    """Typed physical faces handed out die by die; ``None`` means roll."""

    def __init__(self, faces: Sequence[int] | None, field: str) -> None:
        self.values = None if faces is None else [int(f) for f in faces]
        self.used = 0
        self.field = field

    def take(self, count: int) -> list[int] | None:
        if self.values is None:
            return None
        if self.used + count > len(self.values):
            raise SetupError(
                f"{self.field} ran out: the set-up needs more than the {len(self.values)} face(s) given.", field=self.field
            )
        chunk = self.values[self.used : self.used + count]
        self.used += count
        return chunk

    def finish(self) -> None:
        if self.values is not None and self.used != len(self.values):
            raise SetupError(f"{self.field} has {len(self.values)} face(s) but the set-up used {self.used}.", field=self.field)


def _roll(
    dice: Dice, feed: _Feed, notation: str | Notation, reason: str, *, keep: Keep = Keep.SUM, modifier: int = 0
) -> RollRecord:
    parsed = parse(notation) if isinstance(notation, str) else notation
    try:
        return dice.roll_or_enter(parsed, reason, faces=feed.take(parsed.count), modifier=modifier, keep=keep)
    except DiceError as exc:
        raise SetupError(f"{feed.field}: {exc}", field=feed.field) from exc


def _table_roll(dice: Dice, feed: _Feed, table: RangeTable, reason: str, *, column: str = "") -> TableRoll:
    try:
        return table.resolve(_roll(dice, feed, table.notation, reason), column=column)
    except TableError as exc:
        raise SetupError(str(exc), field="tables") from exc


def _table(tables: Mapping[str, RangeTable], slug: str) -> RangeTable:
    try:
        return tables[slug]
    except KeyError:
        raise SetupError(f"tables must include {slug!r}; got {', '.join(sorted(tables)) or 'none'}.", field="tables") from None


def _row(table: RangeTable, key: str, value: Any) -> Entry:
    for entry in table.rows():
        if entry.data.get(key) == value:
            return entry
    raise SetupError(f"Table {table.slug!r} has no row with {key} {value!r}.", field="tables")


def _int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


def _edge(dice: Dice, feed: _Feed, reason: str) -> tuple[str, RollRecord]:
    record = _roll(dice, feed, "D12", reason)
    return EDGES[int(record.total or 0)], record


def _plural(count: int, word: str) -> str:
    if count == 1:
        return f"{count} {word}"
    return f"{count} {word[:-1]}ies" if word.endswith("y") and word[-2:-1] not in "aeiou" else f"{count} {word}s"


def _key(value: Any, allowed: Sequence[str], name: str) -> str:
    text = "_".join(str(value or "").strip().lower().replace("-", " ").split())
    for option in allowed:
        if text == option.replace("-", "_"):
            return option
    raise SetupError(f"{name} must be one of {', '.join(allowed)}; got {value!r}.", field=name)


def _source_alias(source: Any) -> Any:
    """``"Patron mission"`` or ``"invasion battle"`` -> ``"patron"`` / ``"invasion"``."""
    text = str(source or "").strip().lower()
    for suffix in (" mission", " battle", " job"):
        if text.endswith(suffix):
            return text[: -len(suffix)]
    return source


def _check_faces(faces: Mapping[str, Sequence[int]] | None) -> Mapping[str, Sequence[int]]:
    if faces is None:
        return {}
    unknown = sorted(set(faces) - set(FACE_PARTS))
    if unknown:
        raise SetupError(f"faces may only have the keys {', '.join(FACE_PARTS)}; got {unknown[0]!r}.", field="faces")
    return faces


def _difficulty(options: CampaignOptions, turn: int, tables: Mapping[str, RangeTable]) -> TurnDifficulty:
    try:
        return turn_difficulty(options, turn, tables)
    except OptionError as exc:
        raise SetupError(exc.message, field=exc.field) from exc


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


def _expanded(
    dice: Dice,
    feed: _Feed,
    tables: Mapping[str, RangeTable],
    *,
    patron: bool,
    table_ft: int,
    rolls: list[RollRecord],
) -> dict[str, Any]:
    overview = _table_roll(dice, feed, _table(tables, OVERVIEW_TABLE), "Expanded mission: objective overview")
    rolls.append(overview.record)
    count = int(overview.entry.data.get("objectives", 1))
    required = int(overview.entry.data.get("required", count))

    objective_table = _table(tables, OBJECTIVE_TABLE)
    picked: list[tuple[Entry, str]] = []
    for number in range(1, count + 1):
        roll = _table_roll(dice, feed, objective_table, f"Expanded mission: objective {number}")
        rolls.append(roll.record)
        picked.append((roll.entry, _placement(dice, feed, roll.entry, number, rolls)))

    time_table = _table(tables, TIME_TABLE)
    objectives: list[Objective] = []
    for number, (entry, placement) in enumerate(picked, start=1):
        time = _table_roll(dice, feed, time_table, f"Expanded mission: time constraint for objective {number}")
        rolls.append(time.record)
        core = bool(entry.data.get("core_rulebook"))
        objectives.append(
            Objective(
                number=number,
                name=entry.result,
                effect=entry.effect,
                core_page=_int_or_none(entry.data.get("core_page")) if core else None,
                time_limit=_int_or_none(time.entry.data.get("round_limit")),
                time_text=time.entry.result,
                extraction_unknown=bool(time.entry.data.get("extraction_unknown")),
                markers=_int_or_none(entry.data.get("markers")),
                placement=placement,
            )
        )

    deferred = any(o.extraction_unknown for o in objectives)
    extraction = None
    if not deferred:
        roll = _table_roll(dice, feed, _table(tables, EXTRACTION_TABLE), "Expanded mission: extraction")
        rolls.append(roll.record)
        extraction = _extraction(roll)

    setup = _row(_table(tables, EXPANDED_SETUP_TABLE), "table_ft", table_ft)
    enemy_edge, edge_roll = _edge(dice, feed, "Expanded mission: enemy edge (D12 clock)")
    rolls.append(edge_roll)

    condition = None
    if patron:
        roll = _table_roll(dice, feed, _table(tables, PATRON_TABLE), "Expanded mission: Patron special condition")
        rolls.append(roll.record)
        edge = None
        if "advance_in" in roll.entry.data:  # Flash flooding starts from a random edge
            edge, flood = _edge(dice, feed, "Flash flooding: starting edge (D12 clock)")
            rolls.append(flood)
        condition = PatronCondition(
            result=roll.entry.result,
            effect=roll.entry.effect,
            crew_only=bool(roll.entry.data.get("crew_only")),
            data=dict(roll.entry.data),
            edge=edge,
        )

    notes: list[str] = []
    if any(o.core_rulebook for o in objectives):
        notes.append(f'A core objective set on the table centre is moved {CENTRE_SHIFT}" in a random direction (p.75).')
    notes.append("Objectives are not won just by driving off the enemy (p.75).")
    return {
        "overview": overview.entry.result,
        "required": required,
        "completion_xp": int(overview.entry.data.get("xp", 0)),
        "objectives": tuple(objectives),
        "extraction": extraction,
        "extraction_deferred": deferred,
        "table_ft": table_ft,
        "enemy_edge": enemy_edge,
        "crew_edge": OPPOSITE[enemy_edge],
        "enemy_deploy_in": _int_or_none(setup.data.get("enemy_deploy_in")),
        "crew_deploy_in": _int_or_none(setup.data.get("crew_deploy_in")),
        "patron_condition": condition,
        "notes": tuple(notes),
    }


def _paying_by_the_hour(dice: Dice, feed: _Feed, data: Mapping[str, Any], rolls: list[RollRecord]) -> int:
    """Paying us by the Hour (p.34): the toggle's ``time_limit_roll`` plus ``time_limit_bonus``."""
    spec = str(data.get("time_limit_roll", "2D6 keep highest"))
    keep = Keep.HIGHEST if "highest" in spec else Keep.LOWEST if "lowest" in spec else Keep.SUM
    record = _roll(
        dice, feed, spec.split()[0], "Paying us by the Hour: last round", keep=keep, modifier=int(data.get("time_limit_bonus", 0))
    )
    rolls.append(record)
    low = int(data.get("time_limit_min", record.total or 0))
    high = int(data.get("time_limit_max", record.total or 0))
    return min(max(int(record.total or 0), low), high)


def roll_mission(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    source: str,
    options: CampaignOptions,
    expanded: bool,
    patron: bool = False,
    campaign_turn: int = 1,
    battle_type: str | None = None,
    table_ft: int = 3,
    objective: str | None = None,
    core_objectives: RangeTable | None = None,
    faces: Sequence[int] | None = None,
) -> MissionPlan:
    """The mission for one battle (p.116; with ``expanded``, pp.74-77).

    - ``source``: a key of :data:`SOURCES` (``rival``, ``invasion``, ``opportunity``, ``patron``,
      ``faction``, ``quest``, ``salvage``). The battle type is rolled on Mission Selection (D6),
      or taken from ``battle_type`` (a key of :data:`BATTLE_TYPES`) when the player chooses it.
    - ``patron``: this is a Patron job (implied by a Patron source, or a Faction mission that
      comes up Conventional).
    - ``expanded``: use Expanded Missions for a conventional battle: overview, one D100 per
      objective, one time constraint D100 each, Extraction (unless held back), the enemy edge
      (D12) and, for a Patron job, the special condition (D100). ``table_ft`` (2 or 3 feet) picks
      the set-up row.
    - Without ``expanded`` the objective comes from the core rulebook, which we do not have:
      give ``objective`` (its name, as rolled by the player) or ``core_objectives`` (the user's
      own table, with one column per source or a single column); with neither the plan has no
      objective and a note says to roll it.
    - ``options``/``campaign_turn``: with They are Paying us by the Hour on (p.34), its time
      limit is rolled (higher of 2D6, plus 4: rounds 5-10).
    - ``faces``: the player's dice in roll order (D6 faces, D100 as 1-100, D12 1-12).

    Raises :class:`SetupError` naming the field for an unknown source, battle type or table size,
    a missing table, or faces that do not fit.
    """
    source = _key(_source_alias(source), tuple(SOURCES), "source")
    if table_ft not in TABLE_SIZES:
        raise SetupError(
            f"table_ft must be one of {', '.join(map(str, TABLE_SIZES))} (feet); got {table_ft!r}.", field="table_ft"
        )
    feed = _Feed(faces, "faces")
    rolls: list[RollRecord] = []
    chosen = battle_type is not None
    kind = _key(battle_type, tuple(BATTLE_TYPES), "battle_type") if chosen else _battle_type(dice, feed, tables, source, rolls)
    is_patron = bool(patron) or source == "patron" or (source == "faction" and kind == "conventional")
    label, rules = BATTLE_TYPES[kind]
    fields: dict[str, Any] = {}
    notes: list[str] = []
    if kind == "conventional" and expanded:
        fields = _expanded(dice, feed, tables, patron=is_patron, table_ft=table_ft, rolls=rolls)
        notes += fields.pop("notes")
    elif kind == "conventional":
        fields["objectives"] = _core_objective(dice, feed, source, objective, core_objectives, rolls)
        if not fields["objectives"]:
            notes.append("Objective: roll it on the core rulebook mission tables.")
        notes.append("Deploy as the core rulebook says.")
    else:
        notes.append(f"Set up and play with the {label} rules ({rules}).")
    if source == "faction" and kind == "conventional":
        notes.append("Faction mission: play it as a Patron mission (p.116).")
    difficulty = _difficulty(options, campaign_turn, tables)
    time_limit = None
    if "paying_by_the_hour" in difficulty.toggles:
        row = _row(_table(tables, "difficulty-toggles"), "toggle", "paying_by_the_hour")
        time_limit = _paying_by_the_hour(dice, feed, row.data, rolls)
    feed.finish()
    return MissionPlan(
        source=source,
        source_label=SOURCES[source],
        battle_type=kind,
        battle_label=label,
        battle_rules=rules,
        chosen=chosen,
        patron=is_patron,
        expanded=bool(expanded) and kind == "conventional",
        time_limit_round=time_limit,
        notes=tuple(notes),
        rolls=tuple(rolls),
        **fields,
    )


# -- deployment -------------------------------------------------------------------------


@dataclass(frozen=True)
class DeploymentPlan:
    """The enemy's deployment under Deployment Variables (pp.44-45).

    - ``ai_type``; ``deployment`` (key such as ``half_flank``), ``result`` and ``effect``.
    - ``seized``: the crew's Seize the Initiative result if known; ``conditional``: rolled before
      it, so it stands only if the seize fails (see Rulings).
    - ``flank_edge``: ``"left"``/``"right"`` neutral edge for the flank results.
    - ``extra_basic``, ``extra_specialists``: figures added to the enemy force.
    - ``notes``: what to do when; ``rolls``: the D100 and any edge roll.
    """

    ai_type: str
    deployment: str
    result: str
    effect: str
    seized: bool | None = None
    conditional: bool = False
    flank_edge: str | None = None
    extra_basic: int = 0
    extra_specialists: int = 0
    notes: tuple[str, ...] = ()
    rolls: tuple[RollRecord, ...] = ()

    def lines(self) -> tuple[str, ...]:
        """Card lines for the deployment."""
        out = [f"Enemy deployment (Deployment Variables p.44, {self.ai_type.title()} AI): {self.result}. {self.effect}"]
        if self.conditional:
            out.append("Only if the crew fails to Seize the Initiative; on a success the enemy deploys in Line.")
        if self.flank_edge:
            out.append(f"Flanking edge: {self.flank_edge} (as seen from the crew's edge).")
        extra = [_plural(n, w) for n, w in ((self.extra_basic, "basic enemy"), (self.extra_specialists, "specialist")) if n]
        if extra:
            out.append(f"Extra enemies: {' and '.join(extra)}.")
        out.extend(self.notes)
        return tuple(out)

    def as_dict(self) -> dict[str, Any]:
        return {
            "ai_type": self.ai_type,
            "deployment": self.deployment,
            "result": self.result,
            "effect": self.effect,
            "seized": self.seized,
            "conditional": self.conditional,
            "flank_edge": self.flank_edge,
            "extra_basic": self.extra_basic,
            "extra_specialists": self.extra_specialists,
            "notes": list(self.notes),
            "rolls": [r.as_dict() for r in self.rolls],
        }


def _column(table: RangeTable, ai_type: str) -> str | None:
    for column in table.column_names():
        if column.lower() == ai_type:
            return column
    return None


def roll_deployment(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    ai_type: str,
    options: CampaignOptions,
    enabled: bool = False,
    campaign_turn: int = 1,
    seized: bool | None = None,
    crew_size: int | None = None,
    enemy_count: int | None = None,
    faces: Sequence[int] | None = None,
) -> DeploymentPlan | None:
    """Enemy Deployment Variables (pp.44-45), or ``None`` when the option is off.

    The option is on when ``enabled`` (chosen for the campaign) or when progressive difficulty
    option 2 has switched it on by ``campaign_turn`` (p.31). ``ai_type`` is one of
    :data:`AI_TYPES` (the enemy's AI letter in the core rulebook). ``seized`` is the crew's Seize
    the Initiative result (core rules): ``True`` gives Line with no roll; ``None`` rolls now and
    marks the result conditional. D100 in the AI type's column; a flank result then rolls D6
    for the neutral edge (1-3 left). Bolstered line compares ``crew_size`` with ``enemy_count``
    (figures); Reinforced and Bolstered flank add the figures the effects table gives.

    Raises :class:`SetupError` for an unknown ``ai_type``, a missing table, or bad ``faces``.
    """
    ai = _key(ai_type, AI_TYPES, "ai_type")
    difficulty = _difficulty(options, campaign_turn, tables)
    if not (enabled or difficulty.deployment_variables):
        return None
    feed = _Feed(faces, "faces")
    effects = _table(tables, DEPLOYMENT_EFFECTS_TABLE)
    table = _table(tables, DEPLOYMENT_TABLE)
    column = _column(table, ai)
    rolls: list[RollRecord] = []
    notes: list[str] = []
    if seized:
        key = "line"
        notes.append("The crew Seized the Initiative: the enemy always deploys in Line.")
    elif column is None:
        key = "line"
        notes.append(f"{ai.title()} AI has no Deployment Variables column: standard deployment.")
    else:
        roll = _table_roll(dice, feed, table, f"Enemy Deployment Variables ({column} AI)", column=column)
        rolls.append(roll.record)
        key = str(roll.entry.data.get("deployment", ""))
    flank_edge = None
    effect = _row(effects, "deployment", key)
    data = effect.data
    extra_basic = 0
    extra_specialists = 0
    if "fraction_moved" in data:
        record = _roll(dice, feed, "D6", "Flanking force: neutral edge (1-3 left, 4-6 right)")
        rolls.append(record)
        flank_edge = "left" if int(record.total or 0) <= NEUTRAL_LEFT_MAX else "right"
        extra_specialists = int(data.get("specialists", 0))
    if key == "bolstered_line":
        extra_basic = int(data.get("basic_enemies", 0))
        bonus = int(data.get("specialists_if_crew_outnumbers", 0))
        if crew_size is not None and enemy_count is not None:
            extra_specialists = bonus if crew_size > enemy_count else 0
        else:
            notes.append(f"If the crew outnumbers the enemy, add {_plural(bonus, 'specialist')} as well.")
    elif key == "reinforced":
        extra_basic = int(data.get("basic_enemies", 0))
        notes.append(
            f"Each round end roll {data.get('arrival_roll', '1D6')}: at or under the round number, the held-back half arrives."
        )
    elif key == "infiltration":
        notes.append(f"End of Round {data.get('arrival_round', 2)}: roll D6 on Infiltration placement for the removed half.")
    elif key == "concealed":
        rounds = ", ".join(str(r) for r in data.get("arrival_rounds", ()))
        notes.append(
            f"Number the {data.get('terrain_features', 6)} largest features; a group appears in a random one at the end of Rounds {rounds}."
        )
    if data.get("min_distance_in"):
        notes.append(f'No enemy may set up within {data["min_distance_in"]}" of a crew figure.')
    feed.finish()
    return DeploymentPlan(
        ai_type=ai,
        deployment=key,
        result=effect.result,
        effect=effect.effect,
        seized=seized,
        conditional=seized is None and key != "line",
        flank_edge=flank_edge,
        extra_basic=extra_basic,
        extra_specialists=extra_specialists,
        notes=tuple(notes),
        rolls=tuple(rolls),
    )


@dataclass(frozen=True)
class Placement:
    """Where arriving Infiltration figures go (p.45): ``placement`` key, ``result``, ``effect``."""

    placement: str
    result: str
    effect: str
    roll: RollRecord

    def as_dict(self) -> dict[str, Any]:
        return {"placement": self.placement, "result": self.result, "effect": self.effect, "roll": self.roll.as_dict()}


def infiltration_placement(dice: Dice, tables: Mapping[str, RangeTable], *, face: int | None = None) -> Placement:
    """The Infiltration placement D6 (p.45), rolled at the end of Round 2. ``face``: the
    player's D6. Raises :class:`SetupError` for a missing table or a bad face."""
    feed = _Feed(None if face is None else [face], "face")
    roll = _table_roll(dice, feed, _table(tables, INFILTRATION_TABLE), "Infiltration: where the hidden half appears")
    return Placement(str(roll.entry.data.get("placement", "")), roll.entry.result, roll.entry.effect, roll.record)


def reinforced_arrives(
    dice: Dice, tables: Mapping[str, RangeTable], *, round_number: int, face: int | None = None
) -> tuple[bool, RollRecord]:
    """Reinforced (p.45): at the end of ``round_number`` roll the effect's die; at or under the
    round number the held-back half arrives (with the extra basic enemies). Raises
    :class:`SetupError` for a round below 1 or a bad face."""
    if isinstance(round_number, bool) or not isinstance(round_number, int) or round_number < 1:
        raise SetupError(f"round_number must be 1 or more; got {round_number!r}.", field="round_number")
    data = _row(_table(tables, DEPLOYMENT_EFFECTS_TABLE), "deployment", "reinforced").data
    feed = _Feed(None if face is None else [face], "face")
    record = _roll(dice, feed, str(data.get("arrival_roll", "1D6")), f"Reinforced: do they arrive after round {round_number}?")
    return int(record.total or 0) <= round_number, record


def concealed_feature(dice: Dice, tables: Mapping[str, RangeTable], *, face: int | None = None) -> tuple[int, RollRecord]:
    """Concealed (p.45): which numbered terrain feature (1 to the effect's ``terrain_features``,
    6) the next group appears in. Raises :class:`SetupError` for a bad face."""
    data = _row(_table(tables, DEPLOYMENT_EFFECTS_TABLE), "deployment", "concealed").data
    count = int(data.get("terrain_features", 6))
    feed = _Feed(None if face is None else [face], "face")
    record = _roll(dice, feed, f"D{count}", "Concealed: which numbered feature")
    return int(record.total or 0), record


# -- AI variations ----------------------------------------------------------------------


@dataclass(frozen=True)
class AIActivation:
    """One enemy activation under AI Variations (pp.42-43).

    - ``unchanged``: Beast, Rampage and Guardian AI play as in the core rules (no roll).
    - ``base_condition``: the type's base condition applied, so its action is taken (no roll).
    - ``action``: the row's action key (``advance_fire`` ...), ``"base"`` or ``"core"``;
      ``result`` and ``effect`` in our words; ``roll``: the D6 record when rolled.
    """

    ai_type: str
    unchanged: bool
    base_condition: bool
    action: str
    result: str
    effect: str
    roll: RollRecord | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "ai_type": self.ai_type,
            "unchanged": self.unchanged,
            "base_condition": self.base_condition,
            "action": self.action,
            "result": self.result,
            "effect": self.effect,
            "roll": self.roll.as_dict() if self.roll else None,
        }


def ai_variation(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    ai_type: str,
    base_condition: bool = False,
    face: int | None = None,
) -> AIActivation:
    """What an enemy (or a group within 2" of each other) does when selected to act (pp.42-43).

    Check the type's base condition first: pass ``base_condition=True`` when it applies (for a
    group, when any member meets it) and its action is returned without a roll. Otherwise roll
    D6 (or use ``face``) in the AI type's column. ``ai_type`` is one of :data:`AI_TYPES`; types
    without a column are returned ``unchanged``. Raises :class:`SetupError` for an unknown type,
    a missing table or a bad face.
    """
    ai = _key(ai_type, AI_TYPES, "ai_type")
    table = _table(tables, AI_TABLE)
    column = _column(table, ai)
    if column is None:
        return AIActivation(ai, True, False, "core", f"{ai.title()} AI", "AI Variations leave this AI type as in the core rules.")
    if base_condition:
        base = _row(_table(tables, AI_BASE_TABLE), "ai", ai)
        return AIActivation(ai, False, True, "base", f"{column} base condition", base.effect)
    feed = _Feed(None if face is None else [face], "face")
    roll = _table_roll(dice, feed, table, f"AI Variations ({column})", column=column)
    return AIActivation(
        ai, False, False, str(roll.entry.data.get("action", "")), roll.entry.result, roll.entry.effect, roll.record
    )


def ai_reminder(tables: Mapping[str, RangeTable], ai_type: str | None) -> Reminder:
    """A card reminder for AI Variations: the base condition and the D6 rows of ``ai_type``'s
    column (ranges of the same result merged), or, with no or an uncovered type, how to use it."""
    if ai_type is None:
        text = "When an enemy acts, check its AI base condition; if it does not apply, roll D6 in its AI column."
        return Reminder("ai_variations", "AI Variations", text, "pp.42-43")
    ai = _key(ai_type, AI_TYPES, "ai_type")
    table = _table(tables, AI_TABLE)
    column = _column(table, ai)
    if column is None:
        return Reminder("ai_variations", "AI Variations", f"{ai.title()} AI is unchanged: use the core rules.", "pp.42-43")
    base = _row(_table(tables, AI_BASE_TABLE), "ai", ai)
    merged: list[list[Any]] = []
    for entry in table.rows(column):
        if merged and merged[-1][2] == entry.result:
            merged[-1][1] = entry.high
        else:
            merged.append([entry.low, entry.high, entry.result])
    rows = "; ".join(f"{lo if lo == hi else f'{lo}-{hi}'} {name}" for lo, hi, name in merged)
    text = f'Base condition first: {base.effect} Otherwise D6: {rows}. Enemies within 2" of each other share one roll.'
    return Reminder("ai_variations", f"AI Variations ({column})", text, "pp.42-43")


# -- terrain ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TerrainFeature:
    """A rolled feature: ``face`` (the D6 face; ``None`` when placed without a roll), ``result``."""

    face: int | None
    result: str
    effect: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"face": self.face, "result": self.result, "effect": self.effect}


@dataclass(frozen=True)
class TerrainQuarter:
    """One quarter: its regular ``features`` (one per die), ``scatter`` pieces and ``notes``."""

    number: int
    features: tuple[TerrainFeature, ...]
    scatter: int
    notes: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "features": [f.as_dict() for f in self.features],
            "scatter": self.scatter,
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class TerrainCard:
    """A generated table (pp.94-98).

    - ``theme`` (key of :data:`THEMES`) and ``title`` ("Industrial Site").
    - ``notable``: the feature over the centre (``face`` ``None`` for a crashed ship model).
    - ``quarters``: four :class:`TerrainQuarter`, each with ``sectors`` sectors to fill.
    - ``rolls``: notable D6, then per quarter its regular dice (one record, separate faces) and
      its scatter D6.
    """

    theme: str
    title: str
    notable: TerrainFeature
    quarters: tuple[TerrainQuarter, ...]
    sectors: int
    rolls: tuple[RollRecord, ...] = ()

    @property
    def scatter(self) -> tuple[int, ...]:
        """Scatter pieces per quarter."""
        return tuple(q.scatter for q in self.quarters)

    @property
    def lines(self) -> tuple[str, ...]:
        """Card lines: the centre, then each quarter."""
        out = [
            f"Terrain: {self.title} (pp.94-98). Split the table into {len(self.quarters)} quarters of {self.sectors} sectors; mark the centre.",
            f"Centre: {self.notable.result}, partly over the centre point.",
        ]
        for quarter in self.quarters:
            features = "; ".join(f.result for f in quarter.features)
            line = f"Quarter {quarter.number}: {features}. Scatter: {quarter.scatter}."
            out.append(" ".join([line, *quarter.notes]))
        out.append("Every sector holds part of a feature; no feature bigger than a sector. Then adjust to taste.")
        return tuple(out)

    def as_dict(self) -> dict[str, Any]:
        return {
            "theme": self.theme,
            "title": self.title,
            "notable": self.notable.as_dict(),
            "quarters": [q.as_dict() for q in self.quarters],
            "sectors": self.sectors,
            "scatter": list(self.scatter),
            "lines": list(self.lines),
            "rolls": [r.as_dict() for r in self.rolls],
        }


def _steps(tables: Mapping[str, RangeTable]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for entry in _table(tables, TERRAIN_STEPS_TABLE).rows():
        merged.update(entry.data)
    for key in ("quarters", "sectors_per_quarter", "notable_rolls", "regular_rolls", "scatter_pieces"):
        if key not in merged:
            raise SetupError(f"Table {TERRAIN_STEPS_TABLE!r} needs {key!r} in a step's data.", field="tables")
    return merged


def _industrial_notes(features: Sequence[TerrainFeature]) -> tuple[str, ...]:
    faces = [f.face for f in features]
    notes = []
    if faces.count(INDUSTRIAL_BUILDING_FACE) > 1:
        notes.append("Put the buildings close together, or make them one larger structure.")
    if faces.count(INDUSTRIAL_OPEN_GROUND_FACE) > 1:
        notes.append("One of the open ground areas is a hill.")
    return tuple(notes)


def roll_terrain(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    theme: str,
    faces: Sequence[int] | None = None,
    crashed_ship: bool = False,
) -> TerrainCard:
    """Generate a table with the terrain generator (pp.94-98).

    Step 1 splits the table (4 quarters of 4 sectors, from ``terrain-generation-steps``). Step 2
    rolls D6 on the theme's Notable Features for the centre (skipped for ``crash-site`` with a
    ``crashed_ship`` model, which goes there instead). Steps 3-4, quarter by quarter: four D6 on
    Regular Features (one record, four faces), then D6 scatter pieces.

    ``theme`` is one of :data:`THEMES` (``alien_ruin`` and ``Alien Ruin`` are accepted).
    ``faces``: the player's D6 faces in that order (1 + 4 x (4 + 1) = 21, or 20 without the
    notable roll). Raises :class:`SetupError` for an unknown theme, a missing table or faces
    that do not fit.
    """
    key = _key(theme, THEMES, "theme")
    steps = _steps(tables)
    notable_table = _table(tables, f"terrain-{key}-notable")
    regular_table = _table(tables, f"terrain-{key}-regular")
    title = notable_table.title.split(":")[0].strip()
    feed = _Feed(faces, "faces")
    rolls: list[RollRecord] = []
    if crashed_ship and key == "crash-site":
        notable = TerrainFeature(None, "Crashed ship model", "Placed over the centre instead of rolling.")
    else:
        roll = _table_roll(dice, feed, notable_table, f"Terrain ({title}): notable feature at the centre")
        rolls.append(roll.record)
        notable = TerrainFeature(roll.value, roll.entry.result, roll.entry.effect)
    regular = parse(str(steps["regular_rolls"]))
    quarters = []
    for number in range(1, int(steps["quarters"]) + 1):
        record = _roll(
            dice,
            feed,
            Notation(regular.count, regular.sides),
            f"Terrain ({title}): quarter {number} regular features",
            keep=Keep.SEPARATE,
        )
        rolls.append(record)
        features = []
        for face in record.faces:
            try:
                entry = regular_table.lookup(face)
            except TableError as exc:
                raise SetupError(str(exc), field="tables") from exc
            features.append(TerrainFeature(face, entry.result, entry.effect))
        scatter = _roll(dice, feed, str(steps["scatter_pieces"]), f"Terrain ({title}): quarter {number} scatter pieces")
        rolls.append(scatter)
        notes = _industrial_notes(features) if key == "industrial" else ()
        quarters.append(TerrainQuarter(number, tuple(features), int(scatter.total or 0), notes))
    feed.finish()
    return TerrainCard(
        theme=key,
        title=title,
        notable=notable,
        quarters=tuple(quarters),
        sectors=int(steps["sectors_per_quarter"]),
        rolls=tuple(rolls),
    )


# -- the whole set-up -------------------------------------------------------------------


@dataclass(frozen=True)
class BattleSetup:
    """Everything for one battle except the enemy force.

    - ``campaign_turn``, ``crew_size`` (crew figures fielded).
    - ``mission``: :class:`MissionPlan`; ``deployment``: :class:`DeploymentPlan` or ``None``
      (option off, or not a conventional battle); ``terrain``: :class:`TerrainCard` or ``None``
      (no theme: the player sets up the table).
    - ``ai_type``, ``ai_variations``: the enemy AI type if known and whether AI Variations are on.
    - ``difficulty``: :class:`~campaigns.engine.difficulty.TurnDifficulty` for the turn.
    - ``brief``: reminders (difficulty toggles, progressive difficulty, elite enemies, AI
      Variations ...); ``rolls``: every roll, mission first, then deployment, then terrain.
    """

    campaign_turn: int
    crew_size: int
    mission: MissionPlan
    deployment: DeploymentPlan | None
    terrain: TerrainCard | None
    ai_type: str | None
    ai_variations: bool
    difficulty: TurnDifficulty
    brief: tuple[Reminder, ...]
    rolls: tuple[RollRecord, ...]

    def card_lines(self) -> list[str]:
        """The printable set-up card: mission and objectives, deployment, terrain by quarter,
        then the reminders."""
        out = [f"BATTLE SET-UP: campaign turn {self.campaign_turn}, {_plural(self.crew_size, 'crew figure')}"]
        out += self.mission.lines()
        if self.deployment:
            out += self.deployment.lines()
        elif self.mission.battle_type == "conventional":
            out.append("Enemy deployment: standard (core rulebook).")
        if self.terrain:
            out += self.terrain.lines
        else:
            out.append("Terrain: set up the table as you like.")
        if self.brief:
            out.append("Reminders:")
            out += [f"- {r.title} ({r.source}): {r.text}" for r in self.brief]
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "campaign_turn": self.campaign_turn,
            "crew_size": self.crew_size,
            "mission": self.mission.as_dict(),
            "deployment": self.deployment.as_dict() if self.deployment else None,
            "terrain": self.terrain.as_dict() if self.terrain else None,
            "ai_type": self.ai_type,
            "ai_variations": self.ai_variations,
            "difficulty": self.difficulty.as_dict(),
            "brief": [r.as_dict() for r in self.brief],
            "rolls": [r.as_dict() for r in self.rolls],
            "card": self.card_lines(),
        }


def generate(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    options: CampaignOptions,
    campaign_turn: int,
    crew_size: int,
    theme: str | None,
    mission_source: str,
    patron: bool = False,
    expanded_missions: bool = False,
    deployment_variables: bool = False,
    ai_variations: bool = False,
    ai_type: str | None = None,
    seized: bool | None = None,
    enemy_count: int | None = None,
    battle_type: str | None = None,
    table_ft: int = 3,
    objective: str | None = None,
    core_objectives: RangeTable | None = None,
    crashed_ship: bool = False,
    faces: Mapping[str, Sequence[int]] | None = None,
) -> BattleSetup:
    """The whole battle set-up except the enemy force.

    - Mission: :func:`roll_mission` with ``mission_source``, ``patron``, ``expanded_missions``,
      ``battle_type``, ``table_ft``, ``objective``, ``core_objectives``.
    - Deployment: :func:`roll_deployment` for conventional battles when ``deployment_variables``
      is on or progressive option 2 has switched it on; then ``ai_type`` is required. ``seized``
      and ``enemy_count`` as there.
    - Terrain: :func:`roll_terrain` for ``theme`` (``None``: no generated terrain).
    - Brief: :func:`campaigns.engine.difficulty.battle_brief` for ``campaign_turn`` and
      ``crew_size`` (crew figures fielded), plus the AI Variations table when ``ai_variations``.

    ``faces``: typed dice per part, ``{"mission": [...], "deployment": [...], "terrain": [...]}``.
    Raises :class:`SetupError` naming the field (``crew_size``, ``campaign_turn``, ``ai_type``,
    ``theme``, ``source`` ...).
    """
    if isinstance(crew_size, bool) or not isinstance(crew_size, int) or crew_size < 1:
        raise SetupError(f"crew_size must be the crew figures fielded, 1 or more; got {crew_size!r}.", field="crew_size")
    if isinstance(campaign_turn, bool) or not isinstance(campaign_turn, int) or campaign_turn < 1:
        raise SetupError(f"campaign_turn must be 1 or more; got {campaign_turn!r}.", field="campaign_turn")
    if enemy_count is not None and (isinstance(enemy_count, bool) or not isinstance(enemy_count, int) or enemy_count < 0):
        raise SetupError(f"enemy_count must be a number of figures, 0 or more; got {enemy_count!r}.", field="enemy_count")
    ai = None if ai_type is None else _key(ai_type, AI_TYPES, "ai_type")
    typed = _check_faces(faces)
    difficulty = _difficulty(options, campaign_turn, tables)
    mission = roll_mission(
        dice,
        tables,
        source=mission_source,
        options=options,
        expanded=expanded_missions,
        patron=patron,
        campaign_turn=campaign_turn,
        battle_type=battle_type,
        table_ft=table_ft,
        objective=objective,
        core_objectives=core_objectives,
        faces=typed.get("mission"),
    )
    deployment = None
    if mission.battle_type == "conventional" and (deployment_variables or difficulty.deployment_variables):
        if ai is None:
            raise SetupError(f"ai_type is needed for Deployment Variables; choose one of {', '.join(AI_TYPES)}.", field="ai_type")
        deployment = roll_deployment(
            dice,
            tables,
            ai_type=ai,
            options=options,
            enabled=True,
            campaign_turn=campaign_turn,
            seized=seized,
            crew_size=crew_size,
            enemy_count=enemy_count,
            faces=typed.get("deployment"),
        )
    elif typed.get("deployment"):
        raise SetupError("faces has deployment dice but Deployment Variables make no roll here.", field="faces")
    terrain = None
    if theme is not None:
        terrain = roll_terrain(dice, tables, theme=theme, faces=typed.get("terrain"), crashed_ship=crashed_ship)
    elif typed.get("terrain"):
        raise SetupError("faces has terrain dice but no theme was chosen.", field="faces")
    try:
        brief = list(battle_brief(options, campaign_turn, tables, crew_size))
    except OptionError as exc:
        raise SetupError(exc.message, field=exc.field) from exc
    if ai_variations:
        brief.append(ai_reminder(tables, ai))
    rolls = mission.rolls + (deployment.rolls if deployment else ()) + (terrain.rolls if terrain else ())
    return BattleSetup(
        campaign_turn=campaign_turn,
        crew_size=crew_size,
        mission=mission,
        deployment=deployment,
        terrain=terrain,
        ai_type=ai,
        ai_variations=bool(ai_variations),
        difficulty=difficulty,
        brief=tuple(brief),
        rolls=rolls,
    )
