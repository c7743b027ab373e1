"""Enemy Deployment Variables (Compendium pp.44-45): the deployment plan, Infiltration placement,
Reinforced arrivals and Concealed features.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from battles.engine.fp_setup.base import (
    AI_TYPES,
    DEPLOYMENT_EFFECTS_TABLE,
    DEPLOYMENT_TABLE,
    INFILTRATION_TABLE,
    NEUTRAL_LEFT_MAX,
    SetupError,
    _difficulty,
    _Feed,
    _key,
    _plural,
    _roll,
    _row,
    _table,
    _table_roll,
)
from campaigns.engine.options import CampaignOptions
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

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
