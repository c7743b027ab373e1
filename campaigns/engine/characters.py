"""Five Parsecs crew members: profile, species rules, advancement, training, Bot upgrades,
injuries, implants and kit (Compendium pp.11-27, p.32, p.101).

A :class:`Character` is a frozen value. Every rule here takes one and returns a new one (or a
result object holding one); nothing is changed in place. The Django layer stores a character
as model columns plus JSON and converts with :meth:`Character.as_dict` /
:meth:`Character.from_dict`.

Psionic powers live in :mod:`campaigns.engine.psionics`; the parts of the Psionic rules that
change ordinary character actions (weapon limits, no Combat Skill from XP, implants) are here.

Rule tables come in as ``Mapping[str, RangeTable]`` keyed by fixture slug; numbers are read
from entry ``data``. Where a rule needs a core-rulebook table (the upgrade costs, species
profiles other than Krag and Skulker) it is an input.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from campaigns.engine.credits import credits_roll
from campaigns.engine.options import CampaignOptions
from campaigns.engine.slots import PROFILE_KEYS
from rules.engine.dice import Dice, RollRecord
from rules.engine.errors import RuleError
from rules.engine.tables import Entry, RangeTable, TableRoll

#: Every stat on a profile: the core five plus Luck.
STATS: tuple[str, ...] = (*PROFILE_KEYS, "luck")
KINDS: tuple[str, ...] = ("biological", "bot", "soulless")
STATUSES: tuple[str, ...] = ("active", "sick_bay", "dead", "gone")

KRAG = "krag"
SKULKER = "skulker"
ENGINEER = "engineer"
PRECURSOR = "precursor"
#: Compendium species whose base profile comes from a fixture table (``<key>-profile``).
TABLE_SPECIES: tuple[str, ...] = (KRAG, SKULKER)

SLOWER_PROGRESSION_TABLE = "slower-progression-upgrades"
TRAINING_TABLE = "compendium-advanced-training"
BOT_UPGRADES_TABLE = "bot-upgrades"
INJURY_TABLE = "detailed-injuries"
ITEM_HIT_TABLE = "detailed-injuries-item-hit"
LINGERING_TABLE = "detailed-injuries-lingering"
MEDICAL_TABLE = "detailed-injuries-medical-facilities"
WEAPONS_TABLE = "dramatic-weapons"

INSTRUCTOR = "Instructor"
FIXER = "Fixer"
SURVIVAL_COURSE = "Survival course"
BUILT_IN_WEAPON = "Built-in weapon"
#: The detailed injury whose Sick Bay time starts only once it is paid for (p.101).
EXTENSIVE_INJURY = "Extensive injury"
LINGERING_INJURY = "Lingering injury"
CRITICAL_STRIKE = "Critical strike"
#: Weapon traits a Psionic may use (p.18; also in the psionic-limitations table).
PSIONIC_WEAPON_TRAITS: tuple[str, ...] = ("Pistol", "Melee")
#: Hazard kinds understood by :func:`hazard_rolls`.
HAZARD_KINDS: tuple[str, ...] = ("bio_hazard", "drug", "trap", "hazard", "environment")
NAME_LIMIT = 80


class CharacterError(RuleError):
    """A character change the rules do not allow; ``field`` names the input at fault and the
    message names the allowed values (same shape as ``OptionError``)."""


# -- values ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
    """A character's stats. ``speed`` is in inches; ``combat_skill`` and ``savvy`` are bonuses."""

    reactions: int = 1
    speed: int = 4
    combat_skill: int = 0
    toughness: int = 3
    savvy: int = 0
    luck: int = 0

    def get(self, stat: str) -> int:
        """The value of ``stat`` (one of :data:`STATS`). Raises :class:`CharacterError`."""
        _check_stat(stat)
        return int(getattr(self, stat))

    def with_stat(self, stat: str, value: int) -> Profile:
        _check_stat(stat)
        return replace(self, **{stat: value})

    def as_dict(self) -> dict[str, int]:
        return {stat: self.get(stat) for stat in STATS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, where: str = "profile", luck_default: int = 0) -> Profile:
        """Profile from a mapping holding the five core stats (Luck optional, default
        ``luck_default``). Raises :class:`CharacterError` naming the missing or bad stat."""
        values: dict[str, int] = {}
        for stat in STATS:
            if stat not in data or data[stat] is None:
                if stat == "luck":
                    values[stat] = luck_default
                    continue
                raise CharacterError(f"{where} needs {', '.join(PROFILE_KEYS)}; {stat} is missing.", field=f"{where}.{stat}")
            values[stat] = _int(f"{where}.{stat}", data[stat])
        return cls(**values)


@dataclass(frozen=True)
class Character:
    """One crew member (pp.11-27).

    - ``species``: a key such as ``krag``, ``skulker`` or a preset key (``human``, ``engineer``).
    - ``kind``: ``biological``, ``bot`` or ``soulless`` (Bots and Soulless can never be Psionics;
      only Bots take Bot upgrades).
    - ``xp``: unspent experience points.
    - ``psionic``, ``powers`` (power name -> enhanced), ``psionics_lost`` (an implant or surgery
      ended the powers for good, p.18).
    - ``profile_rolled``: the creation tables have already changed the profile, so the figure
      can no longer be picked as the starting Psionic (p.17).
    - ``implants``, ``injuries`` (lasting injuries by name), ``training`` (course names),
      ``bot_upgrades`` (names), ``equipment`` (item names).
    - ``sick_bay``: campaign turns left; ``bot_upgrade_turn``: campaign turn of the last install.
    - ``status``: ``active``, ``sick_bay``, ``dead`` or ``gone``.

    Construction checks ``kind``, ``status`` and the counts and turns the lists into tuples.
    Raises :class:`CharacterError`.
    """

    name: str
    species: str = "human"
    kind: str = "biological"
    profile: Profile = field(default_factory=Profile)
    xp: int = 0
    psionic: bool = False
    powers: Mapping[str, bool] = field(default_factory=dict)
    psionics_lost: bool = False
    profile_rolled: bool = False
    implants: tuple[str, ...] = ()
    injuries: tuple[str, ...] = ()
    sick_bay: int = 0
    training: tuple[str, ...] = ()
    bot_upgrades: tuple[str, ...] = ()
    bot_upgrade_turn: int | None = None
    equipment: tuple[str, ...] = ()
    status: str = "active"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise CharacterError(f"kind must be one of {', '.join(KINDS)}; got {self.kind!r}.", field="kind")
        if self.status not in STATUSES:
            raise CharacterError(f"status must be one of {', '.join(STATUSES)}; got {self.status!r}.", field="status")
        for name in ("xp", "sick_bay"):
            if getattr(self, name) < 0:
                raise CharacterError(f"{name} cannot be below 0; got {getattr(self, name)}.", field=name)
        if not str(self.species).strip():
            raise CharacterError("species must be a species key such as human, krag or skulker; got ''.", field="species")
        object.__setattr__(self, "powers", {str(k): bool(v) for k, v in dict(self.powers).items()})
        for name in ("implants", "injuries", "training", "bot_upgrades", "equipment"):
            object.__setattr__(self, name, tuple(str(v) for v in getattr(self, name)))

    @property
    def alive(self) -> bool:
        return self.status not in ("dead", "gone")

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form; ``profile`` is a nested dict of :data:`STATS`."""
        return {
            "name": self.name,
            "species": self.species,
            "kind": self.kind,
            "profile": self.profile.as_dict(),
            "xp": self.xp,
            "psionic": self.psionic,
            "powers": dict(self.powers),
            "psionics_lost": self.psionics_lost,
            "profile_rolled": self.profile_rolled,
            "implants": list(self.implants),
            "injuries": list(self.injuries),
            "sick_bay": self.sick_bay,
            "training": list(self.training),
            "bot_upgrades": list(self.bot_upgrades),
            "bot_upgrade_turn": self.bot_upgrade_turn,
            "equipment": list(self.equipment),
            "status": self.status,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Character:
        """Inverse of :meth:`as_dict`. Missing keys take the defaults; the stats may be nested
        under ``profile`` or given flat (as model columns). Raises :class:`CharacterError`
        naming the field for an unknown key or a bad value."""
        known = set(cls.__dataclass_fields__) | set(STATS)
        unknown = sorted(set(data) - known)
        if unknown:
            raise CharacterError(
                f"Unknown character field {unknown[0]!r}; fields are {', '.join(sorted(known))}.", field=unknown[0]
            )
        name = str(data.get("name") or "").strip()
        if not name or len(name) > NAME_LIMIT:
            raise CharacterError(f"name must be 1 to {NAME_LIMIT} characters; got {name!r}.", field="name")
        raw_profile = data.get("profile")
        if raw_profile is None:
            raw_profile = {stat: data[stat] for stat in STATS if stat in data}
            profile = Profile.from_dict(raw_profile) if raw_profile else Profile()
        elif isinstance(raw_profile, Mapping):
            profile = Profile.from_dict(raw_profile)
        else:
            raise CharacterError(f"profile must be a mapping of {', '.join(STATS)}; got {raw_profile!r}.", field="profile")
        powers = data.get("powers") or {}
        if not isinstance(powers, Mapping):
            raise CharacterError(f"powers must map power name to enhanced (true/false); got {powers!r}.", field="powers")
        turn = data.get("bot_upgrade_turn")
        return cls(
            name=name,
            species=str(data.get("species") or "human"),
            kind=str(data.get("kind") or "biological"),
            profile=profile,
            xp=_int("xp", data.get("xp", 0)),
            psionic=bool(data.get("psionic", False)),
            powers={str(k): bool(v) for k, v in powers.items()},
            psionics_lost=bool(data.get("psionics_lost", False)),
            profile_rolled=bool(data.get("profile_rolled", False)),
            implants=_texts("implants", data.get("implants")),
            injuries=_texts("injuries", data.get("injuries")),
            sick_bay=_int("sick_bay", data.get("sick_bay", 0)),
            training=_texts("training", data.get("training")),
            bot_upgrades=_texts("bot_upgrades", data.get("bot_upgrades")),
            bot_upgrade_turn=None if turn is None else _int("bot_upgrade_turn", turn),
            equipment=_texts("equipment", data.get("equipment")),
            status=str(data.get("status") or "active"),
        )


# -- small helpers -------------------------------------------------------------------------


def _int(name: str, value: Any) -> int:
    if isinstance(value, bool):
        raise CharacterError(f"{name} must be a whole number; got {value!r}.", field=name)
    try:
        return int(value)
    except (TypeError, ValueError):
        raise CharacterError(f"{name} must be a whole number; got {value!r}.", field=name) from None


def _texts(name: str, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise CharacterError(f"{name} must be a list of names; got {value!r}.", field=name)
    return tuple(str(v) for v in value)


def _check_stat(stat: str) -> None:
    if stat not in STATS:
        raise CharacterError(f"stat must be one of {', '.join(STATS)}; got {stat!r}.", field="stat")


def _key(text: str) -> str:
    """Loose match key: lower case, letters and digits only, no plural s."""
    return re.sub(r"[^a-z0-9]", "", text.lower()).rstrip("s")


def _table(tables: Mapping[str, RangeTable], slug: str) -> RangeTable:
    try:
        return tables[slug]
    except KeyError:
        raise CharacterError(
            f"The rule table {slug!r} is missing from tables; load the Compendium fixtures.", field="tables"
        ) from None


def _row(table: RangeTable, result: str, *, field_name: str) -> Entry:
    for entry in table.rows():
        if entry.result.lower() == result.lower():
            return entry
    names = ", ".join(e.result for e in table.rows())
    raise CharacterError(f"{field_name} must be one of {names}; got {result!r}.", field=field_name)


def _alive(character: Character) -> None:
    if not character.alive:
        raise CharacterError(
            f"{character.name} is {character.status}; only active or sick bay crew can change. status must be active or sick_bay.",
            field="status",
        )


def _picker_sides(count: int) -> int:
    for sides in (3, 6, 10, 12, 20, 100):
        if sides >= count:
            return sides
    raise CharacterError(f"Cannot pick at random among {count}; the limit is 100.", field="crew")


def pick_one(dice: Dice, count: int, reason: str, *, face: int | None = None) -> tuple[int, RollRecord | None]:
    """Pick one of ``count`` things at random: 0-based index and the roll.

    Rolls the smallest die with at least ``count`` faces and rerolls results above ``count``
    (the rerolled faces stay in the record). With one candidate there is no roll (``None``).
    ``face`` is the player's pick, 1 to ``count``. Raises :class:`CharacterError` for an empty
    list or a face out of range.
    """
    if count < 1:
        raise CharacterError("There is nobody and nothing to pick from; the list is empty.", field="crew")
    if face is not None:
        if not 1 <= face <= count:
            raise CharacterError(f"face must be 1 to {count}; got {face}.", field="face")
        return face - 1, Dice.enter(f"D{_picker_sides(count)}", (face,), reason)
    if count == 1:
        return 0, None
    sides = _picker_sides(count)
    record = dice.roll(f"D{sides}", f"{reason} (1-{count}, reroll higher)" if sides != count else reason)
    while (record.total or 0) > count:
        record = dice.reroll(record, [0])
    return (record.total or 1) - 1, record


# -- species (pp.12-16) ----------------------------------------------------------------------


def species_kind(species: str) -> str:
    """The default ``kind`` for a species key: ``soulless``, ``bot`` or ``biological``."""
    key = _key(species)
    if key == _key("soulless"):
        return "soulless"
    if key == "bot":
        return "bot"
    return "biological"


def species_profile(species: str, tables: Mapping[str, RangeTable], presets: Mapping[str, Mapping[str, int]]) -> Profile:
    """Base profile of a species (pp.12, 14).

    Krag and Skulker read the ``profile`` row of ``krag-profile`` / ``skulker-profile``; any
    other species reads ``presets`` (the player's starting-profiles table: species key ->
    reactions, speed in inches, combat_skill, toughness, savvy and optional luck). The
    Compendium table wins over a preset for Krag and Skulker. Luck is 0 unless a preset gives
    it. Raises :class:`CharacterError` (field ``species``) naming the known species.
    """
    key = species.strip().lower()
    if key in TABLE_SPECIES:
        table = _table(tables, f"{key}-profile")
        for entry in table.rows():
            if entry.data.get("kind") == "profile":
                return Profile.from_dict(entry.data, where=f"{key}-profile")
        raise CharacterError(f"Table {key}-profile has no profile row.", field="tables")
    lowered = {str(k).strip().lower(): v for k, v in presets.items()}
    if key in lowered:
        return Profile.from_dict(lowered[key], where=f"presets.{key}")
    known = sorted({*TABLE_SPECIES, *lowered})
    raise CharacterError(
        f"species must be one of {', '.join(known)}; got {species!r}. Add its row to your starting profiles table.",
        field="species",
    )


def new_character(
    name: str,
    species: str,
    tables: Mapping[str, RangeTable],
    presets: Mapping[str, Mapping[str, int]],
    *,
    kind: str | None = None,
) -> Character:
    """A fresh crew member with the species base profile (see :func:`species_profile`);
    ``kind`` defaults from the species key (:func:`species_kind`). Raises :class:`CharacterError`."""
    key = species.strip().lower()
    return Character(name=name, species=key, kind=kind or species_kind(key), profile=species_profile(key, tables, presets))


def primary_alien(tables: Mapping[str, RangeTable], dice: Dice, value: int | None = None) -> tuple[str, TableRoll]:
    """Roll the new Primary Alien table (p.16, D100): species key and the roll. ``value`` is
    the player's D100 (1-100). Raises :class:`rules.engine.tables.TableError` for a bad value."""
    result = _table(tables, "primary-alien").roll_or_enter(dice, value=value, reason="Primary Alien")
    return str(result.entry.data["species"]), result


def _species_rows(tables: Mapping[str, RangeTable], species: str) -> list[Entry]:
    slug = f"{species}-profile"
    return _table(tables, slug).rows() if slug in tables else []


def can_dash(character: Character, tables: Mapping[str, RangeTable] | None = None) -> bool:
    """Whether the figure may take a Dash move: never for Krag (p.12). With ``tables``, any
    species table row with ``can_dash`` false decides it."""
    if tables is not None:
        rows = _species_rows(tables, character.species)
        if rows:
            return all(entry.data.get("can_dash", True) for entry in rows)
    return character.species != KRAG


def creation_contacts(
    species: str, patrons: int, rivals: int, tables: Mapping[str, RangeTable]
) -> tuple[int, int, tuple[str, ...]]:
    """Patrons and Rivals a new character brings after the species rules (pp.12, 14).

    ``patrons`` and ``rivals`` are the counts the core creation tables gave. A Krag with at
    least one Patron adds the ``extra_rivals`` of krag-profile (1, however many Patrons); a
    Skulker drops the first Rival rolled (``ignored_rivals``). Returns (patrons, rivals, notes).
    Raises :class:`CharacterError` for a negative count.
    """
    for name, value in (("patrons", patrons), ("rivals", rivals)):
        if value < 0:
            raise CharacterError(f"{name} must be 0 or more; got {value}.", field=name)
    notes: list[str] = []
    for entry in _species_rows(tables, species.lower()):
        if entry.data.get("kind") != "creation":
            continue
        extra = int(entry.data.get("extra_rivals", 0))
        if extra and patrons >= 1:
            rivals += extra
            notes.append(f"Krag with a Patron: +{extra} Rival (p.12).")
        ignored = int(entry.data.get("ignored_rivals", 0))
        if ignored and rivals:
            dropped = min(ignored, rivals)
            rivals -= dropped
            notes.append(f"Skulker: first Rival rolled at creation ignored (p.14); {dropped} dropped.")
    return patrons, rivals, tuple(notes)


def creation_credits(
    options: CampaignOptions,
    species: str,
    dice: Dice,
    count: int,
    faces: Sequence[int] | None = None,
) -> tuple[int, tuple[RollRecord, ...]]:
    """Roll ``count`` "1D6 credits" results from the core creation tables for one character.

    A Skulker rolls 1D3 each (p.14); Money is Tight takes 1 off, never below 1 (p.32); see
    :func:`campaigns.engine.credits.credits_roll`. ``faces`` gives one physical die per result.
    Returns (total credits, records). Raises :class:`CharacterError` for a bad count or number
    of faces and :class:`rules.engine.dice.DiceError` for an impossible face.
    """
    if count < 0:
        raise CharacterError(f"count must be 0 or more; got {count}.", field="count")
    if faces is not None and len(faces) != count:
        raise CharacterError(f"faces needs one die per credits result ({count}); got {len(faces)}.", field="faces")
    records = tuple(
        credits_roll(
            options,
            dice,
            reason=f"Creation credits {i + 1} of {count}",
            species=species.lower(),
            creation=True,
            faces=None if faces is None else faces[i],
        )
        for i in range(count)
    )
    return sum(r.total or 0 for r in records), records


class CrewMember(Protocol):
    """What :func:`fight_candidate` reads: ``CrewView`` has it."""

    @property
    def id(self) -> str: ...
    @property
    def species(self) -> str: ...
    @property
    def status(self) -> str: ...


@dataclass(frozen=True)
class FightPick:
    """Who got into the fight (p.12). ``story_points_bypass`` is False when a Krag was picked:
    Story Points cannot avoid or reroll it."""

    id: str
    krag: bool
    story_points_bypass: bool
    roll: RollRecord | None


def fight_candidate(crew: Sequence[CrewMember], dice: Dice, *, face: int | None = None) -> FightPick:
    """Pick who is in a crew quarrel event (a random crew member starts a fight or a row).

    Among ``active`` crew, a Krag is always picked if present (random among Krag), else anyone
    at random (p.12). ``face`` is the player's pick, 1..N over the candidate list in order.
    Raises :class:`CharacterError` when nobody is active.
    """
    active = [c for c in crew if c.status == "active"]
    krag = [c for c in active if c.species == KRAG]
    pool = krag or active
    if not pool:
        raise CharacterError("No active crew member can be picked; status must be active.", field="crew")
    index, record = pick_one(dice, len(pool), "Krag in the fight" if krag else "Crew member in the fight", face=face)
    return FightPick(id=pool[index].id, krag=bool(krag), story_points_bypass=not krag, roll=record)


def krag_armor_refit_cost(tables: Mapping[str, RangeTable]) -> int:
    """Credits to make armor fit a Krag, or undo it, in Purchase Items (p.12)."""
    for entry in _table(tables, "krag-profile").rows():
        if entry.data.get("kind") == "campaign" and "credits" in entry.data:
            return int(entry.data["credits"])
    raise CharacterError("Table krag-profile has no Krag-armor row with credits.", field="tables")


def armor_fits(character: Character, krag_armor: bool) -> bool:
    """Whether a suit of armor fits: Krag wear only Krag-armor, Skulkers and Engineers wear
    both, everyone else only non-Krag armor (p.12)."""
    if character.species in (SKULKER, ENGINEER):
        return True
    return krag_armor if character.species == KRAG else not krag_armor


# -- hazards (pp.14-15, p.25) ------------------------------------------------------------------


@dataclass(frozen=True)
class HazardCheck:
    """One defensive roll. ``rule`` is ``skulker_resistance`` or ``survival_course``;
    ``applies`` False means no roll (``roll`` None). ``success``: the effect is shrugged off."""

    rule: str
    applies: bool
    success: bool
    roll: RollRecord | None
    note: str


def hazard_rolls(character: Character, kind: str, *, drug: str | None = None) -> tuple[str, ...]:
    """Which defensive rolls apply to ``kind`` of threat (one of :data:`HAZARD_KINDS`).

    - ``skulker_resistance`` (p.15): Skulkers, for ``bio_hazard`` (poison, toxin, virus, gas)
      and for ``drug`` other than Stim-packs.
    - ``survival_course`` (p.25): anyone with the Survival course, for ``trap``, ``hazard``,
      ``environment`` and ``bio_hazard``; on top of any other defense.
    Raises :class:`CharacterError` for an unknown kind.
    """
    if kind not in HAZARD_KINDS:
        raise CharacterError(f"kind must be one of {', '.join(HAZARD_KINDS)}; got {kind!r}.", field="kind")
    rolls: list[str] = []
    if character.species == SKULKER and (kind == "bio_hazard" or (kind == "drug" and not _stim(drug or ""))):
        rolls.append("skulker_resistance")
    if kind != "drug" and _has_training(character, SURVIVAL_COURSE):
        rolls.append("survival_course")
    return tuple(rolls)


def _stim(drug: str) -> bool:
    return _key(drug) == _key("Stim-pack")


def _has_training(character: Character, course: str) -> bool:
    return any(_key(t) == _key(course) for t in character.training)


def resist_hazard(
    character: Character,
    tables: Mapping[str, RangeTable],
    dice: Dice,
    faces: int | None = None,
    drug: str | None = None,
) -> HazardCheck:
    """Skulker biological resistance (p.15): D6, ``target`` (3)+ shrugs off a bio-hazard, or
    with ``drug`` any drug but Stim-packs (the drug then does nothing). Roll again each round or
    exposure. Non-Skulkers and Stim-packs get no roll. For traps and environmental threats see
    :func:`survival_check`, a separate roll. Raises :class:`rules.engine.dice.DiceError`."""
    rule = "skulker_resistance"
    if character.species != SKULKER:
        return HazardCheck(rule, False, False, None, "Only Skulkers have this roll.")
    if drug is not None and _stim(drug):
        return HazardCheck(rule, False, False, None, "Stim-packs work normally on Skulkers.")
    wanted = "drugs" if drug is not None else None
    for entry in _species_rows(tables, SKULKER):
        data = entry.data
        if "roll" in data and ("drugs" in data) == (wanted == "drugs"):
            record = dice.roll_or_enter(str(data["roll"]), f"Skulker resists {drug or 'bio-hazard'}", faces=faces, modifier=0)
            success = (record.total or 0) >= int(data["target"])
            what = f"{drug} has no effect" if drug is not None else "bio-hazard shrugged off"
            return HazardCheck(rule, True, success, record, what if success else "No resistance this time.")
    raise CharacterError("Table skulker-profile has no resistance row.", field="tables")


def survival_check(character: Character, tables: Mapping[str, RangeTable], dice: Dice, faces: int | None = None) -> HazardCheck:
    """Survival course (p.25): D6, ``target`` (4)+ avoids damage from a trap, hazard or
    environmental threat, as an extra roll on top of other defenses (a Skulker resisting a
    bio-hazard may make both). Characters without the course get no roll."""
    rule = "survival_course"
    if not _has_training(character, SURVIVAL_COURSE):
        return HazardCheck(rule, False, False, None, "Only characters with the Survival course have this roll.")
    data = _row(_table(tables, TRAINING_TABLE), SURVIVAL_COURSE, field_name="course").data
    record = dice.roll_or_enter(str(data["roll"]), "Survival course", faces=faces)
    success = (record.total or 0) >= int(data["target"])
    return HazardCheck(rule, True, success, record, "Damage avoided." if success else "No escape this time.")


# -- advancement (core upgrade table / p.32) --------------------------------------------------


def upgrade_costs(options: CampaignOptions, tables: Mapping[str, RangeTable], core_costs: RangeTable | None) -> RangeTable:
    """The upgrade table in force: Slower Progression's (p.32) when that toggle is on, else
    the player's core upgrade table (slot ``advancement_costs``). Raises
    :class:`CharacterError` (field ``advancement_costs``) when neither is there."""
    if options.has("slower_progression"):
        slug = SLOWER_PROGRESSION_TABLE
        if "difficulty-toggles" in tables:
            for entry in tables["difficulty-toggles"].rows():
                if entry.data.get("toggle") == "slower_progression":
                    slug = str(entry.data.get("upgrade_table", slug))
        return _table(tables, slug)
    if core_costs is None:
        raise CharacterError(
            "No upgrade costs: add your core rulebook upgrade table (one row per stat with stat, xp and maximum) "
            "to the 'Character upgrade costs' slot, or switch on Slower Progression.",
            field="advancement_costs",
        )
    return core_costs


def upgrade_cost(costs: RangeTable, stat: str) -> tuple[int, int]:
    """(XP cost, maximum) of raising ``stat`` by one in ``costs``. Raises :class:`CharacterError`."""
    _check_stat(stat)
    listed = []
    for entry in costs.rows():
        listed.append(str(entry.data.get("stat")))
        if entry.data.get("stat") == stat:
            return int(entry.data["xp"]), int(entry.data["maximum"])
    raise CharacterError(f"stat must be one of {', '.join(listed)} in {costs.title}; got {stat!r}.", field="stat")


def advance(character: Character, stat: str, costs: RangeTable) -> Character:
    """Spend XP to raise ``stat`` by 1 (Speed by 1") using ``costs`` (see :func:`upgrade_costs`).

    Raises :class:`CharacterError` when XP is short, the stat is at its maximum, or a Psionic
    tries to raise Combat Skill (p.18).
    """
    _alive(character)
    xp, maximum = upgrade_cost(costs, stat)
    if stat == "combat_skill" and character.psionic:
        raise CharacterError(
            "A Psionic cannot raise Combat Skill with XP (p.18); stat must be one of "
            + ", ".join(s for s in STATS if s != "combat_skill")
            + ".",
            field="stat",
        )
    current = character.profile.get(stat)
    if current >= maximum:
        raise CharacterError(f"{stat} is already at its maximum of {maximum}.", field="stat")
    if character.xp < xp:
        raise CharacterError(f"Raising {stat} costs {xp} XP; {character.name} has {character.xp}.", field="xp")
    return replace(character, xp=character.xp - xp, profile=character.profile.with_stat(stat, current + 1))


def mark_profile_rolled(character: Character) -> Character:
    """Record that the creation tables have been applied to the profile (see p.17)."""
    return replace(character, profile_rolled=True)


# -- training (p.25) --------------------------------------------------------------------------


@dataclass(frozen=True)
class TrainingCost:
    """Price of an Advanced Training course in credits: ``course_credits`` plus the
    application ``fee``; ``availability_roll`` says whether the core availability roll is due."""

    course: str
    course_credits: int
    fee: int
    total: int
    availability_roll: bool


def training_cost(
    course: str,
    tables: Mapping[str, RangeTable],
    crew_training: Iterable[str],
    *,
    credits: int | None = None,
) -> TrainingCost:
    """What a course costs (p.25). Compendium courses read their credits from
    ``compendium-advanced-training``; a core course needs ``credits`` (the price the player
    enters). The core application fee (the Instructor row's ``fee_waived_credits``, 1) and the
    availability roll are skipped when anyone in the crew has Instructor (``crew_training``:
    every course anyone in the crew holds). Raises :class:`CharacterError` for an unknown
    Compendium course without ``credits`` or a negative price.
    """
    table = _table(tables, TRAINING_TABLE)
    instructor = _row(table, INSTRUCTOR, field_name="course").data
    compendium = {e.result.lower(): e for e in table.rows()}
    entry = compendium.get(course.strip().lower())
    if entry is not None:
        price = int(entry.data["credits"])
        name = entry.result
    elif credits is not None:
        price, name = credits, course.strip()
        if not name:
            raise CharacterError("course needs a name.", field="course")
    else:
        names = ", ".join(e.result for e in table.rows())
        raise CharacterError(
            f"course must be one of {names}, or a core course with its credits entered; got {course!r}.", field="course"
        )
    if price < 0:
        raise CharacterError(f"credits must be 0 or more; got {price}.", field="credits")
    has_instructor = any(_key(t) == _key(INSTRUCTOR) for t in crew_training)
    fee = 0 if has_instructor else int(instructor["fee_waived_credits"])
    skip_roll = has_instructor and bool(instructor.get("skip_availability_roll"))
    return TrainingCost(course=name, course_credits=price, fee=fee, total=price + fee, availability_roll=not skip_roll)


def training_add(character: Character, course: str) -> Character:
    """Add a course the character has bought (p.25). Raises :class:`CharacterError` if it is
    already held, the name is empty or the character is dead or gone."""
    _alive(character)
    name = course.strip()
    if not name or len(name) > NAME_LIMIT:
        raise CharacterError(f"course must be 1 to {NAME_LIMIT} characters; got {course!r}.", field="course")
    if _has_training(character, name):
        raise CharacterError(f"{character.name} already has {name}.", field="course")
    return replace(character, training=(*character.training, name))


def crew_action_bonus(character: Character, action: str, tables: Mapping[str, RangeTable]) -> int:
    """Roll bonus from the Fixer course (p.25): +``roll_bonus`` (1) to the crew actions it
    lists (Find a Patron, Recruit, Track); 0 otherwise."""
    if not _has_training(character, FIXER):
        return 0
    data = _row(_table(tables, TRAINING_TABLE), FIXER, field_name="course").data
    actions = {_key(a) for a in data.get("crew_actions", ())}
    return int(data.get("roll_bonus", 0)) if _key(action) in actions else 0


# -- Bot upgrades (p.26) ----------------------------------------------------------------------


def bot_upgrade_price(
    upgrade: str,
    tables: Mapping[str, RangeTable],
    *,
    shots: int | None = None,
    damage: int | None = None,
    cost_reduction: int = 0,
) -> int:
    """Credits for one Bot upgrade (p.26). The built-in weapon costs ``credits_per_shot`` (3)
    per Shot plus ``credits_per_damage`` (1) per Damage point of the weapon; ``cost_reduction``
    is what the Bot technician training takes off (never below 0). Raises :class:`CharacterError`."""
    entry = _row(_table(tables, BOT_UPGRADES_TABLE), upgrade, field_name="upgrade")
    data = entry.data
    if data.get("credits") is None:
        if shots is None or damage is None:
            raise CharacterError(
                f"{entry.result} needs the weapon's shots and damage.", field="shots" if shots is None else "damage"
            )
        if shots < 0 or damage < 0:
            raise CharacterError(f"shots and damage must be 0 or more; got {shots} and {damage}.", field="shots")
        price = shots * int(data["credits_per_shot"]) + damage * int(data["credits_per_damage"])
    else:
        price = int(data["credits"])
    if cost_reduction < 0:
        raise CharacterError(f"cost_reduction must be 0 or more; got {cost_reduction}.", field="cost_reduction")
    return max(0, price - cost_reduction)


def bot_upgrade(
    character: Character,
    upgrade: str,
    tables: Mapping[str, RangeTable],
    turn: int,
    shots: int | None = None,
    damage: int | None = None,
    cost_reduction: int = 0,
) -> tuple[Character, int]:
    """Install a Bot upgrade in Purchase Items (p.26): (new character, credits to pay).

    Bots only (not Soulless); one install per campaign ``turn``; one of each upgrade. Raises
    :class:`CharacterError` naming the field when any of these fails.
    """
    _alive(character)
    if character.kind != "bot":
        why = "Soulless cannot use Bot upgrades" if character.kind == "soulless" else "only Bots take Bot upgrades"
        raise CharacterError(f"{why} (p.26); kind must be bot, got {character.kind!r}.", field="kind")
    entry = _row(_table(tables, BOT_UPGRADES_TABLE), upgrade, field_name="upgrade")
    if entry.result in character.bot_upgrades:
        raise CharacterError(f"{character.name} already has {entry.result}; one of each upgrade.", field="upgrade")
    if character.bot_upgrade_turn is not None and character.bot_upgrade_turn == turn:
        raise CharacterError(
            f"{character.name} already had an upgrade installed in turn {turn}; one per campaign turn.", field="turn"
        )
    credits = bot_upgrade_price(entry.result, tables, shots=shots, damage=damage, cost_reduction=cost_reduction)
    return replace(character, bot_upgrades=(*character.bot_upgrades, entry.result), bot_upgrade_turn=turn), credits


def revert_built_in_weapon(character: Character, tables: Mapping[str, RangeTable]) -> tuple[Character, int]:
    """Take a built-in weapon back out for normal use (p.26): (new character, ``revert_credits``)."""
    entry = _row(_table(tables, BOT_UPGRADES_TABLE), BUILT_IN_WEAPON, field_name="upgrade")
    if entry.result not in character.bot_upgrades:
        raise CharacterError(f"{character.name} has no {entry.result}.", field="upgrade")
    remaining = tuple(u for u in character.bot_upgrades if u != entry.result)
    return replace(character, bot_upgrades=remaining), int(entry.data["revert_credits"])


def character_killed(character: Character) -> Character:
    """Mark the character dead. A Bot's upgrades go with it and cannot move to another Bot (p.26)."""
    return replace(character, status="dead", sick_bay=0, bot_upgrades=(), bot_upgrade_turn=None)


# -- injuries and sick bay (core; p.101) ------------------------------------------------------


def injury_apply(character: Character, name: str, sick_bay_turns: int) -> Character:
    """Record an injury: ``name`` (a lasting injury, or ``""`` for none) and campaign turns in
    Sick Bay. Turns do not add up: the longer stay wins (injuries heal side by side). With
    turns above 0 the status becomes ``sick_bay``. Raises :class:`CharacterError`."""
    _alive(character)
    if sick_bay_turns < 0:
        raise CharacterError(f"sick_bay_turns must be 0 or more; got {sick_bay_turns}.", field="sick_bay_turns")
    injuries = (*character.injuries, name.strip()) if name.strip() else character.injuries
    turns = max(character.sick_bay, sick_bay_turns)
    status = "sick_bay" if turns > 0 or _awaiting_treatment(injuries) else character.status
    return replace(character, injuries=injuries, sick_bay=turns, status=status)


def _awaiting_treatment(injuries: Iterable[str]) -> bool:
    return EXTENSIVE_INJURY in injuries


def injury_treat(character: Character, name: str, sick_bay_turns: int | None = None) -> Character:
    """Remove one lasting injury once paid for (p.101). Paying for an Extensive injury starts
    its Sick Bay time: give ``sick_bay_turns`` (the cost rolled). Raises :class:`CharacterError`."""
    if name not in character.injuries:
        listed = ", ".join(character.injuries) or "none"
        raise CharacterError(f"name must be one of {character.name}'s injuries ({listed}); got {name!r}.", field="name")
    index = character.injuries.index(name)
    injuries = character.injuries[:index] + character.injuries[index + 1 :]
    turns = character.sick_bay
    if name == EXTENSIVE_INJURY:
        if sick_bay_turns is None or sick_bay_turns < 0:
            raise CharacterError(
                "Treating an Extensive injury needs sick_bay_turns (the cost rolled, 0 or more).", field="sick_bay_turns"
            )
        turns = max(turns, sick_bay_turns)
    status = character.status
    if character.status == "sick_bay" and turns == 0 and not _awaiting_treatment(injuries):
        status = "active"
    return replace(character, injuries=injuries, sick_bay=turns, status=status)


def sick_bay_tick(character: Character) -> Character:
    """One campaign turn passes: one turn less in Sick Bay; back to ``active`` at 0 unless an
    Extensive injury still waits for treatment. Dead or gone characters are unchanged."""
    if not character.alive:
        return character
    turns = max(0, character.sick_bay - 1)
    status = character.status
    if status == "sick_bay" and turns == 0 and not _awaiting_treatment(character.injuries):
        status = "active"
    return replace(character, sick_bay=turns, status=status)


@dataclass(frozen=True)
class DetailedInjury:
    """The outcome of one roll on the Detailed Post-Battle Injuries table (p.101).

    - ``result``: the table row's name; ``roll``: the D100 roll; ``rolls``: every record made.
    - ``pending``: a question still open (``"armor"`` for a Critical strike when the caller did
      not say whether the character wears Armor); nothing else is settled while it is set.
    - ``dead``; ``armor_damaged``.
    - ``sick_bay_turns`` (campaign turns; ``None`` when dead); ``treatment_first``: the stay
      starts only once ``treatment_credits`` are paid (Extensive injury).
    - ``treatment_credits``: credits to remove the lasting penalty or get treated (0 if none).
    - ``lasting``: the injury name to note on the sheet (``""`` if none); ``penalties``: its
      profile effects from the table data.
    - ``xp``: XP gained. ``item`` / ``item_result``: the carried item hit and ``Damaged`` or
      ``Destroyed`` (``None`` when no item or none carried).
    - ``follow_ups``: slugs of tables to roll later (``detailed-injuries-lingering`` before each
      mission, ``detailed-injuries-medical-facilities`` when paying for treatment).
    """

    result: str
    roll: TableRoll
    rolls: tuple[RollRecord, ...]
    pending: str | None = None
    dead: bool = False
    armor_damaged: bool = False
    sick_bay_turns: int | None = 0
    treatment_first: bool = False
    treatment_credits: int = 0
    lasting: str = ""
    penalties: Mapping[str, int] = field(default_factory=dict)
    xp: int = 0
    item: str | None = None
    item_result: str | None = None
    follow_ups: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


_PENALTY_KEYS = ("combat_skill", "speed", "stun_markers_to_knock_out")


def _notation(value: Any) -> str:
    return str(value).replace(" ", "")


def detailed_injury(
    tables: Mapping[str, RangeTable],
    dice: Dice,
    character: Character,
    value: int | None = None,
    *,
    armor: bool | None = None,
    sick_bay_faces: Sequence[int] | None = None,
    cost_faces: Sequence[int] | None = None,
    item_face: int | None = None,
    item_value: int | None = None,
) -> DetailedInjury:
    """Roll the Compendium's Detailed Post-Battle Injuries table (p.101) for an organic
    character and work out what it means from the row's data.

    ``value`` is the player's D100. ``armor`` answers a Critical strike (wearing Armor?).
    ``sick_bay_faces`` / ``cost_faces`` are physical dice for the Sick Bay and treatment-cost
    rolls; ``item_face`` picks the carried item (1..N over ``equipment``), ``item_value`` is the
    D6 on the item-hit table. Raises :class:`CharacterError` for Bots and Soulless (they keep
    the core Bot Injury table) and dice or table errors for impossible faces.
    """
    if character.kind != "biological":
        raise CharacterError(
            f"Detailed injuries are for organic characters; kind must be biological, got {character.kind!r} "
            "(use the core Bot Injury table).",
            field="kind",
        )
    table_roll = _table(tables, INJURY_TABLE).roll_or_enter(dice, value=value, reason=f"Injury: {character.name}")
    entry = table_roll.entry
    data = entry.data
    rolls: list[RollRecord] = [table_roll.record]
    notes: list[str] = []
    follow_ups: list[str] = []

    def roll(notation: Any, reason: str, faces: Sequence[int] | None) -> int:
        record = dice.roll_or_enter(_notation(notation), reason, faces=faces)
        rolls.append(record)
        return record.total or 0

    def base(**kwargs: Any) -> DetailedInjury:
        return DetailedInjury(
            result=entry.result, roll=table_roll, rolls=tuple(rolls), notes=tuple(notes), follow_ups=tuple(follow_ups), **kwargs
        )

    if entry.result == CRITICAL_STRIKE:
        if armor is None:
            notes.append("Is the character wearing Armor? Answer with armor=True or False and the same roll.")
            return base(pending="armor", sick_bay_turns=None)
        if not armor:
            notes.append("No Armor: the character is slain.")
            return base(dead=True, sick_bay_turns=None)
        notes.append("Armor took the blow and is damaged.")
    if data.get("dead"):
        lost = _item_hit(dice, character, rolls, item_face)
        return base(dead=True, sick_bay_turns=None, item=lost, item_result=None if lost is None else "Damaged")

    treatment = 0
    medical = data.get("medical_credits", 0)
    if isinstance(medical, str):
        treatment = roll(medical, "Treatment cost (credits)", cost_faces)
    elif medical:
        treatment = int(medical)
    if data.get("sick_bay_equals_cost"):
        turns: int | None = treatment
    elif data.get("sick_bay_turns") is None:
        turns = None
    else:
        turns = roll(data["sick_bay_turns"], "Sick Bay turns", sick_bay_faces)
    if treatment:
        follow_ups.append(MEDICAL_TABLE)

    item: str | None = None
    item_result: str | None = None
    if data.get("item_roll"):
        item = _item_hit(dice, character, rolls, item_face)
        if item is not None:
            hit = _table(tables, ITEM_HIT_TABLE).roll_or_enter(dice, value=item_value, reason=f"Item hit: {item}")
            rolls.append(hit.record)
            item_result = hit.entry.result
        else:
            notes.append("No carried item to hit.")

    penalties = {k: int(data[k]) for k in _PENALTY_KEYS if k in data}
    lasting = ""
    if penalties or data.get("sick_bay_equals_cost"):
        lasting = entry.result
    if data.get("mission_roll"):
        lasting = entry.result
        follow_ups.append(LINGERING_TABLE)
    return base(
        armor_damaged=entry.result == CRITICAL_STRIKE,
        sick_bay_turns=turns,
        treatment_first=bool(data.get("sick_bay_equals_cost")),
        treatment_credits=treatment,
        lasting=lasting,
        penalties=penalties,
        xp=int(data.get("xp", 0)),
        item=item,
        item_result=item_result,
    )


def _item_hit(dice: Dice, character: Character, rolls: list[RollRecord], face: int | None) -> str | None:
    """A random carried item (its roll goes into ``rolls``), or None when nothing is carried."""
    if not character.equipment:
        return None
    index, record = pick_one(dice, len(character.equipment), "Random carried item", face=face)
    if record is not None:
        rolls.append(record)
    return character.equipment[index]


DAMAGED_SUFFIX = " (damaged)"


def detailed_injury_apply(character: Character, outcome: DetailedInjury) -> Character:
    """Write a :class:`DetailedInjury` onto the character: death, Sick Bay (an Extensive
    injury waits for treatment, see :func:`injury_treat`), the lasting injury, XP and the item
    hit (destroyed items leave ``equipment``; damaged ones get `` (damaged)`` added).
    Raises :class:`CharacterError` while ``outcome.pending`` is set."""
    if outcome.pending:
        raise CharacterError(f"The injury roll still needs an answer: {outcome.pending}.", field=outcome.pending)
    updated = character
    if outcome.item is not None and outcome.item in updated.equipment:
        index = updated.equipment.index(outcome.item)
        kit = list(updated.equipment)
        if outcome.item_result == "Destroyed":
            del kit[index]
        elif outcome.item_result == "Damaged" and not outcome.item.endswith(DAMAGED_SUFFIX):
            kit[index] = outcome.item + DAMAGED_SUFFIX
        updated = replace(updated, equipment=tuple(kit))
    if outcome.dead:
        return character_killed(updated)
    updated = replace(updated, xp=updated.xp + outcome.xp)
    turns = 0 if outcome.treatment_first else outcome.sick_bay_turns or 0
    return injury_apply(updated, outcome.lasting, turns)


def injury_penalties(character: Character, tables: Mapping[str, RangeTable]) -> dict[str, int]:
    """Summed profile effects of the character's untreated detailed injuries (p.101), e.g.
    ``{"speed": -1}`` for an Injured leg. ``stun_markers_to_knock_out`` is the lowest given."""
    rows = {e.result: e.data for e in _table(tables, INJURY_TABLE).rows()}
    total: dict[str, int] = {}
    for name in character.injuries:
        for key in _PENALTY_KEYS:
            if key in rows.get(name, {}):
                amount = int(rows[name][key])
                if key == "stun_markers_to_knock_out":
                    total[key] = min(total.get(key, amount), amount)
                else:
                    total[key] = total.get(key, 0) + amount
    return total


def lingering_check(
    character: Character, tables: Mapping[str, RangeTable], dice: Dice, values: Sequence[int] | None = None
) -> tuple[Character, tuple[TableRoll, ...], bool]:
    """Before a mission, roll D6 for each Lingering injury (p.101): (character, rolls, sits out).
    A 1 keeps the character out of this battle; a 6 cures that injury. ``values`` gives one
    physical D6 per Lingering injury. Raises :class:`CharacterError` for the wrong count."""
    count = character.injuries.count(LINGERING_INJURY)
    if values is not None and len(values) != count:
        raise CharacterError(f"values needs one D6 per Lingering injury ({count}); got {len(values)}.", field="values")
    table = _table(tables, LINGERING_TABLE)
    results: list[TableRoll] = []
    sits_out = False
    injuries = list(character.injuries)
    for i in range(count):
        result = table.roll_or_enter(dice, value=None if values is None else values[i], reason=f"Lingering injury {i + 1}")
        results.append(result)
        if result.entry.low == table.span[0]:
            sits_out = True
        if result.entry.high == table.span[1]:
            injuries.remove(LINGERING_INJURY)
    return replace(character, injuries=tuple(injuries)), tuple(results), sits_out


def medical_facilities(tables: Mapping[str, RangeTable], dice: Dice, value: int | None = None) -> TableRoll:
    """Roll D6 for medical facilities on the current world when paying for treatment (p.101).
    The entry's data says whether facilities exist, or the Savvy test and extra credits needed."""
    return _table(tables, MEDICAL_TABLE).roll_or_enter(dice, value=value, reason="Medical facilities")


# -- implants and kit (pp.17-18, p.27) -------------------------------------------------------------


def implant_add(character: Character, implant: str) -> Character:
    """Give the character an implant. A Psionic loses all powers for good (p.18):
    ``psionic`` False, ``powers`` emptied, ``psionics_lost`` True even if the implant is later
    removed. Raises :class:`CharacterError` for an empty name or a dead character."""
    _alive(character)
    name = implant.strip()
    if not name or len(name) > NAME_LIMIT:
        raise CharacterError(f"implant must be 1 to {NAME_LIMIT} characters; got {implant!r}.", field="implant")
    updated = replace(character, implants=(*character.implants, name))
    if character.psionic or character.powers:
        updated = replace(updated, psionic=False, powers={}, psionics_lost=True)
    return updated


def implant_remove(character: Character, implant: str) -> Character:
    """Remove one implant; lost psionics stay lost (p.18). Raises :class:`CharacterError`."""
    if implant not in character.implants:
        listed = ", ".join(character.implants) or "none"
        raise CharacterError(f"implant must be one of {listed}; got {implant!r}.", field="implant")
    index = character.implants.index(implant)
    return replace(character, implants=character.implants[:index] + character.implants[index + 1 :])


def weapon_traits(tables: Mapping[str, RangeTable], weapon: str) -> tuple[str, ...]:
    """Traits of a Dramatic Weapons profile (pp.88-89). Raises :class:`CharacterError`."""
    return tuple(_row(_table(tables, WEAPONS_TABLE), weapon, field_name="weapon").data.get("traits", ()))


def weapon_allowed(character: Character, traits: Iterable[str], tables: Mapping[str, RangeTable] | None = None) -> bool:
    """Whether the character may use a weapon with ``traits``: a Psionic only with Pistol or
    Melee (p.18; read from psionic-limitations when ``tables`` has it); anyone else always."""
    if not character.psionic:
        return True
    allowed: Iterable[str] = PSIONIC_WEAPON_TRAITS
    if tables is not None and "psionic-limitations" in tables:
        for entry in tables["psionic-limitations"].rows():
            if "allowed_weapon_traits" in entry.data:
                allowed = entry.data["allowed_weapon_traits"]
    wanted = {_key(t) for t in allowed}
    return any(_key(t) in wanted for t in traits)


def equip(
    character: Character,
    item: str,
    traits: Sequence[str] | None = None,
    tables: Mapping[str, RangeTable] | None = None,
) -> Character:
    """Add an item to the character's kit. ``traits`` are a weapon's traits (an empty list is
    a weapon without traits); ``None`` means the item is not a weapon. A Psionic may only take
    Pistol or Melee weapons (p.18). Raises :class:`CharacterError`."""
    _alive(character)
    name = item.strip()
    if not name or len(name) > NAME_LIMIT:
        raise CharacterError(f"item must be 1 to {NAME_LIMIT} characters; got {item!r}.", field="item")
    if traits is not None and not weapon_allowed(character, traits, tables):
        raise CharacterError(
            f"A Psionic may only use weapons with the Pistol or Melee trait; {name} has {', '.join(traits) or 'no traits'}.",
            field="item",
        )
    return replace(character, equipment=(*character.equipment, name))


def unequip(character: Character, item: str) -> Character:
    """Remove one item from the kit. Raises :class:`CharacterError` if it is not carried."""
    if item not in character.equipment:
        listed = ", ".join(character.equipment) or "nothing"
        raise CharacterError(f"item must be one of {listed}; got {item!r}.", field="item")
    index = character.equipment.index(item)
    return replace(character, equipment=character.equipment[:index] + character.equipment[index + 1 :])
