"""The three-way battle's third party as figures (Compendium p.37).

:func:`third_party_force` builds the third party's force for a PvP set-up card whose
``third_party`` the D100 arrival roll already made (:func:`battles.engine.fp_pvp.generate`):

- its type: the category picked by the players (the core rulebook's category roll is not in our
  source) and the type rolled D100 on that category's elite table (pp.48-65,
  :func:`battles.engine.fp_enemies.roll_elite_enemy`), with the numbers the players' core roll
  gave (``base_numbers``) and the core weapon roll's weapons when typed;
- p.37's extras: +1 basic enemy and +1 specialist, the arrival row's own extras (+1 specialist
  and +1 Lieutenant on 41-60), and a Unique Individual always, unless the force is a Roving
  Threat (:func:`battles.engine.fp_enemies.pressed_force` adds one when the roll gave none).

Ruling: the force is built with the Compendium's elite tables, the only enemy tables in our
source; an extra specialist or Lieutenant copies the force's first figure of that rank (else its
first basic one, with the specialist weapon).

Each figure comes out as a tracker figure mapping (``name``, ``rank``, ``speed``,
``combat_skill``, ``toughness``, ``save``, ``weapons`` as weapon profiles, ``kit`` for what has
no profile in the Dramatic Weapons table: a placeholder of the core weapon roll, a natural
weapon). Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from battles.engine import fp_combat, fp_enemies
from battles.engine.fp_enemies.base import EnemyFigure, EnemyForce
from battles.engine.fp_pvp.setup import PvpError
from campaigns.engine.options import CampaignOptions
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable

#: The enemy categories a third party may come from (the elite tables' four, pp.48-65).
CATEGORIES: tuple[str, ...] = ("Criminal Elements", "Hired Muscle", "Interested Parties", "Roving Threats")
#: The one category whose force comes without a Unique Individual (p.37).
NO_UNIQUE = "Roving Threats"


def _extra(force: EnemyForce, rank: str, count: int) -> list[EnemyFigure]:
    """``count`` more figures of ``rank``: copies of the force's first one of that rank, else of
    its first basic figure (carrying the specialist weapon for a specialist)."""
    if count <= 0:
        return []
    same = [f for f in force.figures if f.rank == rank]
    template = same[0] if same else next(f for f in force.figures if f.rank != "unique")
    if not same and rank == "specialist" and force.specialist_weapon:
        template = replace(template, weapons=(force.specialist_weapon,))
    label = {"specialist": "Specialist", "lieutenant": "Lieutenant"}.get(rank, "Basic")
    return [replace(template, name=f"{label} {len(same) + n} (p.37)", rank=rank) for n in range(1, count + 1)]


def figure_of(figure: EnemyFigure | Mapping[str, Any], tables: Mapping[str, RangeTable]) -> dict[str, Any]:
    """An enemy figure as a PvP tracker figure (see the module docstring)."""
    raw = figure.as_dict() if isinstance(figure, EnemyFigure) else dict(figure)
    weapons: list[dict[str, Any]] = []
    kit: list[str] = []
    for name in raw.get("weapons") or ():
        try:
            weapons.append(fp_combat.weapon(tables, str(name)).as_dict())
        except fp_combat.CombatError:
            kit.append(str(name))
    return {
        "name": str(raw["name"])[:40],
        "rank": str(raw.get("rank") or "basic"),
        "reactions": 1,
        "speed": int(raw.get("speed") or 4),
        "combat_skill": int(raw.get("combat_skill") or 0),
        "toughness": int(raw.get("toughness") or 3),
        "save": raw.get("save"),
        "weapons": weapons,
        "kit": kit + [str(g) for g in raw.get("gear") or ()],
        "ai": str(raw.get("ai") or ""),
    }


def third_party_force(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    card: Mapping[str, Any],
    *,
    category: str,
    base_numbers: int,
    crew_size: int,
    options: CampaignOptions | None = None,
    weapons: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The third party's force for the arrival ``card`` (the set-up card's ``third_party``).

    ``category``: one of :data:`CATEGORIES`; ``base_numbers``: the enemies the core numbers roll
    gave (1-12); ``crew_size``: both crews' figures together (the third party treats them as one
    force); ``weapons``: ``{"basic", "specialist"}`` from the core weapon roll, when rolled.

    Returns ``{"category", "type", "panic", "lines", "figures": [tracker figures], "rolls"}``.
    Raises :class:`PvpError` naming ``third_party_category``, ``third_party_numbers`` or the
    enemy builder's field."""
    if category not in CATEGORIES:
        raise PvpError(
            f"third_party_category must be one of {', '.join(CATEGORIES)}; got {category!r}.", field="third_party_category"
        )
    if not 1 <= int(base_numbers) <= 12:
        raise PvpError(
            f"third_party_numbers (your core numbers roll) must be from 1 to 12; got {base_numbers}.",
            field="third_party_numbers",
        )
    try:
        force = fp_enemies.roll_elite_enemy(
            dice,
            tables,
            crew_size=max(1, int(crew_size)),
            options=options or CampaignOptions(),
            category=category,
            base_numbers=int(base_numbers),
            weapons=dict(weapons) if weapons else None,
        )
        force = fp_enemies.pressed_force(
            dice,
            tables,
            force,
            numbers=int(card.get("basic_enemies") or 0),
            unique_individual=category != NO_UNIQUE and int(card.get("unique_individuals") or 0) > 0,
            reasons=["Three-way battle (p.37): +1 basic enemy and +1 specialist; a Unique Individual unless Roving Threats."],
        )
    except fp_enemies.EnemyError as exc:
        raise PvpError(exc.message, field=exc.field) from None
    plain = [f for f in force.figures if f.rank != "unique"]
    plain += _extra(force, "specialist", int(card.get("specialists") or 0))
    plain += _extra(force, "lieutenant", int(card.get("lieutenants") or 0))
    figures = [*plain, *([force.unique_individual] if force.unique_individual else [])]
    return {
        "category": force.category,
        "type": force.type,
        "panic": force.panic,
        "lines": list(force.lines),
        "figures": [figure_of(f, tables) for f in figures],
        "reinforcement": figure_of(next(f for f in figures if f.rank == "basic"), tables) if plain else None,
        "reinforcement_specialist": figure_of(next((f for f in figures if f.rank == "specialist"), plain[0]), tables)
        if plain
        else None,
        "rolls": [r.as_dict() for r in force.rolls],
    }
