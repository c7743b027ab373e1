"""Brawls (Bug Hunt p.177; traits p.89; Elegant rerolls, Stunned -1, p.178) and the Duck Back test
(Compendium p.87).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from battles.engine.fp_combat import PSI_HUNTER_HIT, PSI_HUNTER_WHY, TraitNumbers
from battles.engine.fp_combat.hits import HitOutcome, _Feed, _hit, _signed, with_stun_markers
from battles.engine.fp_combat.weapons import Fighter, Weapon
from rules.engine.combat_numbers import BRAWL_WIN_MOVE_IN, STUNNED_BRAWL
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

# -- brawling ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class BrawlResult:
    """One Brawl. ``winner``: the name of the side with the higher total, ``None`` on a draw (both
    take a hit). ``outcomes``: hits in order; ``a``/``b``: the fighters after it; ``rolls``: every
    roll; ``lines``: one per step. Added: ``a_total``/``b_total`` final totals; ``a_removed``/
    ``b_removed``."""

    winner: str | None
    outcomes: tuple[HitOutcome, ...]
    a: Fighter
    b: Fighter
    rolls: tuple[RollRecord, ...]
    lines: tuple[str, ...]
    a_total: int = 0
    b_total: int = 0
    a_removed: bool = False
    b_removed: bool = False
    drawn_by_point: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "outcomes": [o.as_dict() for o in self.outcomes],
            "a": self.a.as_dict(),
            "b": self.b.as_dict(),
            "rolls": [r.as_dict() for r in self.rolls],
            "lines": list(self.lines),
            "a_total": self.a_total,
            "b_total": self.b_total,
            "a_removed": self.a_removed,
            "b_removed": self.b_removed,
            **({"drawn_by_point": True} if self.drawn_by_point else {}),  # only a PvP brawl (p.35) has it
        }


def _brawl_weapon(gun: Weapon | None) -> Weapon | None:
    if gun is None or not (gun.has("melee") or gun.has("pistol")):
        return None
    return gun


def _brawl_mods(numbers: TraitNumbers, me: Fighter, gun: Weapon | None, other: Fighter) -> list[tuple[int, str]]:
    mods: list[tuple[int, str]] = [(me.combat_skill, "Combat Skill")]
    if gun is not None:
        bonuses = []
        if gun.has("melee"):
            bonuses.append((numbers.melee, f"{gun.name} (Melee)"))
        if gun.has("pistol"):
            bonuses.append((numbers.pistol_brawl, f"{gun.name} (Pistol)"))
        mods.append(max(bonuses))
        if gun.has("clumsy") and other.speed > me.speed:
            mods.append((numbers.clumsy, "Clumsy against a faster foe"))
    if me.stunned:
        mods.append((STUNNED_BRAWL, "Stunned"))
    if me.psi_hunter and other.psionic:
        mods.append((PSI_HUNTER_HIT, PSI_HUNTER_WHY))
    return mods


def _reroll_natural_one(feed: _Feed, me: Fighter, record: RollRecord, modifier: int, lines: list[str]) -> RollRecord:
    """A Krag fighting Rivals rolls a natural 1 on its Brawl die again, once (p.12)."""
    if not me.reroll_natural_one or record.natural != 1:
        return record
    again = feed.d6(f"Brawl: {me.name} rerolls a natural 1 (Krag against Rivals, p.12)", modifier=modifier)
    lines.append(f"{me.name} rerolls the natural 1 (Krag against Rivals, p.12): {again.natural}, total {again.total}.")
    return again


def resolve_brawl(
    dice: Dice,
    *,
    a: Fighter,
    b: Fighter,
    a_weapon: Weapon | None,
    b_weapon: Weapon | None,
    faces: Sequence[int] | None = None,
    tables: Mapping[str, RangeTable] | None = None,
    draw_for: str | None = None,
) -> BrawlResult:
    """A Brawl between ``a`` and ``b`` (Bug Hunt pp.177-178; traits p.89; rulings in the module
    docstring). Each rolls D6 + Combat Skill + the weapon bonus (Melee +2, Pistol +1), Clumsy -1
    against a faster foe, Stunned -1, a Psi-hunter +1 against a Psionic (p.21). Elegant rerolls a losing die (not for K'Erin). The lower
    total takes a hit from the other's weapon (Damage 0 unarmed); a draw hits both. Survivors that
    were Stunned lose one Stun marker.

    ``faces``: ``a``'s die, ``b``'s die, any reroll of a natural 1 (``reroll_natural_one``, a Krag
    against Rivals, p.12; ``a`` first), any Elegant reroll (``a`` first), then the hit dice (save,
    Damage, Shockwave) on ``b`` and then on ``a``. Raises :class:`CombatError` for wrong faces.

    ``draw_for`` (``"a"`` or ``"b"``): that side spends a PvP initiative point to count a lost
    Brawl as a draw (p.35); ``drawn_by_point`` says whether it lost, so the point was spent.
    """
    numbers = TraitNumbers.from_tables(tables)
    feed = _Feed(dice, faces)
    lines: list[str] = []
    a_gun, b_gun = _brawl_weapon(a_weapon), _brawl_weapon(b_weapon)
    for me, given, used in ((a, a_weapon, a_gun), (b, b_weapon, b_gun)):
        if given is not None and used is None:
            lines.append(f"{me.name}'s {given.name} is neither Melee nor Pistol: it counts as unarmed (Damage 0).")
    a_mods = _brawl_mods(numbers, a, a_gun, b)
    b_mods = _brawl_mods(numbers, b, b_gun, a)
    a_mod, b_mod = sum(n for n, _ in a_mods), sum(n for n, _ in b_mods)

    def words(me: Fighter, record: RollRecord, mods: list[tuple[int, str]]) -> str:
        parts = "".join(f" {_signed(n)} {why}" for n, why in mods if n)
        return f"{me.name} rolls {record.natural}{parts} = {record.total}."

    a_roll = feed.d6(f"Brawl: {a.name}", modifier=a_mod)
    b_roll = feed.d6(f"Brawl: {b.name}", modifier=b_mod)
    lines.append(words(a, a_roll, a_mods))
    lines.append(words(b, b_roll, b_mods))
    a_roll = _reroll_natural_one(feed, a, a_roll, a_mod, lines)
    b_roll = _reroll_natural_one(feed, b, b_roll, b_mod, lines)
    a_total, b_total = int(a_roll.total or 0), int(b_roll.total or 0)
    for side in ("a", "b"):
        me, gun = (a, a_gun) if side == "a" else (b, b_gun)
        mine, theirs = (a_total, b_total) if side == "a" else (b_total, a_total)
        if gun is None or not gun.has("elegant") or mine >= theirs:
            continue
        if me.kerin:
            lines.append(f"Elegant: {me.name} is K'Erin and does not reroll (p.89).")
            continue
        record = feed.d6(f"Brawl: {me.name} Elegant reroll", modifier=a_mod if side == "a" else b_mod)
        lines.append(f"Elegant: {me.name} is behind and rerolls: {record.natural}, total {record.total}.")
        if side == "a":
            a_total = int(record.total or 0)
        else:
            b_total = int(record.total or 0)

    outcomes: list[HitOutcome] = []
    a_now, b_now = a, b
    drawn = (draw_for == "a" and b_total > a_total) or (draw_for == "b" and a_total > b_total)
    if drawn:
        loser = a if draw_for == "a" else b
        lines.append(
            f"{loser.name} spends an initiative point: the lost Brawl ({a_total} to {b_total}) counts as a draw, both take a hit (p.35)."
        )
        won: str | None = None
    elif a_total > b_total:
        won = "a"
        lines.append(f"{a.name} wins {a_total} to {b_total}: {b.name} takes a hit.")
    elif b_total > a_total:
        won = "b"
        lines.append(f"{b.name} wins {b_total} to {a_total}: {a.name} takes a hit.")
    else:
        won = None
        lines.append(f"A draw at {a_total}: both take a hit.")
    a_out = b_out = False
    if won != "b":
        outcome, b_now = _hit(feed, numbers, b_now, a_gun, source=f"Brawl, {a_gun.name if a_gun else 'unarmed'}")
        outcomes.append(outcome)
        lines.extend(outcome.notes)
        b_out = outcome.result == "casualty"
    if won != "a":
        outcome, a_now = _hit(feed, numbers, a_now, b_gun, source=f"Brawl, {b_gun.name if b_gun else 'unarmed'}")
        outcomes.append(outcome)
        lines.extend(outcome.notes)
        a_out = outcome.result == "casualty"
    for who, before, now, out in (("a", a, a_now, a_out), ("b", b, b_now, b_out)):
        if before.stunned and not out:
            cleared = with_stun_markers(now, max(0, now.stun_markers - 1))
            lines.append(f"{before.name} survived the Brawl and removes a Stun marker ({cleared.stun_markers} left).")
            if who == "a":
                a_now = cleared
            else:
                b_now = cleared
    if b_out and not a_out:
        lines.append(f'{a.name} may move {BRAWL_WIN_MOVE_IN}" at once, but not into a new Brawl.')
    elif a_out and not b_out:
        lines.append(f'{b.name} may move {BRAWL_WIN_MOVE_IN}" at once, but not into a new Brawl.')
    feed.finish()
    return BrawlResult(
        winner=None if won is None else (a.name if won == "a" else b.name),
        outcomes=tuple(outcomes),
        a=a_now,
        b=b_now,
        rolls=tuple(feed.rolls),
        lines=tuple(lines),
        a_total=a_total,
        b_total=b_total,
        a_removed=a_out,
        b_removed=b_out,
        drawn_by_point=drawn,
    )


# -- Duck Back ---------------------------------------------------------------------------------


def duck_back(
    dice: Dice,
    *,
    target: Fighter,
    cover: bool,
    far_shooter: bool,
    was_hit: bool,
    faces: Sequence[int] | None = None,
    tables: Mapping[str, RangeTable] | None = None,
) -> tuple[bool, RollRecord | None]:
    """The Duck Back test at the end of a phase (p.87, Dramatic Combat). Only a figure that is not
    a robot, was not hit, and had at least one firer more than 6" away (``far_shooter``) tests:
    one D6, 3+ in the open, 4+ in or directly behind cover (``cover``). Returns ``(ducks, record)``;
    the record is ``None`` when no test is due. A figure that ducks moves to the nearest better
    protection (else the farthest spot with the same protection); the caller moves it.
    ``faces``: one D6 face when a test is due, none otherwise. Raises :class:`CombatError` for
    wrong faces."""
    numbers = TraitNumbers.from_tables(tables)
    feed = _Feed(dice, faces)
    if target.bot or was_hit or not far_shooter:
        feed.finish()
        return False, None
    need = numbers.duck_back_cover if cover else numbers.duck_back_open
    record = feed.d6(f"Duck Back: {target.name} ({need}+ {'in cover' if cover else 'in the open'})")
    feed.finish()
    return int(record.total or 0) >= need, record
