"""Words for players: a table entry's structured data and a roll on a table, as people read them.

The engines keep data under snake_case keys with slugs and identifiers as values; a player at
the table should never see those. These helpers are presentation only (no rules).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from rules.engine.tables import TableRoll

# An identifier (``morale_increase``) or a slug (``elite-criminal-elements``): starts with a
# letter, so dice ranges ("1-2") and notation ("1D6") are left alone.
_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
_SLUG = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$")
_LOWER_WORD = re.compile(r"^[a-z]+$")

# Key endings that carry a unit: the unit goes on the value, not in the label.
_UNITS = {"_in": '"', "_deg": "°", "_ft": " ft", "_m": " m"}
# Words in keys that players read in capitals.
_ACRONYMS = frozenset({"ai", "xp", "pc", "npc", "poi", "pvp", "hp"})
# Key endings that only say how the value is stored.
_DROPPED = ("_slug",)


def _unit(key: str) -> tuple[str, str]:
    """``"range_in"`` → ``("range", '"')``; a key without a unit ending comes back unchanged."""
    for ending, unit in _UNITS.items():
        if key.endswith(ending) and len(key) > len(ending):
            return key[: -len(ending)], unit
    for ending in _DROPPED:
        if key.endswith(ending) and len(key) > len(ending):
            return key[: -len(ending)], ""
    return key, ""


def label(key: str) -> str:
    """A data key as a label: ``"seize_initiative_modifier"`` → ``"Seize initiative modifier"``,
    ``"range_in"`` → ``"Range"``, ``"table_slug"`` → ``"Table"``."""
    words = _unit(key)[0].replace("_", " ").strip()  # hyphens stay: "1-2" is a dice range
    words = " ".join(w.upper() if w in _ACRONYMS else w for w in words.split(" "))
    return words[:1].upper() + words[1:]


def is_slug_like(value: str) -> bool:
    """Whether ``value`` is an identifier or a slug that must be turned into words."""
    return bool(_SNAKE.match(value) or _SLUG.match(value))


def value_words(value: Any, *, unit: str = "", titles: Mapping[str, str] | None = None) -> str:
    """A data value in words: yes/no, "none", lists joined with commas, nested mappings as
    "label value" pairs, a table's slug as that table's title (from ``titles``), any other
    identifier or slug as plain words. ``unit`` follows numbers and dice ("4"" for inches)."""
    titles = titles or {}
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None or value == "" or value == [] or value == {}:
        return "none"
    if isinstance(value, list | tuple):
        return ", ".join(value_words(v, unit=unit, titles=titles) for v in value)
    if isinstance(value, Mapping):
        return "; ".join(_pair(str(k), v, titles, sep=" ") for k, v in value.items())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str):
        if value in titles:
            return titles[value]
        if is_slug_like(value):
            return value.replace("_", " ").replace("-", " ")
    return f"{value}{unit}"


def _pair(key: str, value: Any, titles: Mapping[str, str], *, sep: str) -> str:
    _, unit = _unit(key)
    return f"{label(key)}{sep}{value_words(value, unit=unit, titles=titles)}"


def _letters(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def data_words(data: Mapping[str, Any] | None, titles: Mapping[str, str] | None = None, *, result: str = "") -> str:
    """An entry's ``data`` as one line of words:
    ``{"combat_skill": 1, "traits": ["Pistol"], "range_in": 6}`` →
    ``"Combat skill: 1 · Traits: Pistol · Range: 6""``. ``titles`` maps table slugs to titles.

    A value that only repeats the entry's ``result`` name (``"kerin"`` for K'Erin) is left out."""
    if not data:
        return ""
    same = _letters(result) if result else None
    return " · ".join(
        _pair(str(key), value, titles or {}, sep=": ")
        for key, value in data.items()
        if not (same and isinstance(value, str) and _letters(value) == same)
    )


def slugs_in(value: Any) -> Iterator[str]:
    """Every slug-like string inside a data value (to look up the titles of tables it names)."""
    if isinstance(value, str):
        if _SLUG.match(value):
            yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from slugs_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from slugs_in(item)


_SNAKE_IN_TEXT = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
_SLUG_IN_TEXT = re.compile(r"(?<![\w-])[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![\w-])")


def slugs_in_text(text: str) -> Iterator[str]:
    """Every hyphenated lower-case word in ``text`` that may be a table's slug."""
    for match in _SLUG_IN_TEXT.finditer(text or ""):
        yield match.group(0)


def prose_words(text: str, titles: Mapping[str, str] | None = None) -> str:
    """A table's notes for players: a table slug becomes that table's title (``titles``) and a
    data key becomes words (``extra_action`` → ``extra action``); other text is unchanged."""
    if not text:
        return ""
    titles = titles or {}
    text = _SLUG_IN_TEXT.sub(lambda m: titles.get(m.group(0), m.group(0)), text)
    return _SNAKE_IN_TEXT.sub(lambda m: m.group(0).replace("_", " "), text)


def roll_lead(outcome: TableRoll, die: str) -> str:
    """How a roll on a table reads: ``"You rolled 47 on D100"`` for a number the player typed,
    ``"Dropship rolled 3 + 4 = 7 on 2D6"`` for a roll it made; a modifier shows as
    ``"45 + 2 = 47"`` and a total outside the table as ``"…, read as 100"``."""
    record = outcome.record
    who = "You rolled" if record.entered else "Dropship rolled"
    natural = record.natural if record.natural is not None else outcome.value
    faces = record.kept or record.faces
    shown = " + ".join(map(str, faces)) if len(faces) > 1 else str(natural)
    parts = [shown]
    if len(faces) > 1 and not record.modifier:
        parts.append(f"= {natural}")
    if record.modifier:
        sign = "+" if record.modifier > 0 else "-"
        parts.append(f"{sign} {abs(record.modifier)} = {record.total}")
    text = f"{who} {' '.join(parts)} on {die}"
    if outcome.clamped:
        text += f", read as {outcome.value}"
    return text
