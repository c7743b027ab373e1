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


def _allowed(weapon: Mapping[str, Any], over: int | None, reach: int | None, no_heavy: bool) -> bool:
    """A ranged weapon with shots, usable under the limits: range over ``over``, at least
    ``reach`` (inches), not Heavy when ``no_heavy``."""
    rng = weapon["range"]
    return (
        rng > 0
        and weapon["shots"] > 0
        and (over is None or rng > over)
        and (reach is None or rng >= reach)
        and not (no_heavy and "heavy" in weapon["traits"])
    )


def _best_gun(
    figure: Mapping[str, Any], *, over: int | None = None, reach: int | None = None, no_heavy: bool = False
) -> dict[str, Any] | None:
    """The usable ranged weapon (:func:`_allowed`) with the longest range, then the most shots,
    then the most Damage; the first carried on a tie; ``None`` when none is usable. One pass:
    asked several times per engagement."""
    best = None
    for weapon in figure["weapons"]:
        if _allowed(weapon, over, reach, no_heavy) and (best is None or _gun_rank(weapon) > _gun_rank(best)):
            best = weapon
    return best


def _gun_rank(weapon: Mapping[str, Any]) -> tuple[int, int, int]:
    return weapon["range"], weapon["shots"], weapon["damage"]


def _gun_named(figure: Mapping[str, Any], name: Any) -> dict[str, Any]:
    """The ranged weapon with shots called ``name`` (the best ranked of that name, the first
    carried on a tie), found in one pass."""
    best = None
    for weapon in figure["weapons"]:
        if (
            weapon["name"] == name
            and _allowed(weapon, None, None, False)
            and (best is None or _gun_rank(weapon) > _gun_rank(best))
        ):
            best = weapon
    if best is not None:
        return best
    raise NoMinisError(f"weapon must name a ranged weapon {figure['name']} carries; got {name!r}.", field="weapon")


def _melee_weapon(figure: Mapping[str, Any]) -> dict[str, Any] | None:
    best = None
    for weapon in figure["weapons"]:
        traits = weapon["traits"]
        if "melee" in traits and "pistol" not in traits and (best is None or weapon["damage"] > best["damage"]):
            best = weapon  # the first of the most damaging, as max() gives
    return best


def _brawl_weapon(figure: Mapping[str, Any]) -> dict[str, Any] | None:
    melee = _melee_weapon(figure)
    if melee is not None:
        return melee
    pistols = [w for w in figure["weapons"] if "pistol" in w["traits"]]
    return max(pistols, key=lambda w: w["damage"]) if pistols else None


def _melee_only(figure: Mapping[str, Any]) -> bool:
    for weapon in figure["weapons"]:  # noqa: SIM110 (a loop: no generator on every engagement)
        if weapon["range"] > 0 and weapon["shots"] > 0:
            return False
    return True


def _fighter(
    figure: Mapping[str, Any], *, natural_six: bool = False, bonus: int = 0, save: Any = "figure", psi_hunter: bool = False
) -> fp_combat.Fighter:
    """The figure for the combat resolver; ``bonus`` is added to its Combat Skill for this attack
    (a +1 to Hit or to a Brawl roll), ``save`` replaces its saving throw when given;
    ``psi_hunter``: an enemy of a Psi-hunter Rival (+1 to hit a crew ``psionic``, p.21), never
    on a natural-6 shot."""
    return _profile(
        figure["name"], 0 if natural_six else figure["combat_skill"] + bonus, figure["toughness"], figure["speed"],
        figure["reactions"], figure["savvy"], figure["save"] if save == "figure" else save, figure["bot"],
        figure["kerin"], figure["stun"],
        figure.get("save_kind") or fp_combat.ARMOR, figure.get("second_save") if save == "figure" else None,
        bool(figure.get("reroll_natural_one")), psi_hunter and not natural_six, bool(figure.get("psionic")),
    )  # fmt: skip


@lru_cache(maxsize=1024)
def _profile(
    name: Any,
    combat_skill: Any,
    toughness: Any,
    speed: Any,
    reactions: Any,
    savvy: Any,
    save: Any,
    bot: Any,
    kerin: Any,
    stun: Any,
    save_kind: Any = fp_combat.ARMOR,
    second_save: Any = None,
    reroll_natural_one: Any = False,
    psi_hunter: Any = False,
    psionic: Any = False,
) -> fp_combat.Fighter:
    # Every shot and brawl needs both figures' profiles; a figure has few (its Stun markers change),
    # each built once (frozen, so one object serves every shot).
    return fp_combat.Fighter(
        name=str(name),
        combat_skill=int(combat_skill),
        toughness=int(toughness),
        speed=int(speed),
        reactions=int(reactions),
        savvy=int(savvy),
        save=save,
        bot=bool(bot),
        kerin=bool(kerin),
        stun_markers=int(stun),
        save_kind=str(save_kind),
        second_save=second_save,
        reroll_natural_one=bool(reroll_natural_one),
        psi_hunter=bool(psi_hunter),
        psionic=bool(psionic),
    )
