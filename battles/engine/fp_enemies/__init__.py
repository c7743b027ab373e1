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
- :func:`pressed_force` makes a built force harder (more enemies, smaller Panic range, a Unique
  Individual, no Morale): the Quest battles of pp.79-80.
- :func:`psi_hunters` makes a force a Psi-hunter Rival's: flagged, one more Specialist (p.21).
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

from battles.engine.fp_enemies.base import (
    BOUNTY_TABLE,
    CATEGORY_TABLE,
    COMPOSITION_TABLE,
    CORE_CATEGORY,
    CORE_NUMBERS,
    CORE_WEAPONS,
    DRAMATIC_WEAPONS_TABLE,
    GEAR_TABLE,
    LEADERSHIP_TABLE,
    NO_PSIONIC_CATEGORY,
    NO_PSIONIC_TYPES,
    PISTOL_WEAPONS,
    PRESENCE_ELITE_ROLL,
    PRESENCE_OUTNUMBERED,
    PRESENCE_STANDARD,
    PRESENCE_TABLE,
    PSIONIC_POWERS_TABLE,
    PSIONIC_STEPS_TABLE,
    PSIONIC_TOUGHNESS_BONUS,
    PSIONIC_TOUGHNESS_MAX,
    PSIONIC_TYPES,
    PSIONIC_WEAPONS,
    RANK_LABELS,
    RANK_TABLE,
    RANKS,
    REPLACEMENT_TABLE,
    REWARDS_TABLE,
    RIVAL_FOLLOWS_TABLE,
    ROGUE_PSIONIC,
    SECRET_AGENT_TABLE,
    SQUAD_RANKS,
    TOGGLE_TABLE,
    UNIQUE_TABLE,
    EliteRewards,
    EnemyError,
    EnemyFigure,
    EnemyForce,
    EnemyProfile,
    weapon_code,
)
from battles.engine.fp_enemies.forces import core_enemy, roll_elite_enemy
from battles.engine.fp_enemies.pressure import pressed_force
from battles.engine.fp_enemies.profiles import core_profile, custom_enemy, profile_from_entry
from battles.engine.fp_enemies.psionics import enemy_psionics, psi_hunters
from battles.engine.fp_enemies.rewards import elite_rewards, elite_rival_follows

__all__ = [
    "BOUNTY_TABLE",
    "CATEGORY_TABLE",
    "COMPOSITION_TABLE",
    "CORE_CATEGORY",
    "CORE_NUMBERS",
    "CORE_WEAPONS",
    "DRAMATIC_WEAPONS_TABLE",
    "GEAR_TABLE",
    "LEADERSHIP_TABLE",
    "NO_PSIONIC_CATEGORY",
    "NO_PSIONIC_TYPES",
    "PISTOL_WEAPONS",
    "PRESENCE_ELITE_ROLL",
    "PRESENCE_OUTNUMBERED",
    "PRESENCE_STANDARD",
    "PRESENCE_TABLE",
    "PSIONIC_POWERS_TABLE",
    "PSIONIC_STEPS_TABLE",
    "PSIONIC_TOUGHNESS_BONUS",
    "PSIONIC_TOUGHNESS_MAX",
    "PSIONIC_TYPES",
    "PSIONIC_WEAPONS",
    "RANKS",
    "RANK_LABELS",
    "RANK_TABLE",
    "REPLACEMENT_TABLE",
    "REWARDS_TABLE",
    "RIVAL_FOLLOWS_TABLE",
    "ROGUE_PSIONIC",
    "SECRET_AGENT_TABLE",
    "SQUAD_RANKS",
    "TOGGLE_TABLE",
    "UNIQUE_TABLE",
    "EliteRewards",
    "EnemyError",
    "EnemyFigure",
    "EnemyForce",
    "EnemyProfile",
    "core_enemy",
    "core_profile",
    "custom_enemy",
    "elite_rewards",
    "elite_rival_follows",
    "enemy_psionics",
    "pressed_force",
    "profile_from_entry",
    "psi_hunters",
    "roll_elite_enemy",
    "weapon_code",
]
