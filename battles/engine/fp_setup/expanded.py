"""Expanded Missions (Compendium pp.74-77) and the mission roll, Paying by the Hour's time limit
(p.34) included.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from battles.engine.fp_setup.base import (
    BATTLE_TYPES,
    CENTRE_SHIFT,
    EXPANDED_SETUP_TABLE,
    EXTRACTION_TABLE,
    OBJECTIVE_TABLE,
    OPPOSITE,
    OVERVIEW_TABLE,
    PATRON_TABLE,
    SOURCES,
    TABLE_SIZES,
    TIME_TABLE,
    SetupError,
    _difficulty,
    _edge,
    _Feed,
    _int_or_none,
    _key,
    _roll,
    _row,
    _source_alias,
    _table,
    _table_roll,
)
from battles.engine.fp_setup.mission import (
    MissionPlan,
    Objective,
    PatronCondition,
    _battle_type,
    _core_objective,
    _extraction,
    _placement,
)
from campaigns.engine.options import CampaignOptions
from rules.engine.dice import Dice, Keep, RollRecord
from rules.engine.tables import Entry, RangeTable


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
