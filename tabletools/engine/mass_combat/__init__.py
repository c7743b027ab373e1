"""Mass combat tracker (Quickstart Rules for Mass Combat, p.1).

Two sides field squads (Soldiers, Paladins, Skirmishers, Casters, Medics/Clerics) with hero units
attached. A round has three phases:

- **Priority**: each hero unit of the heroes' side (side ``a``) makes a History, Bluff,
  Perception or Insight check; the check belongs to the host game, so only its result is
  entered. If at least half succeed the heroes' side chooses who has priority, otherwise the
  other side (``b``) chooses.
- **Action**: the side with priority takes its turn, then the other side. A turn has a *move*
  step (each squad: a move, and its standard action may become a second move), a *combat* step
  (combats between squads, siege engines firing) and, when the side has Skirmishers, an *after*
  step in which Skirmishers may move again. Hero units use their squad's minor action for skill
  checks at any step of their side's turn.
- **Reposition**: each hero unit may move to another squad of its side, or to the watchtower.

Combat: each squad rolls D6 equal to its level (less one per siege engine it fired this round);
any 6 scores one hit, at most one per squad. Casters roll first (first strike). Each hit
destroys one squad of the other side, taken in that side's loss order (``set_loss_order``;
otherwise lowest level first). A squad of half the level of its target or less needs two hits
to destroy it. Soldiers that score cancel one enemy hit each; Paladins score with every 6 against
undead; a squad on an enemy magic circle is hit on 5-6; a squad next to a Medic may be saved by
the Medic's saving throw plus the Medic's level (die and target are table settings). When both
sides survive an exchange the attacker presses (rolls again) or retreats one square.

A hero unit whose squad is destroyed falls back to the closest squad of its side without a hero
(its controller names it) and loses its minor action for the round; with no way there it is
trapped. At the start of its side's turn a trapped hero moves if it can, or loses a healing
surge; with none to lose it leaves the fight until revived.

State (JSON-ready dict)::

    {"round": 0, "phase": "setup" | "priority" | "action" | "reposition",
     "settings": {"save_die": "D20", "save_target": 10},
     "sides": {"a": {"name": "Heroes", "owner": "7" | None, "loss_order": ["s3"]}, "b": {...}},
     "squads": [{"id": "s1", "side": "a", "name": "Iron Guard", "type": "soldiers", "level": 3,
                 "position": "C4", "undead": False, "large": False, "medic": "s2" | None,
                 "circle": "d4" | None, "destroyed": False, "move_used": False,
                 "standard_used": False, "second_move": False, "minor_used": False,
                 "skirmish_used": False, "engines_fired": 0, "heal": False, "rolled_turn": False}],
     "heroes": [{"id": "h2", "side": "a", "name": "Aria", "owner": "7" | None, "surges": 6,
                 "status": "attached" | "watchtower" | "retreating" | "trapped" | "removed",
                 "squad": "s1" | None, "minor_used": False, "minor_lost": False,
                 "repositioned": False, "check": None | {"skill": "Insight", "result": "success"}}],
     "engines": [{"id": "e3", "side": "a", "name": "Ballista", "level": 2, "position": "",
                  "destroyed": False, "fired": False}],
     "defences": [{"id": "d4", "side": "b", "kind": "barrier" | "circle", "name": "Palisade",
                   "level": 2, "position": "", "destroyed": False}],
     "priority": {"chooser": None | "a" | "b", "side": None | "a" | "b", "successes": 0, "checks": 0},
     "turn": None | {"side": "a", "step": "move" | "combat" | "after", "index": 0 | 1,
                     "trapped_due": ["h2"]},
     "combat": None | {"attacker": "a", "defender": "b", "attackers": [...], "defenders": [...],
                       "exchange": 1, "stage": "first_strike" | "main" | "decide",
                       "to_roll": [...], "hits": [...], "wounds": {"s5": 1}, "resolving": False,
                       "rolled": False},   # any dice rolled in this exchange yet
     "losses": [{"squad": "s5", "cause": "hit by Iron Guard"}],   # squads about to be destroyed
     "pending": None | {"kind": "medic_save", "squad": ..., "medic": ..., "cause": ...}
                     | {"kind": "barrier_save", "defence": ..., "engine": ...},
     "last": [{"text": ..., "roll": {...}}],   # the rolls of the latest action that rolled
     "next_id": 5}

Actions (payload values may be numeric strings; lists may be comma-separated strings):
owner set-up ``set_side`` {side, name?, owner?}, ``add_squad`` {side, name, squad_type, level,
position?, undead?, large?}, ``set_hero_owner`` {hero, owner?}, ``add_hero`` {side, name, at, owner?, surges?}, ``add_engine`` {side,
name, level, position?}, ``add_defence`` {side, kind, name, level?, position?}, ``remove`` {id},
``set_setting`` {save_die?, save_target?}, ``place`` {squad, position?, medic?, circle?},
``set_surges`` {hero, surges}, ``revive_hero`` {hero, at, surges?}; play ``advance``,
``priority_check`` {hero, skill, result}, ``choose_priority`` {side}, ``trapped_hero`` {hero,
squad?}, ``hero_retreat`` {hero, squad?}, ``reposition`` {hero, to}, ``move`` / ``second_move`` /
``skirmish_move`` {squad, position?, medic?, circle?}, ``hero_check`` {hero, skill, result,
note?}, ``set_loss_order`` {side, order}, ``start_combat`` {squads | characters}, ``assist``
{squad}, ``combat_roll`` {squad?, faces?}, ``medic_save`` {faces?}, ``press``, ``retreat``
{position?}, ``fire_engine`` {engine, squad, target, faces?}, ``barrier_save`` {faces?}.

Every die roll is one :class:`Event` with its roll record under ``data["roll"]``; an optional
``faces`` payload records physical dice instead (a list, or one comma-separated string).

Pure Python: no Django imports.

The package along the rules' sections: ``constants``, ``state`` (a new battle, speed, combat
dice), ``helpers`` (payload, lookups, permissions, phase guards), ``setup``, ``rounds``
(priority, turns, reposition), ``squads`` (moves and hero checks), ``combat``, ``siege``
(engines and barriers) and ``reducer`` (``apply``). This module re-exports the public names.
"""

from __future__ import annotations

from tabletools.engine.mass_combat.constants import (
    BARRIER_SAVE_FACE,
    CASTER_REACH,
    CIRCLE_HIT_FACE,
    HEROES_SIDE,
    HIT_FACE,
    PRIORITY_SKILLS,
    RESULTS,
    SAVE_DICE,
    SIDES,
    SOURCE,
    SQUAD_TYPES,
    WATCHTOWER,
    Handler,
    State,
)
from tabletools.engine.mass_combat.reducer import apply
from tabletools.engine.mass_combat.rounds import _priority_heroes as _priority_heroes
from tabletools.engine.mass_combat.setup import release
from tabletools.engine.mass_combat.state import combat_dice, initial_state, speed

__all__ = [
    "BARRIER_SAVE_FACE",
    "CASTER_REACH",
    "CIRCLE_HIT_FACE",
    "HEROES_SIDE",
    "HIT_FACE",
    "PRIORITY_SKILLS",
    "RESULTS",
    "SAVE_DICE",
    "SIDES",
    "SOURCE",
    "SQUAD_TYPES",
    "WATCHTOWER",
    "Handler",
    "State",
    "apply",
    "combat_dice",
    "initial_state",
    "release",
    "speed",
]
