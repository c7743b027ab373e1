"""The live PvP battle (Compendium pp.35-37): two players' crews on one table, each player on
their own device.

The package, along the battle's sections: :mod:`.base` (phases, seats, who may act), :mod:`.setup`
(the first state), :mod:`.rounds` (deployment, round start, Reactions, activations, initiative
points), :mod:`.combat` (attacks, a side wiped out), :mod:`.ending` (the phases moving on, the end
of each round, ending by agreement), :mod:`.table` (the third party gone, the referee's seat,
retreats, corrections, objectives) and :mod:`.reducer` (the handlers, :func:`apply`,
:func:`outcome`).

``apply(state, action, dice, tables) -> (new_state, events)`` deep-copies the state, dispatches
on ``action.type`` and refuses with :class:`TrackerError` naming the payload field (changing
nothing) when the chapter says no. Every die is rolled or typed and returned in an event's
``data["rolls"]``.

Seats: each side has ``players`` (user ids as text). A player acts only for a side they sit on,
with that side's figures and initiative points; the table's owner has no say over the other
side (a player who sits on both sides, one device at the table, plays both). Readers watch.
``referee`` (a user id as text, or ``None``): a third user who runs the three-way battle's third
party from their own device (``seat_referee`` seats a room member who plays neither crew); with
a referee seated only they act for the third party, without one either player does. The referee
never acts for a crew (refused naming ``figure``). ``unseat_referee``: the referee leaves, or a
host's player frees the seat of one who has gone; either player runs the third party again. All information is open: the chapter hides
nothing (Reaction dice are rolled and assigned in the open, the First Player first; the third
party's force is on the card for everyone).

The battle, in the chapter's order:

- ``deploy`` {figures}: players take turns placing two figures (fewer when fewer are left),
  the lower Power Rating first (p.36). The last placement starts round 1.
- Each round: both sides get 1 initiative point (p.35). ``roll_reactions`` {faces?}: the First
  Player rolls first, then the Second (one D6 per figure on the table); ``assign_reaction``
  {figure, die}: at or under the figure's Reactions it acts in the Quick Action phase, above it
  in the Slow Action phase.
- Quick and Slow Actions: ``activate`` {figures}: the player whose turn it is picks one or two
  of their figures able to act in the phase; then the other player; alternating until all
  have acted (a player with none left passes the turn). Activating removes one Stun marker.
  ``resolve`` {attacker, target, mode shot | brawl, weapon?, target_weapon?, range?, cover?,
  moved?, faces?, draw_if_lost?}: only a figure of the current activation attacks, and only an
  enemy figure. ``spend_point`` {use, figure}: Fire (before the shot: +1 Shot, natural 1s to
  Hit rerolled), Double Speed (one move), Remove all Stun markers (a figure selected to act);
  ``draw_if_lost`` on a brawl spends a point only if the figure lost, to make it a draw.
- ``next_phase`` {end_faces?, reinforcement_faces?}: once everyone in the phase has acted. The
  Enemy Actions phase comes only with third-party figures on the table (p.37): whoever runs the
  third party ``activate``s any of its figures and ``resolve``s their attacks against figures of
  either crew (the third party treats both crews as one force); the crews attack its figures
  in their own phases. It deploys by its D100 row: on a neutral edge or near the centre from the
  start, or arriving at the start of round 3 or of a rolled round, or with 1D6 reinforcements at
  the start of round 3 (typed ``reinforcement_faces``). With every figure of it off the table
  and none to come it is gone. Leaving the Slow Action phase ends the round:
  2D6 against the round number; under it, the battle ends at the end of the next round (p.36).
  The First Player token passes to the other player.
- Morale: at the end of a round the third party rolls one D6 per figure of it that became a
  casualty that round (typed ``morale_faces`` on the ``next_phase`` that ends the round); each
  die in its Panic range makes one figure flee (p.37: Morale dice only for AI forces).
- ``agree_end``: at a round's end both players may agree to stop, unless a third party is on
  the table (``third_party_gone`` marks it gone); nobody Holds the Field then (p.36).
- ``retreat`` {figure} off the battlefield edge; ``adjust`` {figure, stun?, status?} corrects a
  figure of one's own side; ``objective_done``: the side completed its objective.

The expanded co-op battle (``mode`` ``"coop"``, pp.39-41; the set-up card from
:func:`battles.engine.fp_pvp.coop.coop_waves` as ``third_party``): the two crews are one force
against the enemy waves (the third-party machinery: its runner, the Enemy Actions phase). It
starts at round 1 with Wave 1 and both crews on the table (no Seize the Initiative, no
initiative points: ``spend_point`` and ``agree_end`` are refused). Each player rolls their own
crew's Reaction dice, in any order (``side`` names the crew for a player of both); in the Quick
and Slow phases the players take turns with one figure each, the one with fewer figures to use
starting (the host on a tie, our ruling); crews attack only enemies. Wave 2 arrives at the start
of round 3 (typed ``wave_faces`` for its edge); from round 3, while Wave 3 has not come, the
``next_phase`` that ends the round takes the 2D6 (``end_faces``) whose total under the round
number brings it (``wave_faces`` again; Wave 2's edge sends it opposite). Morale per wave with
Panic 1 (``morale_faces``, Wave 1's first). The battle is won (``held_field`` ``"both"``) at a
round's end with no enemy on the table, Wave 2 come, and Wave 3 come and gone or the round 6 or
later (Make it Quick); lost (``"none"``) when neither crew has a figure on the table. All is
open, as in PvP.

A side with no figure left on the table loses; the other Holds the Field. Not modelled: the
casualty tables and Wounded results (a hit that beats Toughness is a casualty), the third
party's AI choices (its runner plays them at the table), movement.

State::

    {"round": 0, "phase": "deploy" | "reactions" | "quick" | "enemy" | "slow" | "end" | "over",
     "turn": "host" | "guest" | None, "first_player": "host",
     "sides": {"host": {"name", "players": ["3"], "points": 0, "power_rating": 5,
               "reaction_dice": [4, 1] | None, "pick": None | reaction_pick(...),
               "objective_done": False, "agree_end": False}, ...},
     "figures": [{"id": "h1", "side": "host", "name", "ref", "reactions", "speed", "combat_skill",
                  "toughness", "savvy", "save", "save_kind", "second_save", "weapons", "bot",
                  "kerin", "stun": 0, "status": "undeployed" | "active" | "casualty" | "retreated",
                  "die": None | 0, "face": None, "slot": None | "quick" | "slow", "acted": False}],
     "activation": None | {"side", "figures": ["h1"], "fire": ["h1"]},
     "ending": {"last_round": None | 4}, "referee": None | "7",
     "third_party": None | {"gone": False, "next": 9, "reinforcement": figure, ...card},
     "dramatic_combat": True, "hit_numbers": None | {"open": 5, "cover": 6},
     "held_field": None | "host" | "guest" | "none", "last": None | {"type", "text"}}
"""

from __future__ import annotations

from battles.engine.fp_pvp.tracker.base import COOP, PHASE_NAMES, PHASES, POINT_USES, THIRD
from battles.engine.fp_pvp.tracker.reducer import HANDLERS, apply, outcome
from battles.engine.fp_pvp.tracker.setup import initial_state

__all__ = ["COOP", "HANDLERS", "PHASES", "PHASE_NAMES", "POINT_USES", "THIRD", "apply", "initial_state", "outcome"]
