"""A shot (Bug Hunt p.177 to-hit roll; traits p.89; Lunge and Duck Back due, p.87).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from battles.engine.fp_combat import PSI_HUNTER_HIT, PSI_HUNTER_WHY, CombatError, TraitNumbers, _frozen
from battles.engine.fp_combat.hits import HitOutcome, _Feed, _hit, _signed
from battles.engine.fp_combat.weapons import Fighter, HitNumbers, Weapon
from rules.engine.combat_numbers import RESPREAD_IN
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

#: An enemy Psionic's Obscure (p.23; enemy-psionic-powers ``hit_on``): shots need this natural face.
OBSCURED_NATURAL = 6

# -- shooting ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShotResult:
    """One attack with a ranged weapon.

    ``hits``: hits scored (Critical doubles counted, spare hits included); ``outcomes``: one per
    hit resolved on the target; ``target``: the target after them; ``rolls``: every roll in order;
    ``lines``: one short line per step; ``lunge``: the target may Lunge (p.87, dramatic combat
    only). Added: ``to_hit`` (the D6 target, None for Area), ``modifier`` (added to each firing
    die), ``shots`` fired, ``spare_hits`` (hits left after the target fell), ``lunge_forced`` (an
    enemy must Lunge), ``duck_back_due`` (the target should test Duck Back at the end of the phase
    unless another shot hits it), ``single_use`` (remove the weapon from supply), ``removed`` (the
    target is out)."""

    hits: int
    outcomes: tuple[HitOutcome, ...]
    target: Fighter
    rolls: tuple[RollRecord, ...]
    lines: tuple[str, ...]
    lunge: bool
    to_hit: int | None = None
    modifier: int = 0
    shots: int = 0
    spare_hits: int = 0
    lunge_forced: bool = False
    duck_back_due: bool = False
    single_use: bool = False
    removed: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "hits": self.hits,
            "outcomes": [o.as_dict() for o in self.outcomes],
            "target": self.target.as_dict(),
            "rolls": [r.as_dict() for r in self.rolls],
            "lines": list(self.lines),
            "lunge": self.lunge,
            "to_hit": self.to_hit,
            "modifier": self.modifier,
            "shots": self.shots,
            "spare_hits": self.spare_hits,
            "lunge_forced": self.lunge_forced,
            "duck_back_due": self.duck_back_due,
            "single_use": self.single_use,
            "removed": self.removed,
        }


def _lunge(
    numbers: TraitNumbers, shooter: Fighter, target: Fighter, range_in: int, hits: int, shots: int
) -> tuple[bool, bool, str]:
    if range_in > numbers.lunge_range_in or hits or not shots:
        return False, False, ""
    carried = target.weapons
    if any(w.has("heavy") for w in carried):
        return False, False, f"{target.name} carries a Heavy weapon and cannot Lunge."
    ranged = [w for w in carried if not w.brawl_only]
    melee = [w for w in carried if w.has("melee")]
    if ranged and not melee:
        return False, False, f"{target.name} has a ranged weapon and no Melee weapon, so no Lunge."
    forced = False
    if target.enemy:
        bonus = numbers.melee if melee else 0
        forced = not ranged or target.combat_skill + bonus > shooter.combat_skill
    if forced:
        line = f'Every shot missed within {numbers.lunge_range_in}": {target.name} Lunges a full move toward {shooter.name}.'
    else:
        line = f'Every shot missed within {numbers.lunge_range_in}": {target.name} may Lunge a full move toward {shooter.name}.'
    return True, forced, line


def resolve_shot(
    dice: Dice,
    *,
    shooter: Fighter,
    target: Fighter,
    weapon: Weapon,
    numbers: HitNumbers,
    range_in: int,
    cover: bool,
    moved: bool = False,
    fired_last_round: bool = False,
    dramatic: bool = False,
    faces: Sequence[int] | None = None,
    tables: Mapping[str, RangeTable] | None = None,
    extra_shots: int = 0,
    reroll_ones: bool = False,
) -> ShotResult:
    """``shooter`` fires ``weapon`` at ``target`` ``range_in`` inches away (module docstring for
    the rulings; pp.87-89 and Bug Hunt pp.177-178).

    - ``numbers``: from :func:`hit_numbers`; ``cover``: the target is in cover (for Area: partly
      shielded from the blast, 5+ instead of 4+).
    - ``moved``: the shooter moved this round (Heavy -1); ``fired_last_round``: the weapon fired
      last round (Overheat: one Shot fewer).
    - ``dramatic``: Dramatic Combat is on (Lunge and Duck Back are reported).
    - ``tables``: optional, to read trait numbers from ``dramatic-weapon-traits``.
    - ``shooter.reroll_natural_one`` (a Krag fighting Rivals, p.12): one firing die showing a
      natural 1 is rolled again, once; that die comes right after the firing dice.
    - ``target.obscured`` (an enemy Psionic's Obscure, p.23): only a natural 6 hits, Area too.
    - ``shooter.psi_hunter`` against a ``target.psionic``: +1 to each firing die (p.21); not to
      the unmodified Area die, nor where a natural face decides (Shrapnel, Obscure).
    - ``faces``: the firing dice (one per Shot; for Area the one D6), then per hit the psionic
      ward's die (``target.ward``: Barrier or Reflect, pp.18, 23), the save die (if any), the Damage die (unless a no-Damage Stun hit) and the Shockwave die (if it survives).
    - ``extra_shots`` and ``reroll_ones``: a PvP initiative point spent on Fire (p.35): one more
      Shot (an Area weapon keeps its one roll) and every firing die showing a natural 1 rolled
      again once; those dice come right after the firing dice (after a Krag's reroll).

    Raises :class:`CombatError`: ``weapon`` for a Brawl-only weapon, ``range_in`` for a negative
    range or one beyond the weapon's range, ``faces`` for wrong faces.
    """
    trait = TraitNumbers.from_tables(tables)
    gun = weapon
    if gun.brawl_only:
        raise CombatError(f"weapon: the {gun.name} is used only in Brawls; choose a ranged weapon.", field="weapon")
    if range_in < 0 or range_in > gun.range:
        raise CombatError(
            f"range_in must be from 0 to the {gun.name}'s range of {gun.range}\"; got {range_in}.", field="range_in"
        )
    feed = _Feed(dice, faces)
    lines: list[str] = [
        f'{shooter.name} fires the {gun.name} at {target.name}, {range_in}" away' + (", in cover." if cover else ", in the open.")
    ]
    traits = gun.traits  # trait keys: "x" in traits is gun.has("x")
    area = "area" in traits
    hit_faces: list[int] = []  # natural faces of the dice that hit, one per die
    to_hit: int | None = None
    modifier = 0
    shots = 0
    hits = 0
    obscured = target.obscured
    if obscured:
        lines.append(f"{target.name} is Obscured: only a natural 6 hits (p.23).")
    if area:
        to_hit = trait.area_obscured_target if cover else trait.area_target
        if obscured:
            to_hit = OBSCURED_NATURAL
        record = feed.d6(f"{gun.name}: Area roll against {target.name}")
        face = int(record.total or 0)
        if face == 1 and shooter.reroll_natural_one:
            record = feed.d6(f"{shooter.name} rerolls a natural 1 (Krag against Rivals, p.12)")
            lines.append(f"{shooter.name} rerolls the natural 1 (Krag against Rivals, p.12): {record.total}.")
            face = int(record.total or 0)
        if face == 1 and reroll_ones:
            record = feed.d6(f"{shooter.name} rerolls a natural 1 (initiative point, p.35)")
            lines.append(f"{shooter.name} rerolls the natural 1 (initiative point, p.35): {record.total}.")
            face = int(record.total or 0)
        shots = 1
        hit = face >= to_hit
        lines.append(
            f"Area: unmodified D6 {face} against {to_hit}+"
            + (" (partly shielded)" if cover else "")
            + (": hit." if hit else ": miss.")
        )
        if hit:
            hit_faces.append(face)
            hits = 1
    else:
        shots = gun.shots
        if "overheat" in traits and fired_last_round:
            shots = max(0, shots + trait.overheat)
            lines.append(f"Overheat: it fired last round, so {shots} Shot{'s' if shots != 1 else ''} this time.")
        if extra_shots:
            shots += extra_shots
            lines.append(f"Initiative point: {extra_shots} more Shot, {shots} in all (p.35).")
        modifier = shooter.combat_skill
        mods: tuple[tuple[int, str], ...] = ((modifier, "Combat Skill"),)
        if traits or (shooter.psi_hunter and target.psionic):
            more: list[tuple[int, str]] = []
            if "pistol" in traits and range_in <= trait.pistol_range_in:
                more.append((trait.pistol_hit, f'Pistol within {trait.pistol_range_in}"'))
            if "snap_shot" in traits and range_in <= trait.snap_shot_range_in:
                more.append((trait.snap_shot_hit, f'Snap shot within {trait.snap_shot_range_in}"'))
            if "heavy" in traits and moved:
                more.append((trait.heavy, "Heavy after moving"))
            if shooter.psi_hunter and target.psionic:
                more.append((PSI_HUNTER_HIT, PSI_HUNTER_WHY))
            for n, _ in more:
                modifier += n
            mods += tuple(more)
        shrapnel = "shrapnel" in traits
        to_hit = trait.shrapnel_target if shrapnel else numbers.target(cover=cover, range_in=range_in)
        if shots:
            record = feed.several(shots, f"{gun.name} firing dice at {target.name}")
            fired: Sequence[int] = record.faces  # a list from here when a reroll changes a die
            if shooter.reroll_natural_one and 1 in fired:
                fired = list(fired)
                again = feed.d6(f"{shooter.name} rerolls a natural 1 (Krag against Rivals, p.12)")
                fired[fired.index(1)] = int(again.total or 0)
                lines.append(f"{shooter.name} rerolls one natural 1 (Krag against Rivals, p.12): {again.total}.")
            ones = fired.count(1) if reroll_ones else 0
            if ones:
                fired = list(fired)
                again = feed.several(ones, f"{shooter.name} rerolls natural 1s (initiative point, p.35)")
                for face in again.faces:
                    fired[fired.index(1)] = int(face)
                lines.append(
                    f"{shooter.name} rerolls {ones} natural 1 (initiative point, p.35): {', '.join(map(str, again.faces))}."
                )
            if obscured:
                to_hit, shrapnel = OBSCURED_NATURAL, True  # a natural face decides, as for Shrapnel
            if shrapnel:
                hit_faces = [face for face in fired if face >= to_hit]
            else:
                hit_faces = [face for face in fired if face + modifier >= to_hit]
            if obscured:
                lines.append(
                    f"Firing dice {', '.join(map(str, fired))}: "
                    + ", ".join(f"{f} ({'hit' if f >= to_hit else 'miss'})" for f in fired)
                    + "."
                )
            elif shrapnel:
                lines.append(
                    f"Shrapnel: natural {to_hit}+ hits whatever the skill, modifiers or cover; dice "
                    + ", ".join(f"{f} ({'hit' if f >= to_hit else 'miss'})" for f in fired)
                    + "."
                )
            else:
                lines.append(_firing_line(tuple(fired), mods, modifier, to_hit, numbers.source))
        else:
            lines.append("No Shots to fire.")
        critical = "critical" in traits
        crits = sum(1 for f in hit_faces if f == trait.critical_natural) if critical else 0
        hits += len(hit_faces) + crits * (trait.critical_hits - 1)
        if crits:
            lines.append(
                f"Critical: {crits} natural {trait.critical_natural}{'s' if crits > 1 else ''}, {trait.critical_hits} hits each."
            )

    # One entry per hit: whether it came from a natural 6.
    if area or "critical" not in traits:
        per_hit = [face == 6 for face in hit_faces]
    else:
        per_hit = []
        for face in hit_faces:
            per_hit.extend([face == 6] * (trait.critical_hits if face == trait.critical_natural else 1))
    outcomes: list[HitOutcome] = []
    current = target
    spare = 0
    removed = False
    for natural_six in per_hit:
        if removed:
            spare += 1
            continue
        outcome, current = _hit(feed, trait, current, gun, source=gun.name, natural_six=natural_six, ranged=True)
        outcomes.append(outcome)
        lines.extend(outcome.notes)
        removed = outcome.result == "casualty"
    if spare:
        if "focused" in traits:
            lines.append(f"Focused: {spare} more hit{'s' if spare > 1 else ''} lost with the target gone.")
            spare = 0
        else:
            lines.append(
                f'{spare} spare hit{"s" if spare > 1 else ""} may go to another figure within {RESPREAD_IN}" of {target.name}.'
            )
    elif "focused" in traits and shots > 1:
        lines.append("Focused: every Shot went at this one target.")
    if not hits:
        lines.append("No hits.")

    lunge = forced = duck = False
    if dramatic:
        lunge, forced, line = _lunge(trait, shooter, target, range_in, hits, shots)
        if line:
            lines.append(line)
        duck = bool(shots) and not hits and range_in > trait.duck_back_firer_in and not target.bot
        if duck:
            lines.append(
                f'{target.name} was shot at from over {trait.duck_back_firer_in}" and not hit: Duck Back test due at the end of the phase.'
            )
    single = "single_use" in traits
    if single:
        lines.append(f"Single-use: remove the {gun.name} from {shooter.name}'s supply.")
    feed.finish()
    return _frozen(
        ShotResult,
        {
            "hits": hits,
            "outcomes": tuple(outcomes),
            "target": current,
            "rolls": tuple(feed.rolls),
            "lines": tuple(lines),
            "lunge": lunge,
            "to_hit": to_hit,
            "modifier": modifier,
            "shots": shots,
            "spare_hits": spare,
            "lunge_forced": forced,
            "duck_back_due": duck,
            "single_use": single,
            "removed": removed,
        },
    )


@lru_cache(maxsize=4096)
def _firing_line(fired: tuple[int, ...], mods: tuple[tuple[int, str], ...], modifier: int, to_hit: int, source: str) -> str:
    # The line of a modified shot's firing dice: the same few dice, modifiers and targets come
    # up shot after shot, so each line is written once.
    mod_words = ", ".join(f"{_signed(n)} {why}" for n, why in mods if n)
    return (
        f"Firing dice {', '.join(map(str, fired))}"
        + (f" ({mod_words})" if mod_words else "")
        + f" against {to_hit}+ ({source}): totals "
        + ", ".join(f"{f + modifier} ({'hit' if f + modifier >= to_hit else 'miss'})" for f in fired)
        + "."
    )
