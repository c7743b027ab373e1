"""A Salvage job's set-up (Compendium pp.137-138) and the tracker's first state.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from battles.engine.fp_salvage.base import EDGES, KIND, MISSION, SETUP_NOW, SOURCE, err, roll, row, table
from live.engine.tracker import flag_value
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable

#: Where each Point of Interest goes: near the centre of each battlefield quarter (p.138).
QUARTERS: tuple[str, ...] = ("north-west quarter", "north-east quarter", "south-east quarter", "south-west quarter")
OPTION_NAMES: tuple[str, ...] = ("easier", "harder", "illegal")
#: What the set-up card shows beside the tracker (the rest of the set-up is in the state itself).
CARD_KEYS: tuple[str, ...] = ("nominis", "rules", "not_used", "allowed", "table", "rolls", "salvage_markers")
NOMINIS = {
    "supported": False,
    "why": (
        "A Salvage job is played by distances and sight: Contacts are placed at the nearest point out of"
        ' sight and over 6" from the crew, revealed within 6" in Line of Sight or within 3", moved by'
        ' the Scanner Check in inches, and Points of Interest open within 3" in sight (pp.138-141). The'
        " no-minis rules (pp.66-73) have no distances and give no Salvage mission note, so play it with"
        " miniatures."
    ),
}


def _crew(raw: Any) -> list[dict[str, Any]]:
    """The crew as the mission needs them: ``name``, ``savvy`` (-3..6), ``bot``, ``soulless``,
    ``swift`` (the Sand Runner test, p.144) and ``owner`` (user id as text). Raises
    :class:`TrackerError` naming ``crew[n].<key>``."""
    if not isinstance(raw, list | tuple) or not raw:
        raise err("crew is required: a list of crew members (name, savvy, bot, soulless, swift).", "crew")
    if len(raw) > 20:
        raise err(f"crew holds at most 20 figures; got {len(raw)}.", "crew")
    out = []
    for n, item in enumerate(raw):
        key = f"crew[{n}]"
        if isinstance(item, str):
            item = {"name": item}
        if not isinstance(item, Mapping) or not str(item.get("name") or "").strip():
            raise err(f"{key}.name is required.", f"{key}.name")
        savvy = item.get("savvy")
        try:
            savvy = 0 if savvy in (None, "") else int(savvy)
        except (TypeError, ValueError):
            raise err(f"{key}.savvy must be a whole number from -3 to 6; got {savvy!r}.", f"{key}.savvy") from None
        if not -3 <= savvy <= 6:
            raise err(f"{key}.savvy must be from -3 to 6; got {savvy}.", f"{key}.savvy")
        owner = str(item.get("owner") or "").strip()
        if owner and not owner.isdigit():
            raise err(f"{key}.owner must be a member's user id, or empty; got {owner!r}.", f"{key}.owner")
        out.append(
            {
                "name": str(item["name"]).strip()[:40],
                "savvy": savvy,
                "bot": flag_value(item.get("bot"), f"{key}.bot"),
                "soulless": flag_value(item.get("soulless"), f"{key}.soulless"),
                "swift": flag_value(item.get("swift"), f"{key}.swift"),
                "owner": owner,
            }
        )
    return out


def _options(raw: Any) -> dict[str, bool]:
    """``easier`` (start at Tension 0), ``harder`` (Tension +1 whenever a Contact marker goes, p.147)
    and ``illegal`` (an Illegal job, checked after the battle, p.138)."""
    if raw in (None, ""):
        raw = {}
    if not isinstance(raw, Mapping):
        raise err(f"options must be a mapping of {', '.join(OPTION_NAMES)} to on/off.", "options")
    unknown = sorted(set(raw) - set(OPTION_NAMES))
    if unknown:
        raise err(f"Unknown option {unknown[0]!r}; options are {', '.join(OPTION_NAMES)}.", "options")
    options = {name: flag_value(raw.get(name), f"options.{name}") for name in OPTION_NAMES}
    if options["easier"] and options["harder"]:
        raise err("options: choose easier or harder, not both.", "options")
    return options


def _rivals(raw: Any) -> list[str]:
    if raw in (None, ""):
        return []
    if isinstance(raw, str) or not isinstance(raw, list | tuple):
        raise err("rivals must be a list of the crew's Rival names (for a Rival trap, p.144).", "rivals")
    return [str(r).strip()[:60] for r in raw if str(r).strip()][:20]


def generate(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    crew: Sequence[Any],
    options: Mapping[str, Any] | None = None,
    rivals: Sequence[str] = (),
    marker_face: int | None = None,
    edge_face: int | None = None,
) -> dict[str, Any]:
    """A Salvage job's set-up (pp.137-138), JSON-ready, every roll in ``rolls`` with its reason:

    ``{"mission": "salvage", "kind": "fiveparsecs-salvage", "source", "crew": [{name, savvy, bot,
    soulless, swift, owner}], "options": {easier, harder, illegal}, "rivals": [names],
    "salvage_markers": 2-4 (1D3+1, spread evenly), "points_of_interest": [{"id": "p1", "where":
    "north-west quarter"}] (one near each quarter's centre), "deployment": {"edge", "groups":
    [[names], [names]], "within_in": 2, "apart_in": 10}, "starting_tension": crew halved rounded
    up (0 when easier), "seize_the_initiative": False, "objective": None, "not_used": [...],
    "allowed": [...], "table": {...}, "nominis": {"supported": False, "why"}, "rules": [lines],
    "rolls": [RollRecord dicts]}``.

    The battlefield edge is a D12 read in threes (1-3 north, 4-6 east, 7-9 south, 10-12 west).
    ``marker_face`` (the D3 of 1D3+1) and ``edge_face`` (the D12) are the player's own dice, when
    typed. Raises :class:`TrackerError` naming the field (``crew[n].name``, ``options``, ``rivals``, ``faces`` for a typed face the die cannot show)."""
    members = _crew(list(crew))
    chosen = _options(options)
    setup_rows = {e.result: e.data for e in table(tables, "salvage-setup").entries}
    markers = roll(
        dice,
        str(setup_rows["Salvage markers"]["count"]),
        "Salvage markers to place (p.138)",
        [marker_face] if marker_face else None,
    )
    edge_roll = roll(
        dice, "D12", "Deployment edge: 1-3 north, 4-6 east, 7-9 south, 10-12 west (p.138)", [edge_face] if edge_face else None
    )
    edge = EDGES[(int(edge_roll.total or 1) - 1) // 3]
    half = (len(members) + 1) // 2
    names = [m["name"] for m in members]
    deploy = setup_rows["Deployment"]
    start = 0 if chosen["easier"] else (len(members) + 1) // 2
    space = setup_rows["Space requirements"]
    poi_count = int(setup_rows["Points of Interest"]["count"])
    return {
        "mission": MISSION,
        "kind": KIND,
        "source": SOURCE,
        "crew": members,
        "options": chosen,
        "rivals": _rivals(list(rivals)),
        "salvage_markers": int(markers.total or 0),
        "points_of_interest": [{"id": f"p{n + 1}", "where": QUARTERS[n % 4]} for n in range(poi_count)],
        "deployment": {
            "edge": edge,
            "groups": [names[:half], names[half:]],
            "within_in": int(deploy["edge_distance_in"]),
            "apart_in": int(deploy["group_separation_in"]),
        },
        "starting_tension": start,
        "seize_the_initiative": False,
        "objective": None,
        "not_used": [
            "Deployment Conditions and Notable Sights (core rulebook)",
            "the mission objective roll",
            "Enemy Deployment Variables (p.44)",
            "Escalating Battles (p.46)",
        ],
        "allowed": ["AI Variations (p.42)", "Elite-level Enemies (p.48)"],
        "table": {"feet": int(space["table_ft"]), "smaller": f'shorten every move by {space["movement_penalty_in"]}"'},
        "nominis": dict(NOMINIS),
        "rules": _rules(chosen, start),
        "rolls": [markers.as_dict(), edge_roll.as_dict()],
    }


def _rules(options: Mapping[str, bool], start: int) -> list[str]:
    """The set-up card's reminders, in our words, with pages."""
    lines = [
        "No Seize the Initiative roll and no objective: reveal all four Points of Interest to win (p.138).",
        f"Tension is set to {start} when round 1 ends; from round 2 a D6 above it raises it by 1, "
        "at or under it lowers it by the roll and spawns a Contact (p.138).",
        "A round with no Contacts and no enemies on the table is an Exploration Round: no Reactions, move in any "
        "order, no Dashing, no equipment (p.138).",
        "You may leave across any edge at any time and keep your Salvage; no Loot or Battlefield Finds rolls, and "
        "no Invasion check (pp.146-147).",
    ]
    if options["easier"]:
        lines.append("Easier: every mission starts at Tension 0 (p.147).")
    if options["harder"]:
        lines.append("Harder: Tension +1 whenever a Contact marker is removed (p.147).")
    if options["illegal"]:
        lines.append("Illegal job: a D6 when post-game Rivals are rolled; 5-6 the law is on your trail (p.138).")
    return lines


def initial_state(setup: Mapping[str, Any], tables: Mapping[str, RangeTable]) -> dict[str, Any]:
    """The tracker's first state from a :func:`generate` set-up (see the package docstring for
    the shape). Raises :class:`TrackerError` naming the set-up key at fault."""
    if setup.get("mission") != MISSION:
        raise err("setup must be a Salvage job's set-up (mission: salvage), as generated.", "setup")
    members = _crew(setup.get("crew"))
    options = _options(setup.get("options"))
    try:
        markers = int(setup.get("salvage_markers"))  # type: ignore[arg-type]
        pois = list(setup.get("points_of_interest") or [])
        start = int(setup.get("starting_tension"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise err("setup needs salvage_markers, points_of_interest and starting_tension, as generated.", "setup") from None
    if not 0 <= markers <= 10 or not 1 <= len(pois) <= 10 or not 0 <= start <= 20:
        raise err("setup: salvage_markers 0-10, 1-10 points_of_interest, starting_tension 0-20.", "setup")
    row(tables, "salvage-encounter-forces", "1st")  # the mission's tables are loaded
    return {
        "mission": MISSION,
        "source": SOURCE,
        "round": 0,
        "phase": "setup",
        "round_kind": None,
        "scanner_done": False,
        "options": options,
        "deployment": dict(setup.get("deployment") or {}),
        "card": {key: setup.get(key) for key in CARD_KEYS if key in setup},
        "tension": {"value": 0, "set": False, "locked": False, "start": start},
        "crew": [{"id": f"c{n + 1}", **m, "status": "active", "down_round": None} for n, m in enumerate(members)],
        "pois": [
            {
                "id": f"p{n + 1}",
                "where": str((p or {}).get("where") or f"marker {n + 1}")[:40],
                "status": "hidden",
                "result": None,
            }
            for n, p in enumerate(pois)
        ],
        "contacts": [],
        "markers": [],
        "salvage": {"markers": markers, "units": 0},
        "hostiles": {"type": None, "encounters": 0},
        "enemies": [],
        "arrivals": [],
        "hazards": {"obstacles": [], "evac": None, "swarms": 0},
        "finds": {"credits": 0, "loot_now": 0, "loot_after": 0, "story_points": 0, "quest_rumors": 0},
        "rivals": _rivals(setup.get("rivals")),
        "post_game": None,
        "won": None,
        "held_field": None,
        "next": {"enemy": 1, "contact": 1, "marker": 1},
        "now": SETUP_NOW,
        "last": None,
    }
