"""Five Parsecs battle set-up's table slugs, themes, battle types, AI types, table edges and its
error; the dice and table helpers every step uses (typed faces, rows, edges, the turn's
difficulty).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from campaigns.engine.difficulty import TurnDifficulty, turn_difficulty
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
