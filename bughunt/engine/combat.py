"""Bug Hunt combat helpers (Bug Hunt pp.177-181, enemy rules pp.194-197, drop ship p.201).

Shooting with Rapid Fire and Malfunctions, Area and Stun weapons, saving throws and Hits,
Brawls, and the small attacks the live mission tracker needs (Spitters, Lancer darts, drop ship
supporting fire, Shatter-form bursts, Acid Blob splits). Every number that a shipped table holds
(to-hit numbers, brawl bonuses, trait numbers, enemy saves, pack leader bonuses ...) is read from
the ``bh-*`` tables passed in (see :class:`Numbers`); the engine keeps only the logic.

Dice: every function takes a :class:`~rules.engine.dice.Dice` and, optionally, ``faces``: the
player's own D6 faces in the order the engine asks for them (the order of ``rolls`` in the
result). Too few or too many faces raise :class:`CombatError`. Every roll made is returned in
the result's ``rolls``.

Rule flags (``Combatant.special``)
----------------------------------
Enemy types (bh-enemies, pp.194-195), flag = the name in lower case with ``_`` for spaces:

- ``vent_crawlers``: a shooter adds no Combat Skill when the Vent-crawler is in or directly
  behind cover.
- ``acid_blobs``: on death roll :func:`acid_blob_death`.
- ``face_rippers``: trooper armor saves only on a 6 against their attacks.
- ``slithering_horrors``: a trooper's Melee weapon gives only +1 in a Brawl with them.
- ``tentacle_creepers``: 5+ save, but not against Area weapons.
- ``berserk_robots``: 5+ save against every Hit.
- ``converted_assault_team``: 5+ save against ranged attacks.
- ``the_swarm``: their attacks ignore trooper saves.
- ``shatter_forms``: on death every figure within 2" takes a Damage 0 hit (:func:`shatter_burst`).

Variants (bh-enemy-variants ``variant``, p.196): ``toughs`` (5+ save against Area weapons; with
an existing save the two become one 4+ save against everything either covered), ``spitters``
(:func:`spitter_attack`), and the others by their data names (no combat effect here).

Pack leaders (bh-pack-leaders ``leader``, p.197): ``assassin`` (its attacks ignore armor),
``bruiser`` (4+ save against all Hits, replacing any other), ``lancer`` (:func:`lancer_dart`).
Their profile changes (Assassin +1 Combat Skill and +1 Damage, Bruiser +1 Toughness) are made
once by :func:`enemy_combatant`; a :class:`Combatant`'s numbers are always final.

Troopers: ``brawl_best_of_two`` (K'Erin assault marines, p.189: two dice in a Brawl, keep the
better). Any attacker: ``ignores_armor`` (the target gets no save).

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from rules.engine.dice import Dice, DiceError, Keep, RollRecord
from rules.engine.errors import RuleError
from rules.engine.tables import Entry, RangeTable

# -- flags ------------------------------------------------------------------------------------

VENT_CRAWLERS = "vent_crawlers"
ACID_BLOBS = "acid_blobs"
FACE_RIPPERS = "face_rippers"
SLITHERING_HORRORS = "slithering_horrors"
TENTACLE_CREEPERS = "tentacle_creepers"
BERSERK_ROBOTS = "berserk_robots"
CONVERTED_ASSAULT_TEAM = "converted_assault_team"
THE_SWARM = "the_swarm"
SHATTER_FORMS = "shatter_forms"
TOUGHS = "toughs"
SPITTERS = "spitters"
ASSASSIN = "assassin"
BRUISER = "bruiser"
LANCER = "lancer"
BRAWL_BEST_OF_TWO = "brawl_best_of_two"
IGNORES_ARMOR = "ignores_armor"

BANDS: tuple[str, ...] = ("close", "open", "cover")
BAND_WORDS = {"close": 'within 6" and in the open', "open": "in range, in the open", "cover": "in range, in cover"}
OUTCOMES: tuple[str, ...] = ("saved", "stunned", "wounded", "casualty", "knocked_out")
REMOVED: frozenset[str] = frozenset({"casualty", "knocked_out"})
MALFUNCTION_ONES = 2  # p.178: two or more natural 1s in one round (the rule is text, not a table row)
FACE_RIPPER_SAVE = 6  # p.194: trooper armor saves only on a 6 (text, not a table number)
SHATTER_DAMAGE = 0  # p.195: the burst is a Damage 0 hit (text, not a table number)


class CombatError(RuleError):
    """A combat request the rules do not allow; the message names the field and what is allowed."""


class WeaponError(CombatError):
    """An unknown weapon name, or a weapon used in a way it cannot be (a Brawl-only weapon fired)."""


def flag_for(name: str) -> str:
    """The rule flag for an enemy type, variant or leader name: ``"Vent-crawlers"`` -> ``"vent_crawlers"``."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


# -- numbers from the tables ------------------------------------------------------------------


@dataclass(frozen=True)
class Numbers:
    """Every rule number the combat helpers use. The defaults are the book's values and equal the
    shipped tables (a test checks it); :meth:`from_tables` reads them from the tables so that a
    corrected table changes play. Distances in inches, targets on a D6."""

    hit_close: int = 3
    hit_open: int = 5
    hit_cover: int = 6
    close_range_in: int = 6
    repair_target: int = 7
    knockback_in: int = 1
    knockout_markers: int = 3
    melee_bonus: int = 2
    pistol_bonus: int = 1
    wounded_brawl: int = -1
    stunned_brawl: int = -1
    second_opponent: int = 1
    aimed_bonus: int = 1
    heavy_penalty: int = -1
    area_radius_in: int = 2
    area_hit_on: int = 4
    out_of_ammo_on: int = 1
    stun_radius_in: int = 2
    stun_on: int = 3
    overheat_dice: int = 3
    tentacle_creepers_save: int = 5
    berserk_robots_save: int = 5
    converted_assault_team_save: int = 5
    toughs_save: int = 5
    toughs_combined_save: int = 4
    bruiser_save: int = 4
    bruiser_toughness: int = 1
    assassin_damage: int = 1
    assassin_combat_skill: int = 1
    spitter_hit_on: int = 6
    spitter_damage: int = 1
    lancer_hit_on: int = 5
    lancer_damage: int = 1
    drop_ship_weapon: str = "Light machine gun"
    drop_ship_guns: int = 2
    drop_ship_combat_skill: int = 1
    acid_split_low: int = 1
    acid_split_high: int = 2

    @classmethod
    def from_tables(cls, tables: Mapping[str, RangeTable] | None) -> Numbers:
        """Read the numbers from bh-shooting, bh-brawling-modifiers, bh-hit-results,
        bh-weapon-traits, bh-enemies, bh-enemy-variants, bh-pack-leaders and bh-drop-ship.
        ``None`` gives the defaults. Raises :class:`CombatError` naming a missing table or row."""
        if tables is None:
            return cls()

        def rows(slug: str) -> dict[str, Entry]:
            if slug not in tables:
                raise CombatError(f"tables must include {slug!r} for Bug Hunt combat.")
            return {e.result: e for e in tables[slug].entries}

        def data(slug: str, result: str) -> Mapping[str, Any]:
            found = rows(slug)
            if result not in found:
                raise CombatError(f"table {slug!r} has no row {result!r}; rows: {', '.join(found)}.")
            return found[result].data

        def by(slug: str, key: str, value: str) -> Mapping[str, Any]:
            for entry in tables[slug].entries if slug in tables else ():
                if entry.data.get(key) == value:
                    return entry.data
            raise CombatError(f"table {slug!r} has no row with {key} {value!r}.")

        shooting = rows("bh-shooting")
        close = next(e for e in shooting.values() if e.data.get("max_range_in"))
        open_ = next(
            e for e in shooting.values() if "in_cover" in e.data and not e.data["in_cover"] and not e.data["max_range_in"]
        )
        cover = next(e for e in shooting.values() if e.data.get("in_cover"))
        repair = next(e for e in shooting.values() if "roll" in e.data)
        split = str(data("bh-enemies", "Acid blobs").get("split_on", "1-2")).split("-")
        drop = data("bh-drop-ship", "Supporting fire")
        return cls(
            hit_close=int(close.data["target"]),
            hit_open=int(open_.data["target"]),
            hit_cover=int(cover.data["target"]),
            close_range_in=int(close.data["max_range_in"]),
            repair_target=int(repair.data["target"]),
            knockback_in=int(data("bh-hit-results", "Saving throw made")["knockback_in"]),
            knockout_markers=int(data("bh-hit-results", "Third Stun marker")["stun_markers"]),
            melee_bonus=int(data("bh-brawling-modifiers", "Carrying a Melee weapon")["modifier"]),
            pistol_bonus=int(data("bh-brawling-modifiers", "Carrying a Pistol")["modifier"]),
            wounded_brawl=int(data("bh-brawling-modifiers", "Wounded")["modifier"]),
            stunned_brawl=int(data("bh-brawling-modifiers", "Stunned")["modifier"]),
            second_opponent=int(data("bh-brawling-modifiers", "Second opponent")["modifier"]),
            aimed_bonus=int(data("bh-weapon-traits", "Aimed")["hit_bonus"]),
            heavy_penalty=int(data("bh-weapon-traits", "Heavy")["hit_bonus"]),
            area_radius_in=int(data("bh-weapon-traits", "Area")["radius_in"]),
            area_hit_on=int(data("bh-weapon-traits", "Area")["hit_on"]),
            out_of_ammo_on=int(data("bh-weapon-traits", "Area")["out_of_ammo_on"]),
            stun_radius_in=int(data("bh-weapon-traits", "Stun")["radius_in"]),
            stun_on=int(data("bh-weapon-traits", "Stun")["stun_on"]),
            overheat_dice=int(data("bh-weapon-traits", "Overheat")["dice"]),
            tentacle_creepers_save=int(data("bh-enemies", "Tentacle creepers")["saving_throw"]),
            berserk_robots_save=int(data("bh-enemies", "Berserk robots")["saving_throw"]),
            converted_assault_team_save=int(data("bh-enemies", "Converted assault team")["saving_throw"]),
            toughs_save=int(by("bh-enemy-variants", "variant", TOUGHS)["saving_throw"]),
            toughs_combined_save=int(by("bh-enemy-variants", "variant", TOUGHS)["combined_saving_throw"]),
            bruiser_save=int(by("bh-pack-leaders", "leader", BRUISER)["saving_throw"]),
            bruiser_toughness=int(by("bh-pack-leaders", "leader", BRUISER)["toughness"]),
            assassin_damage=int(by("bh-pack-leaders", "leader", ASSASSIN)["damage"]),
            assassin_combat_skill=int(by("bh-pack-leaders", "leader", ASSASSIN)["combat_skill"]),
            spitter_hit_on=int(by("bh-enemy-variants", "variant", SPITTERS)["hit_on"]),
            spitter_damage=int(by("bh-enemy-variants", "variant", SPITTERS)["damage"]),
            lancer_hit_on=int(by("bh-pack-leaders", "leader", LANCER)["hit_on"]),
            lancer_damage=int(by("bh-pack-leaders", "leader", LANCER)["damage"]),
            drop_ship_weapon=str(drop["weapon"]),
            drop_ship_guns=int(drop["weapon_count"]),
            drop_ship_combat_skill=int(drop["combat_skill"]),
            acid_split_low=int(split[0]),
            acid_split_high=int(split[-1]),
        )

    def to_hit(self, band: str) -> int:
        """The D6 target for ``band`` ("close", "open" or "cover"). Raises :class:`CombatError` otherwise."""
        if band not in BANDS:
            raise CombatError(f"band must be one of {', '.join(BANDS)}; got {band!r}.")
        return {"close": self.hit_close, "open": self.hit_open, "cover": self.hit_cover}[band]


# -- weapons and figures ----------------------------------------------------------------------


@dataclass(frozen=True)
class Weapon:
    """A row of bh-weapons (p.179). ``range_in`` in inches (0 for a Brawl-only weapon),
    ``shots`` firing dice (0 where the book prints a dash: Stun, Launcher, Melee) and ``damage``
    added to the Hit roll (0 where the book prints a dash)."""

    name: str
    range_in: int
    shots: int
    damage: int
    traits: frozenset[str] = frozenset()

    @property
    def brawl_only(self) -> bool:
        return self.range_in == 0

    def has(self, trait: str) -> bool:
        return trait in self.traits

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "range_in": self.range_in,
            "shots": self.shots,
            "damage": self.damage,
            "traits": sorted(self.traits),
        }


def _weapon_key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def weapon(tables: Mapping[str, RangeTable], name: str) -> Weapon:
    """The bh-weapons row called ``name`` (p.179; case, spaces and hyphens ignored, so
    "Shotgun" finds "Shot gun"). Raises :class:`WeaponError` naming the known weapons."""
    if "bh-weapons" not in tables:
        raise CombatError("tables must include 'bh-weapons' for Bug Hunt combat.")
    entries = tables["bh-weapons"].entries
    for entry in entries:
        if _weapon_key(entry.result) == _weapon_key(str(name)):
            d = entry.data
            return Weapon(
                name=entry.result,
                range_in=int(d.get("range_in") or 0),
                shots=int(d.get("shots") or 0),
                damage=int(d.get("damage") or 0),
                traits=frozenset(str(t) for t in d.get("traits", ())),
            )
    known = ", ".join(e.result for e in entries)
    raise WeaponError(f"weapon must be one of: {known}; got {name!r}.")


_lookup_weapon = weapon  # resolve_shot's ``weapon`` argument shadows the function


@dataclass(frozen=True)
class Combatant:
    """One figure in a fight. ``save`` is the D6 target of its own unconditional saving throw
    (trooper armor: 5, meaning 5-6) or ``None``; conditional saves come from ``special`` flags
    (see the module docstring). ``damage`` is an enemy's profile Damage; troopers strike with
    their ``weapons`` (bh-weapons names). Numbers are final (pack leader bonuses included)."""

    name: str
    combat_skill: int
    toughness: int
    savvy: int = 0
    is_enemy: bool = False
    save: int | None = None
    stun_markers: int = 0
    wounded: bool = False
    damage: int = 0
    weapons: tuple[str, ...] = ()
    special: frozenset[str] = frozenset()

    @property
    def stunned(self) -> bool:
        return self.stun_markers > 0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (lists for ``weapons`` and ``special``)."""
        return {
            "name": self.name,
            "combat_skill": self.combat_skill,
            "toughness": self.toughness,
            "savvy": self.savvy,
            "is_enemy": self.is_enemy,
            "save": self.save,
            "stun_markers": self.stun_markers,
            "wounded": self.wounded,
            "damage": self.damage,
            "weapons": list(self.weapons),
            "special": sorted(self.special),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Combatant:
        """Inverse of :meth:`as_dict`; missing optional keys take their defaults. Raises
        :class:`CombatError` naming a missing ``name``, ``combat_skill`` or ``toughness``."""
        for key in ("name", "combat_skill", "toughness"):
            if key not in d:
                raise CombatError(f"combatant needs {key!r}; keys: {', '.join(f.name for f in fields(cls))}.")
        save = d.get("save")
        return cls(
            name=str(d["name"]),
            combat_skill=int(d["combat_skill"]),
            toughness=int(d["toughness"]),
            savvy=int(d.get("savvy", 0)),
            is_enemy=bool(d.get("is_enemy", False)),
            save=None if save is None else int(save),
            stun_markers=int(d.get("stun_markers", 0)),
            wounded=bool(d.get("wounded", False)),
            damage=int(d.get("damage", 0)),
            weapons=tuple(str(w) for w in d.get("weapons", ())),
            special=frozenset(str(s) for s in d.get("special", ())),
        )


def _find_row(table: RangeTable, name: str, key: str, what: str) -> Entry:
    for entry in table.entries:
        if flag_for(entry.result) == flag_for(name) or (key and flag_for(str(entry.data.get(key, ""))) == flag_for(name)):
            return entry
    raise CombatError(f"{what} must be one of: {', '.join(e.result for e in table.entries)}; got {name!r}.")


def enemy_combatant(
    tables: Mapping[str, RangeTable],
    enemy: str,
    *,
    variant: str | None = None,
    leader: str | None = None,
    name: str | None = None,
) -> Combatant:
    """An enemy figure from bh-enemies (pp.194-195), with an optional variant (bh-enemy-variants,
    p.196) and pack leader (bh-pack-leaders, p.197), each given by name or data name ("Toughs" or
    "toughs"). Sets the ``special`` flags, applies the Assassin (+1 Combat Skill, +1 Damage) and
    Bruiser (+1 Toughness, 4+ save) changes, and the unconditional Berserk robot save.

    Raises :class:`CombatError` naming the known enemies, variants or leaders.
    """
    numbers = Numbers.from_tables(tables)
    row = _find_row(tables["bh-enemies"], enemy, "", "enemy")
    d = row.data
    special = {flag_for(row.result)}
    combat_skill, toughness, damage = int(d["combat_skill"]), int(d["toughness"]), int(d["damage"])
    save: int | None = numbers.berserk_robots_save if BERSERK_ROBOTS in special else None
    label = row.result
    if variant:
        v = _find_row(tables["bh-enemy-variants"], variant, "variant", "variant")
        special.add(str(v.data.get("variant") or flag_for(v.result)))
        label = f"{v.result} {label}"
    if leader:
        lead = _find_row(tables["bh-pack-leaders"], leader, "leader", "leader")
        flag = str(lead.data.get("leader") or flag_for(lead.result))
        special.add(flag)
        if flag == ASSASSIN:
            combat_skill += numbers.assassin_combat_skill
            damage += numbers.assassin_damage
        if flag == BRUISER:
            toughness += numbers.bruiser_toughness
            save = numbers.bruiser_save
        label = f"{label} ({lead.result})"
    return Combatant(
        name=name or label,
        combat_skill=combat_skill,
        toughness=toughness,
        is_enemy=True,
        save=save,
        damage=damage,
        special=frozenset(special),
    )


def support_combatant(tables: Mapping[str, RangeTable], option: str, *, name: str | None = None) -> Combatant:
    """A trooper of a bh-support option (pp.188-189) with a profile: its stats, armor save,
    weapons, and ``brawl_best_of_two`` for the K'Erin assault marines. Raises
    :class:`CombatError` naming the options that field figures."""
    rows = [e for e in tables["bh-support"].entries if e.data.get("profile")]
    found = next((e for e in rows if flag_for(e.result) == flag_for(option)), None)
    if found is None:
        raise CombatError(f"option must be one of: {', '.join(e.result for e in rows)}; got {option!r}.")
    d = found.data
    profile = d["profile"]
    special = {BRAWL_BEST_OF_TWO} if int(d.get("brawl_dice", 1)) == 2 else set()
    save = d.get("armor_save")
    return Combatant(
        name=name or found.result,
        combat_skill=int(profile["combat_skill"]),
        toughness=int(profile["toughness"]),
        savvy=int(profile.get("savvy", 0)),
        save=None if save is None else int(save),
        weapons=tuple(str(w) for w in d.get("weapons", ())),
        special=frozenset(special),
    )


def apply_stun(target: Combatant, *, tables: Mapping[str, RangeTable] | None = None) -> tuple[Combatant, bool]:
    """Add one Stun marker (p.178), e.g. for a Stun weapon's splash roll. Returns the figure and
    whether it is now knocked out (3 markers, bh-hit-results)."""
    return _stun(Numbers.from_tables(tables), target)


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


def _stun(numbers: Numbers, target: Combatant) -> tuple[Combatant, bool]:
    after = replace(target, stun_markers=target.stun_markers + 1)
    return after, after.stun_markers >= numbers.knockout_markers


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


# -- checks and small attacks -----------------------------------------------------------------


@dataclass(frozen=True)
class CheckResult:
    """A D6 check: ``success`` when ``total`` reaches ``target``."""

    success: bool
    total: int
    target: int
    rolls: tuple[RollRecord, ...]
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "success": self.success,
            "total": self.total,
            "target": self.target,
            "rolls": [r.as_dict() for r in self.rolls],
            "text": self.text,
        }


def clear_malfunction(
    savvy: int, dice: Dice, *, tables: Mapping[str, RangeTable] | None = None, faces: Sequence[int] | None = None
) -> CheckResult:
    """Try to clear a malfunctioned weapon (p.178): a Combat Action and 1D6 + Savvy, 7+ (bh-shooting
    "Malfunction repair") restores it. ``faces``: one D6. Raises :class:`CombatError` for wrong faces."""
    numbers = Numbers.from_tables(tables)
    feed = _Feed(dice, faces)
    record = feed.d6("Clear a malfunction", modifier=savvy)
    feed.finish()
    total = int(record.total or 0)
    ok = total >= numbers.repair_target
    text = f"Rolled {record.natural} {_signed(savvy)} Savvy = {total} against {numbers.repair_target}+: " + (
        "the weapon works again." if ok else "still jammed."
    )
    return CheckResult(ok, total, numbers.repair_target, tuple(feed.rolls), text)


@dataclass(frozen=True)
class AttackResult:
    """A fixed-number attack (Spitter spit, Lancer dart): ``hit`` when the D6 reached ``hit_on``;
    ``result`` the resolved Hit, if any."""

    hit: bool
    hit_on: int
    result: HitResult | None
    rolls: tuple[RollRecord, ...]
    text: str

    @property
    def target(self) -> Combatant | None:
        return None if self.result is None else self.result.target

    def as_dict(self) -> dict[str, Any]:
        return {
            "hit": self.hit,
            "hit_on": self.hit_on,
            "result": None if self.result is None else self.result.as_dict(),
            "rolls": [r.as_dict() for r in self.rolls],
            "text": self.text,
        }


def _fixed_attack(
    numbers: Numbers,
    target: Combatant,
    dice: Dice,
    faces: Sequence[int] | None,
    *,
    what: str,
    hit_on: int,
    damage: int,
    attacker_special: frozenset[str],
    note: str,
) -> AttackResult:
    feed = _Feed(dice, faces)
    record = feed.d6(f"{what} at {target.name}")
    face = int(record.total or 0)
    hit = face >= hit_on
    text = f"{what} at {target.name}: rolled {face} against {hit_on}+ ({note}): {'hit' if hit else 'miss'}."
    result = None
    if hit:
        result = _hit(
            numbers, target, damage, feed, piercing=False, area=False, ranged=True, attacker_special=attacker_special, source=what
        )
        text += " " + result.text
    feed.finish()
    return AttackResult(hit, hit_on, result, tuple(feed.rolls), text)


def spitter_attack(
    target: Combatant,
    dice: Dice,
    *,
    tables: Mapping[str, RangeTable] | None = None,
    attacker_special: frozenset[str] = frozenset(),
    faces: Sequence[int] | None = None,
) -> AttackResult:
    """A Spitter variant's ranged attack on the closest trooper within 6" and sight after its move
    (p.196): 1D6, a 6 hits whatever the Combat Skill or cover, Damage 1, armor saves as usual
    (``attacker_special`` passes the enemy's flags, e.g. Face-rippers). ``faces``: the attack
    die, then save and Hit dice."""
    n = Numbers.from_tables(tables)
    return _fixed_attack(
        n,
        target,
        dice,
        faces,
        what="Spitter attack",
        hit_on=n.spitter_hit_on,
        damage=n.spitter_damage,
        attacker_special=attacker_special | {SPITTERS},
        note="Combat Skill and cover do not count",
    )


def lancer_dart(
    target: Combatant,
    dice: Dice,
    *,
    tables: Mapping[str, RangeTable] | None = None,
    faces: Sequence[int] | None = None,
) -> AttackResult:
    """A Lancer pack leader's dart at the nearest visible trooper after each move (p.197): 1D6,
    5+ hits whatever the Combat Skill or cover, Damage 1, ignores armor. ``faces``: the dart die,
    then the Hit die."""
    n = Numbers.from_tables(tables)
    return _fixed_attack(
        n,
        target,
        dice,
        faces,
        what="Lancer dart",
        hit_on=n.lancer_hit_on,
        damage=n.lancer_damage,
        attacker_special=frozenset({LANCER, IGNORES_ARMOR}),
        note="Combat Skill and cover do not count",
    )


@dataclass(frozen=True)
class DropShipFire:
    """The drop ship's supporting fire for one round: one ShotResult per gun."""

    shots: tuple[ShotResult, ...]
    rolls: tuple[RollRecord, ...]
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {"shots": [s.as_dict() for s in self.shots], "rolls": [r.as_dict() for r in self.rolls], "text": self.text}


def drop_ship_fire(
    tables: Mapping[str, RangeTable],
    target: Combatant,
    dice: Dice,
    *,
    band: str,
    second_target: Combatant | None = None,
    second_band: str | None = None,
    take_rapid_fire: bool = True,
    faces: Sequence[int] | None = None,
) -> DropShipFire:
    """Supporting fire from a hovering drop ship, arrival round included (p.201, bh-drop-ship):
    two Light Machine Guns fired from the marker's center at +1 Combat Skill that never
    malfunction (the ship does not count as moving). The second gun fires at ``second_target``
    (``second_band``) or, by default, at ``target`` as the first gun left it; if the first gun
    removed it and no second target is given, the second gun does not fire. ``faces``: the first
    gun's dice, then the second's. Raises :class:`CombatError` for a bad band or faces."""
    numbers = Numbers.from_tables(tables)
    gun = weapon(tables, numbers.drop_ship_weapon)
    ship = Combatant(name="Drop ship", combat_skill=numbers.drop_ship_combat_skill, toughness=0)
    feed = _Feed(dice, faces)
    results: list[ShotResult] = []
    texts: list[str] = []
    current: Combatant | None = target
    for index in range(numbers.drop_ship_guns):
        aim, aim_band = current, band
        if index > 0 and second_target is not None:
            aim, aim_band = second_target, second_band or band
        if aim is None:
            texts.append(f"Gun {index + 1} holds fire: its target is down.")
            continue
        shot = _shot(
            tables,
            numbers,
            ship,
            gun,
            aim,
            feed,
            band=aim_band,
            moved=False,
            target_behind_cover=False,
            ones_this_round=0,
            take_rapid_fire=take_rapid_fire,
            no_malfunction=True,
            figures_near_point=0,
            grenade=None,
            shots=None,
        )
        results.append(shot)
        texts.append(f"Gun {index + 1}: {shot.text}")
        if aim is current:
            current = None if any(h.removed for h in shot.hits) else shot.target
    feed.finish()
    return DropShipFire(tuple(results), tuple(feed.rolls), " ".join(texts))


def shatter_burst(
    tables: Mapping[str, RangeTable],
    figures: Sequence[Combatant],
    dice: Dice,
    *,
    faces: Sequence[int] | None = None,
) -> tuple[HitResult, ...]:
    """A Shatter-form dies (p.195): every figure within 2" of it, other Shatter-forms included,
    takes a Damage 0 Hit (saves as usual). ``figures`` are those within 2"; one HitResult each,
    in order. ``faces``: save and Hit dice in order."""
    numbers = Numbers.from_tables(tables)
    feed = _Feed(dice, faces)
    results = tuple(
        _hit(
            numbers,
            f,
            SHATTER_DAMAGE,
            feed,
            piercing=False,
            area=False,
            ranged=False,
            attacker_special=frozenset({SHATTER_FORMS}),
            source="Shatter-form burst",
        )
        for f in figures
    )
    feed.finish()
    return results


@dataclass(frozen=True)
class SplitResult:
    """An Acid Blob died (p.195): ``new_blobs`` to place at random 2" from it."""

    new_blobs: int
    rolls: tuple[RollRecord, ...]
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {"new_blobs": self.new_blobs, "rolls": [r.as_dict() for r in self.rolls], "text": self.text}


def acid_blob_death(
    dice: Dice, *, tables: Mapping[str, RangeTable] | None = None, faces: Sequence[int] | None = None
) -> SplitResult:
    """When an Acid Blob is killed roll 1D6 at once (p.195, bh-enemies ``split_on``): on a 1 or 2
    that many new Blobs appear, placed at random 2" from it. ``faces``: one D6."""
    numbers = Numbers.from_tables(tables)
    feed = _Feed(dice, faces)
    record = feed.d6("Acid Blob split")
    feed.finish()
    face = int(record.total or 0)
    new = face if numbers.acid_split_low <= face <= numbers.acid_split_high else 0
    text = (
        f'Acid Blob split: rolled {face}, {new} new Blob{"s" if new != 1 else ""} appear{"s" if new == 1 else ""} 2" away at random.'
        if new
        else f"Acid Blob split: rolled {face}, no new Blobs."
    )
    return SplitResult(new, tuple(feed.rolls), text)


__all__ = [
    "BANDS",
    "OUTCOMES",
    "AttackResult",
    "BrawlResult",
    "CheckResult",
    "CombatError",
    "Combatant",
    "DropShipFire",
    "HitResult",
    "Numbers",
    "ShotResult",
    "SplashRoll",
    "SplitResult",
    "Weapon",
    "WeaponError",
    "acid_blob_death",
    "apply_stun",
    "brawl_weapon",
    "clear_malfunction",
    "drop_ship_fire",
    "enemy_combatant",
    "flag_for",
    "lancer_dart",
    "resolve_brawl",
    "resolve_hit",
    "resolve_shot",
    "save_for",
    "shatter_burst",
    "spitter_attack",
    "support_combatant",
    "weapon",
]
