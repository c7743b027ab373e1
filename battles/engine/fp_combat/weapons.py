"""Weapons (Compendium pp.88-89: Dramatic Weapons, or typed core profiles), fighters, and hit
numbers (core rulebook, or p.87's adjusted shooting with Dramatic Combat).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from battles.engine.fp_combat import ADJUSTED_SOURCE, ARMOR, BOTH, SAVE_KINDS, TRAITS, CombatError, _name_key, trait_key
from rules.engine.tables import RangeTable

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
        if trait in self.traits:
            return True
        # A key of TRAITS is its own trait key: only a printed name needs working out.
        return trait not in TRAITS and trait_key(trait) in self.traits

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
class Ward:
    """A psionic ward against ranged hits, rolled before the Saving Throw and never negated by
    Piercing: a crew Psionic's Barrier (4+, p.18) or an enemy Psionic's Reflect (4+, not against
    Area attacks; a 6 deflects the attack to the closest crew figure in sight, p.23).
    ``target``: the D6 target; ``area``: it also wards Area hits; ``deflect_on``: the face from
    which a warded hit is deflected, or ``None``."""

    name: str
    target: int
    area: bool = True
    deflect_on: int | None = None

    def __post_init__(self) -> None:
        if not 2 <= self.target <= 6:
            raise CombatError(f"ward target must be a D6 target from 2 to 6; got {self.target}.", field="ward")
        if self.deflect_on is not None and not self.target <= self.deflect_on <= 6:
            raise CombatError(f"ward deflect_on must be from its target to 6; got {self.deflect_on}.", field="ward")

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "target": self.target, "area": self.area, "deflect_on": self.deflect_on}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ward:
        deflect = data.get("deflect_on")
        return cls(
            name=str(data.get("name") or "Ward"),
            target=_int(data.get("target"), "ward"),
            area=bool(data.get("area", True)),
            deflect_on=None if deflect in (None, "") else _int(deflect, "ward"),
        )


@dataclass(frozen=True)
class Fighter:
    """One figure. ``speed`` in inches; ``save``: the Saving Throw as a D6 target (5 = 5+) or
    ``None``; ``save_kind``: what that save is (:data:`SAVE_KINDS`: ``armor``, the default, is
    negated by Piercing, p.89; ``screen`` is not, but a hit that ignores Screens negates it, p.141;
    ``both`` counts as either, so only an attack negating both forms stops it, p.26);
    ``second_save``: a worse save of the other kind (Screen for an Armor ``save``, Armor for a
    Screen one) rolled instead when the hit negates the first, or ``None``;
    ``reroll_natural_one``: a natural 1 on this figure's firing or Brawl dice is rolled again, once
    (a Krag fighting Rivals, p.12); ``ward``: a psionic :class:`Ward` against ranged hits, or
    ``None``; ``obscured``: shots at it hit only on a natural 6 (an enemy Psionic's Obscure,
    p.23); ``bot``: a robot (never Ducks Back, no Burn move); ``kerin``: a
    K'Erin player character (no Elegant reroll, p.89); ``enemy``: an enemy figure (Lunge is then
    compulsory when p.87 says so); ``weapons``: what it carries (for Lunge); ``psi_hunter``: one
    of a Psi-hunter Rival's figures, +1 (:data:`PSI_HUNTER_HIT`) to its firing dice and Brawl roll
    against a ``psionic`` figure, a crew Psionic (p.21)."""

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
    save_kind: str = ARMOR
    second_save: int | None = None
    reroll_natural_one: bool = False
    ward: Ward | None = None
    obscured: bool = False
    psi_hunter: bool = False
    psionic: bool = False

    def __post_init__(self) -> None:
        if self.toughness < 1:
            raise CombatError(f"toughness must be 1 or more; got {self.toughness}.", field="toughness")
        if self.save is not None and not 2 <= self.save <= 6:
            raise CombatError(f"save must be a D6 target from 2 to 6, or None; got {self.save}.", field="save")
        if self.save_kind not in SAVE_KINDS:
            raise CombatError(f"save_kind must be one of {', '.join(SAVE_KINDS)}; got {self.save_kind!r}.", field="save_kind")
        if self.second_save is not None:
            if not 2 <= self.second_save <= 6:
                raise CombatError(
                    f"second_save must be a D6 target from 2 to 6, or None; got {self.second_save}.", field="second_save"
                )
            if self.save is None or self.save_kind == BOTH:
                raise CombatError(
                    "second_save needs an Armor or Screen save beside it (a save of both kinds has no second).",
                    field="second_save",
                )
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
            "save_kind": self.save_kind,
            "second_save": self.second_save,
            "reroll_natural_one": self.reroll_natural_one,
            # Only when set: figures stored before psionic wards keep their shape.
            **({"ward": self.ward.as_dict()} if self.ward is not None else {}),
            **({"obscured": True} if self.obscured else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Fighter:
        """Inverse of :meth:`as_dict`; optional keys take their defaults. Raises
        :class:`CombatError` naming a missing or bad field."""
        for key in ("name", "combat_skill", "toughness"):
            if key not in data:
                raise CombatError(f"fighter needs {key!r} (name, combat_skill, toughness).", field=key)
        save = data.get("save")
        second = data.get("second_save")
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
            save_kind=read_save_kind(data.get("save_kind")),
            second_save=None if second in (None, "") else _int(second, "second_save"),
            reroll_natural_one=bool(data.get("reroll_natural_one", False)),
            ward=Ward.from_dict(data["ward"]) if data.get("ward") else None,
            obscured=bool(data.get("obscured", False)),
        )


def read_save_kind(raw: Any) -> str:
    """The Saving Throw kind ``raw`` names (:data:`SAVE_KINDS`); missing or empty reads as
    ``armor`` (a figure stored before kinds existed). Raises :class:`CombatError` (field
    ``save_kind``) naming the kinds."""
    if raw in (None, ""):
        return ARMOR
    kind = str(raw).strip().lower()
    if kind not in SAVE_KINDS:
        raise CombatError(f"save_kind must be one of {', '.join(SAVE_KINDS)}; got {raw!r}.", field="save_kind")
    return kind


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
