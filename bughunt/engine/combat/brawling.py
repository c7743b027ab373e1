"""Brawling (Bug Hunt p.179)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from bughunt.engine.combat.figures import Combatant, weapon
from bughunt.engine.combat.hits import HitResult, _Feed, _hit, _mods
from bughunt.engine.combat.numbers import BRAWL_BEST_OF_TWO, SLITHERING_HORRORS, CombatError, Numbers
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

# -- brawling ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class BrawlResult:
    """A Brawl (pp.177-178, 180). ``winner`` is "trooper", "enemy" or "draw" (both hit);
    ``hits`` the HitResults in order; ``trooper`` and ``enemy`` the figures after it;
    ``trooper_total``/``enemy_total`` the deciding totals; ``move`` what the winner does next."""

    winner: str
    hits: tuple[HitResult, ...]
    trooper: Combatant
    enemy: Combatant
    trooper_total: int
    enemy_total: int | None
    move: str
    rolls: tuple[RollRecord, ...]
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "hits": [h.as_dict() for h in self.hits],
            "trooper": self.trooper.as_dict(),
            "enemy": self.enemy.as_dict(),
            "trooper_total": self.trooper_total,
            "enemy_total": self.enemy_total,
            "move": self.move,
            "rolls": [r.as_dict() for r in self.rolls],
            "text": self.text,
        }


def brawl_weapon(
    tables: Mapping[str, RangeTable], trooper: Combatant, *, against: Combatant | None = None
) -> tuple[int, str, int]:
    """A trooper's Brawl weapon bonus and Damage (p.177): ``(bonus, label, damage)``. One bonus
    only: +2 for a Melee weapon (only +1 against Slithering horrors) or +1 for a Pistol; Damage is
    the best of any Melee or Pistol weapon carried, 0 without one. Raises :class:`WeaponError`
    for an unknown weapon name."""
    numbers = Numbers.from_tables(tables)
    carried = [weapon(tables, name) for name in trooper.weapons]
    close = [w for w in carried if w.has("Melee") or w.has("Pistol")]
    damage = max((w.damage for w in close), default=0)
    bonus, label = 0, ""
    melee = [w for w in carried if w.has("Melee")]
    pistols = [w for w in carried if w.has("Pistol")]
    if melee:
        bonus, label = numbers.melee_bonus, f"{melee[0].name} (Melee)"
        if against is not None and SLITHERING_HORRORS in against.special:
            bonus = min(bonus, numbers.pistol_bonus)
            label += ", only +1 against Slithering horrors"
        if pistols and numbers.pistol_bonus > bonus:
            bonus, label = numbers.pistol_bonus, f"{pistols[0].name} (Pistol)"
    elif pistols:
        bonus, label = numbers.pistol_bonus, f"{pistols[0].name} (Pistol)"
    return bonus, label, damage


def resolve_brawl(
    tables: Mapping[str, RangeTable],
    trooper: Combatant,
    enemy: Combatant,
    dice: Dice,
    *,
    second_opponent: bool = False,
    trooper_second_opponent: bool = False,
    crash: bool = False,
    faces: Sequence[int] | None = None,
) -> BrawlResult:
    """Fight a Brawl between ``trooper`` and ``enemy`` (pp.177-178, 180).

    Both roll 1D6 + Combat Skill. The trooper adds one weapon bonus (:func:`brawl_weapon`),
    -1 when Wounded; a Stunned figure on either side fights at -1. ``second_opponent``: the enemy
    is the second of two opponents met at once (+1 Combat Skill); ``trooper_second_opponent`` the
    same for the trooper. ``crash``: a random move brought them together, both count Combat Skill
    +0 and no modifiers. K'Erin (``brawl_best_of_two``) roll two dice and keep the better.

    The lower total takes a Hit; a draw hits both. An enemy natural 1 gives the enemy a Hit and,
    if it survives, it rolls again against the trooper's total. Troopers strike with their best
    Melee/Pistol Damage (0 without), enemies with their profile Damage. A figure that was Stunned
    and survives loses one Stun marker. ``move`` says the winner's move after eliminating its
    opponent (trooper: may move 2"; enemy: toward the nearest visible trooper).

    ``faces``: the trooper's die (two for K'Erin), the enemy's die, then save and Hit dice as
    they come (and any enemy reroll). Raises :class:`CombatError` when ``trooper`` is an enemy or
    ``enemy`` is not, or for wrong faces.
    """
    if trooper.is_enemy:
        raise CombatError("trooper must be a trooper (is_enemy False).")
    if not enemy.is_enemy:
        raise CombatError("enemy must be an enemy figure (is_enemy True).")
    numbers = Numbers.from_tables(tables)
    feed = _Feed(dice, faces)
    texts: list[str] = []
    trooper_mods: list[tuple[int, str]] = []
    enemy_mods: list[tuple[int, str]] = []
    bonus, label, trooper_damage = brawl_weapon(tables, trooper, against=enemy)
    if crash:
        texts.append("Crash into a Brawl: both count Combat Skill +0 with no modifiers.")
    else:
        trooper_mods.append((trooper.combat_skill, "Combat Skill"))
        if bonus:
            trooper_mods.append((bonus, label))
        if trooper.wounded:
            trooper_mods.append((numbers.wounded_brawl, "Wounded"))
        if trooper.stunned:
            trooper_mods.append((numbers.stunned_brawl, "Stunned"))
        if trooper_second_opponent:
            trooper_mods.append((numbers.second_opponent, "second opponent"))
        enemy_mods.append((enemy.combat_skill, "Combat Skill"))
        if second_opponent:
            enemy_mods.append((numbers.second_opponent, "second opponent"))
        if enemy.stunned:
            enemy_mods.append((numbers.stunned_brawl, "Stunned"))
    t_mod = sum(n for n, _ in trooper_mods)
    e_mod = sum(n for n, _ in enemy_mods)
    if BRAWL_BEST_OF_TWO in trooper.special and not crash:
        t_roll = feed.best_of_two(f"Brawl: {trooper.name} (best of two)", modifier=t_mod)
        t_words = f"{trooper.name} rolls {t_roll.faces[0]} and {t_roll.faces[1]}, keeps {t_roll.natural}"
    else:
        t_roll = feed.d6(f"Brawl: {trooper.name}", modifier=t_mod)
        t_words = f"{trooper.name} rolls {t_roll.natural}"
    t_total = int(t_roll.total or 0)
    texts.append(f"{t_words}{_mods(trooper_mods)} = {t_total}.")
    hits: list[HitResult] = []
    t_now, e_now = trooper, enemy
    e_total: int | None = None
    while True:
        e_roll = feed.d6(f"Brawl: {enemy.name}", modifier=e_mod)
        e_total = int(e_roll.total or 0)
        texts.append(f"{enemy.name} rolls {e_roll.natural}{_mods(enemy_mods)} = {e_total}.")
        if e_roll.natural != 1:
            break
        texts.append(f"A natural 1: {enemy.name} takes a Hit.")
        hit = _hit(
            numbers,
            e_now,
            trooper_damage,
            feed,
            piercing=False,
            area=False,
            ranged=False,
            attacker_special=trooper.special,
            source="Brawl",
        )
        hits.append(hit)
        texts.append(hit.text)
        e_now = hit.target
        if hit.removed:
            e_total = None
            break
        texts.append(f"{enemy.name} survives and rolls again.")
    if e_total is None:
        winner = "trooper"
    else:
        winner = "trooper" if t_total > e_total else "enemy" if e_total > t_total else "draw"
        if winner == "draw":
            texts.append(f"A draw at {t_total}: both take a Hit.")
        elif winner == "trooper":
            texts.append(f"{trooper.name} wins {t_total} to {e_total}: {enemy.name} takes a Hit.")
        else:
            texts.append(f"{enemy.name} wins {e_total} to {t_total}: {trooper.name} takes a Hit.")
        if winner in ("trooper", "draw"):
            hit = _hit(
                numbers,
                e_now,
                trooper_damage,
                feed,
                piercing=False,
                area=False,
                ranged=False,
                attacker_special=trooper.special,
                source="Brawl",
            )
            hits.append(hit)
            texts.append(hit.text)
            e_now = hit.target
        if winner in ("enemy", "draw"):
            hit = _hit(
                numbers,
                t_now,
                enemy.damage,
                feed,
                piercing=False,
                area=False,
                ranged=False,
                attacker_special=enemy.special,
                source="Brawl",
            )
            hits.append(hit)
            texts.append(hit.text)
            t_now = hit.target
    t_out = any(h.removed and not h.target.is_enemy for h in hits)
    e_out = any(h.removed and h.target.is_enemy for h in hits)
    if trooper.stunned and not t_out:
        t_now = replace(t_now, stun_markers=max(0, t_now.stun_markers - 1))
        texts.append(f"{trooper.name} survived the Brawl and removes a Stun marker ({t_now.stun_markers} left).")
    if enemy.stunned and not e_out:
        e_now = replace(e_now, stun_markers=max(0, e_now.stun_markers - 1))
        texts.append(f"{enemy.name} survived the Brawl and removes a Stun marker ({e_now.stun_markers} left).")
    move = ""
    if e_out and not t_out:
        move = f'{trooper.name} may move 2" in any direction at once, but not into a new Brawl.'
    elif t_out and not e_out:
        move = (
            f"{enemy.name} moves straight toward the nearest visible trooper, or into {trooper.name}'s place if none is visible."
        )
    if move:
        texts.append(move)
    feed.finish()
    return BrawlResult(
        winner=winner,
        hits=tuple(hits),
        trooper=t_now,
        enemy=e_now,
        trooper_total=t_total,
        enemy_total=e_total,
        move=move,
        rolls=tuple(feed.rolls),
        text=" ".join(texts),
    )
