"""Words for the campaign log: option names, values and changes read as a player reads them,
never as Python (no ``['a', 'b']``, ``True`` or ``snake_case`` keys), and "a" or "an" as
the next word wants.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

#: Difficulty toggle names as the book gives them (pp.32-34).
TOGGLE_NAMES: dict[str, str] = {
    "strength_adjusted_enemies": "Strength-adjusted Enemies",
    "money_is_tight": "Money is Tight",
    "slower_progression": "Slower Progression",
    "veteran": "Veteran",
    "actually_specialized": "Actually Specialized",
    "armored_leaders": "Armored Leaders",
    "better_leadership": "Better Leadership",
    "paying_by_the_hour": "They are Paying us by the Hour",
    "movement_all_over": "Movement all over the Place",
    "fickle_scans": "Fickle Scans",
    "gutter_starting_kit": "Meager starting kit",
    "gutter_small_crew": "Short-handed crew",
    "gutter_no_ship": "No ship",
    "reduced_lethality": "Reduced Lethality",
}
#: Campaign option and change keys in words.
KEY_NAMES: dict[str, str] = {
    "crew_size": "crew size",
    "introductory_campaign": "Introductory Campaign",
    "loans": "Loans",
    "story_track": "Story Track",
    "expanded_factions": "Expanded Factions",
    "victory_condition": "victory condition",
    "difficulty_mode": "difficulty mode",
    "toggles": "difficulty toggles",
    "progressive": "progressive difficulty options",
    "fringe_world_strife": "Fringe World Strife",
    "dramatic_combat": "Dramatic Combat",
    "casualty_tables": "casualty tables",
    "detailed_injuries": "detailed post-battle injuries",
    "psionics": "Psionics",
    "elite_enemies": "elite-level enemies",
    "house_rules": "house rules",
    "xp": "XP",
    "sick_bay": "turns in Sick Bay",
    "hull_damage": "Hull damage",
    "component_add": "new component",
    "balance": "owed",
    "psionic_legality": "Psionic legality",
    "instability": "Instability",
    "attacked_turn": "attacked in turn",
    "no_job_turn": "no job since turn",
    "no_activity_turn": "no activity since turn",
}


def plural(count: int, noun: str, many: str = "") -> str:
    """``"1 casualty"``, ``"2 casualties"`` (``many`` is the plural when not ``noun + "s"``)."""
    return f"{count} {noun if count == 1 else (many or noun + 's')}"


def with_article(phrase: str) -> str:
    """``"an Opportunity"``, ``"a Patron"``: "an" before a vowel sound's letter (a, e, i, o;
    "u" words such as "Unity" keep "a")."""
    text = phrase.strip()
    return f"{'an' if text[:1].lower() in ('a', 'e', 'i', 'o') else 'a'} {text}"


def key_words(key: str) -> str:
    """An option or change key in words (``"crew_size"`` -> ``"crew size"``)."""
    return KEY_NAMES.get(key) or TOGGLE_NAMES.get(key) or key.replace("_", " ")


def value_words(key: str, value: Any) -> str:
    """A value in words: on/off for flags, a list joined with commas (toggle names as the book
    gives them, "none" when empty), numbers and text as they are."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "none"
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else list(value)
        if key == "toggles":
            return ", ".join(TOGGLE_NAMES.get(str(i), str(i).replace("_", " ")) for i in items) or "none"
        return ", ".join(str(i).replace("_", " ") for i in items) or "none"
    return str(value).replace("_", " ")


def sentence(text: str) -> str:
    """``text`` ending as a sentence: a full stop unless it already ends in ``.``, ``?`` or ``!``."""
    text = text.strip()
    return text if not text or text[-1] in ".?!" else f"{text}."


def option_words(key: str, value: Any) -> str:
    """One chosen option: ``"Dramatic Combat"`` for a flag that is on, ``"crew size 4"``,
    ``"difficulty toggles: Money is Tight"``."""
    if value is True:
        return key_words(key)
    if isinstance(value, (list, tuple, set, frozenset)):
        return f"{key_words(key)}: {value_words(key, value)}"
    return f"{key_words(key)} {value_words(key, value)}"


def option_change_words(key: str, before: Any, after: Any) -> str:
    """One changed option: ``"Dramatic Combat off to on"``."""
    joiner = ": " if isinstance(after, (list, tuple, set, frozenset)) else " "
    return f"{key_words(key)}{joiner}{value_words(key, before)} to {value_words(key, after)}"


def pairs_words(data: Mapping[str, Any], *, skip: Iterable[str] = ()) -> str:
    """A change's data in words: ``{"xp": 3, "unstable": True}`` -> ``"+3 XP, unstable"``. A
    flag that is on is its name; off, "not" and its name; numbers that add keep their sign."""
    left_out = set(skip)
    said: list[str] = []
    for key, value in data.items():
        if key in left_out:
            continue
        name = key_words(key)
        if isinstance(value, bool):
            said.append(name if value else f"not {name}")
        elif key in ("xp", "balance", "influence", "power", "loyalty", "amount") and isinstance(value, int):
            said.append(f"{value:+d} {name}")
        elif isinstance(value, (list, tuple, set, frozenset)):
            said.append(f"{name}: {value_words(key, value)}")
        else:
            said.append(f"{name} {value_words(key, value)}")
    return ", ".join(said)
