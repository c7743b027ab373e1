"""Five Parsecs enemy generation: elite-level enemies (Compendium pp.48-65), enemy Psionics
(pp.22-24) and the difficulty rules that change the opposition (pp.30-33).

What is here:

- :func:`roll_elite_enemy` builds an elite force: the category (given, or rolled on the user's
  core category table), the D100 type roll on the category's elite table (or a profile typed by
  hand with :func:`custom_enemy`), the numbers against the crew fielded, the squad composition
  by size (p.49), each rank's weapons and upgrades, weapon swaps and extra kit from the type's
  rules (pp.51-59), the Unique Individual check (p.49) and type roll (pp.62-65), leadership and
  the Panic range (p.49), Criminal Elements bounty pay rolled at set-up (p.50), the difficulty
  toggles of pp.32-33 and progressive difficulty option 1's Strength rows (p.30).
- :func:`core_enemy` builds a standard (not elite) force from a core-rulebook profile the user
  supplies (typed by hand or rolled on the user's own table with :func:`core_profile`); the
  core composition counts are inputs, and the same toggles apply.
- :func:`enemy_psionics` runs the four enemy Psionic steps (pp.22-23) on a force.
- :func:`elite_rewards` works out the elite post-battle extras (p.50) and the type rules that pay
  out after the battle (bounty, extra Loot or Battlefield Finds, Intrigue, Rivals).
- :func:`elite_rival_follows` rolls for Elite Rivals when the crew travels (p.49).

The core rulebook is not in our source. What it decides comes in as an input, never as a
number of ours:

- the enemy category roll: ``category=`` or ``core["enemy-category"]`` (a RangeTable, optional
  columns by mission kind; a row's ``data["category"]`` or its result names the category);
- the numbers roll: ``base_numbers=`` (what the player's core roll gave), ``core["enemy-numbers"]``
  (optional columns ``"4"``/``"5"``/``"6"`` by crew size; a row's ``data["enemies"]`` or the rolled
  value is the count) or the Strength-adjusted Enemies toggle; otherwise :class:`EnemyError`;
- the weapon roll for codes such as ``2B``: ``weapons={"basic": ..., "specialist": ...}`` or
  ``core["enemy-weapons"]`` (optional columns named by code; ``data["basic"]``/``data["specialist"]``,
  the result being the basic weapon). Without either the figures carry placeholders
  ("Basic weapon (2B)") and a line says to roll them on the core tables.

Dice: ``faces`` are the player's physical faces in the order the rules ask for them (one number
per die; a D100 is one number). When they run out the app rolls; faces left over raise
:class:`EnemyError` (field ``faces``). A random pick among N figures is one die: the smallest of
D3, D6, D10, D12, D20, D100 that N divides, otherwise the smallest die with N or more faces,
rerolling faces above N.

Rulings (where the book leaves room):

- Ruling: progressive difficulty Strength figures (p.30) are added after the elite composition
  row is chosen, as figures of the rank the row names, so they do not turn a basic into a Captain.
- Ruling: "you outnumber them" compares the crew fielded with the enemy figures before any
  Unique Individual joins.
- Ruling: Better Leadership sets the Unique Individual target to its 7+; elite enemies are already
  at 7+, so only its second bullet (a random figure +2 Combat Skill and Toughness, capped) changes
  elite forces that cannot have a Unique Individual (Roving Threats outside Insanity).
- Ruling: Armored Leaders gives nothing to elite Lieutenants, who always hold a save already;
  it does apply to standard forces from :func:`core_enemy`.
- Ruling: Insanity is the core difficulty recorded in ``options.difficulty_mode`` (any case).
- Ruling: a weapon swap naming weapons applies to every weapon a figure holds before type kit is
  added (rank Blades included, so Gene Renegade and Roid-Ganger Lieutenants get a Ripper Sword);
  a swap of "any" weapon or "all normal weapons" changes the rolled weapon only. Counted swaps
  and counted kit go to basic enemies first, then specialists, Lieutenants and the Captain.
- Ruling: where a rule picks "random" basic enemies for kit before any figure differs, the
  figures are alike, so the first ones take it and no die is rolled.
- Ruling: a figure never carries two of the same weapon; repeats are dropped.
- Ruling: Sights go to ``gear``; every other added item (grenades, under-barrel guns) is a weapon.
- Ruling: Pistol-type weapons are those named in :data:`PISTOL_WEAPONS` (the trait lives in the
  core weapon table).
- Ruling: enemy figures have no Reactions score on their profiles; ``reactions`` is ``None``.
- Ruling: a Panic range printed as a dash (War Bots, Security Bots) is shown as ``"0"``: Fearless.
- Ruling: enemy Psionic step 3 covers the types in :data:`NO_PSIONIC_TYPES` (Hulkers, robots,
  cyborgs) and the whole Roving Threats list; step 2 covers :data:`PSIONIC_TYPES`. The Rogue
  Psionic keeps its own weapons and Toughness; the Hand Gun, Blade and Toughness rise apply to a
  figure chosen in steps 2 and 4.
- Ruling: Better Loot applies whenever the crew rolls for Loot after an elite battle, so it is
  always listed; type rules that add Loot or Battlefield Finds need Hold the Field.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from campaigns.engine.difficulty import TurnDifficulty, turn_difficulty
from campaigns.engine.options import CampaignOptions
from rules.engine.dice import ALLOWED_SIDES, Dice, DiceError, Keep, RollRecord, parse
from rules.engine.errors import RuleError
from rules.engine.tables import Entry, RangeTable, TableError, TableRoll

CATEGORY_TABLE = "elite-enemy-categories"
COMPOSITION_TABLE = "elite-squad-composition"
RANK_TABLE = "elite-rank-upgrades"
LEADERSHIP_TABLE = "elite-leadership"
PRESENCE_TABLE = "elite-unique-individual-presence"
UNIQUE_TABLE = "elite-unique-individuals"
SECRET_AGENT_TABLE = "elite-secret-agent-weapons"
GEAR_TABLE = "elite-additional-gear"
REPLACEMENT_TABLE = "elite-weapon-replacements"
REWARDS_TABLE = "elite-rewards"
BOUNTY_TABLE = "elite-criminal-bounty-pay"
RIVAL_FOLLOWS_TABLE = "elite-rival-follows"
PSIONIC_STEPS_TABLE = "enemy-psionic-determination"
PSIONIC_POWERS_TABLE = "enemy-psionic-powers"
TOGGLE_TABLE = "difficulty-toggles"
DRAMATIC_WEAPONS_TABLE = "dramatic-weapons"

#: Keys of the user's core-rulebook tables (see the module docstring).
CORE_CATEGORY = "enemy-category"
CORE_NUMBERS = "enemy-numbers"
CORE_WEAPONS = "enemy-weapons"

RANKS: tuple[str, ...] = ("basic", "specialist", "lieutenant", "captain", "unique")
SQUAD_RANKS: tuple[str, ...] = ("basic", "specialist", "lieutenant", "captain")
RANK_LABELS: Mapping[str, str] = {
    "basic": "Basic",
    "specialist": "Specialist",
    "lieutenant": "Lieutenant",
    "captain": "Captain",
    "unique": "Unique Individual",
}

#: Rows of ``elite-unique-individual-presence`` this module reads (p.49).
PRESENCE_ELITE_ROLL = "Elite enemy, you do not outnumber them"
PRESENCE_OUTNUMBERED = "Elite enemy, you outnumber them"
PRESENCE_STANDARD = "Standard roll"

#: Enemy Psionic kit and toughness rise (p.23); the determination table has them only as text.
PSIONIC_WEAPONS: tuple[str, ...] = ("Hand Gun", "Blade")
PSIONIC_TOUGHNESS_MAX = 4
PSIONIC_TOUGHNESS_BONUS = 1
ROGUE_PSIONIC = "Rogue Psionic"

#: Enemy Psionic step 2 (p.22): Swift and Precursor types.
PSIONIC_TYPES: frozenset[str] = frozenset({"Swift War Squad", "Precursor exiles"})
#: Enemy Psionic step 3 (p.22): Hulkers, robotic and cyborg types (ruling: the list below).
NO_PSIONIC_TYPES: frozenset[str] = frozenset({"Hulker Gang", "War Bots", "Security Bots", "Soulless Task Force", "Tech Zealots"})
NO_PSIONIC_CATEGORY = "Roving Threats"

#: Weapons counted as Pistol-type for the Raiders' Always prepared rule (ruling).
PISTOL_WEAPONS: frozenset[str] = frozenset(
    {
        "handgun",
        "holdoutpistol",
        "scrappistol",
        "machinepistol",
        "blastpistol",
        "beampistol",
        "clingfirepistol",
        "duelingpistol",
        "duellingpistol",
        "handcannon",
        "handlaser",
        "handflamer",
    }
)

_WEAPON_CODE = re.compile(r"^[1-3][A-C]$")
_NAME_ALIASES: Mapping[str, str] = {"duelingpistol": "duellingpistol"}
_ALL = 10**6


class EnemyError(RuleError):
    """An enemy request the rules cannot build; ``field`` names the input at fault."""


# -- data -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class EnemyProfile:
    """An enemy type's profile.

    ``numbers`` is the Numbers modifier (+3 is 3); ``panic`` the Panic range as printed ("1-2",
    "0" for Fearless); ``speed`` in inches; ``combat_skill`` the bonus (+1 is 1); ``weapons`` the
    core weapon code ("2B"), a natural weapon ("Claws"), a weapon name, or "-" for none;
    ``save`` the Armor Saving Throw target (5 is 5+) or ``None``; ``data`` the table row's data;
    ``source`` the book page or "typed by hand".
    """

    name: str
    category: str
    numbers: int
    panic: str
    speed: int
    combat_skill: int
    toughness: int
    ai: str = ""
    weapons: str = ""
    save: int | None = None
    special_rules: tuple[str, ...] = ()
    data: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "category": self.category,
            "numbers": self.numbers,
            "panic": self.panic,
            "speed": self.speed,
            "combat_skill": self.combat_skill,
            "toughness": self.toughness,
            "ai": self.ai,
            "weapons": self.weapons,
            "save": self.save,
            "special_rules": list(self.special_rules),
            "data": dict(self.data),
            "source": self.source,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EnemyProfile:
        """Inverse of :meth:`as_dict` (``data`` may be absent: an older stored profile)."""
        return cls(**{**data, "special_rules": tuple(data.get("special_rules") or ()), "data": dict(data.get("data") or {})})


@dataclass(frozen=True)
class EnemyFigure:
    """One enemy figure.

    ``rank`` is one of :data:`RANKS`; ``reactions`` is ``None`` (enemy profiles have none);
    ``speed`` in inches; ``combat_skill`` the bonus; ``save`` the Armor Saving Throw target or
    ``None``; ``weapons`` weapon names (spelled as the Dramatic Weapons table spells them when
    that table is given); ``gear`` other kit; ``psionic_powers`` enemy Psionic power names;
    ``luck`` (Unique Individuals); ``fearless``; ``notes`` short reminders.
    """

    name: str
    rank: str
    reactions: int | None
    speed: int
    combat_skill: int
    toughness: int
    save: int | None
    weapons: tuple[str, ...] = ()
    gear: tuple[str, ...] = ()
    psionic_powers: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    ai: str = ""
    luck: int = 0
    fearless: bool = False

    @property
    def is_psionic(self) -> bool:
        return bool(self.psionic_powers)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "rank": self.rank,
            "reactions": self.reactions,
            "speed": self.speed,
            "combat_skill": self.combat_skill,
            "toughness": self.toughness,
            "save": self.save,
            "weapons": list(self.weapons),
            "gear": list(self.gear),
            "psionic_powers": list(self.psionic_powers),
            "notes": list(self.notes),
            "ai": self.ai,
            "luck": self.luck,
            "fearless": self.fearless,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EnemyFigure:
        """Inverse of :meth:`as_dict`."""
        lists = ("weapons", "gear", "psionic_powers", "notes")
        return cls(**{**data, **{k: tuple(data.get(k) or ()) for k in lists}})


@dataclass(frozen=True)
class EnemyForce:
    """A generated opposing force.

    - ``category`` / ``type``: e.g. "Criminal Elements" / "Gangers"; ``elite``: elite tables used.
    - ``figures``: every figure, the Unique Individual (if any) last; ``unique_individual``: it.
    - ``panic``: the Panic range after leadership ("1-2"; "0" is Fearless); ``leadership``: why.
    - ``numbers``: figures from the numbers roll (before extras); ``seize_initiative_modifier``:
      the total modifier to the crew's Seize the Initiative roll (``None`` when the crew cannot
      seize it).
    - ``bounty_credits``: Criminal Elements bounty (credits paid on Hold the Field) or ``None``.
    - ``rewards``: what the elite rewards give, in words; ``special_rules``: the type's and
      category's rules, in words.
    - ``profile``, ``basic_weapon``, ``specialist_weapon``: what the figures were built from.
    - ``psionics_checked``: :func:`enemy_psionics` has run; ``rolls``: every roll made;
      ``lines``: a readable summary.
    """

    category: str
    type: str
    figures: tuple[EnemyFigure, ...]
    panic: str
    leadership: tuple[str, ...] = ()
    unique_individual: EnemyFigure | None = None
    rewards: tuple[str, ...] = ()
    rolls: tuple[RollRecord, ...] = ()
    lines: tuple[str, ...] = ()
    elite: bool = True
    numbers: int = 0
    seize_initiative_modifier: int | None = 0
    bounty_credits: int | None = None
    special_rules: tuple[str, ...] = ()
    profile: EnemyProfile | None = None
    basic_weapon: str = ""
    specialist_weapon: str = ""
    psionics_checked: bool = False

    def count(self, rank: str) -> int:
        """How many figures of ``rank`` (one of :data:`RANKS`)."""
        if rank not in RANKS:
            raise EnemyError(f"rank must be one of {', '.join(RANKS)}; got {rank!r}.", field="rank")
        return sum(1 for f in self.figures if f.rank == rank)

    def as_dict(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "type": self.type,
            "elite": self.elite,
            "figures": [f.as_dict() for f in self.figures],
            "panic": self.panic,
            "leadership": list(self.leadership),
            "unique_individual": self.unique_individual.as_dict() if self.unique_individual else None,
            "rewards": list(self.rewards),
            "numbers": self.numbers,
            "seize_initiative_modifier": self.seize_initiative_modifier,
            "bounty_credits": self.bounty_credits,
            "special_rules": list(self.special_rules),
            "profile": self.profile.as_dict() if self.profile else None,
            "basic_weapon": self.basic_weapon,
            "specialist_weapon": self.specialist_weapon,
            "psionics_checked": self.psionics_checked,
            "rolls": [r.as_dict() for r in self.rolls],
            "lines": list(self.lines),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EnemyForce:
        """Inverse of :meth:`as_dict`, for a force stored as JSON."""
        unique = data.get("unique_individual")
        profile = data.get("profile")
        return cls(
            **{
                **data,
                "figures": tuple(EnemyFigure.from_dict(f) for f in data.get("figures") or ()),
                "unique_individual": EnemyFigure.from_dict(unique) if unique else None,
                "profile": EnemyProfile.from_dict(profile) if profile else None,
                "rolls": tuple(RollRecord.from_dict(dict(r)) for r in data.get("rolls") or ()),
                **{k: tuple(data.get(k) or ()) for k in ("leadership", "rewards", "lines", "special_rules")},
            }
        )


@dataclass(frozen=True)
class EliteRewards:
    """Post-battle extras after an elite battle (p.50 and the type rules, pp.50-60).

    Credits are in credits; ``extra_loot_rolls``: Loot rolls beyond the usual (Better Loot's
    roll, after which one rolled item of the player's choice is dropped, plus type extras);
    ``loot_items``: extra Loot items; ``xp``: XP for one crew member of the player's choice;
    ``battlefield_finds_rolls``: extra Battlefield Finds rolls; ``quest_rumors``, ``rumors``;
    ``rival``: ``True`` (they become Rivals), ``False`` (they cannot), ``None`` (core rules
    decide); ``rival_hates_you``: a gang feud's double 1 (+1 numbers against them from now on);
    ``extra_rivals``: unnamed Rivals added.
    """

    credits: int = 0
    bounty_credits: int = 0
    danger_pay_credits: int = 0
    extra_loot_rolls: int = 0
    loot_items: int = 0
    xp: int = 0
    battlefield_finds_rolls: int = 0
    quest_rumors: int = 0
    rumors: int = 0
    rival: bool | None = None
    rival_hates_you: bool = False
    extra_rivals: int = 0
    rolls: tuple[RollRecord, ...] = ()
    lines: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "credits": self.credits,
            "bounty_credits": self.bounty_credits,
            "danger_pay_credits": self.danger_pay_credits,
            "extra_loot_rolls": self.extra_loot_rolls,
            "loot_items": self.loot_items,
            "xp": self.xp,
            "battlefield_finds_rolls": self.battlefield_finds_rolls,
            "quest_rumors": self.quest_rumors,
            "rumors": self.rumors,
            "rival": self.rival,
            "rival_hates_you": self.rival_hates_you,
            "extra_rivals": self.extra_rivals,
            "rolls": [r.as_dict() for r in self.rolls],
            "lines": list(self.lines),
        }


# -- helpers --------------------------------------------------------------------------------


def _table(tables: Mapping[str, RangeTable], slug: str) -> RangeTable:
    try:
        return tables[slug]
    except KeyError:
        raise EnemyError(f"tables must include {slug!r}; load the Compendium fixtures.", field="tables") from None


def _key(name: str) -> str:
    key = re.sub(r"[^a-z0-9]", "", str(name).lower())
    return _NAME_ALIASES.get(key, key)


def _ints(value: Any) -> int:
    """A signed table number: ``"+3"`` is 3, ``"-"`` or ``None`` is 0."""
    if value is None or value in ("", "-", "\u2013", "\u2014"):
        return 0
    return int(str(value).replace("+", ""))


def _panic_top(panic: str) -> int:
    """The highest Panic die that breaks: ``"1-3"`` is 3, ``"1"`` is 1, ``"0"`` is 0."""
    text = str(panic).strip()
    if text in ("", "-", "0", "\u2013", "\u2014"):
        return 0
    return int(text.split("-")[-1])


def _panic_text(top: int) -> str:
    return "0" if top <= 0 else ("1" if top == 1 else f"1-{top}")


def _check_count(name: str, value: Any, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise EnemyError(f"{name} must be a whole number of {minimum} or more; got {value!r}.", field=name)
    return value


class _Roller:
    """Takes the player's typed faces first, in order, then rolls; keeps every record."""

    def __init__(self, dice: Dice, faces: Sequence[int] | None) -> None:
        self.dice = dice
        try:
            self.queue = [int(f) for f in (faces or ())]
        except (TypeError, ValueError):
            raise EnemyError(f"faces must be whole numbers; got {faces!r}.", field="faces") from None
        self.records: list[RollRecord] = []

    def roll(self, notation: str, reason: str, *, modifier: int = 0, keep: Keep = Keep.SUM) -> RollRecord:
        parsed = parse(notation)
        if self.queue and parsed.count:
            if len(self.queue) < parsed.count:
                raise EnemyError(f"{reason}: {parsed} needs {parsed.count} typed face(s); {len(self.queue)} left.", field="faces")
            taken, self.queue = self.queue[: parsed.count], self.queue[parsed.count :]
            try:
                record = Dice.enter(parsed, taken, reason, modifier=modifier, keep=keep)
            except DiceError as exc:
                raise EnemyError(f"{reason}: {exc}", field="faces") from exc
        else:
            record = self.dice.roll(parsed, reason, modifier=modifier, keep=keep)
        self.records.append(record)
        return record

    def table(self, table: RangeTable, reason: str, *, modifier: int = 0, column: str = "") -> TableRoll:
        try:
            record = self.roll(table.die, reason, modifier=modifier)
            return table.resolve(record, column=column)
        except TableError as exc:
            raise EnemyError(str(exc), field="tables") from exc

    def pick(self, count: int, reason: str) -> int:
        """A random index from ``0..count-1`` (see the module docstring for the die)."""
        if count <= 0:
            raise EnemyError(f"{reason}: nothing to choose from.", field="figures")
        if count == 1:
            return 0
        even = [s for s in ALLOWED_SIDES if s % count == 0]
        if even:
            sides = even[0]
            face = self.roll(f"D{sides}", f"{reason} (1-{count})").total or 1
            return (face - 1) // (sides // count)
        sides = next(s for s in ALLOWED_SIDES if s >= count)
        for _ in range(1000):
            face = self.roll(f"D{sides}", f"{reason} (1-{count}, reroll higher)").total or 1
            if face <= count:
                return face - 1
        raise EnemyError(f"{reason}: no usable face after many rolls.", field="faces")  # pragma: no cover

    def finish(self) -> tuple[RollRecord, ...]:
        if self.queue:
            raise EnemyError(f"{len(self.queue)} typed face(s) were not needed: {self.queue}.", field="faces")
        return tuple(self.records)


@dataclass
class _Fig:
    """A figure while it is being built (mutable); frozen by :meth:`freeze`."""

    name: str
    rank: str
    speed: int
    combat_skill: int
    toughness: int
    save: int | None
    weapons: list[str]
    gear: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ai: str = ""
    luck: int = 0
    fearless: bool = False
    powers: list[str] = field(default_factory=list)
    rolled_slot: bool = True

    def has_weapon(self, name: str) -> bool:
        return any(_key(w) == _key(name) for w in self.weapons)

    def freeze(self, canon: Mapping[str, str]) -> EnemyFigure:
        weapons: list[str] = []
        for w in self.weapons:
            key = _key(w)
            name = canon.get(key) or canon.get(key[:-1] if key.endswith("s") else key) or w
            if name and _key(name) not in {_key(x) for x in weapons}:
                weapons.append(name)
        return EnemyFigure(
            name=self.name,
            rank=self.rank,
            reactions=None,
            speed=self.speed,
            combat_skill=self.combat_skill,
            toughness=self.toughness,
            save=self.save,
            weapons=tuple(weapons),
            gear=tuple(dict.fromkeys(self.gear)),
            psionic_powers=tuple(self.powers),
            notes=tuple(dict.fromkeys(self.notes)),
            ai=self.ai,
            luck=self.luck,
            fearless=self.fearless,
        )


def _thaw(figure: EnemyFigure) -> _Fig:
    return _Fig(
        name=figure.name,
        rank=figure.rank,
        speed=figure.speed,
        combat_skill=figure.combat_skill,
        toughness=figure.toughness,
        save=figure.save,
        weapons=list(figure.weapons),
        gear=list(figure.gear),
        notes=list(figure.notes),
        ai=figure.ai,
        luck=figure.luck,
        fearless=figure.fearless,
        powers=list(figure.psionic_powers),
    )


def _canon(tables: Mapping[str, RangeTable]) -> dict[str, str]:
    """Weapon key to the Dramatic Weapons table's spelling (empty without that table)."""
    table = tables.get(DRAMATIC_WEAPONS_TABLE)
    return {_key(e.result): e.result for e in table.entries} if table else {}


def _categories(tables: Mapping[str, RangeTable]) -> dict[str, Entry]:
    return {e.result: e for e in _table(tables, CATEGORY_TABLE).entries}


def _category_row(tables: Mapping[str, RangeTable], name: str) -> Entry:
    rows = _categories(tables)
    for title, entry in rows.items():
        if title.lower() == str(name).strip().lower():
            return entry
    raise EnemyError(f"category must be one of {', '.join(rows)}; got {name!r}.", field="category")


def profile_from_entry(entry: Entry, category: str, *, source: str = "") -> EnemyProfile:
    """An :class:`EnemyProfile` from a table row whose ``data`` holds ``numbers``, ``panic``,
    ``speed``, ``combat_skill``, ``toughness`` and optionally ``ai``, ``weapons``,
    ``armor_save`` (or ``save``) and ``special_rules`` (the shape of the elite tables,
    pp.51-61). Raises :class:`EnemyError` (field ``tables``) naming a missing or bad number."""
    data = entry.data
    try:
        speed = int(data["speed"])
        combat_skill = _ints(data["combat_skill"])
        toughness = int(data["toughness"])
        numbers = _ints(data.get("numbers", 0))
    except (KeyError, TypeError, ValueError):
        raise EnemyError(
            f"Enemy row {entry.result!r} needs whole numbers speed, combat_skill, toughness and numbers in its data.",
            field="tables",
        ) from None
    panic = str(data.get("panic", "")).strip()
    if panic in ("-", "\u2013", "\u2014", ""):
        panic = "0"
    save = data.get("armor_save", data.get("save"))
    return EnemyProfile(
        name=entry.result,
        category=category,
        numbers=numbers,
        panic=panic,
        speed=speed,
        combat_skill=combat_skill,
        toughness=toughness,
        ai=str(data.get("ai") or ""),
        weapons=str(data.get("weapons") or ""),
        save=None if save in (None, "") else int(save),
        special_rules=tuple(str(r) for r in data.get("special_rules", ())),
        data=dict(data),
        source=source,
    )


def custom_enemy(
    name: str,
    *,
    category: str,
    numbers: int,
    panic: str,
    speed: int,
    combat_skill: int,
    toughness: int,
    ai: str = "",
    weapons: str = "",
    save: int | None = None,
    special_rules: Sequence[str] = (),
) -> EnemyProfile:
    """A profile typed by hand, e.g. from the core rulebook's encounter tables.

    ``numbers`` is the Numbers modifier (+2 is 2); ``panic`` "1-2", "1" or "0" (Fearless);
    ``speed`` inches (1-12); ``combat_skill`` -1 to +5; ``toughness`` 1-8; ``weapons`` a core
    code ("2B"), weapon name or "-"; ``save`` 2-6 (target of the D6) or ``None``. ``category`` is
    the encounter category (checked against the tables when the force is built). Raises
    :class:`EnemyError` naming the bad field and the allowed values.
    """
    text = str(name or "").strip()
    if not text or len(text) > 80:
        raise EnemyError("name must be 1 to 80 characters.", field="name")
    if not str(category or "").strip():
        raise EnemyError("category must name the encounter category, e.g. 'Hired Muscle'.", field="category")
    for key, value, low, high in (
        ("numbers", numbers, -5, 10),
        ("speed", speed, 1, 12),
        ("combat_skill", combat_skill, -1, 5),
        ("toughness", toughness, 1, 8),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise EnemyError(f"{key} must be a whole number from {low} to {high}; got {value!r}.", field=key)
    panic_text = str(panic).strip()
    if not re.fullmatch(r"0|1|1-[2-6]", panic_text):
        raise EnemyError(f"panic must be '0', '1' or a range '1-2' to '1-6'; got {panic!r}.", field="panic")
    if save is not None and (isinstance(save, bool) or not isinstance(save, int) or not 2 <= save <= 6):
        raise EnemyError(f"save must be a D6 target from 2 to 6, or empty; got {save!r}.", field="save")
    return EnemyProfile(
        name=text,
        category=str(category).strip(),
        numbers=numbers,
        panic=panic_text,
        speed=speed,
        combat_skill=combat_skill,
        toughness=toughness,
        ai=str(ai or "").strip(),
        weapons=str(weapons or "").strip(),
        save=save,
        special_rules=tuple(str(r) for r in special_rules),
        data={},
        source="typed by hand",
    )


def core_profile(
    dice: Dice,
    core: Mapping[str, RangeTable] | None,
    slug: str,
    *,
    category: str,
    faces: Sequence[int] | None = None,
) -> tuple[EnemyProfile, TableRoll]:
    """Roll the user's core-rulebook enemy table ``core[slug]`` and read the profile from the
    rolled row's data (shape as in :func:`profile_from_entry`). Raises :class:`EnemyError`
    (field ``core``) saying the table is needed when it is not given."""
    if not core or slug not in core:
        raise EnemyError(
            f"The core rulebook's enemy table {slug!r} is needed: add it as a user table, or type the profile with custom_enemy().",
            field="core",
        )
    roller = _Roller(dice, faces)
    rolled = roller.table(core[slug], f"{category} enemy type")
    roller.finish()
    return profile_from_entry(rolled.entry, category, source=core[slug].title), rolled


# -- building blocks --------------------------------------------------------------------------


def _difficulty(options: CampaignOptions, campaign_turn: int, tables: Mapping[str, RangeTable]) -> TurnDifficulty:
    if not isinstance(options, CampaignOptions):
        raise EnemyError("options must be CampaignOptions.", field="options")
    try:
        return turn_difficulty(options, campaign_turn, tables)
    except ValueError as exc:
        raise EnemyError(str(exc), field=getattr(exc, "field", "options")) from exc


def _toggle(tables: Mapping[str, RangeTable], toggle: str) -> Mapping[str, Any]:
    for entry in _table(tables, TOGGLE_TABLE).entries:
        if entry.data.get("toggle") == toggle:
            return entry.data
    raise EnemyError(f"Table {TOGGLE_TABLE!r} has no row for {toggle!r}.", field="tables")


def _base_numbers(
    roller: _Roller,
    diff: TurnDifficulty,
    crew_size: int,
    base_numbers: int | None,
    core: Mapping[str, RangeTable] | None,
    lines: list[str],
) -> int:
    if diff.has("strength_adjusted_enemies"):
        lines.append(f"Strength-adjusted Enemies: numbers start from the {crew_size} crew fielded (p.32).")
        return crew_size
    if base_numbers is not None:
        value = _check_count("base_numbers", base_numbers)
        lines.append(f"Numbers roll (core rules, entered): {value}.")
        return value
    if core and CORE_NUMBERS in core:
        table = core[CORE_NUMBERS]
        column = str(crew_size) if str(crew_size) in table.columns else ""
        rolled = roller.table(table, f"Enemy numbers (crew of {crew_size})", column=column)
        value = int(rolled.entry.data.get("enemies", rolled.value))
        lines.append(f"Numbers roll on the core table: {value}.")
        return value
    raise EnemyError(
        "The core rulebook's enemy numbers roll is needed: give base_numbers, a core 'enemy-numbers' table, "
        "or use the Strength-adjusted Enemies toggle.",
        field="base_numbers",
    )


def _armament(
    roller: _Roller,
    profile: EnemyProfile,
    weapons: Mapping[str, str] | None,
    core: Mapping[str, RangeTable] | None,
    lines: list[str],
) -> tuple[str, str]:
    code = profile.weapons.strip()
    if not _WEAPON_CODE.match(code):
        natural = "" if code in ("", "-") else code
        if weapons is not None:
            lines.append(f"{profile.name} carry {natural or 'no rolled weapon'}: the entered weapons are not used.")
        return natural, natural
    if weapons is not None:
        unknown = sorted(set(weapons) - {"basic", "specialist"})
        if unknown or "basic" not in weapons:
            raise EnemyError("weapons must give 'basic' and optionally 'specialist' weapon names.", field="weapons")
        basic = str(weapons["basic"]).strip()
        specialist = str(weapons.get("specialist") or basic).strip()
        lines.append(f"Weapons {code} (entered): basic {basic}, specialist {specialist}.")
        return basic, specialist
    if core and CORE_WEAPONS in core:
        table = core[CORE_WEAPONS]
        column = code if code in table.columns else ""
        rolled = roller.table(table, f"Enemy weapons ({code})", column=column)
        basic = str(rolled.entry.data.get("basic") or rolled.entry.result)
        specialist = str(rolled.entry.data.get("specialist") or basic)
        lines.append(f"Weapons {code} on the core table: basic {basic}, specialist {specialist}.")
        return basic, specialist
    lines.append(f"Roll weapons {code} on the core rulebook's enemy weapon tables; swaps then apply as noted.")
    return f"Basic weapon ({code})", f"Specialist weapon ({code})"


def _rank_rows(tables: Mapping[str, RangeTable]) -> dict[str, Mapping[str, Any]]:
    rows = {str(e.data.get("rank")): e.data for e in _table(tables, RANK_TABLE).entries}
    missing = [r for r in SQUAD_RANKS if r not in rows]
    if missing:
        raise EnemyError(f"Table {RANK_TABLE!r} has no row for {missing[0]!r}.", field="tables")
    return rows


def _composition(tables: Mapping[str, RangeTable], size: int) -> tuple[int, dict[str, int]]:
    """Squad size after the minimum, and figures per rank (p.49)."""
    rows = list(_table(tables, COMPOSITION_TABLE).entries)
    smallest = min(int(e.data["squad_size_min"]) for e in rows)
    size = max(size, smallest)
    for entry in rows:
        low = int(entry.data["squad_size_min"])
        high = entry.data.get("squad_size_max")
        if low <= size and (high is None or size <= int(high)):
            d = entry.data
            counts = {
                "basic": int(d["basic_enemies"]) + (size - low if d.get("extra_figures_are_basic") else 0),
                "specialist": int(d["specialists"]),
                "lieutenant": int(d["lieutenants"]),
                "captain": int(d["captains"]),
            }
            return size, counts
    raise EnemyError(f"Table {COMPOSITION_TABLE!r} has no row for a squad of {size}.", field="tables")


def _is_cowardly(profile: EnemyProfile) -> bool:
    return any(str(rule).lower().startswith("cowardly") for rule in profile.special_rules)


def _elite_figure(
    profile: EnemyProfile,
    rank: str,
    number: int,
    ranks: Mapping[str, Mapping[str, Any]],
    basic: str,
    specialist: str,
) -> _Fig:
    up = ranks[rank]
    weapons = []
    for item in up.get("weapons", ()):
        if item == "basic weapon":
            weapons.append(basic)
        elif item == "specialist weapon":
            weapons.append(specialist)
        else:
            weapons.append(str(item))
    combat_skill = profile.combat_skill + int(up.get("combat_skill_bonus") or 0)
    if rank == "specialist":
        combat_skill += int(profile.data.get("specialist_combat_skill_bonus") or 0)
    if up.get("combat_skill_min") is not None:
        combat_skill = max(combat_skill, int(up["combat_skill_min"]))
    toughness = profile.toughness
    if up.get("toughness_min") is not None:
        toughness = max(toughness, int(up["toughness_min"]))
    save = profile.save
    notes: list[str] = []
    if up.get("armor_save_if_unarmored") is not None:
        improved = None if save is None else max(2, save - int(up.get("armor_save_improvement") or 0))
        save = int(up["armor_save_if_unarmored"]) if improved is None else improved
    fearless = bool(up.get("fearless")) or profile.panic == "0" or bool(profile.data.get("fearless"))
    if bool(up.get("fearless")) and _is_cowardly(profile):
        fearless = profile.panic == "0"
        notes.append("Cowardly: takes Morale dice as normal")
    label = RANK_LABELS[rank]
    return _Fig(
        name=f"{label} {number}" if rank in ("basic", "specialist") else label,
        rank=rank,
        speed=profile.speed,
        combat_skill=combat_skill,
        toughness=toughness,
        save=save,
        weapons=weapons,
        notes=notes,
        ai=profile.ai,
        fearless=fearless,
    )


def _plain_figure(profile: EnemyProfile, rank: str, number: int, basic: str, specialist: str) -> _Fig:
    """A standard (core) figure: the profile as printed, with its group's weapon."""
    label = RANK_LABELS[rank]
    weapon = specialist if rank == "specialist" else basic
    return _Fig(
        name=f"{label} {number}" if rank in ("basic", "specialist") else label,
        rank=rank,
        speed=profile.speed,
        combat_skill=profile.combat_skill,
        toughness=profile.toughness,
        save=profile.save,
        weapons=[weapon],
        ai=profile.ai,
        fearless=profile.panic == "0",
    )


def _type_rows(tables: Mapping[str, RangeTable], slug: str, profile: EnemyProfile) -> list[Mapping[str, Any]]:
    table = tables.get(slug)
    if table is None:
        return []
    return [
        e.data
        for e in table.entries
        if _key(str(e.data.get("enemy", ""))) == _key(profile.name)
        and str(e.data.get("category", "")).lower() == profile.category.lower()
    ]


def _in_order(figs: list[_Fig]) -> list[_Fig]:
    order = {r: i for i, r in enumerate(RANKS)}
    return sorted(figs, key=lambda f: order[f.rank])


def _apply_replacements(figs: list[_Fig], rows: list[Mapping[str, Any]], lines: list[str]) -> None:
    for row in rows:
        replaces = [str(r) for r in row.get("replaces", ())]
        replacement = str(row.get("replacement", ""))
        who = str(row.get("who", "any"))
        count = _ALL if row.get("count") == "all" else int(row.get("count") or 0)
        slot_only = any(r.lower() in ("any", "all normal weapons") for r in replaces)
        keys = {_key(r) for r in replaces}
        done = 0
        for fig in _in_order(figs):
            if done >= count:
                break
            if fig.rank == "unique" or (who != "any" and fig.rank != who):
                continue
            for index, weapon in enumerate(fig.weapons):
                if done >= count:
                    break
                if slot_only:
                    if index == 0 and fig.rolled_slot:
                        fig.weapons[0] = replacement
                        fig.rolled_slot = False
                        done += 1
                    break
                if weapon and _key(weapon) in keys:
                    fig.weapons[index] = replacement
                    done += 1
        if done:
            lines.append(f"{replacement} swapped in for {done} weapon(s).")


def _meets(fig: _Fig, condition: str) -> bool:
    text = condition.strip().lower()
    for lead in ("if armed with a ", "if armed with ", "if carrying a ", "if carrying "):
        if text.startswith(lead):
            wanted = text[len(lead) :]
            if "pistol-type" in wanted:
                return any(_key(w) in PISTOL_WEAPONS for w in fig.weapons)
            return fig.has_weapon(wanted)
    return True


def _apply_gear(figs: list[_Fig], rows: list[Mapping[str, Any]], lines: list[str]) -> None:
    for row in rows:
        carriers = [str(c) for c in row.get("carriers", ())]
        item = str(row.get("item", ""))
        count = _ALL if row.get("count") == "all" else int(row.get("count") or 0)
        condition = str(row.get("condition") or "")
        conditional = condition.lower().startswith("if ")
        given = 0
        for fig in _in_order(figs):
            if given >= count:
                break
            if fig.rank == "unique" or ("any" not in carriers and fig.rank not in carriers):
                continue
            if conditional and not _meets(fig, condition):
                continue
            if "sight" in item.lower():
                fig.gear.append(item)
            else:
                fig.weapons.append(item)
            if condition and not conditional and condition.lower() != "chosen at random":
                fig.notes.append(f"{item}: {condition}")
            given += 1
        if given:
            lines.append(f"{item} for {given} figure(s).")


def _apply_toggles(
    figs: list[_Fig], diff: TurnDifficulty, tables: Mapping[str, RangeTable], lines: list[str], *, elite: bool
) -> None:
    if diff.has("veteran"):
        data = _toggle(tables, "veteran")
        basics = [f for f in figs if f.rank == "basic"][: int(data["veteran_enemies"])]
        for fig in basics:
            fig.combat_skill += int(data["combat_skill"])
            fig.notes.append(f"Veteran: +{data['combat_skill']} Combat Skill")
        if basics:
            lines.append(f"Veteran: {', '.join(f.name for f in basics)} gains +{data['combat_skill']} Combat Skill (p.33).")
    if diff.has("actually_specialized"):
        data = _toggle(tables, "actually_specialized")
        raised = 0
        for fig in figs:
            if fig.rank != "specialist":
                continue
            before = (fig.combat_skill, fig.toughness)
            fig.combat_skill = max(fig.combat_skill, int(data["combat_skill_min"]))
            fig.toughness = max(fig.toughness, int(data["toughness_min"]))
            raised += (fig.combat_skill, fig.toughness) != before
        lines.append(
            f"Actually Specialized: specialists at least Combat Skill +{data['combat_skill_min']} and Toughness "
            f"{data['toughness_min']} ({raised} raised, p.33)."
        )
    if diff.has("armored_leaders"):
        data = _toggle(tables, "armored_leaders")
        armored = 0
        for fig in figs:
            if fig.rank == "lieutenant" and fig.save is None:
                fig.save = int(data["saving_throw"])
                armored += 1
        if armored:
            lines.append(f"Armored Leaders: {armored} Lieutenant(s) gain a {data['saving_throw']}+ save (p.33).")
        elif elite:
            lines.append("Armored Leaders: elite Lieutenants already have a save; no change (p.33).")


def _leadership(
    tables: Mapping[str, RangeTable],
    panic: str,
    figs: list[_Fig],
    lines: list[str],
    unique: _Fig | None = None,
    unique_panic: int = 0,
) -> tuple[str, list[str]]:
    notes: list[str] = []
    leader = (
        "captain"
        if any(f.rank == "captain" for f in figs)
        else ("lieutenant" if any(f.rank == "lieutenant" for f in figs) else "")
    )
    if leader:
        for entry in _table(tables, LEADERSHIP_TABLE).entries:
            if entry.data.get("rank") == leader and str(entry.data.get("normal_panic")) == panic:
                modified = str(entry.data.get("modified_panic"))
                notes.append(f"{RANK_LABELS[leader]} present: Panic {panic} becomes {modified} while on the battlefield (p.49).")
                panic = modified
                break
    if unique is not None and unique_panic:
        new = _panic_text(_panic_top(panic) + unique_panic)
        notes.append(f"{unique.name}: Panic {panic} becomes {new} while it lives (p.62).")
        panic = new
    if panic == "0":
        notes.append("Panic 0: the enemy is Fearless unless something raises the range.")
    lines.extend(notes)
    return panic, notes


def _unique_figure(
    roller: _Roller, tables: Mapping[str, RangeTable], profile: EnemyProfile, lines: list[str]
) -> tuple[_Fig, int]:
    """The Unique Individual's figure and its change to the enemy Panic range."""
    rolled = roller.table(_table(tables, UNIQUE_TABLE), "Elite Unique Individual")
    entry = rolled.entry
    d = entry.data
    base = bool(d.get("uses_enemy_base_profile"))
    speed = profile.speed if d.get("speed") is None else int(d["speed"])
    combat_skill = (profile.combat_skill if d.get("combat_skill") is None else _ints(d["combat_skill"])) + int(
        d.get("combat_skill_modifier") or 0
    )
    toughness = (profile.toughness if d.get("toughness") is None else int(d["toughness"])) + int(d.get("toughness_modifier") or 0)
    weapons: list[str] = []
    for name in d.get("weapons", ()):
        if str(name).lower() == "various" and d.get("weapon_table") in tables:
            weapons.extend(str(e.data.get("weapon", e.result)) for e in tables[str(d["weapon_table"])].rows())
        else:
            weapons.append(str(name))
    gear: list[str] = []
    if d.get("screen_save") is not None:
        gear.append(f"Screen {d['screen_save']}+")
    notes = [str(r) for r in d.get("special_rules", ())]
    save = d.get("armor_save")
    lines.append(f"Unique Individual: {entry.result} (D100 {rolled.value}, pp.62-65).")
    figure = _Fig(
        name=entry.result,
        rank="unique",
        speed=speed,
        combat_skill=combat_skill,
        toughness=toughness,
        save=(profile.save if base else None) if save is None else int(save),
        weapons=weapons,
        gear=gear,
        notes=notes,
        ai=str(d.get("ai") or (profile.ai if base else "")),
        luck=int(d.get("luck") or 0),
        fearless=True,
        rolled_slot=False,
    )
    return figure, int(d.get("panic_modifier") or 0)


def _presence_row(tables: Mapping[str, RangeTable], result: str) -> Mapping[str, Any]:
    for entry in _table(tables, PRESENCE_TABLE).entries:
        if entry.result == result:
            return entry.data
    raise EnemyError(f"Table {PRESENCE_TABLE!r} has no row {result!r}.", field="tables")


def _better_leadership_boost(roller: _Roller, tables: Mapping[str, RangeTable], figs: list[_Fig], lines: list[str]) -> None:
    data = _toggle(tables, "better_leadership")
    pool = [f for f in figs if f.rank != "unique"]
    fig = pool[roller.pick(len(pool), "Better Leadership: random enemy figure")]
    fig.combat_skill = min(fig.combat_skill + int(data["combat_skill"]), int(data["combat_skill_max"]))
    fig.toughness = min(fig.toughness + int(data["toughness"]), int(data["toughness_max"]))
    fig.notes.append(f"Better Leadership: +{data['combat_skill']} Combat Skill, +{data['toughness']} Toughness")
    lines.append(
        f"Better Leadership: {fig.name} is raised to Combat Skill +{fig.combat_skill}, Toughness {fig.toughness} (p.33)."
    )


def _seize(category: Mapping[str, Any], profile: EnemyProfile, lines: list[str]) -> int | None:
    data = profile.data
    if data.get("cannot_seize_initiative"):
        lines.append("The crew cannot Seize the Initiative against them.")
        return None
    if data.get("no_seize_initiative_modifiers"):
        lines.append("No modifiers apply to the Seize the Initiative roll.")
        return 0
    total = int(category.get("seize_initiative_modifier") or 0) + int(data.get("seize_initiative_modifier") or 0)
    if total:
        lines.append(f"Seize the Initiative: {total:+d}.")
    return total


def _reward_texts(tables: Mapping[str, RangeTable], profile: EnemyProfile, bounty: int | None) -> list[str]:
    texts = [f"{e.result}: {e.effect}" for e in _table(tables, REWARDS_TABLE).entries]
    d = profile.data
    if bounty:
        texts.append(f"Bounty pay: +{bounty} credits if you Hold the Field.")
    if d.get("extra_loot_rolls"):
        texts.append(f"+{d['extra_loot_rolls']} Loot roll when you Hold the Field.")
    if d.get("extra_battlefield_finds"):
        texts.append(f"+{d['extra_battlefield_finds']} Battlefield Finds roll when you Hold the Field.")
    if d.get("battlefield_finds_rolls"):
        texts.append(f"Battlefield Finds rolled {d['battlefield_finds_rolls']} times when you may roll them.")
    if d.get("intrigue_dice"):
        texts.append(f"Intrigue: {d['intrigue_dice']} after the battle, {d['intrigue_target']}+ gives a Quest Rumor.")
    return texts


# -- elite forces ---------------------------------------------------------------------------


def roll_elite_enemy(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    crew_size: int,
    options: CampaignOptions,
    campaign_turn: int = 1,
    category: str | None = None,
    faces: Sequence[int] | None = None,
    core: Mapping[str, RangeTable] | None = None,
    mission: str = "",
    profile: EnemyProfile | None = None,
    base_numbers: int | None = None,
    weapons: Mapping[str, str] | None = None,
    quest: bool = False,
    rival: bool = False,
    rival_hates_you: bool = False,
) -> EnemyForce:
    """Build an elite-level enemy force (pp.48-65) for ``crew_size`` crew fielded.

    - ``category``: "Criminal Elements", "Hired Muscle", "Interested Parties" or "Roving
      Threats"; ``None`` rolls ``core["enemy-category"]`` (column ``mission`` when the table has
      columns), else :class:`EnemyError` (field ``category``) says that table is needed.
    - ``profile``: a profile from :func:`custom_enemy` or :func:`core_profile` instead of the
      D100 type roll (elite rules, the profile's own numbers; type kit applies when its name is an
      elite type's). Its category is used when ``category`` is ``None``.
    - Numbers: Strength-adjusted Enemies (p.32), ``base_numbers`` or ``core["enemy-numbers"]``
      (see the module docstring), plus the type's Numbers, +1 during a ``quest`` against
      Interested Parties, +1 as a ``rival`` for types with Grudge, +1 when a Criminal Elements
      Rival ``rival_hates_you`` (Gang feuds); at least 4 figures (p.49).
    - ``weapons``: ``{"basic": name, "specialist": name}`` from the core weapon roll, else
      ``core["enemy-weapons"]``, else placeholders.
    - Options: the difficulty toggles and progressive difficulty in effect on ``campaign_turn``
      (:func:`campaigns.engine.difficulty.turn_difficulty`); Insanity from ``difficulty_mode``.
      Elite or not is the caller's choice (see ``difficulty.elite_check``).

    Rolls, in order: category (core), type D100, numbers (core), weapons (core), Criminal
    Elements bounty D6, Unique Individual 2D6, its D100, Better Leadership's random figure.
    Raises :class:`EnemyError` for a bad input (field named) or a missing table.
    """
    crew_size = _check_count("crew_size", crew_size, 1)
    diff = _difficulty(options, campaign_turn, tables)
    roller = _Roller(dice, faces)
    lines: list[str] = []

    if category is None and profile is not None:
        category = profile.category
    if category is None:
        if not core or CORE_CATEGORY not in core:
            raise EnemyError(
                "category is needed: name one of the elite categories, or add the core rulebook's 'enemy-category' table.",
                field="category",
            )
        table = core[CORE_CATEGORY]
        if table.columns and mission not in table.columns:
            raise EnemyError(f"mission must be one of {', '.join(table.columns)}; got {mission!r}.", field="mission")
        rolled = roller.table(table, "Enemy category", column=mission if table.columns else "")
        category = str(rolled.entry.data.get("category") or rolled.entry.result)
    cat_entry = _category_row(tables, category)
    category = cat_entry.result
    cat = cat_entry.data

    if profile is None:
        type_table = _table(tables, str(cat["table_slug"]))
        rolled = roller.table(type_table, f"Elite {category} type")
        profile = profile_from_entry(rolled.entry, category, source=type_table.title)
        lines.append(f"{category}: {profile.name} (D100 {rolled.value}).")
    else:
        profile = replace(profile, category=category)
        lines.append(f"{category}: {profile.name} (profile {profile.source or 'given'}).")

    base = _base_numbers(roller, diff, crew_size, base_numbers, core, lines)
    size = base + profile.numbers
    if quest and cat.get("quest_numbers_modifier"):
        size += int(cat["quest_numbers_modifier"])
        lines.append(f"On the trail (Quest mission): +{cat['quest_numbers_modifier']} numbers.")
    if rival and profile.data.get("rival_numbers_modifier"):
        size += int(profile.data["rival_numbers_modifier"])
        lines.append(f"Grudge (Rival): +{profile.data['rival_numbers_modifier']} numbers.")
    if rival_hates_you and cat.get("hated_numbers_modifier"):
        size += int(cat["hated_numbers_modifier"])
        lines.append(f"Gang feud (they hate you): +{cat['hated_numbers_modifier']} numbers.")
    size, counts = _composition(tables, size)
    lines.append(
        f"Squad of {size}: {counts['basic']} basic, {counts['specialist']} specialist, "
        f"{counts['lieutenant']} Lieutenant, {counts['captain']} Captain (p.49)."
    )
    extras = {"basic": diff.extra_basic, "specialist": diff.extra_specialists, "lieutenant": diff.extra_lieutenants}
    if any(extras.values()):
        for rank, extra in extras.items():
            counts[rank] += extra
        lines.append(
            f"Progressive Strength {diff.strength_level}: +{extras['basic']} basic, +{extras['specialist']} specialist, "
            f"+{extras['lieutenant']} Lieutenant (p.30)."
        )

    basic, specialist = _armament(roller, profile, weapons, core, lines)
    ranks = _rank_rows(tables)
    figs: list[_Fig] = []
    for rank in SQUAD_RANKS:
        for number in range(1, counts[rank] + 1):
            figs.append(_elite_figure(profile, rank, number, ranks, basic, specialist))
    if cat.get("leader_armor_save") is not None:
        for fig in figs:
            if fig.rank in ("lieutenant", "captain"):
                fig.save = int(cat["leader_armor_save"])
        lines.append(f"Well supplied: Lieutenants and Captains save on {cat['leader_armor_save']}+.")
    _apply_replacements(figs, _type_rows(tables, REPLACEMENT_TABLE, profile), lines)
    _apply_gear(figs, _type_rows(tables, GEAR_TABLE, profile), lines)
    _apply_toggles(figs, diff, tables, lines, elite=True)

    bounty: int | None = None
    if cat.get("bounty_pay_dice"):
        rolled = roller.table(_table(tables, BOUNTY_TABLE), "Bounty pay")
        bounty = int(rolled.entry.data.get("credits") or 0)
        lines.append(f"Bounty pay: {bounty} credit(s) if you Hold the Field (p.50).")

    # Unique Individual (p.49, pp.50-60 adjustments, p.33 Better Leadership).
    unique: _Fig | None = None
    unique_panic = 0
    insanity = "insanity" in options.difficulty_mode.lower()
    allowed = bool(cat.get("unique_individuals", True)) or insanity
    better = diff.has("better_leadership")
    target = int(_presence_row(tables, PRESENCE_ELITE_ROLL)["target"])
    if better:
        target = min(target, int(_toggle(tables, "better_leadership")["unique_individual_target"]))
    modifier = int(cat.get("unique_individual_roll_modifier") or 0)
    if allowed and (profile.data.get("unique_individual_automatic") or crew_size > len(figs)):
        why = "always with them" if profile.data.get("unique_individual_automatic") else "you outnumber them"
        lines.append(f"A Unique Individual is present: {why}.")
        unique, unique_panic = _unique_figure(roller, tables, profile, lines)
    elif allowed or better:
        roll = roller.roll("2D6", f"Unique Individual on {target}+", modifier=modifier)
        success = (roll.total or 0) >= target
        if allowed:
            lines.append(f"Unique Individual roll {roll.total} against {target}+: {'present' if success else 'none'}.")
            if success:
                unique, unique_panic = _unique_figure(roller, tables, profile, lines)
        else:
            lines.append(f"{category} have no Unique Individual; Better Leadership roll {roll.total} against {target}+.")
            if success:
                _better_leadership_boost(roller, tables, figs, lines)
    else:
        lines.append(f"{category} have no Unique Individual (except on Insanity).")
    if unique is not None:
        figs.append(unique)

    panic, leadership = _leadership(tables, profile.panic, figs, lines, unique, unique_panic)
    seize = _seize(cat, profile, lines)
    canon = _canon(tables)
    frozen = tuple(f.freeze(canon) for f in figs)
    rules = tuple(str(r) for r in cat.get("special_rules", ())) + profile.special_rules
    return EnemyForce(
        category=category,
        type=profile.name,
        figures=frozen,
        panic=panic,
        leadership=tuple(leadership),
        unique_individual=frozen[-1] if unique is not None else None,
        rewards=tuple(_reward_texts(tables, profile, bounty)),
        rolls=roller.finish(),
        lines=tuple(lines),
        elite=True,
        numbers=size,
        seize_initiative_modifier=seize,
        bounty_credits=bounty,
        special_rules=rules,
        profile=profile,
        basic_weapon=basic,
        specialist_weapon=specialist,
    )


# -- standard (core) forces ---------------------------------------------------------------------


def core_enemy(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    profile: EnemyProfile,
    *,
    crew_size: int,
    options: CampaignOptions,
    specialists: int,
    lieutenants: int,
    campaign_turn: int = 1,
    base_numbers: int | None = None,
    weapons: Mapping[str, str] | None = None,
    core: Mapping[str, RangeTable] | None = None,
    faces: Sequence[int] | None = None,
) -> EnemyForce:
    """A standard (not elite) force from a core-rulebook ``profile`` (:func:`custom_enemy` or
    :func:`core_profile`).

    The core rulebook sets how many figures are specialists and Lieutenants and what those ranks
    carry; we do not have it, so ``specialists`` and ``lieutenants`` are inputs and the figures
    keep the printed profile. Numbers as in :func:`roll_elite_enemy` (no minimum of 4); the
    Compendium rules that still apply: Strength-adjusted Enemies (p.32), Veteran, Actually
    Specialized, Armored Leaders (p.33), Better Leadership's Unique Individual target (7+ not 9+,
    reported in ``lines``; the Unique Individual itself comes from the core tables) and
    progressive Strength (p.30).

    Raises :class:`EnemyError` for bad counts (more ranked figures than the force has) or
    missing inputs, naming the field.
    """
    crew_size = _check_count("crew_size", crew_size, 1)
    specialists = _check_count("specialists", specialists)
    lieutenants = _check_count("lieutenants", lieutenants)
    if not isinstance(profile, EnemyProfile):
        raise EnemyError("profile must be an EnemyProfile (see custom_enemy).", field="profile")
    diff = _difficulty(options, campaign_turn, tables)
    roller = _Roller(dice, faces)
    lines = [f"{profile.category}: {profile.name} (standard enemy, profile {profile.source or 'given'})."]
    size = _base_numbers(roller, diff, crew_size, base_numbers, core, lines) + profile.numbers
    if specialists + lieutenants > size:
        raise EnemyError(
            f"specialists plus lieutenants ({specialists + lieutenants}) cannot exceed the {size} figures of the force.",
            field="specialists",
        )
    counts = {"basic": size - specialists - lieutenants, "specialist": specialists, "lieutenant": lieutenants}
    extras = {"basic": diff.extra_basic, "specialist": diff.extra_specialists, "lieutenant": diff.extra_lieutenants}
    if any(extras.values()):
        for rank, extra in extras.items():
            counts[rank] += extra
        lines.append(f"Progressive Strength {diff.strength_level}: extra figures added (p.30).")
    basic, specialist = _armament(roller, profile, weapons, core, lines)
    figs = [
        _plain_figure(profile, rank, n, basic, specialist)
        for rank in ("basic", "specialist", "lieutenant")
        for n in range(1, counts[rank] + 1)
    ]
    _apply_toggles(figs, diff, tables, lines, elite=False)
    data = _presence_row(tables, PRESENCE_STANDARD)
    target = int(data["target"])
    if diff.has("better_leadership"):
        target = min(target, int(_toggle(tables, "better_leadership")["unique_individual_target"]))
    lines.append(f"Unique Individual (core rules): roll {data['dice']}, present on {target}+.")
    panic = profile.panic
    if panic == "0":
        lines.append("Panic 0: the enemy is Fearless.")
    canon = _canon(tables)
    return EnemyForce(
        category=profile.category,
        type=profile.name,
        figures=tuple(f.freeze(canon) for f in figs),
        panic=panic,
        rolls=roller.finish(),
        lines=tuple(lines),
        elite=False,
        numbers=size,
        special_rules=profile.special_rules,
        profile=profile,
        basic_weapon=basic,
        specialist_weapon=specialist,
    )


# -- enemy Psionics (pp.22-24) ------------------------------------------------------------------


def _roll_powers(roller: _Roller, tables: Mapping[str, RangeTable], count: int, who: str) -> list[str]:
    table = _table(tables, PSIONIC_POWERS_TABLE)
    powers: list[str] = []
    for number in range(1, count + 1):
        rolled = roller.table(table, f"Enemy Psionic power {number} ({who})")
        if rolled.entry.result not in powers:
            powers.append(rolled.entry.result)
    return powers


def _fresh_basic(tables: Mapping[str, RangeTable], force: EnemyForce, number: int) -> _Fig:
    """One more basic enemy for ``force``: rank rules plus the type's swaps and kit that cover
    every figure (counted ones were handed out already)."""
    if force.profile is None:
        raise EnemyError("force has no profile to build an extra basic enemy from.", field="force")
    if not force.elite:
        return _plain_figure(force.profile, "basic", number, force.basic_weapon, force.specialist_weapon)
    fig = _elite_figure(force.profile, "basic", number, _rank_rows(tables), force.basic_weapon, force.specialist_weapon)
    unused: list[str] = []
    every = [r for r in _type_rows(tables, REPLACEMENT_TABLE, force.profile) if r.get("count") == "all"]
    _apply_replacements([fig], every, unused)
    _apply_gear([fig], [r for r in _type_rows(tables, GEAR_TABLE, force.profile) if r.get("count") == "all"], unused)
    return fig


def enemy_psionics(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    force: EnemyForce,
    *,
    options: CampaignOptions,
    faces: Sequence[int] | None = None,
) -> EnemyForce:
    """Check ``force`` for an enemy Psionic (pp.22-23) when ``options.psionics`` covers enemies
    ("enemies" or "both"); otherwise, or when already checked, return ``force`` unchanged.

    Steps from ``enemy-psionic-determination``, first match decides: (1) a Rogue Psionic Unique
    Individual has two powers; (2) Swift or Precursors: a random figure has one power; (3)
    Hulkers, robotic or cyborg types, Roving Threats: no Psionic, one more basic enemy; (4) D6
    4+: a random figure has one power. Powers are D10 rolls on ``enemy-psionic-powers``; a
    repeat leaves one power. A figure chosen in steps 2 and 4 (never a Unique Individual) swaps
    its weapons for a Hand Gun and a Blade and gains +1 Toughness if it had 4 or less.

    Returns a new force with the powers, the added roll records and lines. Raises
    :class:`EnemyError` for a missing table or bad ``faces``.
    """
    if not isinstance(options, CampaignOptions):
        raise EnemyError("options must be CampaignOptions.", field="options")
    if not options.enemy_psionics or force.psionics_checked:
        return force
    roller = _Roller(dice, faces)
    lines: list[str] = []
    steps = sorted(_table(tables, PSIONIC_STEPS_TABLE).entries, key=lambda e: int(e.data.get("step", 0)))
    by_step = {int(e.data.get("step", 0)): e.data for e in steps}
    figs = [_thaw(f) for f in force.figures]
    unique = force.unique_individual
    canon = _canon(tables)

    def chosen_psionic(powers: int) -> None:
        pool = [f for f in figs if f.rank != "unique"]
        fig = pool[roller.pick(len(pool), "Enemy Psionic: random enemy figure")]
        fig.weapons = list(PSIONIC_WEAPONS)
        if fig.toughness <= PSIONIC_TOUGHNESS_MAX:
            fig.toughness += PSIONIC_TOUGHNESS_BONUS
        fig.powers = _roll_powers(roller, tables, powers, fig.name)
        fig.notes.append("Psionic: no Strain; effects end if it becomes a casualty")
        lines.append(f"Enemy Psionic: {fig.name} with {', '.join(fig.powers)}; carries a Hand Gun and a Blade (p.23).")

    if unique is not None and unique.name == ROGUE_PSIONIC:
        fig = next(f for f in figs if f.rank == "unique")
        fig.powers = _roll_powers(roller, tables, int(by_step[1]["powers"]), fig.name)
        lines.append(f"Enemy Psionic: the Rogue Psionic with {', '.join(fig.powers)} (p.22).")
    elif force.type in PSIONIC_TYPES:
        chosen_psionic(int(by_step[2]["powers"]))
    elif force.type in NO_PSIONIC_TYPES or force.category == NO_PSIONIC_CATEGORY or "hulker" in force.type.lower():
        extra = int(by_step[3].get("extra_basic_enemies") or 0)
        numbers = [int(f.name.split()[-1]) for f in figs if f.rank == "basic" and f.name.split()[-1].isdigit()]
        for n in range(extra):
            figs.append(_fresh_basic(tables, force, max(numbers, default=0) + n + 1))
        lines.append(f"No enemy Psionic for {force.type}: {extra} more basic enemy instead (p.22).")
    else:
        data = by_step[4]
        roll = roller.roll(str(data.get("roll") or "D6"), f"Enemy Psionic on {data['target']}+")
        if (roll.total or 0) >= int(data["target"]):
            chosen_psionic(int(data["powers"]))
        else:
            lines.append(f"Enemy Psionic roll {roll.total}: no Psionic.")
    ordered = [f for f in figs if f.rank != "unique"] + [f for f in figs if f.rank == "unique"]
    frozen = tuple(f.freeze(canon) for f in ordered)
    return replace(
        force,
        figures=frozen,
        unique_individual=frozen[-1] if unique is not None else None,
        rolls=force.rolls + roller.finish(),
        lines=force.lines + tuple(lines),
        psionics_checked=True,
    )


# -- after the battle ---------------------------------------------------------------------------


def elite_rewards(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    force: EnemyForce,
    *,
    held_field: bool,
    killed_any: bool = False,
    killed_leader: bool = False,
    killed_unique: bool = False,
    patron_job: bool = False,
    quest_finished: bool = False,
    crew_all_casualties: bool = False,
    rival_roll: bool = False,
    faces: Sequence[int] | None = None,
) -> EliteRewards:
    """What an elite battle pays after it (p.50 and the type rules, pp.50-65).

    - Elite-level Rewards: Better Loot (one extra Loot roll, drop one item), Patron Pay (+1
      credit Danger Pay on a ``patron_job`` when ``killed_any``), Quest Rewards (+1 Loot item when
      ``quest_finished``), Brutal Fight (+1 XP when ``crew_all_casualties``).
    - ``held_field``: pays the Criminal Elements bounty rolled at set-up and the types' extra
      Loot and Battlefield Finds rolls (Secret Agents' Costly Loot also adds a Rival).
    - Intrigue types roll 2D6 (+1 when ``killed_leader``: a Lieutenant, Captain or Unique
      Individual): 9+ is a Quest Rumor. A Corporate Spook ``killed_unique`` gives a Rumor and a
      Rival.
    - Rivals: Roving Threats never, Enforcers always; ``rival_roll`` (the core rules call for a
      Rival roll) against Criminal Elements rolls 2D6 for Gang feuds: any 1 makes them Rivals,
      double 1 means they hate you.

    Raises :class:`EnemyError` when ``force`` is not elite, or for a missing table.
    """
    if not force.elite:
        raise EnemyError("force must be an elite force; standard enemies use the core rulebook's rewards.", field="force")
    roller = _Roller(dice, faces)
    lines: list[str] = []
    loot = loot_items = xp = danger = finds = quest_rumors = rumors = extra_rivals = 0
    for entry in _table(tables, REWARDS_TABLE).entries:
        d = entry.data
        if entry.result == "Better Loot":
            loot += int(d.get("extra_loot_rolls") or 0)
            lines.append(f"Better Loot: roll Loot {d.get('extra_loot_rolls')} extra time, then drop one item of your choice.")
        elif d.get("requires_kill"):
            if patron_job and killed_any:
                danger += int(d.get("credits") or 0)
                lines.append(f"Patron Pay: +{d.get('credits')} credit Danger Pay.")
        elif d.get("loot_items"):
            if quest_finished:
                loot_items += int(d["loot_items"])
                lines.append(f"Quest Rewards: +{d['loot_items']} Loot item.")
        elif d.get("xp") and crew_all_casualties:
            xp += int(d["xp"])
            lines.append(f"Brutal Fight: +{d['xp']} XP for one crew member of your choice.")

    profile_data: Mapping[str, Any] = force.profile.data if force.profile else {}
    bounty = 0
    if held_field:
        if force.bounty_credits:
            bounty = force.bounty_credits
            lines.append(f"Bounty pay: +{bounty} credits.")
        if profile_data.get("extra_loot_rolls"):
            loot += int(profile_data["extra_loot_rolls"])
            lines.append(f"{force.type}: +{profile_data['extra_loot_rolls']} Loot roll for Holding the Field.")
            if force.type == "Secret Agents":
                extra_rivals += 1
                lines.append("Costly Loot: add an unnamed Rival.")
        if profile_data.get("extra_battlefield_finds"):
            finds += int(profile_data["extra_battlefield_finds"])
            lines.append(f"Scavengers: +{profile_data['extra_battlefield_finds']} Battlefield Finds roll.")
    if profile_data.get("battlefield_finds_rolls"):
        lines.append(f"Scavengers: Battlefield Finds, when allowed, are rolled {profile_data['battlefield_finds_rolls']} times.")
        finds += int(profile_data["battlefield_finds_rolls"]) - 1
    if profile_data.get("intrigue_dice"):
        modifier = int(profile_data.get("intrigue_kill_modifier") or 0) if killed_leader else 0
        target = int(profile_data["intrigue_target"])
        roll = roller.roll(str(profile_data["intrigue_dice"]), f"Intrigue: Quest Rumor on {target}+", modifier=modifier)
        if (roll.total or 0) >= target:
            quest_rumors += 1
        lines.append(
            f"Intrigue roll {roll.total} against {target}+: {'a Quest Rumor' if (roll.total or 0) >= target else 'nothing'}."
        )

    unique = force.unique_individual
    if killed_unique and unique is not None and unique.name == "Corporate Spook":
        data = next((e.data for e in _table(tables, UNIQUE_TABLE).entries if e.result == unique.name), {})
        rumors += int(data.get("rumors") or 1)
        extra_rivals += 1
        lines.append("Employee evaluation: +1 Rumor and a Rival.")

    cat = _category_row(tables, force.category).data
    rival: bool | None = None
    hates = False
    if cat.get("can_be_rivals") is False:
        rival = False
        lines.append(f"{force.category} never become Rivals.")
    elif profile_data.get("always_rivals"):
        rival = True
        lines.append(f"{force.type} always become Rivals.")
    elif rival_roll and cat.get("rival_dice"):
        roll = roller.roll(str(cat["rival_dice"]), "Gang feuds: a 1 on either die makes Rivals", keep=Keep.SEPARATE)
        rival = 1 in roll.faces
        hates = roll.faces.count(1) == len(roll.faces)
        lines.append(
            f"Gang feuds ({', '.join(map(str, roll.faces))}): "
            + ("they hate you: Rivals with +1 numbers in every battle." if hates else ("Rivals." if rival else "no Rivals."))
        )
    return EliteRewards(
        credits=bounty + danger,
        bounty_credits=bounty,
        danger_pay_credits=danger,
        extra_loot_rolls=loot,
        loot_items=loot_items,
        xp=xp,
        battlefield_finds_rolls=finds,
        quest_rumors=quest_rumors,
        rumors=rumors,
        rival=rival,
        rival_hates_you=hates,
        extra_rivals=extra_rivals,
        rolls=roller.finish(),
        lines=tuple(lines),
    )


def elite_rival_follows(
    dice: Dice, tables: Mapping[str, RangeTable], rivals: Sequence[str], *, faces: Sequence[int] | None = None
) -> tuple[dict[str, bool], tuple[RollRecord, ...]]:
    """When the crew travels, roll D6 for each Elite Rival named in ``rivals`` (p.49): 4+
    follows. Returns ``({name: follows}, rolls)``. Raises :class:`EnemyError` for repeated
    names or a missing table."""
    names = [str(r) for r in rivals]
    if len(set(names)) != len(names):
        raise EnemyError("rivals must be distinct names.", field="rivals")
    roller = _Roller(dice, faces)
    table = _table(tables, RIVAL_FOLLOWS_TABLE)
    result = {name: bool(roller.table(table, f"Elite Rival {name} follows?").entry.data.get("follows")) for name in names}
    return result, roller.finish()
