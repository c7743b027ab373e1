"""Shooting (Bug Hunt pp.177-179): Rapid Fire, Malfunctions, Area and Stun weapons, grenades."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from bughunt.engine.combat.figures import Combatant, Weapon, _lookup_weapon, _stun, weapon
from bughunt.engine.combat.hits import HitResult, _Feed, _hit, _signed
from bughunt.engine.combat.numbers import BAND_WORDS, MALFUNCTION_ONES, VENT_CRAWLERS, CombatError, Numbers, WeaponError
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

# -- shooting ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SplashRoll:
    """One D6 for a figure near an Area or Stun point: ``figure`` counts from 1 ("the target"
    for a Stun weapon aimed at a figure is 0); ``affected`` = hit (Area) or Stunned (Stun)."""

    figure: int
    record: RollRecord
    affected: bool
    kind: str
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "figure": self.figure,
            "record": self.record.as_dict(),
            "affected": self.affected,
            "kind": self.kind,
            "text": self.text,
        }


@dataclass(frozen=True)
class ShotResult:
    """One weapon fired (pp.177-179).

    - ``hits``: HitResults on the target in order; ``target``: the target after them (or None).
    - ``to_hit``: the D6 target number; ``modifier``: added to each firing die.
    - ``firing_faces``: every firing die, initial then Rapid Fire; ``extra_shots``: Rapid Fire
      shots taken; ``declined_shots``: natural 6s not used; ``lost_shots``: Rapid Fire shots lost
      to a malfunction.
    - ``natural_ones`` this attack; ``ones_this_round``: the weapon's count after it.
    - ``malfunctioned``, ``out_of_ammo`` (Area ammo die).
    - ``spare_hits``: hits rolled after the target was removed (a non-Focused weapon may put them
      on a figure within 3" with :func:`resolve_hit`; Focused weapons lose them).
    - ``splash``: Area (hit on 4+) or Stun (Stunned on 3+) rolls per figure near the point;
      Area splash hits are for the caller to resolve with :func:`resolve_hit` (``area=True``).
    """

    weapon: Weapon
    target: Combatant | None
    hits: tuple[HitResult, ...]
    to_hit: int | None
    modifier: int
    firing_faces: tuple[int, ...]
    extra_shots: int
    declined_shots: int
    lost_shots: int
    natural_ones: int
    ones_this_round: int
    malfunctioned: bool
    out_of_ammo: bool
    spare_hits: int
    splash: tuple[SplashRoll, ...]
    rolls: tuple[RollRecord, ...]
    text: str

    @property
    def hit_count(self) -> int:
        """Firing dice that hit (including spare hits)."""
        return len(self.hits) + self.spare_hits

    def as_dict(self) -> dict[str, Any]:
        return {
            "weapon": self.weapon.as_dict(),
            "target": None if self.target is None else self.target.as_dict(),
            "hits": [h.as_dict() for h in self.hits],
            "to_hit": self.to_hit,
            "modifier": self.modifier,
            "firing_faces": list(self.firing_faces),
            "extra_shots": self.extra_shots,
            "declined_shots": self.declined_shots,
            "lost_shots": self.lost_shots,
            "natural_ones": self.natural_ones,
            "ones_this_round": self.ones_this_round,
            "malfunctioned": self.malfunctioned,
            "out_of_ammo": self.out_of_ammo,
            "spare_hits": self.spare_hits,
            "splash": [s.as_dict() for s in self.splash],
            "rolls": [r.as_dict() for r in self.rolls],
            "text": self.text,
        }


def _launched(tables: Mapping[str, RangeTable], launcher: Weapon, grenade: str | None) -> Weapon:
    if not grenade:
        raise WeaponError(f"grenade must name the grenade the {launcher.name} fires (Frag grenade or Flash grenade).")
    loaded = weapon(tables, grenade)
    if not (loaded.has("Area") or loaded.has("Stun")) or loaded.has("Launcher"):
        raise WeaponError(f"grenade must be a grenade (an Area or Stun weapon such as Frag grenade); got {loaded.name!r}.")
    return replace(loaded, name=f"{launcher.name} ({loaded.name})", range_in=launcher.range_in)


def _shot(
    tables: Mapping[str, RangeTable],
    numbers: Numbers,
    firer: Combatant,
    gun: Weapon,
    target: Combatant | None,
    feed: _Feed,
    *,
    band: str,
    moved: bool,
    target_behind_cover: bool,
    ones_this_round: int,
    take_rapid_fire: bool,
    no_malfunction: bool,
    figures_near_point: int,
    grenade: str | None,
    shots: int | None,
) -> ShotResult:
    start = len(feed.rolls)
    if gun.has("Launcher"):
        gun = _launched(tables, gun, grenade)
    if gun.brawl_only:
        raise WeaponError(f"weapon {gun.name!r} is used only in Brawls; choose a ranged weapon.")
    if figures_near_point < 0:
        raise CombatError(f"figures_near_point must be 0 or more; got {figures_near_point}.")
    if ones_this_round < 0:
        raise CombatError(f"ones_this_round must be 0 or more; got {ones_this_round}.")
    area, stun = gun.has("Area"), gun.has("Stun")
    can_malfunction = not (area or stun or no_malfunction)
    if can_malfunction and ones_this_round >= MALFUNCTION_ONES:
        raise CombatError(
            f"ones_this_round is {ones_this_round}: the {gun.name} has already malfunctioned this round; "
            "clear it with clear_malfunction first (0 or 1 allowed)."
        )
    if target is None and not (area or stun):
        raise CombatError(f"target is required for the {gun.name}; only Area and Stun weapons may aim at an empty point.")
    shot_count = gun.shots if shots is None else shots
    if shot_count < 0:
        raise CombatError(f"shots must be 0 or more; got {shot_count}.")
    firer_name = firer.name
    texts: list[str] = [f"{firer_name} fires the {gun.name}" + (f" at {target.name}." if target else " at a point.")]
    if gun.has("Focused") and target is not None:
        texts.append("Focused: every shot goes at this one target.")
    if stun:
        return _stun_shot(numbers, gun, target, feed, start, figures_near_point, texts, ones_this_round)

    to_hit = numbers.to_hit(band)
    mods: list[tuple[int, str]] = []
    vent = target is not None and VENT_CRAWLERS in target.special and (band == "cover" or target_behind_cover)
    if vent:
        texts.append("No Combat Skill added: the Vent-crawler is in or directly behind cover.")
    else:
        mods.append((firer.combat_skill, "Combat Skill"))
    if gun.has("Aimed") and not moved:
        mods.append((numbers.aimed_bonus, "Aimed, not moved"))
    if gun.has("Heavy") and moved:
        mods.append((numbers.heavy_penalty, "Heavy after moving"))
    modifier = sum(n for n, _ in mods)

    faces_all: list[int] = []
    hit_faces: list[int] = []
    ones = extra = declined = lost = 0
    malfunctioned = out_of_ammo = False
    pending = shot_count if target is not None else 0
    first = True
    while pending:
        label = "firing dice" if first else "Rapid Fire dice"
        record = feed.several(pending, f"{gun.name} {label} at {target.name if target else 'a point'}")
        batch = list(record.faces)
        faces_all.extend(batch)
        if not first:
            extra += len(batch)
        for face in batch:
            total = face + modifier
            hit = total >= to_hit
            if hit:
                hit_faces.append(face)
        batch_ones = batch.count(1)
        ones += batch_ones
        sixes = batch.count(6) if not area else 0
        with_mods = f" ({', '.join(f'{_signed(n)} {why}' for n, why in mods if n)})" if any(n for n, _ in mods) else ""
        texts.append(
            f"{label.capitalize()} {', '.join(map(str, batch))}{with_mods} against {to_hit}+ ({BAND_WORDS[band]}): "
            + "totals "
            + ", ".join(f"{f + modifier} ({'hit' if f + modifier >= to_hit else 'miss'})" for f in batch)
            + "."
        )
        if can_malfunction:
            if first and gun.has("Overheat") and len(batch) >= numbers.overheat_dice and len(set(batch)) == 1:
                malfunctioned = True
                texts.append(f"Overheat: all {len(batch)} firing dice show {batch[0]}, so the weapon malfunctions.")
            if not malfunctioned and ones_this_round + ones >= MALFUNCTION_ONES:
                malfunctioned = True
                texts.append(
                    f"That makes {ones_this_round + ones} natural 1s this round: the {gun.name} malfunctions "
                    f"(a Combat Action and 1D6+Savvy {numbers.repair_target}+ clears it)."
                )
        first = False
        pending = 0
        if sixes:
            if malfunctioned:
                lost += sixes
                texts.append(
                    f"The {sixes} Rapid Fire shot{'s' if sixes > 1 else ''} from natural 6s are lost to the malfunction."
                )
            elif not take_rapid_fire:
                declined += sixes
                texts.append(f"Rapid Fire declined for {sixes} natural 6{'s' if sixes > 1 else ''}.")
            else:
                pending = sixes
                texts.append(
                    f"Rapid Fire: {sixes} natural 6{'s' if sixes > 1 else ''} give{'s' if sixes == 1 else ''} {sixes} more shot{'s' if sixes > 1 else ''}."
                )
    if area and target is None:
        texts.append("No firing dice: the shots have no figure to hit at an empty point.")
    if area:
        ammo = feed.d6(f"{gun.name} ammunition die")
        out_of_ammo = int(ammo.total or 0) <= numbers.out_of_ammo_on
        texts.append(
            f"Ammunition die {ammo.total}: "
            + ("out of ammunition for the rest of the battle." if out_of_ammo else "ammunition holds.")
        )
    if no_malfunction and not (area or stun):
        texts.append("This weapon cannot malfunction.")

    hits: list[HitResult] = []
    spare = 0
    current = target
    for _ in hit_faces:
        if current is None:
            break
        if hits and hits[-1].removed:
            spare += 1
            continue
        result = _hit(
            numbers,
            current,
            gun.damage,
            feed,
            piercing=gun.has("Piercing"),
            area=area,
            ranged=True,
            attacker_special=firer.special,
            source=gun.name,
        )
        hits.append(result)
        texts.append(result.text)
        current = result.target
    if spare:
        if gun.has("Focused"):
            texts.append(f"{spare} more hit{'s' if spare > 1 else ''} wasted: a Focused weapon keeps to its one target.")
            spare = 0
        else:
            texts.append(
                f'{spare} spare hit{"s" if spare > 1 else ""} may go to another figure within 3" of {target.name if target else "it"}.'
            )
    if target is not None and hit_faces == []:
        texts.append("No hits.")

    splash: list[SplashRoll] = []
    if area:
        for index in range(1, figures_near_point + 1):
            record = feed.d6(f'{gun.name}: figure {index} within {numbers.area_radius_in}"')
            affected = int(record.total or 0) >= numbers.area_hit_on
            words = f'Figure {index} within {numbers.area_radius_in}": rolled {record.total}, {"hit" if affected else "missed"} ({numbers.area_hit_on}+).'
            splash.append(SplashRoll(index, record, affected, "area", words))
            texts.append(words)
    new_ones = ones_this_round + ones if not (area or stun) else ones_this_round
    return ShotResult(
        weapon=gun,
        target=current,
        hits=tuple(hits),
        to_hit=to_hit,
        modifier=modifier,
        firing_faces=tuple(faces_all),
        extra_shots=extra,
        declined_shots=declined,
        lost_shots=lost,
        natural_ones=ones,
        ones_this_round=new_ones,
        malfunctioned=malfunctioned,
        out_of_ammo=out_of_ammo,
        spare_hits=spare,
        splash=tuple(splash),
        rolls=tuple(feed.rolls[start:]),
        text=" ".join(texts),
    )


def _stun_shot(
    numbers: Numbers,
    gun: Weapon,
    target: Combatant | None,
    feed: _Feed,
    start: int,
    figures_near_point: int,
    texts: list[str],
    ones_this_round: int,
) -> ShotResult:
    splash: list[SplashRoll] = []
    after = target
    if target is not None:
        record = feed.d6(f"{gun.name}: {target.name}")
        affected = int(record.total or 0) >= numbers.stun_on
        if affected:
            after, out = _stun(numbers, target)
            result = "Stunned" + (", and a third Stun marker knocks it out" if out else f" ({after.stun_markers} markers)")
        else:
            result = "not Stunned"
        words = f"{target.name}: rolled {record.total} against {numbers.stun_on}+, {result}."
        splash.append(SplashRoll(0, record, affected, "stun", words))
        texts.append(words)
    for index in range(1, figures_near_point + 1):
        record = feed.d6(f'{gun.name}: figure {index} within {numbers.stun_radius_in}"')
        affected = int(record.total or 0) >= numbers.stun_on
        words = f'Figure {index} within {numbers.stun_radius_in}": rolled {record.total}, {"Stunned" if affected else "not Stunned"} ({numbers.stun_on}+).'
        splash.append(SplashRoll(index, record, affected, "stun", words))
        texts.append(words)
    if not splash:
        texts.append(f'No figures within {numbers.stun_radius_in}" of the point.')
    return ShotResult(
        weapon=gun,
        target=after,
        hits=(),
        to_hit=None,
        modifier=0,
        firing_faces=(),
        extra_shots=0,
        declined_shots=0,
        lost_shots=0,
        natural_ones=0,
        ones_this_round=ones_this_round,
        malfunctioned=False,
        out_of_ammo=False,
        spare_hits=0,
        splash=tuple(splash),
        rolls=tuple(feed.rolls[start:]),
        text=" ".join(texts),
    )


def resolve_shot(
    tables: Mapping[str, RangeTable],
    firer: Combatant,
    weapon: Weapon | str,
    target: Combatant | None,
    dice: Dice,
    *,
    band: str,
    moved: bool = False,
    target_behind_cover: bool = False,
    ones_this_round: int = 0,
    take_rapid_fire: bool = True,
    no_malfunction: bool = False,
    figures_near_point: int = 0,
    grenade: str | None = None,
    shots: int | None = None,
    faces: Sequence[int] | None = None,
) -> ShotResult:
    """Fire ``weapon`` (a :class:`Weapon` or a bh-weapons name) at ``target`` (pp.177-179).

    - ``band``: "close" (within 6" and in the open, 3+), "open" (in range, in the open, 5+) or
      "cover" (in range, in cover, 6+); numbers from bh-shooting.
    - Each firing die: D6 + Combat Skill (none against Vent-crawlers in or directly behind cover,
      or with ``target_behind_cover``), Aimed +1 when not ``moved``, Heavy -1 when ``moved``.
    - Rapid Fire: each natural 6 gives one more shot at the same target (those dice can roll 6s
      and 1s too); ``take_rapid_fire=False`` declines them.
    - Malfunction: natural 1s this round (``ones_this_round`` before this attack, plus this
      attack's) reaching 2; Overheat: the three initial firing dice all equal. Rapid Fire shots
      still owed when the weapon malfunctions are lost. ``no_malfunction`` (drop ship, Double-Up,
      Lucky Find, "You want some too?") switches both off; ``shots`` overrides the profile's
      Shots ("You want some too?" fires three).
    - Area weapons: no Rapid Fire or Malfunction; an ammunition die (1 = out of ammunition for the
      battle), then a D6 for each of ``figures_near_point`` other figures within 2" (hit on 4+;
      resolve those hits with :func:`resolve_hit` and ``area=True``). ``target`` may be None.
    - Stun weapons: a D6 for the target (if any) and each other figure within 2": Stunned on 3+;
      the target's marker is applied here.
    - Launcher: ``grenade`` names the carried grenade it fires (Frag or Flash grenade).
    - Hits go on the target in order (saves, Damage, Piercing); hits after it is removed are
      ``spare_hits`` (lost for Focused weapons).

    ``faces``: firing dice (initial, then each Rapid Fire batch), the ammunition die, the save and
    Hit dice of each hit, then the splash dice. Raises :class:`CombatError` (or
    :class:`WeaponError`) naming the field for a bad band, a missing target or grenade, a
    Brawl-only weapon, a weapon already malfunctioned this round, or wrong faces.
    """
    numbers = Numbers.from_tables(tables)
    gun = _lookup_weapon(tables, weapon) if isinstance(weapon, str) else weapon
    numbers.to_hit(band)
    feed = _Feed(dice, faces)
    result = _shot(
        tables,
        numbers,
        firer,
        gun,
        target,
        feed,
        band=band,
        moved=moved,
        target_behind_cover=target_behind_cover,
        ones_this_round=ones_this_round,
        take_rapid_fire=take_rapid_fire,
        no_malfunction=no_malfunction,
        figures_near_point=figures_near_point,
        grenade=grenade,
        shots=shots,
    )
    feed.finish()
    return result
