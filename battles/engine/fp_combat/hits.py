"""The player's typed faces in the order the rules ask, and one hit on a figure (Bug Hunt p.178
order; the Five Parsecs Toughness threshold, p.98; Stun, Burn and Shockwave traits, p.89).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from battles.engine.fp_combat import CombatError, TraitNumbers
from battles.engine.fp_combat.weapons import Fighter, Weapon
from rules.engine.combat_numbers import KNOCKBACK_IN, KNOCKOUT_MARKERS
from rules.engine.dice import Dice, DiceError, Keep, RollRecord

# -- faces -------------------------------------------------------------------------------------


class _Feed:
    """Hands out entered faces in order, or rolls; keeps every record."""

    def __init__(self, dice: Dice, faces: Sequence[int] | None) -> None:
        self.dice = dice
        self.faces: list[int] | None = None
        if faces is not None:
            try:
                self.faces = [int(f) for f in faces]
            except (TypeError, ValueError):
                raise CombatError(f"faces must be whole numbers 1-6; got {list(faces)!r}.", field="faces") from None
        self.used = 0
        self.rolls: list[RollRecord] = []

    def _take(self, count: int, reason: str) -> list[int] | None:
        if self.faces is None:
            return None
        if self.used + count > len(self.faces):
            raise CombatError(
                f"faces: {len(self.faces)} D6 face(s) given, but {reason} needs {count} more; "
                "give one face 1-6 per die in the order the engine asks.",
                field="faces",
            )
        taken = self.faces[self.used : self.used + count]
        self.used += count
        return taken

    def roll(self, notation: str, count: int, reason: str, *, modifier: int = 0, keep: Keep = Keep.SUM) -> RollRecord:
        taken = self._take(count, reason)
        try:
            if taken is None:
                record = self.dice.roll(notation, reason, modifier=modifier, keep=keep)
            else:
                record = Dice.enter(notation, taken, reason, modifier=modifier, keep=keep)
        except DiceError as exc:
            raise CombatError(f"faces: {exc}", field="faces") from exc
        self.rolls.append(record)
        return record

    def d6(self, reason: str, *, modifier: int = 0) -> RollRecord:
        return self.roll("1D6", 1, reason, modifier=modifier)

    def several(self, count: int, reason: str) -> RollRecord:
        return self.roll(f"{count}D6", count, reason, keep=Keep.SEPARATE)

    def finish(self) -> None:
        if self.faces is not None and self.used != len(self.faces):
            raise CombatError(f"faces: {len(self.faces)} D6 face(s) given but {self.used} were needed.", field="faces")


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


# -- hits --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HitOutcome:
    """One hit on a figure. ``result``: "saved", "stunned" or "casualty". ``notes``: knock back,
    Burn, Shockwave, knock-out. ``rolls``: the save, Damage and Shockwave dice of this hit.
    ``target``: who was hit. ``beat_toughness``: the Damage roll equalled or beat Toughness (a
    casualty that may roll on a casualty table, p.99). ``natural_six``: the hit die showed a natural
    6 (the optional Critical Hit casualty rule, p.100). ``knockback_in``: inches pushed back."""

    result: str
    notes: tuple[str, ...]
    rolls: tuple[RollRecord, ...]
    target: str = ""
    beat_toughness: bool = False
    natural_six: bool = False
    knockback_in: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "notes": list(self.notes),
            "rolls": [r.as_dict() for r in self.rolls],
            "target": self.target,
            "beat_toughness": self.beat_toughness,
            "natural_six": self.natural_six,
            "knockback_in": self.knockback_in,
        }


def _add_stun(target: Fighter, notes: list[str]) -> tuple[Fighter, bool]:
    after = replace(target, stun_markers=target.stun_markers + 1)
    out = after.stun_markers >= KNOCKOUT_MARKERS
    if out:
        notes.append(f"A Stun marker number {after.stun_markers} knocks {target.name} out (Bug Hunt p.178).")
    else:
        notes.append(f"{target.name} is Stunned ({after.stun_markers} Stun marker{'s' if after.stun_markers != 1 else ''}).")
    return after, out


def _hit(
    feed: _Feed,
    numbers: TraitNumbers,
    target: Fighter,
    gun: Weapon | None,
    *,
    source: str,
    natural_six: bool = False,
) -> tuple[HitOutcome, Fighter]:
    """Resolve one hit from ``gun`` (None = unarmed, Damage 0) on ``target``."""
    start = len(feed.rolls)
    who = target.name
    notes: list[str] = []
    damage = gun.damage if gun else 0
    stun = gun is not None and gun.has("stun")
    piercing = gun is not None and gun.has("piercing")

    def done(result: str, after: Fighter, *, beat: bool = False, knock: int = 0) -> tuple[HitOutcome, Fighter]:
        outcome = HitOutcome(
            result=result,
            notes=tuple(notes),
            rolls=tuple(feed.rolls[start:]),
            target=who,
            beat_toughness=beat,
            natural_six=natural_six,
            knockback_in=knock,
        )
        return outcome, after

    def survived(armour_stopped: bool) -> int:
        knock = KNOCKBACK_IN
        if gun is not None and gun.has("shockwave"):
            record = feed.roll(numbers.shockwave, 1, f"Shockwave: how far {who} is thrown")
            knock = int(record.total or 0)
            notes.append(f'Shockwave: {who} is thrown {knock}" straight back.')
        else:
            notes.append(f'{who} is knocked back {knock}".')
        if gun is not None and gun.has("burn") and not armour_stopped and not target.bot:
            notes.append(f'Burn: {who} makes a full move ({target.speed}") in a random direction.')
        return knock

    if gun is not None and gun.no_damage:
        notes.append(f"The {gun.name} has no Damage: the hit only Stuns.")
        after, out = _add_stun(target, notes)
        return done("casualty" if out else "stunned", after)

    if target.save is not None and piercing:
        notes.append(f"Piercing: {who}'s {target.save}+ save does not count.")
    elif target.save is not None:
        record = feed.d6(f"Saving throw for {who} ({source})")
        face = int(record.total or 0)
        if face >= target.save:
            notes.append(f"{who} saves on {target.save}+ (rolled {face}).")
            if stun:
                notes.append("Stun: Stunned even though armour stopped the hit.")
                after, out = _add_stun(target, notes)
                if out:
                    return done("casualty", after)
                return done("stunned", after, knock=survived(True))
            return done("saved", target, knock=survived(True))
        notes.append(f"{who} fails the {target.save}+ save (rolled {face}).")

    record = feed.d6(f"Damage roll on {who} ({source})", modifier=damage)
    total = int(record.total or 0)
    words = f"Damage {record.natural} {_signed(damage)} = {total} against Toughness {target.toughness}"
    if total >= target.toughness:
        notes.append(f"{words}: {who} is a casualty.")
        return done("casualty", target, beat=True)
    notes.append(f"{words}: below it.")
    if stun:
        notes.append("Stun: the hit Stuns (one marker).")
    after, out = _add_stun(target, notes)
    if out:
        return done("casualty", after)
    return done("stunned", after, knock=survived(False))
