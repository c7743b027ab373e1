"""Terrain generation (Compendium pp.94-98): the steps by theme, features by table quarter, the
terrain card.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from battles.engine.fp_setup.base import (
    INDUSTRIAL_BUILDING_FACE,
    INDUSTRIAL_OPEN_GROUND_FACE,
    TERRAIN_STEPS_TABLE,
    THEMES,
    SetupError,
    _Feed,
    _key,
    _roll,
    _table,
    _table_roll,
)
from rules.engine.dice import Dice, Keep, Notation, RollRecord, parse
from rules.engine.tables import RangeTable, TableError

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
