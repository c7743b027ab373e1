"""Five Parsecs live battle tracker (Compendium pp.30-49, 99-100; the core rulebook's battle round):
a reducer over a JSON-ready state, in the style of :mod:`bughunt.engine.tracker`.

``apply(state, action, dice, tables) -> (new_state, events)`` deep-copies the state, dispatches on
``action.type`` and refuses with :class:`TrackerError` naming the payload field (changing nothing)
when the rules say no. ``initial_state(setup, tables)`` builds the battle from a set-up mapping and
``outcome(state)`` sums it up for the post-battle sequence. Every roll is returned in an event's
``data["rolls"]`` as RollRecord dicts; players may type the faces they rolled (``faces`` and the
other ``*_faces`` keys), so replaying an action with the same seed gives the same state.

The round: Seize the Initiative before round 1; then each round Reactions (one D6 per crew figure,
assigned freely: at or under the figure's Reactions acts in the Quick Action phase, above it in
the Slow Action phase), Quick Actions, Enemy Actions, Slow Actions, and the End phase where the
round-end rules run in this order: Morale, Respawns, "Movement all over the place" arrivals,
deployment arrivals (Infiltration, Reinforced, Concealed), the Escalation check, the time limit.

What the core rulebook holds (not in our source) is an input, never a number of ours:
the Seize the Initiative dice and target (``seize_dice``, ``seize_target``), the hit numbers when
Dramatic Combat is off (``hit_numbers``), weapon profiles typed by the user, enemy profiles and
Panic ranges (set-up).

Rulings:

- Morale: at the end of a round each enemy group rolls one Morale D6 per figure of that group that
  became a casualty this round (the Compendium counts Morale dice per casualty, pp.49, 56); each die
  within the group's Panic range makes one figure flee. Fearless figures never flee; basic enemies
  flee first, then specialists, then leaders (as p.72 orders it); the owner may swap with ``adjust``.
- Panic range: set-up gives the top of the range ("1-2" is 2, 0 is Fearless). Escalation "Morale
  increase" lowers it by 1 for every group, then the elite Leadership table (p.49, only for groups
  marked ``elite``) reads the lowered range with the highest rank still on the table. A range the
  table does not list is left as it is.
- Escalation triggers (p.46) count enemies removed during the round, including those that fled
  at this round's Morale, which is checked first. "Morale increase" when every group is already
  Fearless becomes "Fighting intensifies". Random picks (an enemy, a flank) use a die of the
  right size and are recorded. New figures copy the group's basic profile and weapons.
- Deployment variables (pp.44-45): failing to Seize the Initiative (or being unable to) rolls the
  D100 deployment table for the main AI type; seizing means Line. "Half" the force is the later
  half of the enemy list, rounded down; Concealed splits the force into three groups in turn.
  The battle does not end on an empty table while Infiltration or Concealed figures are still to
  come; Reinforced ends it when the table is empty after its roll (p.45).
- Progressive difficulty option 1 (p.30): the highest Strength entry at or under the campaign turn
  adds figures to the first enemy group at set-up; the highest Respawn entry replaces that many
  of the first basic enemies to become casualties, at the end of the round they fell. Option 2
  (p.31) switches on the listed options from its campaign turn.
- Casualty tables (pp.99-100, rolled by :func:`battles.engine.fp_combat.casualty`): one roll per
  hit that beat Toughness (knock-outs by Stun markers skip the tables), the Boss column for the
  crew captain, Lieutenants, Captains and Unique Individuals; only the highest applies; Damaged
  and Bleeding add their +1 to later rolls. Critical Hit: one extra roll per such hit whose Hit
  die was a natural 6 (``critical`` in the payload forces one). Wounded halves Speed (rounded
  down) and takes 1 from Combat Skill (not below -1); a second Wounded is a Goner. Dazed / shut
  down figures keep their Stun marker at their next activation.
- Activation: a crew figure's ``act`` or an enemy's ``enemy_act`` removes one Stun marker (unless
  Dazed); Damaged figures roll a D6 as they activate (6 removes them); Bleeding figures roll a D6
  after it (1 ends it, 6 is a Goner).
- Paying by the Hour (p.34): the time limit (2D6 keep the higher, +4) is rolled as the battle
  starts; after that round only Defend and Fight Off objectives can still be won.
- Holding the Field: the crew hold it when the enemy is gone from the table at a round's end (and
  none is still to arrive); not when every crew figure is a casualty; otherwise the owner says so
  with ``end_battle``.

State::

    {"round": 0, "phase": "setup" | "start" | "quick" | "enemy" | "slow" | "end" | "over",
     "ai": "tactical", "campaign_turn": 1, "objective": "Fight Off",
     "options": {"casualty_tables": False, "critical_hits": False, "escalating_battles": False,
                 "escalation_variation": False, "deployment_variables": False, "ai_variations": False,
                 "dramatic_combat": False, "movement_all_over": False, "paying_by_the_hour": False,
                 "actually_specialized": False, "armored_leaders": False, "veteran": False,
                 "progressive": [1, 2], "from_progressive": ["escalating_battles"]},
     "seize": {"dice": "2D6" | None, "target": 10 | None, "modifier": 0, "allowed": True,
               "no_modifiers": False, "result": None | "seized" | "failed" | "not_allowed", "total": None,
               "psi_hunters"?: True},  # -2 against a Psi-hunter Rival's group (p.21)
     "hit_numbers": None | {"open": 4, "cover": 5},
     "deployment": None | {"name": "Reinforced", "key": "reinforced", "effect": "..."},
     "time_limit": None | 7, "time_up": False,
     "reaction_dice": [4, 1, 6], "reactions_one_round": None | 3,
     "reaction_pick": {"dice": [{"die": 1, "face": 4, "holder": "c1" | None, "holder_name": "Ripley"}], "first_free": 2 | None},
     "panic_shift": 0, "escalation": {"rolls": 0, "seen": ["sniper"], "objective_round": None | 2},
     "respawns": {"allowed": 0, "used": 0}, "movement_arrivals": 0,
     "groups": [{"id": "g1", "name": "Punks", "panic": 2, "elite": False, "kind": "humanoid",
                 "ai": "aggressive", "profile": {...}, "weapons": [...], "specialist_weapons": [...],
                 "save": None}],
     "crew": [{...figure, "side": "crew", "rank": "crew", "reactions": 1, "savvy": 0, "captain": False,
               "owner": "", "die": None | 0, "face": None | 4, "slot": None | "quick" | "slow"}],
     "enemies": [{...figure, "side": "enemy", "group": "g1",
                  "rank": "basic" | "specialist" | "lieutenant" | "captain" | "unique",
                  "waiting": None | "reinforced" | "infiltration" | "concealed1"}],
     "held_field": None | True | False, "now": "...", "last": None | {"type", "text"},
     "next": {"crew": 4, "enemy": 9}}

A figure: ``{"id", "name", "side", "kind": "humanoid" | "cybernetic" | "beasts", "boss", "speed",
"combat_skill", "toughness", "save", "weapons": [{"name", "range", "shots", "damage", "traits"}],
"stun", "wounded", "unwounded" (profile before Wounded), "dazed", "damaged", "bleeding",
"casualty_modifier", "fearless", "acted",
"status": "active" | "casualty" | "fled" | "held", "down_round": None | 2, "notes": []}``.

Actions (``figure`` is a crew id ``c1``…, ``enemy`` an enemy id ``e1``…; faces are lists or "6, 3"):

- set-up: ``seize`` {faces?, modifier?} (rolls the deployment table too when that option is on
  and the crew did not seize; ``deployment_face`` is a typed D100), ``set_player`` {figure, player}.
- round: ``next_phase`` {time_faces? (leaving set-up), morale_faces?, escalation_face?,
  arrival_faces?, edge_faces?, reinforced_face?, placement_face?, feature_faces?, pick_faces?,
  objective_reached?}, ``roll_reactions`` {faces?}, ``assign_reaction`` {figure, die (1-based)},
  ``act`` {figure, faces?}, ``enemy_act`` {enemy, base?, also?, faces?, check_faces?},
  ``objective_reached``, ``end_battle`` {held_field?}.
- figures: ``adjust`` {figure | enemy, stun?, stun_change?, wounded?, status?}.
- combat: ``resolve`` {attacker, target (crew or enemy ids), mode: shot | brawl, weapon?,
  target_weapon?, range?, cover?, moved?, fired_last_round?, faces?, casualty_faces?, critical?}
  through :mod:`battles.engine.fp_combat`; ``hazard_hit`` {target, damage, source?, piercing?,
  ignores_screens?, faces?, casualty_faces?, critical?} (owner only) for a hit no figure fires,
  such as a Salvage hazard that ignores Screens (p.141).
- grid (Compendium pp.90-93, option ``grid`` "3x3" | "3x4" | "4x4"): ``grid_place`` {figure |
  enemy | neutral, square, flank?} and ``grid_move`` {figure | enemy, square}; see
  :mod:`battles.engine.fp_tracker.grid`.
- Saving Throws keep their kind (p.26): a figure's ``save_kind`` (armor when missing, screen or
  both) and ``second_save`` (the other kind's save) go to the resolver, where Piercing negates
  only Armor and a hit that ignores Screens only Screens.
"""

from __future__ import annotations

from battles.engine.fp_tracker.base import (
    AI_TYPES,
    AI_VARIATION_TYPES,
    ESCALATION_EDGE,
    KINDS,
    OPTION_FLAGS,
    PHASE_NAMES,
    PHASES,
    RANKS,
    SOURCE,
    STATUSES,
    TIME_OBJECTIVES,
)
from battles.engine.fp_tracker.flow import release
from battles.engine.fp_tracker.grid import grid_option, grid_sizes
from battles.engine.fp_tracker.lookups import _on_table as _on_table
from battles.engine.fp_tracker.lookups import _waiting as _waiting
from battles.engine.fp_tracker.lookups import panic_range
from battles.engine.fp_tracker.reducer import Handler, apply, outcome
from battles.engine.fp_tracker.setup import initial_state

__all__ = [
    "AI_TYPES",
    "AI_VARIATION_TYPES",
    "ESCALATION_EDGE",
    "KINDS",
    "OPTION_FLAGS",
    "PHASES",
    "PHASE_NAMES",
    "RANKS",
    "SOURCE",
    "STATUSES",
    "TIME_OBJECTIVES",
    "Handler",
    "apply",
    "grid_option",
    "grid_sizes",
    "initial_state",
    "outcome",
    "panic_range",
    "release",
]
