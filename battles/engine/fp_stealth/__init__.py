"""Stealth missions (Five Parsecs Compendium pp.117-122): the set-up and the live tracker.

- :func:`generate`: the mission's set-up: the objective (D100, p.118), the Individual (D100,
  p.119) when the objective has one, the crew's arrival edge (p.120), the enemy numbers (crew
  size +1 with one Specialist and one Lieutenant, p.122), the card's notes, every roll logged.
- :func:`initial_state` / :func:`apply` / :func:`outcome` / :func:`release`: the tracker, a
  reducer over the Five Parsecs battle tracker's state (:mod:`battles.engine.fp_tracker`) with a
  ``stealth`` part. Until the alarm every round is a Stealth round (p.120): enemies patrol at
  random instead of using their AI (``patrol``, ``blocked``), crew risk detection (``spot``:
  2D6 spotting value against the distance, p.121), use Stay Down, Distraction and Lure
  (pp.121-122), find and take the objective (``search``, ``objective``, ``hand_off``,
  ``pick_up``) and slip away (``exfiltrate``, p.117). The alarm (p.122) ends the Stealth round
  at once: a random reinforcement edge, normal battle rounds from then on, 2D6 at the start of
  each round with a basic enemy per 6.

State: the battle tracker's (see :mod:`battles.engine.fp_tracker`; a crew figure that left has
status ``exfiltrated``) plus::

    "stealth": {"alarm": False, "alarm_round": None | 2, "alarm_cause": "", "reinforcement_edge": None | "left edge (9 o'clock)",
                "first_battle_round": None | 3, "escalating_battles": False,
                "objective": {"key", "name", "effect", "must_locate", "located", "candidates", "searched",
                              "carrier": None | "c2", "dropped"?, "achieved", "failed"},
                "individual": None | {"name", "profile": {...}, "joined": None | "c7", "gone": False},
                "exfiltrated_round", "handed_round", "patrolled_round": None | int, "sentry": None | "e3",
                "blocked": ["e2"], "stay_down": {"c1": 2}, "distracted": ["e4"],
                "suspicious": None | {"enemy", "toward"}, "finished": None | {"won", "why"}}

Rulings:

- Random directions and edges are a D12 read as a clock face (as the battle set-up does).
- The spotting roll is one 2D6 per enemy, -1 when scanning; each target's own modifiers
  (partly obscured -2, -1 per feature between, Shroud -2, Stay Down minus Savvy while obscured)
  are taken off that value for that target (p.121). With Predict the enemy rolls twice and the
  crew keeps the lower roll (p.122).
- A Stealth round's End phase has no Morale, Escalation or other round-end rule: nothing has
  been noticed. Escalating Battles (when on) starts with the second battle round after the
  alarm (p.117). Reinforcements are rolled from the first battle round after the alarm.
- "Outside the Field of Vision" (+2, p.122) is added to the attacker's Combat Skill for that
  attack. An attack by a crew figure raises the alarm when it is a shot with anything but a
  Hand gun or Needle rifle, a Brawl with a Ripper sword, or leaves its enemy target on the
  table (p.122). An enemy's attack always does.
- The objective is done: for an item to retrieve, when its carrier exfiltrates; Deliver, when
  the carrier delivers it; Contact and Transmit, on reaching the Individual; Rescue, when the
  rescued Individual exfiltrates or wanders off the table (p.119). The mission ends when no crew
  figure is left on the table; it is won when the objective is done. The crew Hold the Field
  only if no enemy is left on the table then.
"""

from __future__ import annotations

from battles.engine.fp_stealth.generate import (
    INDIVIDUALS_TABLE,
    INTEGRATION,
    NO_MINIS,
    OBJECTIVE_KEYS,
    OBJECTIVES_TABLE,
    SOURCE,
    StealthSetup,
    generate,
)
from battles.engine.fp_stealth.tracker import ACTIONS, STATUSES, apply, initial_state, outcome, release, stealth_moves

__all__ = [
    "ACTIONS",
    "INDIVIDUALS_TABLE",
    "INTEGRATION",
    "NO_MINIS",
    "OBJECTIVES_TABLE",
    "OBJECTIVE_KEYS",
    "SOURCE",
    "STATUSES",
    "StealthSetup",
    "apply",
    "generate",
    "initial_state",
    "outcome",
    "release",
    "stealth_moves",
]
