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

from bughunt.engine.combat.attacks import (
    AttackResult,
    CheckResult,
    DropShipFire,
    SplitResult,
    acid_blob_death,
    clear_malfunction,
    drop_ship_fire,
    lancer_dart,
    shatter_burst,
    spitter_attack,
)
from bughunt.engine.combat.brawling import BrawlResult, brawl_weapon, resolve_brawl
from bughunt.engine.combat.figures import Combatant, Weapon, apply_stun, enemy_combatant, support_combatant, weapon
from bughunt.engine.combat.hits import HitResult, resolve_hit, save_for
from bughunt.engine.combat.numbers import (
    ACID_BLOBS,
    ASSASSIN,
    BAND_WORDS,
    BANDS,
    BERSERK_ROBOTS,
    BRAWL_BEST_OF_TWO,
    BRUISER,
    CONVERTED_ASSAULT_TEAM,
    FACE_RIPPER_SAVE,
    FACE_RIPPERS,
    IGNORES_ARMOR,
    LANCER,
    MALFUNCTION_ONES,
    OUTCOMES,
    REMOVED,
    SHATTER_DAMAGE,
    SHATTER_FORMS,
    SLITHERING_HORRORS,
    SPITTERS,
    TENTACLE_CREEPERS,
    THE_SWARM,
    TOUGHS,
    VENT_CRAWLERS,
    CombatError,
    Numbers,
    WeaponError,
    flag_for,
)
from bughunt.engine.combat.shooting import ShotResult, SplashRoll, resolve_shot

__all__ = [
    "ACID_BLOBS",
    "ASSASSIN",
    "BANDS",
    "BAND_WORDS",
    "BERSERK_ROBOTS",
    "BRAWL_BEST_OF_TWO",
    "BRUISER",
    "CONVERTED_ASSAULT_TEAM",
    "FACE_RIPPERS",
    "FACE_RIPPER_SAVE",
    "IGNORES_ARMOR",
    "LANCER",
    "MALFUNCTION_ONES",
    "OUTCOMES",
    "REMOVED",
    "SHATTER_DAMAGE",
    "SHATTER_FORMS",
    "SLITHERING_HORRORS",
    "SPITTERS",
    "TENTACLE_CREEPERS",
    "THE_SWARM",
    "TOUGHS",
    "VENT_CRAWLERS",
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
