"""Bug Hunt live mission tracker (Bug Hunt pp.173, 181, 184-201): a reducer over a JSON-ready state.

``apply(state, action, dice, tables) -> (new_state, events)`` deep-copies the state, dispatches on
``action.type`` and refuses with :class:`TrackerError` naming the payload field (changing nothing)
when the rules say no. ``initial_state(setup, tables)`` builds the state from a generated mission and
``outcome(state)`` sums it up for the post-battle sequence. Every roll is returned in an event's
``data["roll"]`` or ``data["rolls"]``. Directions are a D12 read as a clock face where the book
uses a direction die (see :mod:`bughunt.engine.contacts`). Pure Python: no Django imports.

State::

    {"mission_number": 3, "difficulty": "Mess Me Up", "encounter": 0, "living_nightmare": False,
     "minimum_contacts": None | 3,            # Living Nightmare top-up at each round's end
     "priority_start": 3, "priority": 3,      # Priority +1 at each drop ship arrival
     "spawn_rating": 2, "spawn_unrevealed": 2, "intel_report": False,
     "round": 1, "phase": "start",            # start | quick | enemy | slow | spawn | over
     "precursor_round": None | 2,             # round a Precursor explorer re-rolled a Reaction die
     "beep_done": True, "contacts_moved": False, "screamers_done": False,
     "reaction_dice": [] | [4, 1, 6],         # this round's Reaction D6, one per unit
     "reaction_pick": {"dice": [{"die": 1, "face": 4, "holder": "u1" | None, "holder_name": "Vasquez"}],
                       "first_free": 2 | None},  # what the die pickers offer (derived)
     "units": [{"id": "u1", "kind": "character" | "team", "name": "Vasquez", "owner": "7" | "",
                "reactions": 1, "formation": False, "die": None | 0 (index), "face": None | 4,
                "slot": None | "quick" | "slow", "bonus": 0 | 1, "held": False, "acted": False,
                "snap_fired": False, "active": True,
                "figures": [{"id": "f1", "name": "Vasquez", "main": True, "speed": 4,
                             "combat_skill": 1, "toughness": 3, "savvy": 0, "save": 5 | None,
                             "special": [], "stun": 0, "wounded": False,
                             "status": "active" | "casualty" | "knocked_out" | "exited" | "evacuated",
                             "package": None | "o4", "three_shots_round": None | 2,
                             "combat_round": None | 2,   # round of its last Combat Action (p.198)
                             "moved_round": None | 2, "dashed_round": None | 2,  # its move this round (pp.176, 198)
                             "evac_call_round": None | 5,  # it called Evac: no move or action that round (p.201)
                             "fired_round": None | 2,    # it fired or started a Brawl (no Tactical Location, p.191)
                             "hold_fire_round": None | 2,  # it worked on a Spawn Point: no firing (p.199)
                             "trooper_id": 42 (when the setup gives one), "defeated_by": "Razor lizards",
                             "weapons": [{"name": "Combat rifle", "ones": 0, "malfunctioned": False,
                                          "out_of_ammo": False, "no_malfunction": False,
                                          "temporary": False}]}]}],
     "contacts": [{"id": "c1", "where": "on Objective 2", "placed_round": 1, "moved_round": None,
                   "note": "move 4 inches toward the nearest trooper"}],
     "enemy": None | {...EnemyType.as_dict()}, "variant": None | {"name", "key", "rule"},
     "variant_checked": False, "leader_pool": 3, "enemies_met": ["Razor lizards"],
     "groups": [{"id": "g1", "type": "Razor lizards", "contact": "c1", "round": 2,
                 "figures": [{"id": "e1", "name": "Razor lizard 1", "leader": None | {"name", "key", "rule"},
                              "stun": 0, "wounded": False, "status": "active" | "killed",
                              "placed_round": 2, "acted_round": None | 3, "called_round": None | 3,
                              "distracted_round": None | 3,   # a Distract location holds it that round (p.191)
                              "note": ""}]}],
     "spawn_points": [{"id": "s1", "where": "edge at 5 o'clock", "countdown": None | 3, "closed": False}],
     "locations": [{"id": "t1", "type": None | "Block", "key": None | "block", "rule": "",
                    "failures": 0, "broken": False, "active": False, "blocked": False,
                    "reopens_after": None | 4}],
     "signals": 0, "signals_investigated": 0,
     "objectives": [{"id": "o2", "position": 2, "rank": "Vital Objective", "value": 2, "type": "Hack",
                     "key": "hack", "completed": False, "completed_round": None,
                     "contacted_round": None, "package": None | "marker" | "f3" | "dropped" | "evacuated" | "lost"}],
     "distract_round": None | 3,              # enemies within 18" skip that round's Enemy Action phase
     "delay_until": None | 5,                 # no new Contact markers up to and including that round
     "evac": {"status": "none" | "pending" | "coming" | "hovering" | "left", "caller": None | "f1",
              "arrives_round": None, "leaves_after": None, "arrivals": 0, "fired_round": None},
     "movie_magic_used": ["Barricade"],       # campaign-wide, including this mission's cards
     "movie_magic_mission": [],               # played during this mission
     "bonus_fire": None | {"round": 2, "group": "g3", "fired": ["f1"]},  # "Beep... Sir?" free shots (p.193)
     "pending": None | {"type": "shoot", "payload": {...}, "actor": "7", "role": "player", "faces": [6, 3],
                        "count": 1, "sides": 6, "reason": "Shot gun Rapid Fire dice at ...", "label": "Shooting"},
     "now": "who acts now, in words", "last": None | {"type": ..., "text": ...},
     "next": {"contact": 2, "group": 1, "enemy": 1, "spawn": 1, "unit": 3, "figure": 6}}

Actions (``unit``/``figure``/``contact``/``objective``/``location``/``spawn``/``enemy`` are ids;
``faces`` are typed physical dice, a list or "6, 3"; ``on``/``off`` for flags). The owner is the
referee and may do everything; a player acts only on units whose ``owner`` is their user id.
Who may act when is checked by :mod:`bughunt.engine.tracker.turns` (a trooper's move, then its Combat Action,
in its unit's activation, each once a round; enemies in the Enemy Action phase, not the round
they were placed, not Stunned, not Distracted); any action may carry ``override`` (owner only: a reason, logged) to skip
those checks, and ``typed`` on to type its dice one step at a time (``pending`` says which die
comes next; ``roll_die`` {faces} gives exactly those, ``cancel_roll`` drops the action):

- table: ``set_player`` {unit, player: user id or ""} (owner only: who plays the unit).
- round: ``beep_sir`` {faces?, direction_faces?} (start of round 2+), ``set_formation`` {unit,
  formation}, ``roll_reactions`` {faces?}, ``assign_reaction`` {unit, die (1-based)},
  ``reroll_reaction`` {die, faces?} (a Precursor explorer on the table, once a round),
  ``hold`` {unit}, ``move`` {figure, dash?} (move first, then act, p.198), ``act`` {unit}, ``next_phase`` {faces?; at the end of the Slow phase
  ``near_<objective>`` (Patrol: a trooper within 6") and ``secure_<objective>`` (a trooper within
  6", no enemy within 6")}, ``end_mission``.
- contacts and enemies: ``move_contacts`` {faces?, direction_faces?, leader_<contact>?},
  ``detect`` {contact, band: open|cover, distance?, spotter?, faces?, move_face?, enemy_face?,
  numbers_faces?, variant_face?, leader_faces?, leader_face?, distracted? (revealed within 18"
  of a Distract location)}, ``add_contact`` {where},
  ``remove_contact`` {contact}, ``note_contact`` {contact, where}, ``adjust_enemy`` {enemy,
  stun?, wounded?, status?}, ``caller`` {enemy, faces?}.
- places: ``close_spawn_point`` {spawn, figure, helper?, faces?}, ``investigate`` {location,
  figure?, faces?}, ``activate`` {location, figure, contact?, enemies? or distract_<enemy id>
  on (Distract: those within 18", none named: all), faces?}, ``investigate_signal``.
- objectives: ``scout``, ``beacon``, ``pick_up`` {objective, figure}, ``drop_package`` {figure},
  ``hack`` {objective, figure, faces?}, ``set_objective`` {objective, completed}, ``survey``
  {figure, left?} (Scientific survey team: first at the center, then after a whole round there
  one Objective, once; kept in ``survey_at_center`` {figure, round}).
- evac: ``request_evac`` {figure, faces?}, ``evacuate`` {figure (or unit)}, ``exit_edge`` {figure}.
- figures: ``adjust`` {figure, stun?, wounded?, status?}, ``clear_malfunction`` {figure, weapon,
  faces?}, ``movie_magic`` {card, figure?, weapon?, ally?, contact?, support?, arms?}.
- combat (through :mod:`bughunt.engine.combat`): ``shoot`` {figure, weapon, enemy?, band, moved?,
  behind_cover?, rapid_fire?, near? (ids within 2": Area hits and Stun markers applied),
  shatter_near?, grenade?, faces?}, ``brawl`` {figure, enemy, by? (trooper | enemy), second_opponent?,
  crash?, near?, faces?}, ``hit`` {figure | enemy, damage, piercing?, area?, ranged?, faces?},
  ``drop_ship_fire`` {enemy, band, enemy2?, band2?, faces?}, ``spitter`` / ``lancer`` {enemy,
  figure, faces?}. Any of them may name ``near_<enemy id>`` (the figures within 2" of that
  Shatter-form): a Shatter-form killed by a burst or splash bursts in turn (p.195), on those
  figures or on the first group named, at most 12 bursts an action. Every knock-back is named
  in the event (``knocked_back``).
"""

from __future__ import annotations

from bughunt.engine.tracker.base import (
    DEFAULT_WEAPONS,
    ENEMY_STATUSES,
    EVAC_FROM_ROUND,
    FORMATION_BONUS,
    KNOCKOUT_STUN,
    PHASE_NAMES,
    PHASES,
    POST_BATTLE_CARDS,
    SETUP_CARDS,
    SOURCE,
    STATUSES,
    TROOPER_ARMOR,
)
from bughunt.engine.tracker.outcome import outcome
from bughunt.engine.tracker.reducer import Handler, apply
from bughunt.engine.tracker.rounds import release
from bughunt.engine.tracker.screen import (
    MISSION_SUCCESS,
    delay_in_force,
    distracted,
    drop_ship_fired,
    evac_can_be_called,
    mission_success,
    new_enemies,
    precursor_reroll_open,
    screen,
    signals_short,
)
from bughunt.engine.tracker.setup import initial_state

__all__ = [
    "DEFAULT_WEAPONS",
    "ENEMY_STATUSES",
    "EVAC_FROM_ROUND",
    "FORMATION_BONUS",
    "KNOCKOUT_STUN",
    "MISSION_SUCCESS",
    "PHASES",
    "PHASE_NAMES",
    "POST_BATTLE_CARDS",
    "SETUP_CARDS",
    "SOURCE",
    "STATUSES",
    "TROOPER_ARMOR",
    "Handler",
    "apply",
    "delay_in_force",
    "distracted",
    "drop_ship_fired",
    "evac_can_be_called",
    "initial_state",
    "mission_success",
    "new_enemies",
    "outcome",
    "precursor_reroll_open",
    "release",
    "screen",
    "signals_short",
]
