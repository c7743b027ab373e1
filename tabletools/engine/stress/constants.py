"""Stress dice: the document's numbers, skills, ranges, panic triggers and item sizes (Stress dice skill checks, p.1)."""

from __future__ import annotations

SOURCE = "Stress dice skill checks, p.1"

ATTRIBUTES: dict[str, str] = {"strength": "Strength", "agility": "Agility", "wits": "Wits", "empathy": "Empathy"}

SKILLS: dict[str, tuple[str, str]] = {
    "heavy_machinery": ("Heavy Machinery", "strength"),
    "close_combat": ("Close Combat", "strength"),
    "stamina": ("Stamina", "strength"),
    "ranged_combat": ("Ranged Combat", "agility"),
    "mobility": ("Mobility", "agility"),
    "piloting": ("Piloting", "agility"),
    "observation": ("Observation", "wits"),
    "survival": ("Survival", "wits"),
    "comtech": ("Comtech", "wits"),
    "command": ("Command", "empathy"),
    "manipulation": ("Manipulation", "empathy"),
    "medical_aid": ("Medical Aid", "empathy"),
}
"""Skill key -> (name, attribute key): three skills under each attribute."""

SUCCESS_FACE = 6
PANIC_FACE = 1
PANIC_LASTING = 7
PANIC_CANCELS = 10
MAX_HELPERS = 3
AIM_BONUS = 2
PUSH_STRESS = 1
CAPACITY_PER_STRENGTH = 2

RANGES: tuple[str, ...] = ("engaged", "short", "medium", "long", "extreme")
RANGE_MODIFIERS: dict[str, int] = {"engaged": -3, "short": 0, "medium": -1, "long": -2}
"""Printed range modifiers; Extreme has none printed and comes from ``settings``."""
DEFENCELESS_BONUS = 3
DEFAULT_EXTREME = -3
"""Extreme range is not given a number in the document; -3 continues Medium -1, Long -2."""

ACTION_KINDS: tuple[str, ...] = ("slow", "fast", "block", "free")
"""How a check is spent: a slow or fast action, a block (a reaction using a later action),
or free (outside combat: no action used)."""

PANIC_TRIGGERS: dict[str, str] = {
    "stress_die": "a 1 on a stress die",
    "witness": "seeing a friend panic",
    "pinned": "being pinned down by ranged fire",
    "critical_injury": "a critical injury",
    "unknown_alien": "an attack by a creature never seen before",
    "horror": "a horrifying event",
}
LASTS: dict[str, str] = {
    "immediate": "over at once",
    "round": "lasts this round",
    "until_aid": "lasts until someone calms them with Command, they are Broken, or a Turn passes",
}
STRESS_UP: dict[str, str] = {
    "scary": "something scary",
    "full_auto": "full auto fire",
    "panic_nearby": "others panicking nearby",
    "damage": "taking damage",
    "deprivation": "going without sleep, food or water",
    "other": "another cause",
}
STRESS_DOWN: dict[str, str] = {
    "rest": "a rest somewhere safe",
    "signature": "their signature item",
    "other": "another relief",
}
WEIGHTS: dict[str, float] = {"regular": 1.0, "heavy": 2.0, "light": 0.5, "tiny": 0.0}
"""Regular-item slots by size. Heavy may count more than 2, light may count 0.25."""
SETTINGS: dict[str, tuple[int, int]] = {"extreme_modifier": (-6, 0)}
