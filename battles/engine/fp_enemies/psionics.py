"""Enemy Psionics (Compendium pp.22-24): the four steps on a force.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from battles.engine.fp_enemies.base import (
    GEAR_TABLE,
    NO_PSIONIC_CATEGORY,
    NO_PSIONIC_TYPES,
    PSIONIC_POWERS_TABLE,
    PSIONIC_STEPS_TABLE,
    PSIONIC_TOUGHNESS_BONUS,
    PSIONIC_TOUGHNESS_MAX,
    PSIONIC_TYPES,
    PSIONIC_WEAPONS,
    REPLACEMENT_TABLE,
    ROGUE_PSIONIC,
    EnemyError,
    EnemyForce,
)
from battles.engine.fp_enemies.building import (
    _apply_gear,
    _apply_replacements,
    _apply_toggles,
    _difficulty,
    _elite_figure,
    _plain_figure,
    _rank_rows,
    _type_rows,
)
from battles.engine.fp_enemies.profiles import _canon, _Fig, _Roller, _table, _thaw
from campaigns.engine.options import CampaignOptions
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable

# -- enemy Psionics (pp.22-24) ------------------------------------------------------------------


def _roll_powers(roller: _Roller, tables: Mapping[str, RangeTable], count: int, who: str) -> list[str]:
    table = _table(tables, PSIONIC_POWERS_TABLE)
    powers: list[str] = []
    for number in range(1, count + 1):
        rolled = roller.table(table, f"Enemy Psionic power {number} ({who})")
        if rolled.entry.result not in powers:
            powers.append(rolled.entry.result)
    return powers


def _fresh_figure(tables: Mapping[str, RangeTable], force: EnemyForce, number: int, rank: str = "basic") -> _Fig:
    """One more ``rank`` enemy (basic or specialist) for ``force``: rank rules plus the type's
    swaps and kit that cover every figure (counted ones were handed out already)."""
    if force.profile is None:
        raise EnemyError(f"force has no profile to build an extra {rank} enemy from.", field="force")
    if not force.elite:
        return _plain_figure(force.profile, rank, number, force.basic_weapon, force.specialist_weapon)
    fig = _elite_figure(force.profile, rank, number, _rank_rows(tables), force.basic_weapon, force.specialist_weapon)
    unused: list[str] = []
    every = [r for r in _type_rows(tables, REPLACEMENT_TABLE, force.profile) if r.get("count") == "all"]
    _apply_replacements([fig], every, unused)
    _apply_gear([fig], [r for r in _type_rows(tables, GEAR_TABLE, force.profile) if r.get("count") == "all"], unused)
    return fig


def enemy_psionics(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    force: EnemyForce,
    *,
    options: CampaignOptions,
    faces: Sequence[int] | None = None,
) -> EnemyForce:
    """Check ``force`` for an enemy Psionic (pp.22-23) when ``options.psionics`` covers enemies
    ("enemies" or "both"); otherwise, or when already checked, return ``force`` unchanged.

    Steps from ``enemy-psionic-determination``, first match decides: (1) a Rogue Psionic Unique
    Individual has two powers; (2) Swift or Precursors: a random figure has one power; (3)
    Hulkers, robotic or cyborg types, Roving Threats: no Psionic, one more basic enemy; (4) D6
    4+: a random figure has one power. Powers are D10 rolls on ``enemy-psionic-powers``; a
    repeat leaves one power. A figure chosen in steps 2 and 4 (never a Unique Individual) swaps
    its weapons for a Hand Gun and a Blade and gains +1 Toughness if it had 4 or less.

    Returns a new force with the powers, the added roll records and lines. Raises
    :class:`EnemyError` for a missing table or bad ``faces``.
    """
    if not isinstance(options, CampaignOptions):
        raise EnemyError("options must be CampaignOptions.", field="options")
    if not options.enemy_psionics or force.psionics_checked:
        return force
    roller = _Roller(dice, faces)
    lines: list[str] = []
    steps = sorted(_table(tables, PSIONIC_STEPS_TABLE).entries, key=lambda e: int(e.data.get("step", 0)))
    by_step = {int(e.data.get("step", 0)): e.data for e in steps}
    figs = [_thaw(f) for f in force.figures]
    unique = force.unique_individual
    canon = _canon(tables)

    def chosen_psionic(powers: int) -> None:
        pool = [f for f in figs if f.rank != "unique"]
        fig = pool[roller.pick(len(pool), "Enemy Psionic: random enemy figure")]
        fig.weapons = list(PSIONIC_WEAPONS)
        if fig.toughness <= PSIONIC_TOUGHNESS_MAX:
            fig.toughness += PSIONIC_TOUGHNESS_BONUS
        fig.powers = _roll_powers(roller, tables, powers, fig.name)
        fig.notes.append("Psionic: no Strain; effects end if it becomes a casualty")
        lines.append(f"Enemy Psionic: {fig.name} with {', '.join(fig.powers)}; carries a Hand Gun and a Blade (p.23).")

    if unique is not None and unique.name == ROGUE_PSIONIC:
        fig = next(f for f in figs if f.rank == "unique")
        fig.powers = _roll_powers(roller, tables, int(by_step[1]["powers"]), fig.name)
        lines.append(f"Enemy Psionic: the Rogue Psionic with {', '.join(fig.powers)} (p.22).")
    elif force.type in PSIONIC_TYPES:
        chosen_psionic(int(by_step[2]["powers"]))
    elif force.type in NO_PSIONIC_TYPES or force.category == NO_PSIONIC_CATEGORY or "hulker" in force.type.lower():
        extra = int(by_step[3].get("extra_basic_enemies") or 0)
        numbers = [int(f.name.split()[-1]) for f in figs if f.rank == "basic" and f.name.split()[-1].isdigit()]
        for n in range(extra):
            figs.append(_fresh_figure(tables, force, max(numbers, default=0) + n + 1))
        lines.append(f"No enemy Psionic for {force.type}: {extra} more basic enemy instead (p.22).")
    else:
        data = by_step[4]
        roll = roller.roll(str(data.get("roll") or "D6"), f"Enemy Psionic on {data['target']}+")
        if (roll.total or 0) >= int(data["target"]):
            chosen_psionic(int(data["powers"]))
        else:
            lines.append(f"Enemy Psionic roll {roll.total}: no Psionic.")
    ordered = [f for f in figs if f.rank != "unique"] + [f for f in figs if f.rank == "unique"]
    frozen = tuple(f.freeze(canon) for f in ordered)
    return replace(
        force,
        figures=frozen,
        unique_individual=frozen[-1] if unique is not None else None,
        rolls=force.rolls + roller.finish(),
        lines=force.lines + tuple(lines),
        psionics_checked=True,
    )


# -- Psi-hunters (p.21) -------------------------------------------------------------------------


def psi_hunters(
    tables: Mapping[str, RangeTable], force: EnemyForce, *, options: CampaignOptions, campaign_turn: int = 1
) -> EnemyForce:
    """``force`` as a Psi-hunter Rival's (p.21): flagged ``psi_hunters`` and one more Specialist,
    added after the force is generated (its numbers, type and enemy Psionics). The Specialist is
    built like the force's own: the rank rules (elite forces, p.49), the type's kit for every
    figure and Actually Specialized (p.33) when ``options`` bring it on ``campaign_turn``. The
    other Psi-hunter adjustments (Seize the Initiative -2, +1 to hit a Psionic) act in play.

    Already flagged: returned unchanged. Raises :class:`EnemyError` for a force without a
    profile or a missing table."""
    if force.psi_hunters:
        return force
    numbers = [int(f.name.split()[-1]) for f in force.figures if f.rank == "specialist" and f.name.split()[-1].isdigit()]
    fig = _fresh_figure(tables, force, max(numbers, default=0) + 1, rank="specialist")
    _apply_toggles([fig], _difficulty(options, campaign_turn, tables), tables, [], elite=force.elite)
    fig.notes.append("Psi-hunter: the extra Specialist (p.21)")
    frozen = fig.freeze(_canon(tables))
    figures = list(force.figures)
    at = len(figures) - 1 if force.unique_individual is not None else len(figures)  # the Unique Individual stays last
    figures.insert(at, frozen)
    line = f"Psi-hunters: {frozen.name} joins them, one more Specialist (p.21)."
    return replace(force, figures=tuple(figures), lines=(*force.lines, line), psi_hunters=True)
