"""A small crew and a custom enemy shared by the battle service and API tests."""

from __future__ import annotations

from typing import Any

CREW: list[dict[str, Any]] = [
    {
        "name": "Ria",
        "reactions": 2,
        "speed": 5,
        "combat_skill": 1,
        "toughness": 4,
        "weapons": ["Military rifle"],
        "captain": True,
    },
    {"name": "Bo", "reactions": 1, "speed": 4, "combat_skill": 0, "toughness": 3, "weapons": ["Hand gun"]},
]
PUNKS: dict[str, Any] = {
    "name": "Punks",
    "category": "Criminal Elements",
    "numbers": 1,
    "panic": "1-2",
    "speed": 4,
    "combat_skill": 0,
    "toughness": 3,
    "weapons": "Scrap pistol",
    "base_numbers": 2,
}
