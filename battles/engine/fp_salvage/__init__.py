"""Salvage jobs (Five Parsecs Compendium pp.137-147): the set-up and a live tracker reducer.

``generate(dice, tables, *, crew, options, rivals)`` rolls the set-up (Salvage markers 1D3+1, four
Points of Interest, the deployment edge) and says why the no-minis rules do not apply;
``initial_state(setup, tables)`` makes the tracker's state from it; ``apply(state, action, dice,
tables) -> (new_state, events)`` plays it, refusing with :class:`TrackerError` naming the payload
field (and changing nothing); ``outcome(state)`` sums the mission up for the campaign turn in
the standard battle's keys plus ``won`` and ``salvage``; ``release(state, player)`` hands a
leaving player's crew back. Every roll is in an event's ``data["rolls"]`` with its reason;
players may type the faces they rolled instead.

The round (p.138): round 1 has no Tension roll; Tension is set to the crew halved (rounded up)
when it ends (0 with the easier option). Each later round starts with a D6: above Tension it
goes up by 1; at or under, Tension drops by the roll and a Contact spawns. A round with Contacts
or hostile figures on the table is a battle round (Reactions as usual, the Scanner Check after
the enemy acts, p.140), else an Exploration Round. Fights themselves are played at the table;
the owner records figures going down, fleeing or leaving with ``adjust``.

Rulings:

- Tension never goes below 0; a Rival trap that springs holds it at 0 for good (p.144).
- A random battlefield edge is a D12 read in threes (north, east, south, west); a random pick
  among n items uses a Dn when such a die exists, else a D100 read by position.
- The Hostiles! type (D100) is rolled at the first Hostiles! result only, and its Tension change
  (Infestation +6) comes with it; every Hostiles! result counts toward the Encounter Number,
  whose fourth and later rows give 2 basic enemies (p.140). New figures act from the next round.
- A Lure is a Contact marker; touching it (``reveal_contact``) rolls its own D6 (p.143).
- Nano-swarms (Doomsday protocol) are a count, not Contact markers: they cannot be revealed and
  move 1D6" at every later round's end (p.145).
- Ending the mission takes every crew figure still on the table off an edge; the crew Hold the
  Field when none of them is down for good and no hostile figure is left standing.

State::

    {"mission": "salvage", "round": 0, "phase": "setup" | "round" | "over",
     "round_kind": None | "exploration" | "battle", "scanner_done": False,
     "options": {"easier", "harder", "illegal"}, "deployment": {...},
     "card": {"nominis", "rules", "not_used", "allowed", "table", "rolls", "salvage_markers"},
     "tension": {"value": 0, "set": False, "locked": False, "start": 2},
     "crew": [{"id": "c1", "name", "savvy", "bot", "soulless", "swift", "owner", "status", "down_round"}],
     "pois": [{"id": "p1", "where", "status": "hidden" | "resolved" | "destroyed", "result", "round"?}],
     "contacts": [{"id": "k1", "placed_round", "near", "lure", "move"?}],
     "markers": [{"id": "m1", "kind": "lockbox" | "information", "poi"}],
     "salvage": {"markers": 3, "units": 0},
     "hostiles": {"type": None | {"name", "enemy_table", "core_page", "effect", "grabs_salvage"}, "encounters": 0},
     "enemies": [{"id": "e1", "name", "rank", "side": "hostile" | "third" | "ally", "status",
                  "arrived_round", "acts_from", "down_round", "notes", "survivor"?}],
     "arrivals": [{"name", "round", "counts", "side", "edge", "note"}],
     "hazards": {"obstacles": ["p2"], "evac": None | {"radius", "from_round"}, "swarms": 0},
     "finds": {"credits", "loot_now", "loot_after", "story_points", "quest_rumors"},
     "rivals": [names], "post_game": None | {...}, "won": None | bool, "held_field": None | bool,
     "next": {"enemy", "contact", "marker"}, "now": "...", "last": None | {"type", "text"}}

Actions: ``start``; ``next_round`` {face?, evac_face?, swarm_faces?}; ``reveal_contact`` {contact,
crew, face?, hostile_face?}; ``scanner_check`` {faces?}; ``investigate`` {poi, crew, face?,
test_face?, faces?}; ``use_marker`` {marker, crew, face?}; ``pick_up_salvage`` {crew};
``grab_salvage`` {enemy}; ``adjust`` {figure | enemy, status}; ``caught`` {target, by: evac |
swarm}; ``set_player`` {figure, player};
``end_mission`` {poi_faces?, discovery_faces?, faces?, illegal_face?, scrapper_faces?}.
"""

from __future__ import annotations

from battles.engine.fp_salvage.base import KIND, MISSION, SOURCE
from battles.engine.fp_salvage.reducer import apply, outcome, release
from battles.engine.fp_salvage.setup import NOMINIS, generate, initial_state

__all__ = ["KIND", "MISSION", "NOMINIS", "SOURCE", "apply", "generate", "initial_state", "outcome", "release"]
