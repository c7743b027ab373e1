"""No-minis combat resolution (Compendium pp.66-73), assisted and automatic.

A battle fought without miniatures: no positions, only an abstract battle space with Locations.
Each battle round runs (p.66): 1. Battle flow events (optional, p.71), 2. Initiative, 3. Firefight,
then the end of the round (stun removal p.70, enemy Morale and crew Retreat p.72).

The engine is a reducer over a stored action log: :func:`apply` takes a JSON-ready ``dict`` state, an
action ``dict``, a seeded :class:`~rules.engine.dice.Dice` and the rule tables, and returns a new
state and a list of events; it never mutates its input. Replaying the stored ``(action, seed)``
pairs from the state :func:`new_battle` made gives the same final state.

Rules implemented (page cited at each step in the code)
-------------------------------------------------------
- Initiative (p.67): the crew roll one Reaction die fewer than normal and the player assigns them; the
  captain and every character whose die is at or below their Reactions take one Initiative Action.
- Initiative Actions (pp.67-68), with the 2D6 Battlefield Test numbers and modifiers read from the
  ``no-minis-initiative-actions`` table: Scout for Locations, Move Up, Carry Out Task, Charge, Optimal
  Shot, Support, Take Cover, Keep Distance. A character may claim one +1 for an ability or item that
  logically helps (p.67): ``"bonus": true`` on the action, or the figure's ``bonus_actions`` list.
- Locations (p.68): objectives and Notable Sights start suspected; one character per Location;
  enemies never use them. A Firing Position (battle flow event) shoots at targets as in the open.
- The Firefight (pp.69-70): 3 random enemies (4 when 7 or more remain), resolved in the player's
  order, each against a random crew figure; weapon-range order; melee-only and mixed engagements;
  Taking Cover; one shot per round; Area and Terrifying ignored; all Stun markers cleared at the end
  of the round; a Stunned figure cannot start a Brawl. Hectic and Faster Combat are options.
- Battle flow events (p.71), read from the ``no-minis-battle-flow-events`` D100 table.
- Morale and Retreat (p.72) and the notes for every core mission (pp.72-73).

Shooting and Brawls use :mod:`battles.engine.fp_combat`; hit numbers come in as a
:class:`~battles.engine.fp_combat.HitNumbers` (the Dramatic Combat numbers or the user's core ones).

Inputs taken from the core rulebook (which this project does not hold)
-----------------------------------------------------------------------
- The enemy Panic range (``enemy_panic``, e.g. ``"1-2"``; ``"0"`` or ``""`` for none). The core Morale
  test is applied as: at the end of a round in which enemies became casualties, one D6 per such
  casualty, and each die inside the Panic range removes one enemy (p.72 then picks who goes).
- The normal number of Reaction dice: one per crew figure in the battle, changed by
  ``NoMinisOptions.reaction_dice_modifier`` for anything in the core rules that adds or removes dice.
- Objective rolls (Carry Out Task, p.68): ``mission_setup["task"] = {"dice": "1D6", "stat": "savvy",
  "target": 6}``; without one, the task needs no roll.
- Patrol's number of objectives (``mission_setup["patrol_points"]``, required), the Move Through
  number of figures that must exit (``mission_setup["exits_needed"]``, default 1), the Protect VIP
  profile (``mission_setup["vip"]``, required) and escort, the Deliver carrier, the Eliminate target.

Rulings (where the pages leave it open)
---------------------------------------
- Ruling: the Battlefield Test is rolled first; a random enemy is picked for Charge and Optimal Shot
  only when it passes. The player then decides to Brawl (Charge) or picks the range (Optimal Shot).
- Ruling: "one die fewer" never goes below zero dice; the captain acts even with no die.
- Ruling: a figure's gun is its longest-ranged usable ranged weapon (ties: more Shots, then Damage);
  its Brawl weapon is its most damaging Melee weapon, else a Pistol, else none. A weapon with the
  Melee trait counts as a Melee weapon for the mixed-weapons rule; Pistol-trait weapons never do.
- Ruling: an Area weapon with no Shots fires 1 Shot (Area is ignored, p.70). A Single-use weapon
  leaves the figure's kit once fired. Spare hits after a target falls are lost (no positions).
- Ruling: "hit only on a natural 6" is resolved by asking the resolver for a 6+ with no Combat Skill
  and no to-hit modifiers (Pistol, Snap Shot, Shrapnel, Heavy); Critical still counts a natural 6.
- Ruling: Duck Back and Lunge (Dramatic Combat) have no meaning without positions and are not used.
- Ruling: the once-per-round fire limit (p.70) covers fire in the Initiative and Firefight phases
  (including the enemy's shot at a charging figure); battle flow event shots never count (p.71).
  Overheat counts every shot.
- Ruling: a weapon needs a range of at least 6" for the 6" shots of the melee-only rule and of
  Charge; under Kill zone every shot is at the Kill zone range instead, and Optimal Shot's chosen range
  is replaced by it.
- Ruling: Keep Distance limits both figures to weapons over 12" in every exchange that character is
  in this round, including its own Charge or Optimal Shot; enemies without such a weapon cannot pick
  it as a Firefight target.
- Ruling: the enemy who fired during Optimal Shot is left out of the Firefight draw; the enemy chosen
  for Careful maneuvering stays in the draw but does not attack (its wording says "cannot attack").
- Ruling: under Separated an out-ranged enemy carrying a Melee weapon shoots instead of Brawling, a
  gun-armed enemy still shoots at a melee-only crew figure (6" rule) and no Brawl follows.
- Ruling: a Stunned figure may still shoot; a Stunned brawl-seeker (melee-only figure, an enemy
  charging a figure Taking Cover, a Charging crew member) does not start its Brawl.
- Ruling: in the Faster Combat option the "first exchange" is the first engagement of the Firefight
  phase in which a shot is fired; Optimal Shot (Initiative phase) is not part of it.
- Ruling: in Hectic Combat a figure that already fired this round fires again when engaged, hitting
  only on natural 6s; the natural-6 limit applies to shots, not to Brawls.
- Ruling: Find shortcut moves without taking a Move Up action, so Taking Cover is kept.
- Ruling: Morale removes regulars first, then Specialists, then Lieutenants and other leaders, each
  picked at random within its rank; an Eliminate target goes only when it is the last enemy (p.73).
  Fearless figures never go (elite Lieutenants and Captains, Unique Individuals, p.48, p.62). An
  elite force's Morale also follows its type rules and Leadership (:mod:`.elite`, pp.48-65).
- Stances of automatic play (``options.stance``: cautious, steady, reckless): when the policy
  withdraws figures it uses the Retreat rules (p.72) and Covered retreat (p.71), and the action's
  ``reason`` is logged (:func:`withdraw_reason`).
- Casualty tables (p.99, ``options.casualty_tables``): a hit that beats Toughness rolls the
  figure's table; Wounded halves Speed and takes 1 Combat Skill, a second Wounded is a Goner.
  Ruling: a no-minis round has no activations, so Dazed (keeps its Stun markers once), Damaged
  and Bleeding are resolved at the end of the round.
- Ruling: Acquire: reaching the item picks it up; the objective is met when its carrier retreats.
  Deliver: Carry Out Task at the delivery point by the carrier (captain unless named). A carrier
  who falls (or, in Deliver, leaves the field) drops the item, which becomes a known Location;
  reaching it picks it up again.
- Ruling: Move Through: Carry Out Task at the known exit takes the figure off the battlefield.
- Ruling: Patrol: a Location is checked when a crew figure reaches it; all checked meets the objective.
- Ruling: Protect: the VIP travels with its escort (captain unless named) and cannot be targeted; the
  objective is met when the escort, or the VIP acting alone, reaches the objective Location. If the
  escort falls, the VIP joins the crew as a regular figure; if the VIP falls, the objective fails.
- Ruling: Secure: a round counts when the same crew figure holds the centre at the end of the round
  without having been in a Brawl that round; 2 such rounds in a row meet the objective.
- Ruling: Search: Carry Out Task at a search site searches it. The site holding the item is drawn at
  random among the 5 at the first search; finding it meets the objective (the core rules may ask more).
- Ruling: Defend and Fight Off have no extra notes (p.72); we report the objective as met when the
  crew Hold the Field. Check it against your core rulebook's objective.
- Ruling: every crew casualty is listed in both ``crew_casualties`` and ``crew_injured``: the core
  post-battle injury roll decides what became of them. A Wounded figure still standing is not a
  casualty (its condition ends with the battle, p.100). The battle ends when one side has no figure
  left on the field.

State (JSON-ready ``dict``)::

    {"version": 1, "mode": "assisted" | "automatic", "mission": "access", "options": {...},
     "numbers": {"open": 5, "cover": 6, "source": "..."}, "enemy_panic": "1-2",
     "round": 1, "phase": "flow" | "initiative" | "assign" | "actions" | "firefight" | "end" | "retreat" | "over",
     "crew": [{"name", "reactions", "speed", "combat_skill", "toughness", "savvy", "save", "weapons": [...],
               "captain", "bot", "kerin", "soulless", "special_movement", "bonus_actions": [...], "vip",
               "status": "active" | "attached" | "casualty" | "retreated" | "exited", "stun", "location",
               "taking_cover", "keep_distance", "supports": [names], "fired", "heat", "heat_last",
               "brawled", "die", "eligible", "acted"}],
     "enemies": [{"name", "combat_skill", "toughness", "speed", "save", "weapons", "rank", "target",
                  "status": "active" | "casualty" | "fled", "stun", "fired", "heat", "heat_last", "no_attack"}],
     "locations": [{"name", "kind", "known", "occupant", "checked"}],
     "objective": {...mission progress...}, "flags": {...this round...}, "initiative_dice": [d6, ...],
     "firefight": {"selected": [names], "resolved": [names]}, "pending": None | {"kind": ..., ...},
     "enemy_casualties_round": 0, "finished": False, "end_reason": "",
     "psi_hunters"?: True,  # a Psi-hunter Rival's enemies: +1 to hit or Brawl a crew "psionic" (p.21)
     "psionic_uses"?: 0}  # powers a crew Psionic ("powers", "psionic_round", "barrier_until") projected

Actions (``{"type": ...}``)
---------------------------
- ``roll_flow_event`` {value?: entered D100}; ``roll_initiative`` {faces?: [d6, ...]};
  ``assign_initiative`` {assignments: {name: face}}
- ``initiative_action`` {actor, action, location?, ally?, weapon?, bonus?, faces?: [d6, d6]}
- ``psionic_action`` {actor, power, target?, faces?, strain?, strain_faces?, effect_faces?}: a crew
  Psionic's power in the Initiative Actions step, once per round, before its Initiative Action
  (pp.17-20; powers projected at 6", see :mod:`.psionics`); counted in ``psionic_uses``
- ``end_initiative``; ``engage`` {enemy}; ``end_round``; ``retreat`` {names: [...], reason?: words logged
  as why they leave}; ``set_stance`` {stance} (any step: how readily automatic play withdraws)
- ``decide`` answers the pending question: fleeting_shot {target | None}, find_shortcut {location | None},
  careful_maneuvering {enemy}, covered_retreat {names}, charge {engage: bool}, optimal_shot
  {range: inches | None}, support {supporter | None}, respond {fire: bool, brawl: bool}
- ``auto``: let :func:`auto_action` choose this step.

Modules (this package re-exports the public names, so ``nominis.X`` works as before)
------------------------------------------------------------------------------------
- ``state``: names, :class:`NoMinisOptions`, :class:`NoMinisError`, small state helpers;
  ``setup``: :func:`new_battle`, :func:`weapon_dict`; ``weapons``: which weapon a figure uses and
  its numbers; ``combat``: shooting, Brawls, figures leaving, round start and end checks;
  ``flow``: Battle flow events (p.71); ``initiative``: Initiative and its actions (pp.67-68);
  ``elite``: elite enemy type rules and enemy Psionic powers (pp.22-23, 48-65);
  ``psionics``: a crew Psionic's powers (pp.17-20); ``firefight``: the Firefight (pp.69-70); ``end_round``: Morale and Retreat (p.72);
  ``policy``: :func:`choices` and :func:`auto_action`; ``reducer``: :func:`apply`,
  :func:`play_automatic`, :func:`outcome`.

Pure Python: no Django imports.
"""

from battles.engine.nominis.initiative import suggested_assignment
from battles.engine.nominis.policy import auto_action, choices, withdraw_reason
from battles.engine.nominis.reducer import apply, outcome, play_automatic
from battles.engine.nominis.setup import new_battle, weapon_dict
from battles.engine.nominis.state import (
    ACTIONS,
    ACTIONS_TABLE,
    CHARGE,
    DEFAULT_STANCE,
    END_TABLE,
    FIREFIGHT_TABLE,
    FLOW_TABLE,
    KEEP_DISTANCE,
    KEEP_DISTANCE_IN,
    MISSIONS,
    MODES,
    MOVE_UP,
    NATURAL_SIX,
    NOTES_TABLE,
    OPTIMAL_SHOT,
    RANKS,
    SCOUT,
    SEARCH_SITES,
    STANCES,
    SUPPORT,
    TAKE_COVER,
    TASK,
    Event,
    NoMinisError,
    NoMinisOptions,
    State,
    Tables,
)

__all__ = [
    "ACTIONS",
    "ACTIONS_TABLE",
    "CHARGE",
    "DEFAULT_STANCE",
    "END_TABLE",
    "FIREFIGHT_TABLE",
    "FLOW_TABLE",
    "KEEP_DISTANCE",
    "KEEP_DISTANCE_IN",
    "MISSIONS",
    "MODES",
    "MOVE_UP",
    "NATURAL_SIX",
    "NOTES_TABLE",
    "OPTIMAL_SHOT",
    "RANKS",
    "SCOUT",
    "SEARCH_SITES",
    "STANCES",
    "SUPPORT",
    "TAKE_COVER",
    "TASK",
    "Event",
    "NoMinisError",
    "NoMinisOptions",
    "State",
    "Tables",
    "apply",
    "auto_action",
    "choices",
    "new_battle",
    "outcome",
    "play_automatic",
    "suggested_assignment",
    "weapon_dict",
    "withdraw_reason",
]
