"""Stress-dice skill checks with panic (the "Stress dice skill checks" module, p.1).

A skill check rolls base D6 (attribute + skill; the attribute alone when the skill is untrained,
changed by gear, conditions, helpers, range and aim, each +1/-1 adding or removing a base die)
and one stress D6 per stress level. Any 6 on either kind succeeds; extra 6s boost it. A 1 on a
stress die forces a panic roll and forbids pushing. Pushing, once per check, rerolls every die
that is not a 6, raises stress by 1 and adds a stress die; androids cannot push. A panic roll is
1D6 + stress: 7+ is a lasting panic effect, 10+ cancels the action of the check that caused it
even after a success; a new panic while panicked replaces the old effect, one step worse when
the new roll is lower. In combat each character has one slow and one fast action per round.

The panic effects table is not part of the document: the group supplies it as a user table
(``panic_table`` rows ``{low, high, result, effect, lasts}``); until then results show the panic
value. ``lasts`` is ``immediate``, ``round`` or ``until_aid`` (until a Command check by someone
else, being Broken, or a Turn passing).

State (JSON-ready dict)::

    {"round": 1, "settings": {"extreme_modifier": -3},
     "panic_table_slug": "", "panic_table": [{"low": 7, "high": 7, "result": "...", "effect": "...",
                                              "lasts": None | "immediate" | "round" | "until_aid"}],
     "characters": [{"id": "c1", "name": "Ripley", "owner": "7" | None, "android": False,
                     "attributes": {"strength": 3, "agility": 4, "wits": 4, "empathy": 3},
                     "skills": [{"key": "ranged_combat", "name": "Ranged Combat",
                                 "attribute": "agility", "level": 2}, ... all twelve],
                     "stress": 0, "conditions": [{"name": "Starving", "modifier": 0,
                                                  "blocks_relief": True}],
                     "items": [{"id": "i1", "name": "Pulse rifle", "weight": "heavy", "slots": 2}],
                     "load": 2, "capacity": 6, "over_encumbered": False,
                     "signature": "", "signature_used": False, "broken": False,
                     "slow_used": False, "fast_used": False, "aimed": False,
                     "helpers": [{"id": "c2", "action": "slow"}],
                     "check": None | {...the open check, see _check},
                     "pending_panic": None | {"trigger": "stress_die", "from_check": True},
                     "panic": None | {"value": 8, "roll": 8, "result": "", "effect": "",
                                      "lasts": "until_aid", "trigger": "pinned"}}],
     "last": None | {...the last result card}, "next_id": 2, "next_item": 1}

Actions (``id`` is a character id; numbers may arrive as numeric strings; ``faces`` and
``stress_faces`` are lists or comma-separated text of D6 faces typed from physical dice):

- set-up, owner only: ``add_character`` {name, owner?, android?, strength, agility, wits,
  empathy, <skill key>?..., stress?, signature?}, ``edit_character`` {id, same fields},
  ``remove_character`` {id}, ``set_setting`` {name: extreme_modifier, value},
  ``set_panic_lasts`` {id, lasts}, ``new_round``, ``turn_passes``, ``new_act``.
- play, owner or the character's player: ``check`` {id, skill, action: slow|fast|block|free,
  gear?, modifier?, range?, defenceless?, calm?, faces?, stress_faces?}, ``push`` {id, faces?,
  stress_faces?}, ``panic_roll`` {id, trigger?, faces?}, ``help`` {id, target, action},
  ``withdraw_help`` {id}, ``aim`` {id}, ``take_action`` {id, action: slow|fast, name?},
  ``stress_up`` {id, reason, amount?}, ``stress_down`` {id, reason}, ``add_condition`` {id, name,
  modifier?, blocks_relief?}, ``remove_condition`` {id, name}, ``add_item`` {id, name, weight,
  slots?}, ``remove_item`` {id, item}, ``set_broken`` {id, broken}.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from live.engine.tracker import (
    Action,
    Event,
    NotYours,
    Role,
    TrackerError,
    payload_faces,
    payload_flag,
    payload_int,
    require_owner,
)
from rules.engine.dice import Dice, DiceError, Keep, RollRecord

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


def initial_state(
    *,
    extreme_modifier: int = DEFAULT_EXTREME,
    panic_table: Sequence[Mapping[str, Any]] = (),
    panic_table_slug: str = "",
) -> dict[str, Any]:
    """A new table: round 1, no characters.

    ``extreme_modifier`` (-6..0) is the Extreme range modifier; ``panic_table`` rows are
    ``{low, high, result, effect, lasts?}`` dicts from the group's panic table. Raises
    :class:`TrackerError` (field ``extreme_modifier`` or ``panic_table``) for bad values.
    """
    low, high = SETTINGS["extreme_modifier"]
    if not low <= extreme_modifier <= high:
        raise TrackerError(f"extreme_modifier must be from {low} to {high}; got {extreme_modifier}.", field="extreme_modifier")
    return {
        "round": 1,
        "settings": {"extreme_modifier": extreme_modifier},
        "panic_table_slug": panic_table_slug,
        "panic_table": clean_panic_table(panic_table),
        "characters": [],
        "last": None,
        "next_id": 1,
        "next_item": 1,
    }


def clean_panic_table(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Panic rows sorted by ``low``: ``{low, high, result, effect, lasts}``; ``lasts`` is one of
    :data:`LASTS` or ``None`` (then 7+ lasts until aid, lower values are over at once).

    Raises :class:`TrackerError` (field ``panic_table``) when a row has no whole-number range.
    """
    clean: list[dict[str, Any]] = []
    for row in rows:
        try:
            low, high = int(row["low"]), int(row["high"])
        except (KeyError, TypeError, ValueError):
            raise TrackerError("panic_table rows need whole-number low and high values.", field="panic_table") from None
        lasts = row.get("lasts")
        clean.append(
            {
                "low": low,
                "high": high,
                "result": str(row.get("result", "")),
                "effect": str(row.get("effect", "")),
                "lasts": lasts if lasts in LASTS else None,
            }
        )
    return sorted(clean, key=lambda r: r["low"])


def sixes(faces: Sequence[int]) -> int:
    """How many faces are successes (6s) (p.1)."""
    return sum(1 for f in faces if f == SUCCESS_FACE)


def panic_row(table: Sequence[Mapping[str, Any]], value: int) -> int | None:
    """Index of the panic table row for ``value``: the row whose range holds it, the last row
    above the table, the first below it; ``None`` with no table."""
    if not table:
        return None
    for index, row in enumerate(table):
        if row["low"] <= value <= row["high"]:
            return index
    return len(table) - 1 if value > table[-1]["high"] else 0


def one_step_worse(table: Sequence[Mapping[str, Any]], value: int) -> int:
    """The panic value one step more severe than ``value``: the next row's lowest value, or
    ``value + 1`` without a table or past its last row (p.1)."""
    index = panic_row(table, value)
    if index is None or index + 1 >= len(table):
        return value + 1
    return int(table[index + 1]["low"])


def range_modifier(state: Mapping[str, Any], distance: str, *, defenceless: bool = False) -> int:
    """Base dice change for a ranged attack at ``distance`` (one of :data:`RANGES`): Engaged -3,
    or +3 against a defenceless or unaware target; Short 0; Medium -1; Long -2; Extreme from the
    owner's setting (p.1)."""
    if distance == "engaged" and defenceless:
        return DEFENCELESS_BONUS
    if distance == "extreme":
        return int(state["settings"]["extreme_modifier"])
    return RANGE_MODIFIERS[distance]


def apply(state: dict[str, Any], action: Action, dice: Dice) -> tuple[dict[str, Any], list[Event]]:
    """The reducer: ``(state, action, dice) -> (new_state, events)``. Raises
    :class:`TrackerError` (or :class:`NotYours`) naming the payload field, and changes nothing,
    when the action is refused."""
    handler = _HANDLERS.get(action.type)
    if handler is None:
        raise TrackerError(f"Unknown action {action.type!r}; use one of {', '.join(sorted(_HANDLERS))}.", field="type")
    new = copy.deepcopy(state)
    events = handler(new, action, dice)
    return new, events


# -- payload helpers ------------------------------------------------------------------------


def _text(action: Action, key: str, *, limit: int = 60, required: bool = True, what: str = "") -> str:
    value = str(action.payload.get(key, "") or "").strip()
    if required and not value:
        raise TrackerError(f"{key} is required: {what or key}.", field=key)
    return value[:limit]


def _choice(action: Action, key: str, allowed: Sequence[str], *, default: str | None = None) -> str:
    raw = action.payload.get(key)
    value = default if raw is None or raw == "" else str(raw).strip().lower().replace(" ", "_")
    if value is None or value not in allowed:
        shown = "nothing" if raw is None or raw == "" else repr(raw)
        raise TrackerError(f"{key} must be one of {', '.join(a for a in allowed if a) or 'nothing'}; got {shown}.", field=key)
    return value


def _pool(dice: Dice, count: int, faces: list[int] | None, reason: str) -> RollRecord | None:
    """Roll (or record typed faces for) ``count`` separate D6; ``None`` for no dice."""
    if count == 0:
        return None
    if faces is not None:
        try:
            return Dice.enter(f"{count}D6", faces, reason, keep=Keep.SEPARATE)
        except DiceError as exc:  # pragma: no cover - _faces checked count and range
            raise TrackerError(str(exc), field="faces") from None
    return dice.separate(count, 6, reason)


def _character(state: dict[str, Any], char_id: Any, *, field: str = "id") -> dict[str, Any]:
    for char in state["characters"]:
        if char["id"] == str(char_id):
            return char  # type: ignore[no-any-return]
    known = ", ".join(f"{c['id']} ({c['name']})" for c in state["characters"]) or "none yet"
    raise TrackerError(f"No character {char_id!r}; characters: {known}.", field=field)


def _mine(action: Action, char: Mapping[str, Any]) -> None:
    """Refuse unless the actor is the owner or plays ``char``."""
    if action.role == Role.VIEWER or (action.role == Role.PLAYER and char["owner"] != action.actor):
        raise NotYours(f"{char['name']} is not one of your characters.")


def _skill_key(action: Action, key: str = "skill", default: str | None = None) -> str:
    raw = action.payload.get(key, default)
    value = str(raw or "").strip().lower().replace(" ", "_")
    if value not in SKILLS:
        names = ", ".join(name for name, _ in SKILLS.values())
        raise TrackerError(f"{key} must be one of {names}; got {raw!r}.", field=key)
    return value


def _skill(char: Mapping[str, Any], key: str) -> dict[str, Any]:
    for skill in char["skills"]:
        if skill["key"] == key:
            return skill  # type: ignore[no-any-return]
    raise TrackerError(f"No skill {key!r}.", field="skill")  # pragma: no cover - every sheet has all twelve


def _refresh_load(char: dict[str, Any]) -> None:
    """Carried load in regular items against twice Strength (p.1)."""
    char["load"] = _number(sum(item["slots"] for item in char["items"]))
    char["capacity"] = CAPACITY_PER_STRENGTH * int(char["attributes"]["strength"])
    char["over_encumbered"] = char["load"] > char["capacity"]


def _number(value: float) -> int | float:
    """Whole numbers as ``int`` so screens show 2, not 2.0."""
    return int(value) if float(value).is_integer() else float(value)


def _lasting(char: Mapping[str, Any]) -> bool:
    return char["panic"] is not None


def _spend(char: dict[str, Any], kind: str) -> str:
    """Use the slow or fast action (block: fast if unused, else slow); returns what was used, or
    ``free``. Raises :class:`TrackerError` (field ``action``) when it is already used."""
    if kind == "free":
        return "free"
    if kind == "block":
        if not char["fast_used"]:
            kind = "fast"
        elif not char["slow_used"]:
            kind = "slow"
        else:
            raise TrackerError(f"{char['name']} has used both actions this round and cannot block.", field="action")
    if char[f"{kind}_used"]:
        raise TrackerError(f"{char['name']} has already used their {kind} action this round.", field="action")
    char[f"{kind}_used"] = True
    return kind


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else f"-{-n}"


def _breakdown(parts: Sequence[tuple[str, int]]) -> str:
    """``Agility 3 + Ranged Combat 2 + aim 2 - Medium range 1``."""
    words = []
    for index, (label, n) in enumerate(parts):
        term = f"{label} {abs(n)}" if n else label
        words.append(term if index == 0 else f"{'+' if n >= 0 else '-'} {term}")
    return " ".join(words)


def _faces_text(faces: Sequence[int]) -> str:
    return ", ".join(map(str, faces)) if faces else "none"


def _sixes_text(n: int) -> str:
    return "no 6" if n == 0 else ("one 6" if n == 1 else f"{n} sixes")


# -- set-up ---------------------------------------------------------------------------------


def _sheet(char: dict[str, Any], action: Action, *, new: bool) -> None:
    """Set sheet fields present in the payload (all four attributes are required when ``new``)."""
    for key in ATTRIBUTES:
        if new or key in action.payload:
            char["attributes"][key] = payload_int(action, key, low=1, high=10)
    for skill in char["skills"]:
        if skill["key"] in action.payload:
            skill["level"] = payload_int(action, skill["key"], low=0, high=10)
    if "stress" in action.payload:
        char["stress"] = payload_int(action, "stress", low=0, high=20)
    if "android" in action.payload or new:
        char["android"] = payload_flag(action, "android")
    if "owner" in action.payload:
        owner = action.payload.get("owner")
        char["owner"] = None if owner in (None, "") else str(owner)
    if "signature" in action.payload:
        char["signature"] = _text(action, "signature", required=False)
    if "name" in action.payload and not new:
        char["name"] = _text(action, "name", what="the character's name")
    _refresh_load(char)


def _add_character(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    name = _text(action, "name", what="the character's name")
    char: dict[str, Any] = {
        "id": f"c{state['next_id']}",
        "name": name,
        "owner": None,
        "android": False,
        "attributes": dict.fromkeys(ATTRIBUTES, 1),
        "skills": [{"key": k, "name": n, "attribute": a, "level": 0} for k, (n, a) in SKILLS.items()],
        "stress": 0,
        "conditions": [],
        "items": [],
        "load": 0,
        "capacity": 2,
        "over_encumbered": False,
        "signature": "",
        "signature_used": False,
        "broken": False,
        "slow_used": False,
        "fast_used": False,
        "aimed": False,
        "helpers": [],
        "check": None,
        "pending_panic": None,
        "panic": None,
    }
    _sheet(char, action, new=True)
    state["next_id"] += 1
    state["characters"].append(char)
    kind = "android" if char["android"] else "character"
    return [Event("character_added", f"{name} joins as a {kind}.", {"id": char["id"]})]


def release(state: dict[str, Any], player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's actions that hand every character ``player`` (a user id as text) plays back to the referee."""
    return [("edit_character", {"id": c["id"], "owner": ""}) for c in state["characters"] if c.get("owner") == player]


def _edit_character(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    char = _character(state, action.payload.get("id"))
    _sheet(char, action, new=False)
    return [Event("character_edited", f"{char['name']}'s sheet is updated.", {"id": char["id"]})]


def _remove_character(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    char = _character(state, action.payload.get("id"))
    state["characters"] = [c for c in state["characters"] if c["id"] != char["id"]]
    for other in state["characters"]:
        other["helpers"] = [h for h in other["helpers"] if h["id"] != char["id"]]
    return [Event("character_removed", f"{char['name']} leaves the table.", {"id": char["id"]})]


def _set_setting(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    name = _choice(action, "name", tuple(SETTINGS))
    low, high = SETTINGS[name]
    value = payload_int(action, "value", low=low, high=high)
    state["settings"][name] = value
    return [Event("setting_changed", f"Extreme range now changes base dice by {_signed(value)}.", {name: value})]


def _set_panic_lasts(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    char = _character(state, action.payload.get("id"))
    lasts = _choice(action, "lasts", tuple(LASTS))
    if not _lasting(char):
        raise TrackerError(f"{char['name']} has no panic effect to time.", field="id")
    if lasts == "immediate":
        char["panic"] = None
        return [Event("panic_ended", f"{char['name']}'s panic effect is over.", {"id": char["id"]})]
    char["panic"]["lasts"] = lasts
    return [Event("panic_lasts", f"{char['name']}'s panic effect {LASTS[lasts]}.", {"id": char["id"], "lasts": lasts})]


def _new_round(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Everyone gets their slow and fast action back; round-long panic effects end; unused
    help and open checks lapse."""
    require_owner(action)
    state["round"] += 1
    calmed = []
    for char in state["characters"]:
        char["slow_used"] = char["fast_used"] = False
        char["helpers"] = []
        char["check"] = None
        if char["panic"] is not None and char["panic"]["lasts"] == "round":
            char["panic"] = None
            calmed.append(char["name"])
    tail = f" Round-long panic ends for {', '.join(calmed)}." if calmed else ""
    return [Event("new_round", f"Round {state['round']}: every character has a slow and a fast action.{tail}", {})]


def _turn_passes(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    calmed = [c["name"] for c in state["characters"] if _lasting(c)]
    for char in state["characters"]:
        char["panic"] = None
    tail = f" Panic ends for {', '.join(calmed)}." if calmed else " Nobody was panicking."
    return [Event("turn_passed", f"A Turn (5-10 minutes) passes.{tail}", {})]


def _new_act(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    for char in state["characters"]:
        char["signature_used"] = False
    return [Event("new_act", "A new act begins: signature items can ease stress again.", {})]


# -- the roll -------------------------------------------------------------------------------


def _check(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """A skill check: build the base and stress pools, roll them, count 6s (p.1).

    Refused (field named) for a pending panic roll, an unknown skill, a used action, helpers
    declared for another kind of action, range on a check that is not Ranged Combat, calming
    without Command or a panicking target, or no dice at all.
    """
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    if char["pending_panic"] is not None:
        raise TrackerError(f"{char['name']} must roll for panic first.", field="id")
    kind = _choice(action, "action", ACTION_KINDS, default="slow")
    calm_id = action.payload.get("calm")
    target = None
    if calm_id not in (None, ""):
        target = _character(state, calm_id, field="calm")
        if target["id"] == char["id"]:
            raise TrackerError("Another character must calm a panicking one.", field="calm")
        if not _lasting(target):
            raise TrackerError(f"{target['name']} has no panic effect to calm.", field="calm")
        if kind not in ("slow", "free"):
            raise TrackerError("Calming a panicking character is a slow action (or free outside combat).", field="action")
    default_skill = "command" if target else ("close_combat" if kind == "block" else None)
    key = _skill_key(action, default=default_skill)
    if target and key != "command":
        raise TrackerError("Calming a panicking character takes a Command check.", field="skill")
    if kind == "block" and key != "close_combat":
        raise TrackerError("Blocking takes a Close Combat check.", field="skill")
    distance = _choice(action, "range", ("", *RANGES), default="")
    if distance and key != "ranged_combat":
        raise TrackerError("range applies only to Ranged Combat checks.", field="range")
    defenceless = payload_flag(action, "defenceless")
    if defenceless and distance != "engaged":
        raise TrackerError("defenceless applies only at Engaged range.", field="defenceless")
    gear = payload_int(action, "gear", low=-10, high=10, default=0)
    other = payload_int(action, "modifier", low=-10, high=10, default=0)

    skill = _skill(char, key)
    attribute = skill["attribute"]
    parts: list[tuple[str, int]] = [(ATTRIBUTES[attribute], int(char["attributes"][attribute]))]
    if skill["level"]:
        parts.append((skill["name"], int(skill["level"])))
    else:
        parts.append((f"{skill['name']} untrained", 0))
    if gear:
        parts.append(("gear", gear))
    for condition in char["conditions"]:
        if condition["modifier"]:
            parts.append((condition["name"], int(condition["modifier"])))
    if char["helpers"]:
        parts.append(("helpers", len(char["helpers"])))
    if distance:
        label = f"{distance.capitalize()} range" + (", defenceless target" if defenceless else "")
        parts.append((label, range_modifier(state, distance, defenceless=defenceless)))
    aimed = bool(char["aimed"]) and key == "ranged_combat"
    if aimed:
        parts.append(("aim", AIM_BONUS))
    if other:
        parts.append(("other", other))
    base_count = max(0, sum(n for _, n in parts))
    stress_count = int(char["stress"])
    if base_count + stress_count == 0:
        raise TrackerError("No dice to roll: the modifiers leave no base dice and stress is 0.", field="modifier")
    if base_count > 100 or stress_count > 100:
        raise TrackerError("At most 100 dice of each kind.", field="modifier")
    base_faces = payload_faces(action, "faces", base_count) if base_count else None
    stress_faces = payload_faces(action, "stress_faces", stress_count) if stress_count else None
    typed = base_faces is not None or stress_faces is not None
    if typed and ((base_count and base_faces is None) or (stress_count and stress_faces is None)):
        raise TrackerError(
            f"Type all the dice: {base_count} base face(s) in faces and {stress_count} stress face(s) in stress_faces.",
            field="faces" if base_faces is None else "stress_faces",
        )
    spent = kind if kind != "block" else ("slow" if char["fast_used"] else "fast")
    for helper in char["helpers"]:
        if helper["action"] != spent:
            name = _character(state, helper["id"])["name"]
            raise TrackerError(f"{name} helped with a {helper['action']} action; this check is {spent}.", field="action")
    used = _spend(char, kind)

    reason = f"{char['name']}: {skill['name']}"
    base = _pool(dice, base_count, base_faces, f"{reason}, base dice")
    stress = _pool(dice, stress_count, stress_faces, f"{reason}, stress dice")
    helpers = [h["id"] for h in char["helpers"]]
    char["helpers"] = []
    char["aimed"] = False  # used by this shot, or lost by doing something else
    check = {
        "skill": skill["name"],
        "key": key,
        "action": used,
        "block": kind == "block",
        "base": list(base.faces) if base else [],
        "stress": list(stress.faces) if stress else [],
        "breakdown": _breakdown(parts),
        "helpers": helpers,
        "calm": target["id"] if target else None,
        "pushed": False,
        "panic": False,
        "cancelled": False,
        "settled": False,
        "entered": typed,
    }
    char["check"] = check
    events: list[Event] = []
    if base:
        events.append(
            Event(
                "base_dice",
                f"{char['name']} rolls {base_count} base dice for {skill['name']} ({check['breakdown']}): "
                f"{_faces_text(base.faces)} — {_sixes_text(sixes(base.faces))}.",
                {"id": char["id"], "roll": base.as_dict()},
            )
        )
    else:
        events.append(Event("base_dice", f"{char['name']} has no base dice for {skill['name']} ({check['breakdown']}).", {}))
    if stress:
        events.append(_stress_event(char, stress, f"rolls {stress_count} stress dice"))
    events += _outcome(state, char, "check")
    return events


def _stress_event(char: Mapping[str, Any], record: RollRecord, what: str) -> Event:
    """One sentence for a stress dice roll; ``what`` says what was rolled."""
    ones = PANIC_FACE in record.faces
    tail = "; a 1 means a panic roll and no push" if ones else ""
    return Event(
        "stress_dice",
        f"{char['name']} {what} (stress {char['stress']}): {_faces_text(record.faces)} — {_sixes_text(sixes(record.faces))}{tail}.",
        {"id": char["id"], "roll": record.as_dict()},
    )


def _outcome(state: dict[str, Any], char: dict[str, Any], kind: str) -> list[Event]:
    """Score the open check, flag a panic roll for a 1 on a stress die, settle what a success
    does, and make the result card."""
    check = char["check"]
    check["base_sixes"] = sixes(check["base"])
    check["stress_sixes"] = sixes(check["stress"])
    check["sixes"] = check["base_sixes"] + check["stress_sixes"]
    check["success"] = check["sixes"] > 0
    if PANIC_FACE in check["stress"]:
        check["panic"] = True
        char["pending_panic"] = {"trigger": "stress_die", "from_check": True}
    if check["success"]:
        extra = check["sixes"] - 1
        text = f"Success with {_sixes_text(check['sixes'])}" + (f": {extra} extra to boost it" if extra else "")
        if check["block"]:
            text += "; each 6 can remove an attacker's 6, counterattack or disarm"
    else:
        text = "Failure: no 6"
    if check["panic"]:
        text += ". A stress die shows 1: roll for panic now; no push"
    elif not check["pushed"] and not char["android"]:
        text += ". It can be pushed once (stress +1)"
    elif not check["pushed"]:
        text += ". Androids cannot push"
    text = f"{char['name']}, {check['skill']}: {text}."
    events = [Event("check_result", text, {"id": char["id"], "success": check["success"], "sixes": check["sixes"]})]
    events += _settle(state, char)
    state["last"] = {"kind": kind, "id": char["id"], "name": char["name"], "text": text, **copy.deepcopy(check)}
    return events


def _settle(state: dict[str, Any], char: dict[str, Any]) -> list[Event]:
    """Carry out what a successful, uncancelled check does once no panic roll is pending: a
    Command check to calm someone ends their panic effect (p.1)."""
    check = char["check"]
    if check is None or not check["success"] or check["cancelled"] or char["pending_panic"] or check["settled"]:
        return []
    check["settled"] = True
    if check["calm"] is None:
        return []
    target = next((c for c in state["characters"] if c["id"] == check["calm"]), None)
    if target is None or not _lasting(target):
        return []
    target["panic"] = None
    return [Event("panic_ended", f"{char['name']} calms {target['name']}: their panic effect ends.", {"id": target["id"]})]


def _push(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Push the open check once: reroll every die that is not a 6, stress +1 and one more stress
    die (p.1). Refused for androids, a second push, or a stress die showing 1."""
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    check = char["check"]
    if check is None:
        raise TrackerError(f"{char['name']} has no check to push.", field="id")
    if char["android"]:
        raise TrackerError("Androids cannot push a roll.", field="id")
    if check["pushed"]:
        raise TrackerError("A check can be pushed only once.", field="id")
    if check["panic"]:
        raise TrackerError("A stress die showed 1: roll for panic instead; this check cannot be pushed.", field="id")
    base_idx = [i for i, f in enumerate(check["base"]) if f != SUCCESS_FACE]
    stress_idx = [i for i, f in enumerate(check["stress"]) if f != SUCCESS_FACE]
    base_faces = payload_faces(action, "faces", len(base_idx)) if base_idx else None
    stress_faces = payload_faces(action, "stress_faces", len(stress_idx) + 1)
    if (base_faces is None) != (stress_faces is None) and base_idx:
        raise TrackerError(
            f"Type all the rerolled dice: {len(base_idx)} base face(s) in faces and "
            f"{len(stress_idx) + 1} stress face(s) in stress_faces (the new die last).",
            field="faces" if base_faces is None else "stress_faces",
        )
    before = char["stress"]
    char["stress"] += PUSH_STRESS
    reason = f"{char['name']}: {check['skill']}, pushed"
    base = _pool(dice, len(base_idx), base_faces, f"{reason}, base dice")
    stress = _pool(dice, len(stress_idx) + 1, stress_faces, f"{reason}, stress dice")
    assert stress is not None
    if base:
        for i, face in zip(base_idx, base.faces, strict=True):
            check["base"][i] = face
    for i, face in zip(stress_idx, stress.faces[:-1], strict=True):
        check["stress"][i] = face
    check["stress"].append(stress.faces[-1])
    check["pushed"] = True
    check["entered"] = check["entered"] or stress.entered
    events = [Event("stress_up", f"{char['name']} pushes: stress {before} → {char['stress']}.", {"id": char["id"]})]
    if base:
        events.append(
            Event(
                "base_dice",
                f"{char['name']} rerolls {len(base_idx)} base dice: {_faces_text(base.faces)}; "
                f"base dice now {_faces_text(check['base'])}.",
                {"id": char["id"], "roll": base.as_dict()},
            )
        )
    rerolled = f"rerolls {len(stress_idx)} stress dice and adds one" if stress_idx else "adds a stress die"
    events.append(_stress_event(char, stress, rerolled))
    events += _outcome(state, char, "push")
    return events


def _panic_roll(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Roll 1D6 + stress for panic (p.1). A pending roll from a stress die resolves first; else
    ``trigger`` names one of :data:`PANIC_TRIGGERS`. 10+ cancels the check that caused it; 7+
    leaves a panic effect; a new roll while panicked replaces the effect, one step worse when
    lower than the old value."""
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    pending = char["pending_panic"]
    if pending is not None:
        trigger = pending["trigger"]
    else:
        trigger = _choice(action, "trigger", tuple(t for t in PANIC_TRIGGERS if t != "stress_die"))
    faces = payload_faces(action, "faces", 1)
    reason = f"{char['name']}: panic roll after {PANIC_TRIGGERS[trigger]}"
    stress = int(char["stress"])
    record = Dice.enter("D6", faces, reason, modifier=stress) if faces is not None else dice.roll("D6", reason, modifier=stress)
    total = int(record.total or 0)
    char["pending_panic"] = None
    if trigger == "critical_injury":
        char["aimed"] = False  # hurt: the aim is lost
    from_check = bool(pending and pending.get("from_check")) and char["check"] is not None
    cancelled = from_check and total >= PANIC_CANCELS
    if cancelled:
        char["check"]["cancelled"] = True
    previous = char["panic"]
    table = state["panic_table"]
    worse = previous is not None and total < previous["value"]
    value = one_step_worse(table, previous["value"]) if worse else total
    index = panic_row(table, value)
    row = table[index] if index is not None else None
    lasts = (row or {}).get("lasts") or ("until_aid" if value >= PANIC_LASTING else "immediate")
    effect = {
        "value": value,
        "roll": total,
        "result": row["result"] if row else "",
        "effect": row["effect"] if row else "",
        "lasts": lasts,
        "trigger": trigger,
    }
    char["panic"] = effect if lasts != "immediate" else None

    sentence = f"{char['name']} rolls for panic after {PANIC_TRIGGERS[trigger]}: D6 {record.faces[0]} + stress {stress} = {total}"
    if worse:
        sentence += f", lower than the current {previous['value']}, so one step worse: {value}"
    if row:
        sentence += f" — {row['result']}"
    elif value >= PANIC_LASTING:
        sentence += " — a panic effect (look it up on your panic table)"
    else:
        sentence += " — they keep it together"
    if lasts != "immediate" or value >= PANIC_LASTING:
        sentence += f", {LASTS[lasts]}"
    if cancelled:
        sentence += f"; 10+ cancels the {char['check']['skill']} action"
    sentence += "."
    events = [
        Event(
            "panic_roll",
            sentence,
            {"id": char["id"], "value": value, "cancelled": cancelled, "lasts": lasts, "roll": record.as_dict()},
        )
    ]
    if value >= PANIC_LASTING:
        events.append(
            Event(
                "panic_witnessed",
                f"Friends who see {char['name']} panic may gain stress or roll for panic themselves.",
                {"id": char["id"]},
            )
        )
    if from_check and not cancelled:
        events += _settle(state, char)
    state["last"] = {
        "kind": "panic",
        "id": char["id"],
        "name": char["name"],
        "text": sentence,
        "face": record.faces[0],
        "stress": stress,
        "total": total,
        "value": value,
        "worse": worse,
        "result": effect["result"],
        "effect": effect["effect"],
        "lasts": lasts,
        "cancelled": cancelled,
        "entered": record.entered,
        "trigger": trigger,
    }
    return events


# -- actions in the round -------------------------------------------------------------------


def _help(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Declare help before the roll: +1 base die each, at most three, and each helper spends an
    action of the same kind as the check (p.1)."""
    helper = _character(state, action.payload.get("id"))
    _mine(action, helper)
    target = _character(state, action.payload.get("target"), field="target")
    if target["id"] == helper["id"]:
        raise TrackerError("A character cannot help themselves.", field="target")
    if any(h["id"] == helper["id"] for h in target["helpers"]):
        raise TrackerError(f"{helper['name']} is already helping {target['name']}.", field="target")
    if len(target["helpers"]) >= MAX_HELPERS:
        raise TrackerError(f"At most {MAX_HELPERS} can help with one roll.", field="target")
    kind = _choice(action, "action", ("slow", "fast", "free"), default="slow")
    _spend(helper, kind)
    helper["check"] = None
    helper["aimed"] = False
    target["helpers"].append({"id": helper["id"], "action": kind})
    cost = "no action" if kind == "free" else f"their {kind} action"
    return [
        Event(
            "help",
            f"{helper['name']} helps {target['name']}'s next {kind} check (+1 base die), spending {cost}.",
            {"id": helper["id"], "target": target["id"]},
        )
    ]


def _withdraw_help(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    helper = _character(state, action.payload.get("id"))
    _mine(action, helper)
    for target in state["characters"]:
        for declared in target["helpers"]:
            if declared["id"] == helper["id"]:
                target["helpers"].remove(declared)
                if declared["action"] != "free":
                    helper[f"{declared['action']}_used"] = False
                return [Event("help_withdrawn", f"{helper['name']} no longer helps {target['name']}.", {"id": helper["id"]})]
    raise TrackerError(f"{helper['name']} is not helping anyone.", field="id")


def _aim(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Aim (a fast action): +2 base dice on the next Ranged Combat check, lost on doing anything
    else or being hurt (p.1)."""
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    _spend(char, "fast")
    char["check"] = None
    char["aimed"] = True
    return [Event("aim", f"{char['name']} aims: +{AIM_BONUS} on the next shot (fast action).", {"id": char["id"]})]


def _take_action(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Spend a slow or fast action without a roll (run, reload, draw weapon...)."""
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    kind = _choice(action, "action", ("slow", "fast"))
    name = _text(action, "name", required=False) or f"a {kind} action"
    _spend(char, kind)
    char["check"] = None
    lost = " and loses the aim" if char["aimed"] else ""
    char["aimed"] = False
    return [Event("action_taken", f"{char['name']} takes {name} ({kind}){lost}.", {"id": char["id"], "action": kind})]


def _stress_up(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Raise stress for one of :data:`STRESS_UP` (p.1); damage also spoils an aim."""
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    reason = _choice(action, "reason", tuple(STRESS_UP))
    amount = payload_int(action, "amount", low=1, high=5, default=1)
    before = char["stress"]
    char["stress"] = before + amount
    lost = ""
    if reason == "damage" and char["aimed"]:
        char["aimed"] = False
        lost = "; hurt, the aim is lost"
    return [
        Event(
            "stress_up",
            f"{char['name']}'s stress {before} → {char['stress']} from {STRESS_UP[reason]}{lost}.",
            {"id": char["id"], "reason": reason},
        )
    ]


def _stress_down(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Lower stress by 1: rest, or the signature item once per act; ``other`` is the owner's
    call. Refused at 0 or while a condition blocks relief (p.1)."""
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    reason = _choice(action, "reason", tuple(STRESS_DOWN))
    if reason == "other":
        require_owner(action)
    if char["stress"] == 0:
        raise TrackerError(f"{char['name']}'s stress is already 0.", field="id")
    blocking = [c["name"] for c in char["conditions"] if c["blocks_relief"]]
    if blocking:
        raise TrackerError(f"{', '.join(blocking)} keeps {char['name']}'s stress from easing.", field="reason")
    if reason == "signature":
        if char["signature_used"]:
            raise TrackerError("The signature item eases stress only once per act.", field="reason")
        char["signature_used"] = True
    before = char["stress"]
    char["stress"] -= 1
    return [
        Event(
            "stress_down",
            f"{char['name']}'s stress {before} → {char['stress']} after {STRESS_DOWN[reason]}.",
            {"id": char["id"], "reason": reason},
        )
    ]


def _add_condition(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    name = _text(action, "name", limit=40, what="the condition's name")
    if any(c["name"].lower() == name.lower() for c in char["conditions"]):
        raise TrackerError(f"{char['name']} is already {name}.", field="name")
    modifier = payload_int(action, "modifier", low=-3, high=3, default=0)
    blocks = payload_flag(action, "blocks_relief")
    char["conditions"].append({"name": name, "modifier": modifier, "blocks_relief": blocks})
    notes = [f"{_signed(modifier)} base dice" if modifier else "", "no stress relief" if blocks else ""]
    tail = "; ".join(n for n in notes if n)
    return [Event("condition_added", f"{char['name']} is {name}{f' ({tail})' if tail else ''}.", {"id": char["id"]})]


def _remove_condition(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    name = _text(action, "name", limit=40, what="the condition's name")
    kept = [c for c in char["conditions"] if c["name"].lower() != name.lower()]
    if len(kept) == len(char["conditions"]):
        have = ", ".join(c["name"] for c in char["conditions"]) or "none"
        raise TrackerError(f"{char['name']} is not {name}; conditions: {have}.", field="name")
    char["conditions"] = kept
    return [Event("condition_removed", f"{char['name']} is no longer {name}.", {"id": char["id"]})]


def _add_item(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Carry an item: regular 1, heavy 2 (or more), light 0.5 (or 0.25), tiny 0 regular items
    against a capacity of twice Strength (p.1)."""
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    name = _text(action, "name", what="the item's name")
    weight = _choice(action, "weight", tuple(WEIGHTS), default="regular")
    slots = WEIGHTS[weight]
    raw = action.payload.get("slots")
    if raw not in (None, ""):
        allowed = {"heavy": (2.0, 3.0, 4.0), "light": (0.5, 0.25)}.get(weight, ())
        try:
            wanted = float(str(raw))
        except ValueError:
            wanted = -1.0
        if wanted not in allowed:
            what = f"one of {', '.join(f'{a:g}' for a in allowed)}" if allowed else f"left out for a {weight} item"
            raise TrackerError(f"slots for a {weight} item must be {what}; got {raw!r}.", field="slots")
        slots = wanted
    char["items"].append({"id": f"i{state['next_item']}", "name": name, "weight": weight, "slots": _number(slots)})
    state["next_item"] += 1
    _refresh_load(char)
    tail = " — over-encumbered" if char["over_encumbered"] else ""
    return [
        Event(
            "item_added",
            f"{char['name']} carries {name} ({weight}): load {char['load']:g} of {char['capacity']}{tail}.",
            {"id": char["id"]},
        )
    ]


def _remove_item(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    item_id = str(action.payload.get("item", ""))
    item = next((i for i in char["items"] if i["id"] == item_id), None)
    if item is None:
        have = ", ".join(f"{i['id']} ({i['name']})" for i in char["items"]) or "none"
        raise TrackerError(f"{char['name']} carries no item {item_id!r}; items: {have}.", field="item")
    char["items"].remove(item)
    _refresh_load(char)
    return [
        Event(
            "item_removed",
            f"{char['name']} drops {item['name']}: load {char['load']:g} of {char['capacity']}.",
            {"id": char["id"]},
        )
    ]


def _set_broken(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Mark a character Broken (or recovered); being Broken ends a panic effect (p.1)."""
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    broken = payload_flag(action, "broken", default=True)
    char["broken"] = broken
    if not broken:
        return [Event("recovered", f"{char['name']} is no longer Broken.", {"id": char["id"]})]
    tail = " Their panic effect ends." if _lasting(char) else ""
    char["panic"] = None
    return [Event("broken", f"{char['name']} is Broken.{tail}", {"id": char["id"]})]


_HANDLERS: dict[str, Callable[[dict[str, Any], Action, Dice], list[Event]]] = {
    "add_character": _add_character,
    "edit_character": _edit_character,
    "remove_character": _remove_character,
    "set_setting": _set_setting,
    "set_panic_lasts": _set_panic_lasts,
    "new_round": _new_round,
    "turn_passes": _turn_passes,
    "new_act": _new_act,
    "check": _check,
    "push": _push,
    "panic_roll": _panic_roll,
    "help": _help,
    "withdraw_help": _withdraw_help,
    "aim": _aim,
    "take_action": _take_action,
    "stress_up": _stress_up,
    "stress_down": _stress_down,
    "add_condition": _add_condition,
    "remove_condition": _remove_condition,
    "add_item": _add_item,
    "remove_item": _remove_item,
    "set_broken": _set_broken,
}
