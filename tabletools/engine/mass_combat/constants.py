"""Mass combat: sides, squad types, dice and the faces that hit or save (Quickstart Rules for Mass Combat, p.1)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from live.engine.tracker import Action, Event
from rules.engine.dice import Dice

SOURCE = "Quickstart Rules for Mass Combat, p.1"

SIDES = ("a", "b")
HEROES_SIDE = "a"
"""Side ``a`` holds the heroes (the player characters) whose checks decide priority."""

SQUAD_TYPES: dict[str, tuple[str, int]] = {
    "soldiers": ("Soldiers", 6),
    "paladins": ("Paladins", 6),
    "skirmishers": ("Skirmishers", 7),
    "casters": ("Casters", 6),
    "medics": ("Medics/Clerics", 5),
}
"""Squad type -> (name on screen, speed in squares)."""

CASTER_REACH = 5
"""Casters attack and assist in combats up to this many squares away."""

PRIORITY_SKILLS = ("History", "Bluff", "Perception", "Insight")
RESULTS = ("success", "failure")
SAVE_DICE = ("D6", "D10", "D12", "D20")
WATCHTOWER = "watchtower"
HIT_FACE = 6
CIRCLE_HIT_FACE = 5
BARRIER_SAVE_FACE = 5

State = dict[str, Any]
Handler = Callable[[State, Action, Dice], list[Event]]
