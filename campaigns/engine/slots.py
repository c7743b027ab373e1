"""Table slots: the core-rulebook tables a campaign can map to the player's own tables.

Our sources are the Compendium only. Where a campaign step needs a table from the core
rulebook, the campaign maps a named slot to a user table (the player owns the book and types
it in, or imports it). A step whose slot is empty asks for the result by hand.

Each :class:`Slot` names the die it expects (``""`` means any die) and the ``data`` keys a
rule reads from its entries (empty when only the result name is used).

Pure Python: no Django imports.
"""

from __future__ import annotations

from dataclasses import dataclass

PROFILE_KEYS = ("reactions", "speed", "combat_skill", "toughness", "savvy")


@dataclass(frozen=True)
class Slot:
    key: str
    title: str
    used_by: str
    die: str = ""
    data_keys: tuple[str, ...] = ()
    reference: bool = False


SLOTS: tuple[Slot, ...] = (
    Slot("starting_profiles", "Species starting profiles", "crew creation", data_keys=PROFILE_KEYS, reference=True),
    Slot(
        "advancement_costs",
        "Character upgrade costs",
        "experience and upgrades",
        data_keys=("stat", "xp", "maximum"),
        reference=True,
    ),
    Slot("character_background", "Character background", "crew creation"),
    Slot("character_motivation", "Character motivation", "crew creation"),
    Slot("character_class", "Character class", "crew creation"),
    Slot("starship_travel_events", "Starship travel events", "travel"),
    Slot("world_traits", "World traits", "new world arrival"),
    Slot("patron_jobs", "Patron jobs", "job offers"),
    Slot("trade", "Trade table", "crew tasks"),
    Slot("exploration", "Exploration table", "crew tasks"),
    Slot("deployment_conditions", "Deployment conditions", "battle"),
    Slot("notable_sights", "Notable sights", "battle"),
    Slot("objectives", "Mission objectives", "battle"),
    Slot("enemy_encounters", "Core enemy encounter table", "battle"),
    Slot("battlefield_finds", "Battlefield finds", "post-battle"),
    Slot("invasion", "Invasion check", "post-battle"),
    Slot("loot", "Loot table", "post-battle"),
    Slot("injuries", "Post-battle injuries", "post-battle"),
    Slot("bot_injuries", "Bot injuries", "post-battle"),
    Slot("campaign_events", "Campaign events", "post-battle"),
    Slot("character_events", "Character events", "post-battle"),
    Slot("galactic_war", "Galactic War progress", "post-battle"),
)
SLOT_KEYS: tuple[str, ...] = tuple(s.key for s in SLOTS)


def slot(key: str) -> Slot:
    """The slot called ``key``. Raises :class:`KeyError` naming the known slots."""
    for found in SLOTS:
        if found.key == key:
            return found
    raise KeyError(f"No table slot {key!r}; slots are {', '.join(SLOT_KEYS)}.")
