"""Typed dice faces, and Hits and saving throws (Bug Hunt pp.178-179, 194-197)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from bughunt.engine.combat.figures import Combatant, _stun
from bughunt.engine.combat.numbers import (
    ASSASSIN,
    BERSERK_ROBOTS,
    BRUISER,
    CONVERTED_ASSAULT_TEAM,
    FACE_RIPPER_SAVE,
    FACE_RIPPERS,
    IGNORES_ARMOR,
    REMOVED,
    TENTACLE_CREEPERS,
    THE_SWARM,
    TOUGHS,
    CombatError,
    Numbers,
)
from rules.engine.dice import Dice, DiceError, Keep, RollRecord
from rules.engine.tables import RangeTable

# -- faces ------------------------------------------------------------------------------------


class _Feed:
    """Hands out the player's entered faces in order, or rolls; keeps every record."""

    def __init__(self, dice: Dice, faces: Sequence[int] | None) -> None:
        self.dice = dice
        self.faces = None if faces is None else [int(f) for f in faces]
        self.used = 0
        self.rolls: list[RollRecord] = []

    def _take(self, count: int, reason: str) -> list[int] | None:
        if self.faces is None:
            return None
        if self.used + count > len(self.faces):
            raise CombatError(
                f"faces: {len(self.faces)} D6 face(s) given, but {reason} needs {count} more "
                f"(faces {self.used + 1}-{self.used + count}); give one face 1-6 per die in the order rolled."
            )
        taken = self.faces[self.used : self.used + count]
        self.used += count
        return taken

    def _keep(self, record: RollRecord) -> RollRecord:
        self.rolls.append(record)
        return record

    def d6(self, reason: str, *, modifier: int = 0) -> RollRecord:
        taken = self._take(1, reason)
        try:
            if taken is None:
                return self._keep(self.dice.roll("1D6", reason, modifier=modifier))
            return self._keep(Dice.enter("1D6", taken, reason, modifier=modifier))
        except DiceError as exc:
            raise CombatError(f"faces: {exc}") from exc

    def several(self, count: int, reason: str) -> RollRecord:
        taken = self._take(count, reason)
        try:
            if taken is None:
                return self._keep(self.dice.separate(count, 6, reason))
            return self._keep(Dice.enter(f"{count}D6", taken, reason, keep=Keep.SEPARATE))
        except DiceError as exc:
            raise CombatError(f"faces: {exc}") from exc

    def best_of_two(self, reason: str, *, modifier: int = 0) -> RollRecord:
        taken = self._take(2, reason)
        try:
            if taken is None:
                return self._keep(self.dice.highest(2, 6, reason, modifier=modifier))
            return self._keep(Dice.enter("2D6", taken, reason, modifier=modifier, keep=Keep.HIGHEST))
        except DiceError as exc:
            raise CombatError(f"faces: {exc}") from exc

    def finish(self) -> None:
        if self.faces is not None and self.used != len(self.faces):
            raise CombatError(f"faces: {len(self.faces)} D6 face(s) given but only {self.used} were needed.")


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def _mods(mods: Sequence[tuple[int, str]]) -> str:
    return "".join(f" {_signed(n)} {label}" for n, label in mods if n)


# -- hits -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HitResult:
    """One Hit resolved (p.178). ``outcome`` is one of saved, stunned, wounded, casualty,
    knocked_out; ``target`` is the figure after the Hit; ``knockback_in`` inches pushed back;
    ``save_target`` the D6 save used (``None``: no save); ``damage_total`` 1D6 + Damage (``None``
    when saved)."""

    outcome: str
    saved: bool
    target: Combatant
    knockback_in: int
    save_target: int | None
    damage_total: int | None
    rolls: tuple[RollRecord, ...]
    text: str

    @property
    def removed(self) -> bool:
        """True for a casualty or a knocked-out figure: take it off the table."""
        return self.outcome in REMOVED

    def as_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "saved": self.saved,
            "target": self.target.as_dict(),
            "knockback_in": self.knockback_in,
            "save_target": self.save_target,
            "damage_total": self.damage_total,
            "rolls": [r.as_dict() for r in self.rolls],
            "text": self.text,
        }


def save_for(
    target: Combatant,
    *,
    numbers: Numbers | None = None,
    piercing: bool = False,
    area: bool = False,
    ranged: bool = True,
    attacker_special: frozenset[str] = frozenset(),
) -> tuple[int | None, str]:
    """The saving throw ``target`` gets against one Hit, and why: ``(5, "trooper armor")`` or
    ``(None, "Piercing weapon")``. Order: Piercing and armor-ignoring attackers (Assassin, The
    Swarm against troopers, ``ignores_armor``) remove it; Bruiser 4+ replaces any; enemy saves
    (Tentacle creepers not against Area, Berserk robots always, Converted assault team against
    ranged attacks); Toughs (5+ against Area, or one 4+ joined with an existing save); Face-rippers
    turn trooper armor into a 6 (pp.178, 194-197)."""
    n = numbers or Numbers()
    if piercing:
        return None, "the Piercing weapon ignores saves"
    if ASSASSIN in attacker_special or IGNORES_ARMOR in attacker_special:
        return None, "the attack ignores armor"
    if THE_SWARM in attacker_special and not target.is_enemy:
        return None, "the Swarm ignores trooper saves"
    if BRUISER in target.special:
        return n.bruiser_save, "Bruiser"
    saves: list[tuple[int, str]] = []
    if target.save is not None:
        saves.append((target.save, "armor" if not target.is_enemy else "save"))
    own = target.save is not None
    if TENTACLE_CREEPERS in target.special:
        own = True
        if not area:
            saves.append((n.tentacle_creepers_save, "Tentacle creeper hide"))
    if BERSERK_ROBOTS in target.special:
        own = True
        saves.append((n.berserk_robots_save, "Berserk robot"))
    if CONVERTED_ASSAULT_TEAM in target.special:
        own = True
        if ranged:
            saves.append((n.converted_assault_team_save, "Converted save against ranged attacks"))
    if TOUGHS in target.special:
        if own and (saves or area):
            return n.toughs_combined_save, "Toughs combined save"
        if area:
            saves.append((n.toughs_save, "Toughs save against Area"))
    if not saves:
        return None, "no saving throw"
    best, why = min(saves)
    if FACE_RIPPERS in attacker_special and not target.is_enemy:
        return FACE_RIPPER_SAVE, "armor saves only on a 6 against Face-rippers"
    return best, why


def _hit(
    numbers: Numbers,
    target: Combatant,
    damage: int,
    feed: _Feed,
    *,
    piercing: bool,
    area: bool,
    ranged: bool,
    attacker_special: frozenset[str],
    source: str,
) -> HitResult:
    start = len(feed.rolls)
    who = target.name
    save, why = save_for(target, numbers=numbers, piercing=piercing, area=area, ranged=ranged, attacker_special=attacker_special)
    parts: list[str] = []
    if save is not None:
        record = feed.d6(f"Save for {who} ({source})")
        face = int(record.total or 0)
        if face >= save:
            parts.append(
                f'{who} saves on {save}+ ({why}): rolled {face}, shrugs off the hit, knocked back {numbers.knockback_in}" and not Stunned.'
            )
            return HitResult("saved", True, target, numbers.knockback_in, save, None, tuple(feed.rolls[start:]), " ".join(parts))
        parts.append(f"{who} needs {save}+ to save ({why}): rolled {face}, failed.")
    elif why != "no saving throw":
        parts.append(f"No save for {who}: {why}.")
    record = feed.d6(f"Hit on {who} ({source})", modifier=damage)
    total = int(record.total or 0)
    roll_words = f"Hit roll {record.natural} {_signed(damage)} Damage = {total} against Toughness {target.toughness}"
    if total > target.toughness:
        outcome, after = "casualty", target
        parts.append(f"{roll_words}: above it, {who} is a casualty.")
    elif total == target.toughness:
        if target.wounded:
            outcome, after = "casualty", target
            parts.append(f"{roll_words}: equal, a second Wound, so {who} is a casualty.")
        else:
            outcome, after = "wounded", replace(target, wounded=True)
            parts.append(f'{roll_words}: equal, {who} is Wounded and knocked back {numbers.knockback_in}".')
    else:
        after, out = _stun(numbers, target)
        if out:
            outcome = "knocked_out"
            parts.append(f"{roll_words}: below it, a third Stun marker knocks {who} out.")
        else:
            outcome = "stunned"
            parts.append(
                f"{roll_words}: below it, {who} is Stunned ({after.stun_markers} marker"
                f'{"s" if after.stun_markers != 1 else ""}) and knocked back {numbers.knockback_in}".'
            )
    knockback = numbers.knockback_in if outcome in ("wounded", "stunned") else 0
    return HitResult(outcome, False, after, knockback, save, total, tuple(feed.rolls[start:]), " ".join(parts))


def resolve_hit(
    tables: Mapping[str, RangeTable],
    target: Combatant,
    damage: int,
    dice: Dice,
    *,
    piercing: bool = False,
    area: bool = False,
    ranged: bool = True,
    attacker_special: frozenset[str] = frozenset(),
    source: str = "hit",
    faces: Sequence[int] | None = None,
) -> HitResult:
    """Resolve one Hit of ``damage`` on ``target`` (p.178): the saving throw first if one applies
    (see :func:`save_for`; made = knocked back 1", no Stun), then 1D6 + Damage against Toughness:
    above = casualty, equal = Wounded (a second Wound = casualty), below = one more Stun marker
    (the third knocks the figure out). ``faces``: the save die (if a save applies), then the Hit
    die. Raises :class:`CombatError` for a bad damage value or wrong faces."""
    if damage < 0:
        raise CombatError(f"damage must be 0 or more; got {damage}.")
    feed = _Feed(dice, faces)
    result = _hit(
        Numbers.from_tables(tables),
        target,
        damage,
        feed,
        piercing=piercing,
        area=area,
        ranged=ranged,
        attacker_special=attacker_special,
        source=source,
    )
    feed.finish()
    return result
