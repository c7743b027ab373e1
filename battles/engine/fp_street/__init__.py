"""Five Parsecs Street Fights (Compendium pp.123-136): the set-up generator and the live tracker.

``generate(dice, tables, *, crew, ...)`` rolls the set-up card (buildings, objective, Suspect and
City markers, entry points; every roll logged with its reason). ``initial_state(setup, tables)``
makes the tracker's state from it, and ``apply(state, action, dice, tables) -> (new_state,
events)`` is the reducer (refusing with :class:`TrackerError` naming the payload field, changing
nothing). ``outcome(state)`` sums the fight up in the standard battle's result shape.
Players may type every die (``face`` and the other ``*_face`` keys).

The round is the core one, Reactions, Quick, Enemy, Slow, End, with the chapter's own rules:
Suspect markers act after the revealed enemies in the Enemy phase (p.125) and are identified
within 4" + Savvy in Line of Sight; the first Enemy sets the opposition (p.129); City markers
give an event at the end of each Slow phase (p.133) and are found within 4" (pp.134-135); the
Siren clock brings the law (p.135); Messing with the Law (p.136). No Morale, Escalation,
Deployment Variables, Notable Sights or Deployment Conditions (pp.123, 128). The fight ends when
no crew figure is left on the table: you must get off it (p.136).

Rulings: "random direction" and "random table edge" are a D12 read as a clock face; marker
order ("left to right", p.125) is marker-number order, so number them left to right; the
Shootout (p.128) and all shooting and Brawling are fought at the table and their result set with
``adjust``; Enforcers and Gang turf gangers take their profiles from the core rules.

State::

    {"mission": "street_fight", "round": 0, "phase": "setup" | "start" | "quick" | "enemy" | "slow" | "end" | "over",
     "visibility_in": 9, "table_ft": 3,
     "objective": {"name", "key": "contact" | "locate" | "surveil" | "confront" | "rescue" | "deliver" | "retrieve",
                   "effect", "done", "failed", "why", "markers_left", "markers_removed", "surveilled",
                   "surveil_round", "confront": None | "Terrified" | ..., "corralled", "deliverer"},
     "individual": None | {"speed": 4, "toughness": 3, "status": "hidden" | "wandering" | "panicked" | "removed" | "off_table" | "casualty"},
     "package": None | {"status": "carried" | "on_table" | "dropped" | "placed" | "off_table" | "destroyed", "carrier": None | "c1"},
     "crew": [{"id": "c1", "name", "ref", "savvy", "reactions", "speed", "combat_skill", "toughness", "captain",
               "owner", "status": "active" | "casualty" | "escaped" | "detained", "stun", "die", "face",
               "slot", "evade_round", "fired_on_law", "barbarians_ignore"}],
     "enemies": [{"id": "e1", "name", "type", "speed", "combat_skill", "toughness", "ai", "weapons",
                  "special_rules", "where", "status": "active" | "casualty" | "fled" | "ally", "stun",
                  "combatant", "law", "individual", "revealed_by", "arrived_round", "bomber"?, "shout"?, "shrugged"?}],
     "bombs": [{"id": "b1", "by": "e3"}],
     "suspects": [{"id": "s1", "where", "pursuing"}], "suspects_round", "interesting_round", "trouble_round",
     "city": {"in_use", "markers", "curiosities", "crowds", "roadblocks", "botstructions", "reporters"},
     "enemy_types": [{"name", "effect", "speed", ...}], "known_enemy", "weird_place", "reveals", "spooks",
     "separatists_called", "pending": {"set_up_round", "gang_turf_round"},
     "sirens": None | {"clock", "arrived", "why"}, "law": {"attacked", "rivals"},
     "pay": {"quest_clues", "credits", "rivals"}, "detained": [{"figure", "name", "level", "turns", "prison", "confiscated"}],
     "card": {"blocks", "entries", "captain", "city_markers", "not_used", "notes", "nominis", "rolls"},
     "reaction_dice": [], "reaction_pick": {...}, "present": ["Main Gang"], "held_field": None | bool, "won": None | bool,
     "last": None | {"type", "text"}, "next": {"enemy", "suspect", "bomb"}}

Actions: ``next_phase`` {city_face?, siren_face?, law_edge_face?, edge_face?, fanatic_faces?},
``roll_reactions`` {faces?}, ``assign_reaction`` {figure, die}, ``set_player`` {figure, player},
``suspects_act`` {faces?}, ``identify`` {figure, suspect, face?, enemy_face?, type_face?,
direction_face?}, ``trouble`` {enemy, face?}, ``evade`` {figure, face?}, ``city_reveal`` {figure,
face?, follow_face?, combatant_face?, direction_face?}, ``curiosity`` {figure, face?},
``botstruction`` {figure, face?}, ``city_clear`` {what, fired?}, ``reporter`` {crew?},
``attack_law`` {figure}, ``savvy`` {figure, test, enemy?, bomb?, face?}, ``terror`` {enemy,
plant?, bomb?, face?, bomb_face?}, ``surrender`` {figure, face?, turns_face?}, ``contact`` {figure},
``locate`` {figure, face?}, ``surveil`` {figure}, ``individual`` {status}, ``corral`` {figure,
face?, suspect?}, ``confront`` {figure, face?, combatant_face?}, ``threaten`` {figure, face?},
``objective_done``, ``individual_off``, ``package`` {figure, do, to?}, ``escape`` {figure},
``shout`` {enemy}, ``adjust`` {figure | enemy, stun?, stun_change?, status?, drop_face?, bounty_face?}, ``end_battle``.
"""

from __future__ import annotations

from battles.engine.fp_street.common import MISSION, NOMINIS_WHY, PHASE_NAMES, PHASES, SOURCE, captain_note
from battles.engine.fp_street.flow import release
from battles.engine.fp_street.reducer import ACTIONS, apply, outcome
from battles.engine.fp_street.setup import LAW_RIVALS, generate, initial_state

__all__ = [
    "ACTIONS",
    "LAW_RIVALS",
    "MISSION",
    "NOMINIS_WHY",
    "PHASES",
    "PHASE_NAMES",
    "SOURCE",
    "apply",
    "captain_note",
    "generate",
    "initial_state",
    "outcome",
    "release",
]
