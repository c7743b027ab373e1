"""No-minis battles: which weapon a figure uses and its combat numbers (rulings in the package
docstring; traits p.70)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from battles.engine import fp_combat
from battles.engine.nominis.state import NoMinisError

# -- weapons ---------------------------------------------------------------------------------------


def _w(weapon: Mapping[str, Any], *, strip: frozenset[str] = frozenset()) -> fp_combat.Weapon:
    return _weapon(
        weapon["name"], weapon["range"], weapon["shots"], weapon["damage"], tuple(weapon["traits"]),
        weapon.get("no_damage", False), strip,
    )  # fmt: skip


@lru_cache(maxsize=512)
def _weapon(
    name: Any, range_: Any, shots: Any, damage: Any, traits: tuple[str, ...], no_damage: Any, strip: frozenset[str]
) -> fp_combat.Weapon:
    # Every shot and brawl needs its weapon's numbers; each weapon of a battle is built once.
    return fp_combat.Weapon(
        name=str(name),
        range=int(range_),
        shots=int(shots),
        damage=int(damage),
        traits=frozenset(t for t in traits if t in fp_combat.TRAITS and t not in strip),
        no_damage=bool(no_damage),
    )


def _guns(
    figure: Mapping[str, Any], *, over: int | None = None, reach: int | None = None, no_heavy: bool = False
) -> list[dict[str, Any]]:
    """Ranged weapons usable under the limits: range over ``over``, at least ``reach``, no Heavy;
    longest range first."""
    return sorted(_usable(figure, over=over, reach=reach, no_heavy=no_heavy), key=_gun_rank, reverse=True)


def _usable(
    figure: Mapping[str, Any], *, over: int | None = None, reach: int | None = None, no_heavy: bool = False
) -> list[dict[str, Any]]:
    guns = []
    for weapon in figure["weapons"]:
        if weapon["range"] <= 0 or weapon["shots"] <= 0:
            continue
        if over is not None and weapon["range"] <= over:
            continue
        if reach is not None and weapon["range"] < reach:
            continue
        if no_heavy and "heavy" in weapon["traits"]:
            continue
        guns.append(weapon)
    return guns


def _best_gun(figure: Mapping[str, Any], **limits: Any) -> dict[str, Any] | None:
    guns = _usable(figure, **limits)
    # The first of the longest-ranged: what _guns would list first (its sort is stable).
    return max(guns, key=_gun_rank) if guns else None


def _gun_rank(weapon: Mapping[str, Any]) -> tuple[int, int, int]:
    return weapon["range"], weapon["shots"], weapon["damage"]


def _gun_named(figure: Mapping[str, Any], name: Any) -> dict[str, Any]:
    for weapon in _guns(figure):
        if weapon["name"] == name:
            return weapon
    raise NoMinisError(f"weapon must name a ranged weapon {figure['name']} carries; got {name!r}.", field="weapon")


def _melee_weapon(figure: Mapping[str, Any]) -> dict[str, Any] | None:
    melee = [w for w in figure["weapons"] if "melee" in w["traits"] and "pistol" not in w["traits"]]
    return max(melee, key=lambda w: w["damage"]) if melee else None


def _brawl_weapon(figure: Mapping[str, Any]) -> dict[str, Any] | None:
    melee = _melee_weapon(figure)
    if melee is not None:
        return melee
    pistols = [w for w in figure["weapons"] if "pistol" in w["traits"]]
    return max(pistols, key=lambda w: w["damage"]) if pistols else None


def _melee_only(figure: Mapping[str, Any]) -> bool:
    return not any(w["range"] > 0 and w["shots"] > 0 for w in figure["weapons"])


def _fighter(figure: Mapping[str, Any], *, natural_six: bool = False) -> fp_combat.Fighter:
    return fp_combat.Fighter(
        name=str(figure["name"]),
        combat_skill=0 if natural_six else int(figure["combat_skill"]),
        toughness=int(figure["toughness"]),
        speed=int(figure["speed"]),
        reactions=int(figure["reactions"]),
        savvy=int(figure["savvy"]),
        save=figure["save"],
        bot=bool(figure["bot"]),
        kerin=bool(figure["kerin"]),
        stun_markers=int(figure["stun"]),
    )
