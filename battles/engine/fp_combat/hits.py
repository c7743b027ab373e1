"""The player's typed faces in the order the rules ask, and one hit on a figure (Bug Hunt p.178
order; the Five Parsecs Toughness threshold, p.98; Stun, Burn and Shockwave traits, p.89).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from battles.engine.fp_combat import ARMOR, BOTH, SCREEN, CombatError, TraitNumbers, _frozen
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
        notation = _SEVERAL[count] if count < len(_SEVERAL) else f"{count}D6"
        return self.roll(notation, count, reason, keep=Keep.SEPARATE)

    def finish(self) -> None:
        if self.faces is not None and self.used != len(self.faces):
            raise CombatError(f"faces: {len(self.faces)} D6 face(s) given but {self.used} were needed.", field="faces")


#: The notations of a weapon's firing dice, written once: "1D6", "2D6", ...
_SEVERAL: tuple[str, ...] = tuple(f"{count}D6" for count in range(13))


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


# -- hits --------------------------------------------------------------------------------------

_KIND_WORDS = {ARMOR: "Armor", SCREEN: "Screen", BOTH: "Armor and Screen"}


def save_against(target: Fighter, *, piercing: bool, ignores_screens: bool = False) -> tuple[tuple[int, str] | None, list[str]]:
    """The Saving Throw ``target`` rolls against one hit: ``((D6 target, kind), notes)``, or
    ``(None, notes)`` when it has none the hit leaves standing. Piercing negates Armor saves
    (p.89) and a hit that ignores Screens negates Screen saves (p.141); a save of both kinds
    stands unless the hit negates both (p.26). When the first save is negated the figure's
    ``second_save`` (the other kind) is rolled instead. ``notes`` say what was negated, in the
    words of the log."""
    if target.save is None:
        return None, []
    negated = ({ARMOR} if piercing else set()) | ({SCREEN} if ignores_screens else set())
    first_kinds = {ARMOR, SCREEN} if target.save_kind == BOTH else {target.save_kind}
    if first_kinds - negated:
        return (target.save, target.save_kind), []
    who = target.name
    why = " and ".join(w for w, on in (("Piercing", piercing), ("ignoring Screens", ignores_screens)) if on)
    if target.save_kind == ARMOR and target.second_save is None and not ignores_screens:
        notes = [f"Piercing: {who}'s {target.save}+ save does not count."]  # the words before save kinds
    else:
        notes = [f"{why[:1].upper()}{why[1:]}: {who}'s {_KIND_WORDS[target.save_kind]} {target.save}+ save does not count."]
    other = SCREEN if target.save_kind == ARMOR else ARMOR
    if target.second_save is not None and other not in negated:
        notes.append(f"{who}'s {_KIND_WORDS[other]} save still counts.")
        return (target.second_save, other), notes
    return None, notes


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


def with_stun_markers(figure: Fighter, markers: int) -> Fighter:
    """``figure`` with ``markers`` Stun markers (0 or more), equal to ``dataclasses.replace(figure,
    stun_markers=markers)``: a copy of its fields, which its own checks already passed."""
    if markers < 0:
        raise CombatError(f"stun_markers must be 0 or more; got {markers}.", field="stun_markers")
    return _frozen(type(figure), {**figure.__dict__, "stun_markers": markers})


def _add_stun(target: Fighter, notes: list[str]) -> tuple[Fighter, bool]:
    after = with_stun_markers(target, target.stun_markers + 1)
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
    ignores_screens: bool = False,
    ranged: bool = False,
) -> tuple[HitOutcome, Fighter]:
    """Resolve one hit from ``gun`` (None = unarmed, Damage 0) on ``target``; ``ignores_screens``:
    the hit negates Screen saves (p.141); ``ranged``: a shot's hit, which a psionic ward may
    negate first (:class:`Ward`, pp.18, 23: no Stun marker, no knock back)."""
    start = len(feed.rolls)
    who = target.name
    notes: list[str] = []
    if gun is None:
        damage, traits = 0, _NO_TRAITS
    else:
        damage, traits = gun.damage, gun.traits
    stun = "stun" in traits

    ward = target.ward
    if ranged and ward is not None and (ward.area or "area" not in traits):
        record = feed.d6(f"{ward.name} for {who} ({source})")
        face = int(record.total or 0)
        if face >= ward.target:
            notes.append(f"{ward.name} negates the hit on {who} (rolled {face}, {ward.target}+): no Stun marker.")
            if ward.deflect_on is not None and face >= ward.deflect_on:
                notes.append(f"On a {face} it is deflected: it strikes the closest crew figure {who} can see (resolve that hit).")
            return _outcome(feed, start, notes, target, natural_six, "saved", target)
        notes.append(f"{ward.name} fails for {who} (rolled {face}, {ward.target}+).")

    if gun is not None and gun.no_damage:
        notes.append(f"The {gun.name} has no Damage: the hit only Stuns.")
        after, out = _add_stun(target, notes)
        return _outcome(feed, start, notes, target, natural_six, "casualty" if out else "stunned", after)

    if target.save is not None:  # save_against gives None at once for a figure with no save
        save, said = save_against(target, piercing="piercing" in traits, ignores_screens=ignores_screens)
        notes.extend(said)
        if save is not None:
            label = "" if target.save_kind == ARMOR and target.second_save is None else f" {_KIND_WORDS[save[1]]}"
            record = feed.d6(f"Saving throw for {who} ({source})")
            face = int(record.total or 0)
            if face >= save[0]:
                notes.append(f"{who} saves on{label} {save[0]}+ (rolled {face}).")
                if stun:
                    notes.append("Stun: Stunned even though armour stopped the hit.")
                    return _stunned(feed, start, notes, target, natural_six, numbers, traits, armour_stopped=True)
                knock = _knocked(feed, numbers, target, traits, notes, armour_stopped=True)
                return _outcome(feed, start, notes, target, natural_six, "saved", target, knock=knock)
            notes.append(f"{who} fails the{label} {save[0]}+ save (rolled {face}).")

    record = feed.d6(f"Damage roll on {who} ({source})", modifier=damage)
    total = int(record.total or 0)
    words = f"Damage {record.natural} {_signed(damage)} = {total} against Toughness {target.toughness}"
    if total >= target.toughness:
        notes.append(f"{words}: {who} is a casualty.")
        return _outcome(feed, start, notes, target, natural_six, "casualty", target, beat=True)
    notes.append(f"{words}: below it.")
    if stun:
        notes.append("Stun: the hit Stuns (one marker).")
    return _stunned(feed, start, notes, target, natural_six, numbers, traits, armour_stopped=False)


_NO_TRAITS: frozenset[str] = frozenset()


def _outcome(
    feed: _Feed,
    start: int,
    notes: list[str],
    target: Fighter,
    natural_six: bool,
    result: str,
    after: Fighter,
    *,
    beat: bool = False,
    knock: int = 0,
) -> tuple[HitOutcome, Fighter]:
    """The :class:`HitOutcome` of a hit on ``target`` whose rolls are those of ``feed`` from
    ``start``, and the figure after it."""
    outcome = _frozen(
        HitOutcome,
        {
            "result": result,
            "notes": tuple(notes),
            "rolls": tuple(feed.rolls[start:]),
            "target": target.name,
            "beat_toughness": beat,
            "natural_six": natural_six,
            "knockback_in": knock,
        },
    )
    return outcome, after


def _stunned(
    feed: _Feed,
    start: int,
    notes: list[str],
    target: Fighter,
    natural_six: bool,
    numbers: TraitNumbers,
    traits: frozenset[str],
    *,
    armour_stopped: bool,
) -> tuple[HitOutcome, Fighter]:
    """``target`` takes a Stun marker: a casualty when that puts it out, else stunned and knocked
    back (:func:`_knocked`)."""
    after, out = _add_stun(target, notes)
    if out:
        return _outcome(feed, start, notes, target, natural_six, "casualty", after)
    knock = _knocked(feed, numbers, target, traits, notes, armour_stopped=armour_stopped)
    return _outcome(feed, start, notes, target, natural_six, "stunned", after, knock=knock)


def _knocked(
    feed: _Feed, numbers: TraitNumbers, target: Fighter, traits: frozenset[str], notes: list[str], *, armour_stopped: bool
) -> int:
    """A figure that survived a hit is knocked back (Bug Hunt p.178), or thrown by Shockwave, and
    may make a Burn move (p.89); returns the inches it is pushed back."""
    who = target.name
    knock = KNOCKBACK_IN
    if "shockwave" in traits:
        record = feed.roll(numbers.shockwave, 1, f"Shockwave: how far {who} is thrown")
        knock = int(record.total or 0)
        notes.append(f'Shockwave: {who} is thrown {knock}" straight back.')
    else:
        notes.append(f'{who} is knocked back {knock}".')
    if "burn" in traits and not armour_stopped and not target.bot:
        notes.append(f'Burn: {who} makes a full move ({target.speed}") in a random direction.')
    return knock


def resolve_hit(
    dice: Dice,
    *,
    target: Fighter,
    damage: int,
    source: str,
    piercing: bool = False,
    ignores_screens: bool = False,
    faces: Sequence[int] | None = None,
) -> tuple[HitOutcome, Fighter]:
    """One hit that no weapon fires (a hazard, an event): Damage ``damage`` on ``target`` from
    ``source`` (its name in the log). ``piercing`` negates Armor saves (p.89);
    ``ignores_screens`` negates Screen saves (the Salvage hazards that ignore any Screens worn,
    p.141). Otherwise as a weapon's hit: the Saving Throw, then D6 + Damage against Toughness
    (module docstring). ``faces``: the save die (if any), then the Damage die. Returns the
    outcome and the target after the hit (its Stun markers); raises :class:`CombatError`
    (``damage`` below 0, ``faces``)."""
    if damage < 0:
        raise CombatError(f"damage must be 0 or more; got {damage}.", field="damage")
    gun = Weapon(name=source or "Hit", range=0, shots=0, damage=damage, traits=frozenset({"piercing"} if piercing else ()))
    feed = _Feed(dice, faces)
    outcome, after = _hit(feed, TraitNumbers(), target, gun, source=gun.name, ignores_screens=ignores_screens)
    feed.finish()
    return outcome, after
