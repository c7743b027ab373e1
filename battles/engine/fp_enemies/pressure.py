"""A built force made harder by a campaign rule: more enemies, a smaller Panic range, a Unique
Individual who always comes, no Morale (the Expanded Quest Progression's Quest battles and the
Quest Conclusion, Compendium pp.79-80).

Rulings: extra enemies are basic figures like the force's first basic one (as progressive
Strength's figures, p.30); a forced Unique Individual of an elite force is rolled on the elite
Unique Individual table (pp.62-65) and changes the Panic range as it does there; a standard
force's comes from the core rules' tables, so a line says to add it. Panic can shrink to 0
(Fearless), never below.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from battles.engine.fp_enemies.base import EnemyFigure, EnemyForce
from battles.engine.fp_enemies.building import _unique_figure
from battles.engine.fp_enemies.profiles import _canon, _panic_text, _panic_top, _Roller
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable


def _extra_basics(force: EnemyForce, count: int) -> list[EnemyFigure]:
    plain = [f for f in force.figures if f.rank != "unique"]
    template = next((f for f in plain if f.rank == "basic"), plain[0] if plain else None)
    if template is None or count <= 0:
        return []
    head, _, tail = template.name.rpartition(" ")
    label = head if tail.isdigit() else template.name
    basics = sum(1 for f in plain if f.rank == "basic")
    return [replace(template, name=f"{label} {basics + n}", rank="basic") for n in range(1, count + 1)]


def pressed_force(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    force: EnemyForce,
    *,
    numbers: int = 0,
    panic: int = 0,
    unique_individual: bool = False,
    no_morale: bool = False,
    reasons: Sequence[str] = (),
    faces: Sequence[int] | None = None,
) -> EnemyForce:
    """``force`` with ``numbers`` more basic enemies, ``panic`` (0 or less) added to the top of
    its Panic range, a Unique Individual when ``unique_individual`` and it has none, and Panic 0
    (Fearless: no Morale tests) when ``no_morale``; ``reasons`` go first in its lines. Rolls:
    the Unique Individual's D100 (elite forces). Raises :class:`EnemyError` for a missing table
    or an impossible typed face."""
    roller = _Roller(dice, faces)
    lines = list(reasons)
    plain = [f for f in force.figures if f.rank != "unique"]
    extra = _extra_basics(force, numbers)
    if extra:
        lines.append(f"+{len(extra)} basic enemies.")
    unique = force.unique_individual
    top = _panic_top(force.panic)
    if unique_individual and unique is None:
        if force.elite and force.profile is not None:
            made, unique_panic = _unique_figure(roller, tables, force.profile, lines)
            unique = made.freeze(_canon(tables))
            top += unique_panic
        else:
            lines.append("A Unique Individual joins them: roll it on your core rules' tables and add it.")
    if panic:
        top += panic
    new_panic = "0" if no_morale else _panic_text(max(0, top))
    if new_panic != force.panic:
        lines.append(f"Panic {force.panic} becomes {new_panic}" + (": they never test Morale." if no_morale else "."))
    figures = (*plain, *extra, *([unique] if unique is not None else []))
    profile = force.profile
    if force.elite and profile is not None:  # the live tracker works an elite force's Panic from its profile
        shifted = "0" if no_morale else _panic_text(max(0, _panic_top(profile.panic) + panic))
        profile = replace(profile, panic=shifted)
    return replace(
        force,
        profile=profile,
        figures=figures,
        unique_individual=unique,
        panic=new_panic,
        numbers=force.numbers + len(extra),
        rolls=(*force.rolls, *roller.records),
        lines=(*force.lines, *lines),
    )
