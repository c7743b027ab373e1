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
- Each hit (Bug Hunt p.178): one Saving Throw first when the target has a save the hit does not
  negate (:func:`save_against`): Piercing negates Armor saves only (p.89: a Screen still saves,
  as the Soulless Force screen of p.59 shows), a hit that ignores Screens (the Salvage hazards,
  p.141) negates Screen saves only, and a save of both kinds (the Bot Deflection module, p.26)
  stands unless both are negated; a figure with a save of each kind rolls the better one the hit
  leaves standing. A made save means no Stun and 1" of knock back. Otherwise D6 + Damage against
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
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from rules.engine.combat_numbers import BRAWL_WIN_MOVE_IN, KNOCKBACK_IN, KNOCKOUT_MARKERS, RESPREAD_IN, STUNNED_BRAWL
from rules.engine.errors import RuleError
from rules.engine.tables import Entry, RangeTable

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
#: Saving Throw kinds (p.26): Armor (Piercing negates it, p.89), Screen (a hit that ignores
#: Screens negates it, p.141), or both (only an attack negating both forms stops it).
ARMOR: str = "armor"
SCREEN: str = "screen"
BOTH: str = "both"
SAVE_KINDS: tuple[str, ...] = (ARMOR, SCREEN, BOTH)
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
#: Psi-hunter Rivals (p.21): added to their attack roll when they shoot at or Brawl a Psionic.
PSI_HUNTER_HIT = 1
PSI_HUNTER_WHY = "Psi-hunter against a Psionic (p.21)"


class CombatError(RuleError):
    """A combat request the rules do not allow. ``field`` names the bad input; the message says
    what is allowed."""

    #: The trackers' payload key for an argument of ours (a shot's ``range`` is ``range_in`` here).
    PAYLOAD_KEYS = {"range_in": "range"}

    def in_payload_terms(self) -> tuple[str, str | None]:
        """``(message, field)`` naming the tracker payload's key rather than ours."""
        key = self.PAYLOAD_KEYS.get(self.field or "")
        if key is None:
            return self.message, self.field
        return self.message.replace(str(self.field), key, 1), key


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


_NEW = object.__new__
_SET = object.__setattr__


def _frozen[T](cls: type[T], values: dict[str, Any]) -> T:
    """An instance of the frozen dataclass ``cls`` holding ``values`` (every field, by name),
    equal to ``cls(**values)`` but built in one step instead of one frozen ``__setattr__`` per
    field. Only for results the resolver builds itself on every shot (no ``__post_init__``
    checks are skipped: the classes it is used for have none, or the values come from a figure
    that passed them)."""
    made = _NEW(cls)
    _SET(made, "__dict__", values)
    return made


# The sections below import the names above from the package, so they come after them. The
# trait numbers stay here: TraitNumbers.from_tables keeps its last numbers in this module's
# ``_last_trait_numbers`` (``fp_combat._last_trait_numbers``, which tests reset).
from battles.engine.fp_combat.brawling import BrawlResult, duck_back, resolve_brawl  # noqa: E402
from battles.engine.fp_combat.casualties import CasualtyResult, casualty, casualty_roll  # noqa: E402
from battles.engine.fp_combat.hits import HitOutcome, resolve_hit, save_against  # noqa: E402
from battles.engine.fp_combat.shooting import ShotResult, resolve_shot  # noqa: E402
from battles.engine.fp_combat.weapons import (  # noqa: E402
    Fighter,
    HitNumbers,
    Ward,
    Weapon,
    custom_weapon,
    hit_numbers,
    read_save_kind,
    weapon,
)

__all__ = [
    "ADJUSTED_SOURCE",
    "ARMOR",
    "BOTH",
    "BRAWL_WIN_MOVE_IN",
    "CASUALTY_COLUMNS",
    "CASUALTY_KINDS",
    "DUCK_BACK_COVER",
    "DUCK_BACK_FIRER_IN",
    "DUCK_BACK_OPEN",
    "KNOCKBACK_IN",
    "KNOCKOUT_MARKERS",
    "LUNGE_RANGE_IN",
    "PSI_HUNTER_HIT",
    "RESPREAD_IN",
    "RESULTS",
    "SAVE_KINDS",
    "SCREEN",
    "STUNNED_BRAWL",
    "TRAITS",
    "BrawlResult",
    "CasualtyResult",
    "CombatError",
    "Fighter",
    "HitNumbers",
    "HitOutcome",
    "ShotResult",
    "TraitNumbers",
    "Ward",
    "Weapon",
    "casualty",
    "casualty_roll",
    "custom_weapon",
    "duck_back",
    "hit_numbers",
    "read_save_kind",
    "resolve_brawl",
    "resolve_hit",
    "resolve_shot",
    "save_against",
    "trait_key",
    "weapon",
]
