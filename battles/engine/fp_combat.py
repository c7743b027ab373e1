"""Five Parsecs combat resolver: shooting, Brawls, Duck Back, Lunge and casualty tables.

Sources: Compendium "Dramatic combat" p.87 (Adjusted Shooting, Duck Back, Lunge), "Dramatic
weapons" pp.88-89 (profiles and trait notes), "Casualty tables" pp.98-100; Bug Hunt main rules
pp.177-178 for the shared game system (to-hit roll, Brawls, saving throws, Damage against
Toughness, Stun markers, knock back). Tables used (``Mapping[str, RangeTable]`` keyed by slug):
``dramatic-adjusted-shooting``, ``dramatic-weapons``, ``dramatic-weapon-traits``,
``dramatic-combat-reactions``, ``casualty-humanoid``, ``casualty-cybernetic``, ``casualty-beasts``.

The core rulebook is not in our source. Its to-hit numbers and weapon list are inputs: the
caller passes :class:`HitNumbers` (:func:`hit_numbers` with ``core=``) and weapons made with
:func:`custom_weapon`. With Dramatic Combat on, :func:`hit_numbers` reads p.87 instead.

Rulings (where the book is silent or relies on the core rules)
--------------------------------------------------------------
- Traits follow p.89 whether or not Dramatic Combat is on; ``dramatic`` only switches on the p.87
  reactions (Lunge, Duck Back). Campaign options: pass ``CampaignOptions.dramatic_combat`` as
  ``dramatic`` (and to :func:`hit_numbers`); ``CampaignOptions.casualty_tables`` decides whether
  the caller rolls :func:`casualty_roll` for casualties with ``beat_toughness``.
- Order of a hit: the save is rolled before the Damage die (Bug Hunt p.178). p.98 only says a
  casualty stands unless a save succeeds; with Bug Hunt's order a made save also stops the Stun.
- To hit (Bug Hunt p.177): one D6 per Shot plus the shooter's Combat Skill and trait modifiers;
  hit when the total reaches the :class:`HitNumbers` target for open or cover. A core table with
  a close band (``HitNumbers.close``) uses it for targets in the open within
  ``close_range_in`` inches. A target beyond the weapon's range cannot be shot (CombatError).
- Trait modifiers (p.89): Pistol +1 and Snap shot +1 within 6" (they add up); Heavy -1 after the
  shooter moved this round (not Area). Critical: each natural 6 that hits scores 2 hits.
  Shrapnel: each die hits on a natural 5+ whatever the skill, modifiers or cover. Overheat: one
  Shot fewer when ``fired_last_round`` (never cumulative, never below 0). Focused: all Shots go at
  the one target (a note; hits left over after the target falls are lost). Single-use: a note
  says to remove the item; the caller removes it. Trait numbers are read from
  ``dramatic-weapon-traits`` when ``tables`` is given, else the :class:`TraitNumbers` defaults
  (the book's values; a test checks they equal the shipped table).
- Area (p.89): no Shots; one unmodified D6 against the figure at the target point, 4+ in the
  open, 5+ with ``cover=True`` (read as partly shielded from the blast). Other figures within 2"
  are separate calls. Bug Hunt's Area ammunition die is a Bug Hunt rule and is not used.
- All firing dice are rolled together (one record). Hits go on the target in order; hits left
  after it is removed are ``spare_hits`` (a non-Focused weapon's caller may place them on another
  figure within 3", Bug Hunt p.177; a Focused weapon loses them).
- Each hit (Bug Hunt p.178): a saving throw first when the target has ``save`` and the weapon is
  not Piercing; a made save means no Stun and 1" of knock back. Otherwise D6 + Damage against
  Toughness: equal or more makes a casualty (the Five Parsecs threshold, p.98, which replaces Bug
  Hunt's "equal = Wounded"), less adds one Stun marker and 1" of knock back. A third Stun marker
  knocks the figure out (Bug Hunt p.178): result "casualty", but ``beat_toughness`` is False, so
  no casualty-table roll (p.99: automatic removals skip the tables).
- Stun trait (p.89): every hit adds a Stun marker, also when armour saved; a hit that also fails
  against Toughness still adds only one marker. A Stun weapon without Damage (Dazzle grenade,
  printed NA) makes no save or Damage roll: the hit only Stuns.
- Burn (p.89): a non-robot (``bot`` False) target that survives a hit not stopped by armour makes a
  full move (its Speed) in a random direction: a note, the caller moves it.
- Shockwave (p.89): a target that survives a hit, saved or not, is thrown 1D6" straight back; that
  roll replaces the 1" knock back.
- Duck Back (p.87, :func:`duck_back`): one D6 per phase for a non-robot figure shot at, not hit,
  with at least one firer more than 6" away; 3+ in the open, 4+ in or behind cover.
  ``ShotResult.duck_back_due`` flags a shot that makes the test due (dramatic combat only).
- Lunge (p.87): allowed when dramatic combat is on, the target was within 6", every Shot missed,
  the target carries no Heavy weapon and has no ranged weapon or has a Melee one
  (``Fighter.weapons``; a figure with no weapons listed counts as having no ranged weapon).
  ``lunge_forced``: an enemy (``Fighter.enemy``) must Lunge when it has no ranged weapon or its
  Combat Skill plus its Melee bonus beats the shooter's; player characters choose.
- Brawl (Bug Hunt p.177, traits p.89): each side rolls D6 + Combat Skill + one weapon bonus (Melee
  +2 or Pistol +1, the better if both), Clumsy -1 against a side with higher Speed, Stunned -1
  (Bug Hunt p.178). The lower total takes a Hit from the other's weapon; a draw hits both. A
  weapon that is neither Melee nor Pistol counts as none (no bonus, Damage 0, no traits). Bug
  Hunt's enemy natural-1 rule is an alien rule and is not used.
- Elegant (p.89): the engine rerolls an Elegant side's die when its total is below the other's
  (the enemy behaviour, used for both sides; once each, ``a`` first). K'Erin player characters
  (``kerin``) never reroll. A survivor that was Stunned removes one Stun marker after the Brawl
  (Bug Hunt p.178); one who removes its opponent may move 2" (Bug Hunt p.178, a note).
- Casualty tables (pp.99-100, :func:`casualty_roll`): one D6 per hit that beat Toughness (plus one
  per critical natural 6 to hit with the optional Critical Hit rule), apply only the highest;
  Regular or Boss column; ``modifier`` adds the +1 of Damaged/Bleeding to later rolls.

Dice: each function takes a :class:`Dice` and, optionally, ``faces``: the player's D6 faces in the
order the engine asks (the order of ``rolls``). Too few or too many faces raise
:class:`CombatError` (``field == "faces"``). Every roll is returned in ``rolls``.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from rules.engine.combat_numbers import BRAWL_WIN_MOVE_IN, KNOCKBACK_IN, KNOCKOUT_MARKERS, RESPREAD_IN, STUNNED_BRAWL
from rules.engine.dice import Dice, DiceError, Keep, RollRecord
from rules.engine.errors import RuleError
from rules.engine.tables import Entry, RangeTable, TableError

TRAITS: frozenset[str] = frozenset(
    {
        "area",
        "burn",
        "clumsy",
        "critical",
        "elegant",
        "focused",
        "heavy",
        "melee",
        "overheat",
        "piercing",
        "pistol",
        "shockwave",
        "shrapnel",
        "single_use",
        "snap_shot",
        "stun",
    }
)
RESULTS: tuple[str, ...] = ("saved", "stunned", "casualty")
CASUALTY_KINDS: tuple[str, ...] = ("humanoid", "cybernetic", "beasts")
CASUALTY_COLUMNS: tuple[str, ...] = ("Regular", "Boss")

# Bug Hunt numbers (pp.177-178) of the shared game system: knock back 1", out at 3 Stun markers,
# Stunned -1 in a Brawl, spare hits within 3", a Brawl winner's 2" move. They live in
# rules.engine.combat_numbers (imported above, and still fp_combat.KNOCKBACK_IN and so on).
DUCK_BACK_OPEN = 3  # p.87, also in dramatic-combat-reactions
DUCK_BACK_COVER = 4  # p.87
DUCK_BACK_FIRER_IN = 6  # p.87
LUNGE_RANGE_IN = 6  # p.87
ADJUSTED_SOURCE = "p.87 adjusted shooting"


class CombatError(RuleError):
    """A combat request the rules do not allow. ``field`` names the bad input; the message says
    what is allowed."""


def trait_key(name: str) -> str:
    """The trait key for a printed trait name: ``"Single-use"`` -> ``"single_use"``,
    ``"Snap Shot"`` -> ``"snap_shot"``."""
    return _trait_key(str(name))


@lru_cache(maxsize=1024)
def _trait_key(name: str) -> str:
    # Asked on every trait test of every shot: the few names there are, worked out once.
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def _name_key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


# -- trait numbers -----------------------------------------------------------------------------


@dataclass(frozen=True)
class TraitNumbers:
    """The numbers of the p.89 traits and the p.87 reactions. Defaults are the book's values;
    :meth:`from_tables` reads them from ``dramatic-weapon-traits`` and
    ``dramatic-combat-reactions``. Distances in inches, targets on a D6."""

    area_target: int = 4
    area_obscured_target: int = 5
    area_radius_in: int = 2
    clumsy: int = -1
    critical_natural: int = 6
    critical_hits: int = 2
    heavy: int = -1
    melee: int = 2
    overheat: int = -1
    pistol_brawl: int = 1
    pistol_hit: int = 1
    pistol_range_in: int = 6
    shockwave: str = "1D6"
    shrapnel_target: int = 5
    snap_shot_hit: int = 1
    snap_shot_range_in: int = 6
    duck_back_open: int = DUCK_BACK_OPEN
    duck_back_cover: int = DUCK_BACK_COVER
    duck_back_firer_in: int = DUCK_BACK_FIRER_IN
    lunge_range_in: int = LUNGE_RANGE_IN

    @classmethod
    def from_tables(cls, tables: Mapping[str, RangeTable] | None) -> TraitNumbers:
        """Read the numbers from the tables (``None`` or missing tables give the defaults).
        Raises :class:`CombatError` (field ``tables``) when a present table lacks a row.

        Every shot and brawl asks for them: the numbers read last are kept with the two tables
        they came from and given again while the same (frozen) table objects come in."""
        if tables is None:
            return cls()
        global _last_trait_numbers
        traits, reactions = tables.get("dramatic-weapon-traits"), tables.get("dramatic-combat-reactions")
        last = _last_trait_numbers  # one read of one tuple: safe beside other threads
        if last is not None and last[0] is traits and last[1] is reactions:
            return last[2]
        numbers = cls._read(tables)
        _last_trait_numbers = (traits, reactions, numbers)
        return numbers

    @classmethod
    def _read(cls, tables: Mapping[str, RangeTable]) -> TraitNumbers:
        base = cls()
        values: dict[str, Any] = {}
        if "dramatic-weapon-traits" in tables:
            rows = _rows(tables["dramatic-weapon-traits"])

            def d(name: str) -> Mapping[str, Any]:
                if name not in rows:
                    raise CombatError(
                        f"tables: 'dramatic-weapon-traits' has no row {name!r}; rows: {', '.join(rows)}.", field="tables"
                    )
                return rows[name].data

            values.update(
                area_target=int(d("area")["target"]),
                area_obscured_target=int(d("area")["obscured_target"]),
                area_radius_in=int(d("area")["radius_in"]),
                clumsy=int(d("clumsy")["brawl_modifier"]),
                critical_natural=int(d("critical")["natural"]),
                critical_hits=int(d("critical")["hits"]),
                heavy=int(d("heavy")["hit_modifier"]),
                melee=int(d("melee")["brawl_modifier"]),
                overheat=int(d("overheat")["shots_modifier"]),
                pistol_brawl=int(d("pistol")["brawl_modifier"]),
                pistol_hit=int(d("pistol")["hit_modifier"]),
                pistol_range_in=int(d("pistol")["range_in"]),
                shockwave=str(d("shockwave")["knockback_in"]),
                shrapnel_target=int(d("shrapnel")["target"]),
                snap_shot_hit=int(d("snap_shot")["hit_modifier"]),
                snap_shot_range_in=int(d("snap_shot")["range_in"]),
            )
        if "dramatic-combat-reactions" in tables:
            entries = tables["dramatic-combat-reactions"].entries
            for entry in entries:
                low = entry.result.lower()
                if low.startswith("duck back") and "cover" in low:
                    values["duck_back_cover"] = int(entry.data.get("target", base.duck_back_cover))
                    values["duck_back_firer_in"] = int(entry.data.get("min_firer_range_in", base.duck_back_firer_in))
                elif low.startswith("duck back"):
                    values["duck_back_open"] = int(entry.data.get("target", base.duck_back_open))
                elif low.startswith("lunge"):
                    values["lunge_range_in"] = int(entry.data.get("max_range_in", base.lunge_range_in))
        return replace(base, **values)


#: ``(traits table, reactions table, numbers)`` of the last :meth:`TraitNumbers.from_tables`.
_last_trait_numbers: tuple[RangeTable | None, RangeTable | None, TraitNumbers] | None = None


def _rows(table: RangeTable) -> dict[str, Entry]:
    return {trait_key(e.result): e for e in table.entries}


# -- weapons -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Weapon:
    """A weapon profile. ``range`` in inches (0 = Brawl only), ``shots`` firing dice (0 for Area
    weapons under dramatic weapons and for Brawl weapons), ``damage`` added to the Damage die,
    ``traits`` keys of :data:`TRAITS`. ``no_damage``: the profile prints no Damage (Dazzle
    grenade): its hits only Stun."""

    name: str
    range: int
    shots: int
    damage: int
    traits: frozenset[str] = frozenset()
    no_damage: bool = False

    def __post_init__(self) -> None:
        for label, value in (("range", self.range), ("shots", self.shots), ("damage", self.damage)):
            if not isinstance(value, int) or value < 0:
                raise CombatError(f"{label} must be a whole number 0 or more; got {value!r}.", field=label)
        unknown = sorted(set(self.traits) - TRAITS)
        if unknown:
            raise CombatError(f"traits must be among {', '.join(sorted(TRAITS))}; got {', '.join(unknown)}.", field="traits")

    def has(self, trait: str) -> bool:
        """True when the weapon has ``trait`` (a key of :data:`TRAITS`, printed names accepted)."""
        return trait in self.traits or trait_key(trait) in self.traits

    @property
    def brawl_only(self) -> bool:
        return self.range == 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "range": self.range,
            "shots": self.shots,
            "damage": self.damage,
            "traits": sorted(self.traits),
            "no_damage": self.no_damage,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Weapon:
        """Inverse of :meth:`as_dict`. Raises :class:`CombatError` for a missing or bad field."""
        for key in ("name", "range", "shots", "damage"):
            if key not in data:
                raise CombatError(f"weapon needs {key!r} (name, range, shots, damage, traits).", field=key)
        return custom_weapon(
            str(data["name"]),
            _int(data["range"], "range"),
            _int(data["shots"], "shots"),
            _int(data["damage"], "damage"),
            data.get("traits") or (),
            no_damage=bool(data.get("no_damage", False)),
        )


def _int(value: Any, label: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise CombatError(f"{label} must be a whole number; got {value!r}.", field=label) from None


def custom_weapon(name: str, range: int, shots: int, damage: int, traits: Iterable[str], *, no_damage: bool = False) -> Weapon:
    """A weapon typed in by the user (core-rulebook profiles): ``range`` inches (0 = Brawl
    only), ``shots``, ``damage``; ``traits`` printed names or keys ("Snap Shot", "single_use").
    Raises :class:`CombatError` naming the field for a negative number or an unknown trait."""
    if not str(name).strip():
        raise CombatError("name must not be empty.", field="name")
    keys = frozenset(trait_key(t) for t in traits)
    return Weapon(name=str(name).strip(), range=range, shots=shots, damage=damage, traits=keys, no_damage=no_damage)


def weapon(tables: Mapping[str, RangeTable], name: str, *, table: str = "dramatic-weapons") -> Weapon:
    """The row called ``name`` of ``table`` (default the Dramatic Weapons table, pp.88-89); case,
    spaces and punctuation are ignored. A Brawl weapon gets range 0; a printed dash or NA for Shots
    gives 0 Shots; NA Damage gives ``no_damage``. Raises :class:`CombatError` (field ``table`` or
    ``name``) for a missing table or an unknown weapon, naming the known ones."""
    if table not in tables:
        raise CombatError(f"table {table!r} is not among the tables given.", field="table")
    entries = tables[table].entries
    for entry in entries:
        if _name_key(entry.result) == _name_key(name):
            d = entry.data
            brawl = bool(d.get("brawl_only")) or d.get("range_in") is None
            return custom_weapon(
                entry.result,
                0 if brawl else int(d["range_in"]),
                int(d.get("shots") or 0),
                int(d.get("damage") or 0),
                [str(t) for t in d.get("traits", ())],
                no_damage=d.get("damage") is None,
            )
    raise CombatError(f"name must be one of: {', '.join(e.result for e in entries)}; got {name!r}.", field="name")


# -- fighters and hit numbers ------------------------------------------------------------------


@dataclass(frozen=True)
class Fighter:
    """One figure. ``speed`` in inches; ``save``: the armour or screen saving throw as a D6 target
    (5 = 5+) or ``None``; ``bot``: a robot (never Ducks Back, no Burn move); ``kerin``: a K'Erin
    player character (no Elegant reroll, p.89); ``enemy``: an enemy figure (Lunge is then
    compulsory when p.87 says so); ``weapons``: what it carries (for Lunge)."""

    name: str
    combat_skill: int
    toughness: int
    speed: int = 4
    reactions: int = 1
    savvy: int = 0
    save: int | None = None
    bot: bool = False
    kerin: bool = False
    stun_markers: int = 0
    enemy: bool = False
    weapons: tuple[Weapon, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.toughness < 1:
            raise CombatError(f"toughness must be 1 or more; got {self.toughness}.", field="toughness")
        if self.save is not None and not 2 <= self.save <= 6:
            raise CombatError(f"save must be a D6 target from 2 to 6, or None; got {self.save}.", field="save")
        if self.stun_markers < 0:
            raise CombatError(f"stun_markers must be 0 or more; got {self.stun_markers}.", field="stun_markers")
        if self.speed < 0:
            raise CombatError(f"speed must be 0 or more inches; got {self.speed}.", field="speed")

    @property
    def stunned(self) -> bool:
        return self.stun_markers > 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "combat_skill": self.combat_skill,
            "toughness": self.toughness,
            "speed": self.speed,
            "reactions": self.reactions,
            "savvy": self.savvy,
            "save": self.save,
            "bot": self.bot,
            "kerin": self.kerin,
            "stun_markers": self.stun_markers,
            "enemy": self.enemy,
            "weapons": [w.as_dict() for w in self.weapons],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Fighter:
        """Inverse of :meth:`as_dict`; optional keys take their defaults. Raises
        :class:`CombatError` naming a missing or bad field."""
        for key in ("name", "combat_skill", "toughness"):
            if key not in data:
                raise CombatError(f"fighter needs {key!r} (name, combat_skill, toughness).", field=key)
        save = data.get("save")
        return cls(
            name=str(data["name"]),
            combat_skill=_int(data["combat_skill"], "combat_skill"),
            toughness=_int(data["toughness"], "toughness"),
            speed=_int(data.get("speed", 4), "speed"),
            reactions=_int(data.get("reactions", 1), "reactions"),
            savvy=_int(data.get("savvy", 0), "savvy"),
            save=None if save in (None, "") else _int(save, "save"),
            bot=bool(data.get("bot", False)),
            kerin=bool(data.get("kerin", False)),
            stun_markers=_int(data.get("stun_markers", 0), "stun_markers"),
            enemy=bool(data.get("enemy", False)),
            weapons=tuple(Weapon.from_dict(w) for w in data.get("weapons") or ()),
        )


@dataclass(frozen=True)
class HitNumbers:
    """The D6 target to hit before modifiers: ``open`` and ``cover``. ``close``: an optional
    better target for a figure in the open within ``close_range_in`` inches (a core table may
    have one; Bug Hunt p.177 has 3+ within 6"). ``source`` says where the numbers come from."""

    open: int
    cover: int
    source: str
    close: int | None = None
    close_range_in: int = 6

    def __post_init__(self) -> None:
        for label, value in (("open", self.open), ("cover", self.cover), ("close", self.close)):
            if value is not None and not 1 <= value <= 6:
                raise CombatError(f"{label} must be a D6 target from 1 to 6; got {value}.", field=label)
        if self.close_range_in < 0:
            raise CombatError(f"close_range_in must be 0 or more inches; got {self.close_range_in}.", field="close_range_in")

    def target(self, *, cover: bool, range_in: int) -> int:
        """The target number for a shot at ``range_in`` inches, in cover or not."""
        if cover:
            return self.cover
        if self.close is not None and range_in <= self.close_range_in:
            return self.close
        return self.open

    def as_dict(self) -> dict[str, Any]:
        return {
            "open": self.open,
            "cover": self.cover,
            "source": self.source,
            "close": self.close,
            "close_range_in": self.close_range_in,
        }


def hit_numbers(tables: Mapping[str, RangeTable], *, dramatic: bool, core: HitNumbers | None = None) -> HitNumbers:
    """The hit numbers for a battle. ``dramatic=True`` (Dramatic Combat, p.87) reads
    ``dramatic-adjusted-shooting`` (5+ open, 6+ cover) and ignores ``core``. Otherwise ``core`` is
    the core rulebook's numbers typed in by the user (we do not ship them). Raises
    :class:`CombatError`: field ``core`` when it is missing, ``tables`` when the table is."""
    if not dramatic:
        if core is None:
            raise CombatError("core: without Dramatic Combat give the core rulebook's hit numbers (open, cover).", field="core")
        return core
    slug = "dramatic-adjusted-shooting"
    if slug not in tables:
        raise CombatError(f"tables must include {slug!r} for Dramatic Combat.", field="tables")
    open_, cover = None, None
    for entry in tables[slug].entries:
        if "cover" in entry.result.lower():
            cover = int(entry.data["target"])
        elif "open" in entry.result.lower():
            open_ = int(entry.data["target"])
    if open_ is None or cover is None:
        raise CombatError(f"tables: {slug!r} needs an open row and a cover row.", field="tables")
    return HitNumbers(open=open_, cover=cover, source=ADJUSTED_SOURCE)


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
) -> ShotResult:
    """``shooter`` fires ``weapon`` at ``target`` ``range_in`` inches away (module docstring for
    the rulings; pp.87-89 and Bug Hunt pp.177-178).

    - ``numbers``: from :func:`hit_numbers`; ``cover``: the target is in cover (for Area: partly
      shielded from the blast, 5+ instead of 4+).
    - ``moved``: the shooter moved this round (Heavy -1); ``fired_last_round``: the weapon fired
      last round (Overheat: one Shot fewer).
    - ``dramatic``: Dramatic Combat is on (Lunge and Duck Back are reported).
    - ``tables``: optional, to read trait numbers from ``dramatic-weapon-traits``.
    - ``faces``: the firing dice (one per Shot; for Area the one D6), then per hit the save die (if
      any), the Damage die (unless a no-Damage Stun hit) and the Shockwave die (if it survives).

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
    area = gun.has("area")
    hit_faces: list[int] = []  # natural faces of the dice that hit, one per die
    to_hit: int | None = None
    modifier = 0
    shots = 0
    hits = 0
    if area:
        to_hit = trait.area_obscured_target if cover else trait.area_target
        record = feed.d6(f"{gun.name}: Area roll against {target.name}")
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
        if gun.has("overheat") and fired_last_round:
            shots = max(0, shots + trait.overheat)
            lines.append(f"Overheat: it fired last round, so {shots} Shot{'s' if shots != 1 else ''} this time.")
        mods: list[tuple[int, str]] = [(shooter.combat_skill, "Combat Skill")]
        if gun.has("pistol") and range_in <= trait.pistol_range_in:
            mods.append((trait.pistol_hit, f'Pistol within {trait.pistol_range_in}"'))
        if gun.has("snap_shot") and range_in <= trait.snap_shot_range_in:
            mods.append((trait.snap_shot_hit, f'Snap shot within {trait.snap_shot_range_in}"'))
        if gun.has("heavy") and moved:
            mods.append((trait.heavy, "Heavy after moving"))
        modifier = sum(n for n, _ in mods)
        shrapnel = gun.has("shrapnel")
        to_hit = trait.shrapnel_target if shrapnel else numbers.target(cover=cover, range_in=range_in)
        if shots:
            record = feed.several(shots, f"{gun.name} firing dice at {target.name}")
            for face in record.faces:
                hit = face >= to_hit if shrapnel else face + modifier >= to_hit
                if hit:
                    hit_faces.append(face)
            mod_words = ", ".join(f"{_signed(n)} {why}" for n, why in mods if n)
            if shrapnel:
                lines.append(
                    f"Shrapnel: natural {to_hit}+ hits whatever the skill, modifiers or cover; dice "
                    + ", ".join(f"{f} ({'hit' if f >= to_hit else 'miss'})" for f in record.faces)
                    + "."
                )
            else:
                lines.append(
                    f"Firing dice {', '.join(map(str, record.faces))}"
                    + (f" ({mod_words})" if mod_words else "")
                    + f" against {to_hit}+ ({numbers.source}): totals "
                    + ", ".join(f"{f + modifier} ({'hit' if f + modifier >= to_hit else 'miss'})" for f in record.faces)
                    + "."
                )
        else:
            lines.append("No Shots to fire.")
        for face in hit_faces:
            if gun.has("critical") and face == trait.critical_natural:
                hits += trait.critical_hits
            else:
                hits += 1
        crits = sum(1 for f in hit_faces if gun.has("critical") and f == trait.critical_natural)
        if crits:
            lines.append(
                f"Critical: {crits} natural {trait.critical_natural}{'s' if crits > 1 else ''}, {trait.critical_hits} hits each."
            )

    # One entry per hit: whether it came from a natural 6.
    per_hit: list[bool] = []
    for face in hit_faces:
        count = trait.critical_hits if (not area and gun.has("critical") and face == trait.critical_natural) else 1
        per_hit.extend([face == 6] * count)
    outcomes: list[HitOutcome] = []
    current = target
    spare = 0
    removed = False
    for natural_six in per_hit:
        if removed:
            spare += 1
            continue
        outcome, current = _hit(feed, trait, current, gun, source=gun.name, natural_six=natural_six)
        outcomes.append(outcome)
        lines.extend(outcome.notes)
        removed = outcome.result == "casualty"
    if spare:
        if gun.has("focused"):
            lines.append(f"Focused: {spare} more hit{'s' if spare > 1 else ''} lost with the target gone.")
            spare = 0
        else:
            lines.append(
                f'{spare} spare hit{"s" if spare > 1 else ""} may go to another figure within {RESPREAD_IN}" of {target.name}.'
            )
    elif gun.has("focused") and shots > 1:
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
    single = gun.has("single_use")
    if single:
        lines.append(f"Single-use: remove the {gun.name} from {shooter.name}'s supply.")
    feed.finish()
    return ShotResult(
        hits=hits,
        outcomes=tuple(outcomes),
        target=current,
        rolls=tuple(feed.rolls),
        lines=tuple(lines),
        lunge=lunge,
        to_hit=to_hit,
        modifier=modifier,
        shots=shots,
        spare_hits=spare,
        lunge_forced=forced,
        duck_back_due=duck,
        single_use=single,
        removed=removed,
    )


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
    return mods


def resolve_brawl(
    dice: Dice,
    *,
    a: Fighter,
    b: Fighter,
    a_weapon: Weapon | None,
    b_weapon: Weapon | None,
    faces: Sequence[int] | None = None,
    tables: Mapping[str, RangeTable] | None = None,
) -> BrawlResult:
    """A Brawl between ``a`` and ``b`` (Bug Hunt pp.177-178; traits p.89; rulings in the module
    docstring). Each rolls D6 + Combat Skill + the weapon bonus (Melee +2, Pistol +1), Clumsy -1
    against a faster foe, Stunned -1. Elegant rerolls a losing die (not for K'Erin). The lower
    total takes a hit from the other's weapon (Damage 0 unarmed); a draw hits both. Survivors that
    were Stunned lose one Stun marker.

    ``faces``: ``a``'s die, ``b``'s die, any Elegant reroll (``a`` first), then the hit dice (save,
    Damage, Shockwave) on ``b`` and then on ``a``. Raises :class:`CombatError` for wrong faces.
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
    if a_total > b_total:
        won: str | None = "a"
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
            cleared = replace(now, stun_markers=max(0, now.stun_markers - 1))
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


# -- casualty tables ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CasualtyResult:
    """A casualty-table roll (pp.99-100): ``entry`` the applied row (the highest roll), ``value``
    its table value, ``rolls`` every D6, ``lines`` one per step."""

    result: str
    entry: Entry
    value: int
    rolls: tuple[RollRecord, ...]
    lines: tuple[str, ...]

    @property
    def removed(self) -> bool:
        return bool(self.entry.data.get("removed"))

    def as_dict(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "effect": self.entry.effect,
            "data": dict(self.entry.data),
            "value": self.value,
            "removed": self.removed,
            "rolls": [r.as_dict() for r in self.rolls],
            "lines": list(self.lines),
        }


def casualty(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    kind: str,
    critical: int = 0,
    hits: int = 1,
    boss: bool = False,
    modifier: int = 0,
    faces: Sequence[int] | None = None,
) -> CasualtyResult:
    """Roll a casualty table (pp.99-100) for a figure that would become a casualty.

    ``kind``: "humanoid", "cybernetic" or "beasts" (table ``casualty-<kind>``); ``boss``: use the
    Boss column (crew captain, enemy leaders, unique personalities), else Regular. ``hits``: the
    hits of the attack that equalled or beat Toughness (one roll each); ``critical``: extra rolls
    from the optional Critical Hit rule (True = 1, or the count of natural-6 hits). Only the
    highest roll applies. ``modifier``: added to every roll (+1 per earlier Damaged/Bleeding);
    totals are clamped to 1-6. ``faces``: one D6 face per roll. Raises :class:`CombatError` naming
    ``kind``, ``hits``, ``critical``, ``tables`` or ``faces``."""
    if kind not in CASUALTY_KINDS:
        raise CombatError(f"kind must be one of {', '.join(CASUALTY_KINDS)}; got {kind!r}.", field="kind")
    if hits < 1:
        raise CombatError(f"hits must be 1 or more; got {hits}.", field="hits")
    extra = int(critical)
    if extra < 0:
        raise CombatError(f"critical must be True/False or a count 0 or more; got {critical!r}.", field="critical")
    slug = f"casualty-{kind}"
    if slug not in tables:
        raise CombatError(f"tables must include {slug!r}.", field="tables")
    table = tables[slug]
    column = "Boss" if boss else "Regular"
    feed = _Feed(dice, faces)
    lines: list[str] = []
    best: tuple[int, Entry] | None = None
    count = hits + extra
    for index in range(count):
        why = "Critical Hit extra roll" if index >= hits else f"hit {index + 1}"
        record = feed.d6(f"{table.title} ({column}), {why}", modifier=modifier)
        try:
            rolled = table.resolve(record, column=column)
        except TableError as exc:
            raise CombatError(f"tables: {exc}", field="tables") from exc
        lines.append(
            f"{why}: rolled {record.natural}{f' {_signed(modifier)}' if modifier else ''} -> {rolled.value}, {rolled.entry.result}."
        )
        if best is None or rolled.value > best[0]:
            best = (rolled.value, rolled.entry)
    feed.finish()
    assert best is not None
    value, entry = best
    if count > 1:
        lines.append(f"Only the highest applies: {value}, {entry.result}.")
    return CasualtyResult(result=entry.result, entry=entry, value=value, rolls=tuple(feed.rolls), lines=tuple(lines))


def casualty_roll(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    kind: str,
    critical: bool = False,
    faces: Sequence[int] | None = None,
    hits: int = 1,
    boss: bool = False,
    modifier: int = 0,
) -> tuple[str, tuple[RollRecord, ...]]:
    """The applied casualty-table result name and the rolls (see :func:`casualty` for the
    arguments, pp.99-100). ``critical=True``: the optional Critical Hit rule adds one roll."""
    result = casualty(dice, tables, kind=kind, critical=int(critical), hits=hits, boss=boss, modifier=modifier, faces=faces)
    return result.result, result.rolls
