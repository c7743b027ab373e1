"""Street fights' names and small helpers: phases, table slugs, objective keys, the figure and
marker lookups every handler uses, and the rolls on the chapter's tables (rolled or typed).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from battles.engine.fp_setup.base import EDGES
from battles.engine.fp_tracker.base import PHASE_NAMES as TRACKER_PHASE_NAMES
from battles.engine.fp_tracker.base import PHASES as PHASES
from battles.engine.fp_tracker.base import _err, _need
from battles.engine.fp_tracker.lookups import _mine
from live.engine.tracker import Action, payload_faces, payload_int
from rules.engine.dice import Dice, DiceError, RollRecord
from rules.engine.tables import RangeTable, TableError, TableRoll

SOURCE = "Five Parsecs Compendium pp.123-136"
MISSION = "street_fight"
#: The battle tracker's round (core rules), with a plain set-up: no Seize the Initiative here.
PHASE_NAMES: dict[str, str] = {**TRACKER_PHASE_NAMES, "setup": "Set-up"}
ROUND_PHASES: tuple[str, ...] = ("quick", "enemy", "slow")
ENEMY_STATUSES: tuple[str, ...] = ("active", "casualty", "fled", "ally")

BUILDINGS = "street-fight-buildings"
SUSPECT_ACTIONS = "street-suspect-actions"
SUSPECT_RESULTS = "street-suspect-results"
OBJECTIVES = "street-fight-objectives"
CONFRONT = "street-confront-individual"
ENEMIES = "street-fight-enemies"
COMBATANTS = "street-combatants"
CITY_EVENTS = "street-city-marker-events"
CITY_REVEALS = "street-city-marker-reveals"
JOSTLED = "street-jostled"
CURIOSITY = "street-curiosity"
LAW = "street-law-perpetrator-levels"

#: Objective rows (pp.127-128) by the key the tracker uses.
OBJECTIVE_KEYS: dict[str, str] = {
    "Contact individual": "contact",
    "Locate individual": "locate",
    "Surveil individual": "surveil",
    "Confront individual": "confront",
    "Rescue individual": "rescue",
    "Deliver package": "deliver",
    "Retrieve package": "retrieve",
}

#: The rules of other chapters a Street Fight leaves out (pp.123, 128).
NOT_USED: tuple[str, ...] = (
    "Notable Sights",
    "Deployment Conditions",
    "Enemy Deployment Variables (p.44)",
    "Escalating Battles (p.46)",
    "Morale",
)

#: Why no-minis play is not offered for a Street Fight (pp.65-73 against pp.123-136).
NOMINIS_WHY = (
    "No-minis combat (pp.65-73) may be used with any battle and flags only Salvage jobs as a poor fit, "
    "but its mission notes cover only the core objectives: it has none for the Street Fight objectives. "
    "A Street Fight is played through where markers stand (a Suspect is identified in Line of Sight within "
    '4" + Savvy, a City marker within 4", Suspects move 4" or pursue, sight ends at 9"), which the abstract '
    "battle space of no-minis play does not track. Play it on the table with the tracker."
)


def captain_note(name: str) -> str:
    """The set-up card's note on how the captain arrives (p.124)."""
    return f"{name} (captain) enters last: at a random point or beside a crew member already on the table."


#: Individuals' profile (p.126).
INDIVIDUAL_PROFILE: dict[str, int] = {"speed": 4, "toughness": 3}


def phase(state: Mapping[str, Any], *allowed: str, what: str) -> None:
    """Refuse unless the state is in one of ``allowed`` phases (the message names them)."""
    if state["phase"] not in allowed:
        names = " or ".join(PHASE_NAMES[p] for p in allowed)
        raise _err(f"{what} happens in the {names}; it is now the {PHASE_NAMES[state['phase']]}.", "type")


def roll(dice: Dice, notation: str, reason: str, action: Action, key: str, *, count: int = 1, sides: int = 6) -> RollRecord:
    """Roll ``notation``, or record the faces typed under ``key`` in the payload (``count`` D``sides``)."""
    faces = payload_faces(action, key, count, sides)
    try:
        return dice.roll_or_enter(notation, reason, faces=faces)
    except DiceError as exc:
        raise _err(str(exc), key) from None


def table_roll(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    slug: str,
    reason: str,
    value: Any = None,
    *,
    modifier: int = 0,
    key: str = "face",
) -> TableRoll:
    """Roll the table ``slug`` (or look up the typed natural ``value``); errors name ``key``."""
    table = _need(tables, slug)
    typed = None
    if value not in (None, ""):
        try:
            typed = int(value)
        except (TypeError, ValueError):
            raise _err(f"{key} must be a whole number you rolled on {table.die}; got {value!r}.", key) from None
    try:
        return table.roll_or_enter(dice, value=typed, modifier=modifier, reason=reason)
    except (TableError, DiceError) as exc:
        raise _err(str(exc), key) from None


def direction(dice: Dice, reason: str, value: Any = None, key: str = "direction_face") -> tuple[RollRecord, str]:
    """A random direction or table edge: a D12 read as a clock face (ruling; the book says only
    "random"), with the edge it points to."""
    typed = None
    if value not in (None, ""):
        try:
            typed = [int(value)]
        except (TypeError, ValueError):
            raise _err(f"{key} must be a D12 face from 1 to 12; got {value!r}.", key) from None
    try:
        record = dice.roll_or_enter("D12", reason, faces=typed)
    except DiceError as exc:
        raise _err(str(exc), key) from None
    face = int(record.total or 0)
    return record, f"{face} o'clock ({EDGES[face].split(' (')[0]})"


def crew(state: Mapping[str, Any], action: Action, key: str = "figure", *, active: bool = True) -> dict[str, Any]:
    """The crew figure named by ``key`` (``c1``...), which the actor must play; on the table when ``active``."""
    wanted = str(action.payload.get(key) or "")
    fig = next((f for f in state["crew"] if f["id"] == wanted), None)
    if fig is None:
        names = ", ".join(f"{f['id']} ({f['name']})" for f in state["crew"])
        raise _err(f"{key} must be one of the crew: {names}; got {wanted!r}.", key)
    _mine(action, fig)
    if active and fig["status"] != "active":
        raise _err(f"{fig['name']} is not on the table ({fig['status']}).", key)
    return fig


def enemy(state: Mapping[str, Any], raw: Any, key: str = "enemy") -> dict[str, Any]:
    """The enemy figure ``raw`` (``e1``...); refuses naming ``key``."""
    wanted = str(raw or "")
    fig = next((f for f in state["enemies"] if f["id"] == wanted), None)
    if fig is None:
        names = ", ".join(f["id"] for f in state["enemies"]) or "none revealed yet"
        raise _err(f"{key} must be an enemy figure ({names}); got {wanted!r}.", key)
    return fig


def suspect(state: Mapping[str, Any], raw: Any, key: str = "suspect") -> dict[str, Any]:
    """The Suspect marker ``raw`` (``s1``...) still on the table; refuses naming ``key``."""
    wanted = str(raw or "")
    marker = next((s for s in state["suspects"] if s["id"] == wanted), None)
    if marker is None:
        names = ", ".join(s["id"] for s in state["suspects"]) or "none left"
        raise _err(f"{key} must be a Suspect marker on the table ({names}); got {wanted!r}.", key)
    return marker


def savvy_test(dice: Dice, fig: Mapping[str, Any], action: Action, reason: str, key: str = "face") -> RollRecord:
    """1D6 + the figure's Savvy, rolled or typed under ``key``."""
    faces = payload_faces(action, key, 1)
    try:
        return dice.roll_or_enter("1D6", f"{reason} ({fig['name']}, Savvy {fig['savvy']:+d})", faces=faces, modifier=fig["savvy"])
    except DiceError as exc:  # pragma: no cover - payload_faces checked the face
        raise _err(str(exc), key) from None


def new_suspect(state: dict[str, Any], where: str, *, pursuing: bool = False) -> dict[str, Any]:
    """Place a new Suspect marker; it pursues at once when ``pursuing`` or once Spooks are revealed (p.129)."""
    marker = {"id": f"s{state['next']['suspect']}", "where": where, "pursuing": pursuing or state["spooks"]}
    state["next"]["suspect"] += 1
    state["suspects"].append(marker)
    return marker


def add_enemy(state: dict[str, Any], profile: Mapping[str, Any], *, name: str, where: str, **extra: Any) -> dict[str, Any]:
    """Put an enemy figure on the table with ``profile`` (speed, combat_skill, toughness, ai,
    weapons, special_rules, ...) and the ``extra`` keys (``combatant``, ``law``, ``individual``,
    ``revealed_by``)."""
    number = state["next"]["enemy"]
    state["next"]["enemy"] += 1
    fig = {
        "id": f"e{number}",
        "name": f"{name} {number}",
        "type": name,
        "speed": profile.get("speed"),
        "combat_skill": profile.get("combat_skill"),
        "toughness": profile.get("toughness"),
        "ai": profile.get("ai", ""),
        "weapons": profile.get("weapons", ""),
        "special_rules": list(profile.get("special_rules") or []),
        "where": where,
        "status": "active",
        "stun": 0,
        "combatant": False,
        "law": False,
        "individual": False,
        "revealed_by": None,
        "arrived_round": state["round"],
        **{k: profile[k] for k in ("armor_save", "screen_save") if k in profile},
        **extra,
    }
    state["enemies"].append(fig)
    return fig


def profile_of(entry_data: Mapping[str, Any]) -> dict[str, Any]:
    """An enemy profile from a Street Fight Enemies or Street Combatant row's data."""
    keys = ("speed", "combat_skill", "toughness", "ai", "weapons", "special_rules", "armor_save", "screen_save")
    return {k: entry_data[k] for k in keys if k in entry_data}


def int_in(action: Action, key: str, low: int, high: int, default: int | None = None) -> int:
    """A whole number from the payload within ``low..high`` (errors name the key)."""
    return payload_int(action, key, low=low, high=high, default=default)


def names(figures: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(f["name"] for f in figures) or "nobody"
