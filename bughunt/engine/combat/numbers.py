"""Combat rule flags and the numbers read from the ``bh-*`` tables (Bug Hunt pp.177-181,
194-197): :class:`Numbers`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.engine import combat_numbers as shared
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


_NUMBERS_SLUGS: tuple[str, ...] = (
    "bh-shooting",
    "bh-brawling-modifiers",
    "bh-hit-results",
    "bh-weapon-traits",
    "bh-enemies",
    "bh-enemy-variants",
    "bh-pack-leaders",
    "bh-drop-ship",
)
"""The tables :meth:`Numbers.from_tables` reads."""
_NUMBERS_READ: dict[tuple[Any, ...], tuple[tuple[RangeTable | None, ...], Numbers]] = {}


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
    knockback_in: int = shared.KNOCKBACK_IN
    knockout_markers: int = shared.KNOCKOUT_MARKERS
    melee_bonus: int = 2
    pistol_bonus: int = 1
    wounded_brawl: int = -1
    stunned_brawl: int = shared.STUNNED_BRAWL
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
        ``None`` gives the defaults. Raises :class:`CombatError` naming a missing table or row.

        Read once per set of tables: the result is kept for the same (immutable) table objects,
        so a shot or a Brawl does not rebuild it."""
        if tables is None:
            return cls()
        read = tuple(tables.get(slug) for slug in _NUMBERS_SLUGS)
        key = (cls, *map(id, read))
        kept = _NUMBERS_READ.get(key)
        if kept is not None and all(a is b for a, b in zip(kept[0], read, strict=True)):
            return kept[1]
        numbers = cls._read(tables)
        if len(_NUMBERS_READ) >= 8:  # a new tables version: forget the old ones
            _NUMBERS_READ.clear()
        _NUMBERS_READ[key] = (read, numbers)  # holding the tables keeps their ids from being reused
        return numbers

    @classmethod
    def _read(cls, tables: Mapping[str, RangeTable]) -> Numbers:
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
