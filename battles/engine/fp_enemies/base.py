"""Five Parsecs enemy generation's table slugs, ranks and names, its error, and the forces it
returns: profiles, figures, forces and elite rewards (Compendium pp.22-24, 48-65).

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.engine.dice import RollRecord
from rules.engine.errors import RuleError

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
#: What a typed core weapon code looks like: a digit and a letter, spaces and case forgiven.
_CODE_LIKE = re.compile(r"^\s*(\d)\s*([A-Za-z])\s*$")
_NAME_ALIASES: Mapping[str, str] = {"duelingpistol": "duellingpistol"}
_ALL = 10**6


class EnemyError(RuleError):
    """An enemy request the rules cannot build; ``field`` names the input at fault."""


def weapon_code(text: str, *, field: str = "weapons") -> str | None:
    """The core rulebook's enemy weapon code in ``text`` ("1A" to "3C"; "1 a" reads as "1A"),
    or None when ``text`` is not written as a code (a weapon name, "-" or nothing). Raises
    :class:`EnemyError` naming ``field`` for a code outside 1A-3C ("4D")."""
    found = _CODE_LIKE.match(str(text or ""))
    if found is None:
        return None
    code = f"{found.group(1)}{found.group(2).upper()}"
    if not _WEAPON_CODE.match(code):
        raise EnemyError(f"{field}: {text.strip()!r} is not a core weapon code; codes run 1A to 3C.", field=field)
    return code


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
    - ``psionics_checked``: :func:`enemy_psionics` has run; ``psi_hunters``: the force is a
      Psi-hunter Rival's (:func:`psi_hunters`, p.21); ``rolls``: every roll made; ``lines``: a
      readable summary.
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
    psi_hunters: bool = False

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
            "psi_hunters": self.psi_hunters,
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
