"""A Street Fight's set-up (Compendium pp.123-128) and the tracker's first state.

``generate`` rolls what the chapter rolls before play (the blocks' buildings, the objective, the
crew's entry points, the markers that follow) and returns a JSON-ready set-up card; every roll
is in ``rolls`` with its reason. ``initial_state`` turns that card into the tracker's state.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from battles.engine.fp_street import common as c
from battles.engine.fp_street.flow import refresh
from battles.engine.fp_tracker.base import _err, _int, _need
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

#: What the tracker's state keeps of the set-up card, to show it and its rolls.
CARD_KEYS: tuple[str, ...] = ("blocks", "entries", "captain", "city_markers", "not_used", "notes", "nominis", "rolls")

#: Rivals that raise a surrendering character's Perpetrator level (p.136).
LAW_RIVALS: tuple[str, ...] = ("bounty_hunter", "vigilante", "enforcer")


def _crew_figure(raw: Any, index: int) -> dict[str, Any]:
    if not isinstance(raw, Mapping) or not str(raw.get("name") or "").strip():
        raise _err(f"crew[{index}] must be a figure with a name (and savvy, reactions, speed, combat_skill, toughness).", "crew")
    return {
        "id": f"c{index + 1}",
        "name": str(raw["name"]).strip()[:60],
        "ref": raw.get("ref"),
        "savvy": _int(raw.get("savvy"), f"crew[{index}].savvy", -3, 6, 0),
        "reactions": _int(raw.get("reactions"), f"crew[{index}].reactions", 1, 6, 1),
        "speed": _int(raw.get("speed"), f"crew[{index}].speed", 1, 12, 4),
        "combat_skill": _int(raw.get("combat_skill"), f"crew[{index}].combat_skill", -3, 5, 0),
        "toughness": _int(raw.get("toughness"), f"crew[{index}].toughness", 1, 8, 3),
        "captain": bool(raw.get("captain")),
        "owner": str(raw.get("owner") or ""),
    }


def generate(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    crew: Sequence[Mapping[str, Any]],
    table_ft: int = 3,
    blocks: int = 4,
    city_markers: bool = True,
    extra_suspects: int = 0,
    enemy: str = "",
    weird_place: bool = False,
    rivals: Sequence[str] = (),
    objective_face: int | None = None,
    block_faces: Sequence[int] | None = None,
    entry_faces: Sequence[int] | None = None,
    direction_face: int | None = None,
) -> dict[str, Any]:
    """Roll a Street Fight's set-up (pp.123-128).

    - ``crew``: the figures deployed (``name`` required; ``savvy``, ``reactions``, ``speed``,
      ``combat_skill``, ``toughness``, ``captain``, ``owner``, ``ref`` optional), 1-12 of them.
      One Suspect marker each (p.124).
    - ``table_ft``: 2 or 3 (feet); on a 2-foot table the center is under 15" from the edge, so
      Retrieve package adds a second Suspect 6" from it (p.128).
    - ``blocks``: city blocks to give a building type, one D6 each (p.124; 0-12): Commercial adds a
      City marker, a Warehouse a Suspect marker by its entrance.
    - ``city_markers``: use City markers (6 plus one per Commercial block, p.124; off for a first game).
    - ``extra_suspects``: the Difficulty option, 0-2 more Suspect markers (p.124).
    - ``enemy``: the opposition when it is known (a Street Fight Enemies row, p.129), else rolled at
      the first Enemy reveal; ``weird_place``: It's a Weird Place (p.129), a second type at the second reveal.
    - ``rivals``: the crew's current Rivals that matter to the law (``bounty_hunter``, ``vigilante``, ``enforcer``; p.136).
    - typed dice: ``objective_face`` (D100), ``block_faces`` (one D6 per block), ``entry_faces``
      (one D12 per crew figure but the captain), ``direction_face`` (D12 for Retrieve's second Suspect).

    Returns the set-up card: ``mission``, ``crew``, ``table_ft``, ``visibility_in`` (9", p.124),
    ``blocks``, ``objective``, ``suspects``, ``city_markers``, ``entries``, ``individual``,
    ``package``, ``enemy``, ``weird_place``, ``rivals``, ``not_used``, ``notes``, ``nominis``
    (``supported`` False and why) and ``rolls``. Raises :class:`TrackerError` naming the argument.
    """
    if not isinstance(crew, Sequence) or isinstance(crew, str) or not 1 <= len(crew) <= 12:
        raise _err("crew must list 1 to 12 figures.", "crew")
    figures = [_crew_figure(raw, i) for i, raw in enumerate(crew)]
    table_ft = _int(table_ft, "table_ft", 2, 3)
    blocks = _int(blocks, "blocks", 0, 12)
    extra_suspects = _int(extra_suspects, "extra_suspects", 0, 2)
    unknown = [r for r in rivals if r not in LAW_RIVALS]
    if unknown:
        raise _err(f"rivals must be among {', '.join(LAW_RIVALS)}; got {unknown[0]!r}.", "rivals")
    rolls: list[RollRecord] = []
    notes: list[str] = []

    # Buildings (p.124).
    if block_faces is not None and len(block_faces) != blocks:
        raise _err(f"block_faces needs {blocks} D6 face(s), one per block; got {len(block_faces)}.", "block_faces")
    built: list[dict[str, Any]] = []
    for i in range(blocks):
        got = c.table_roll(
            dice, tables, c.BUILDINGS, f"Building of block {i + 1}", block_faces[i] if block_faces else None, key="block_faces"
        )
        rolls.append(got.record)
        built.append({"block": i + 1, "face": got.value, "name": got.entry.result, "effect": got.entry.effect, **got.entry.data})

    # Objective (pp.127-128).
    got = c.table_roll(dice, tables, c.OBJECTIVES, "Street Fight objective", objective_face, key="objective_face")
    rolls.append(got.record)
    data = dict(got.entry.data)
    objective = {
        "name": got.entry.result,
        "key": c.OBJECTIVE_KEYS[got.entry.result],
        "face": got.value,
        "effect": got.entry.effect,
        "data": data,
    }

    # Suspect markers (p.124): one per crew figure, one by each Warehouse, the Difficulty option,
    # and the objective's own (p.128).
    suspects: list[dict[str, Any]] = [{"where": "along a street, spread evenly"} for _ in figures]
    suspects += [
        {"where": f"by the entrance of block {b['block']} (Warehouse)"} for b in built for _ in range(b.get("suspect_markers", 0))
    ]
    suspects += [{"where": "along a street (Difficulty)"} for _ in range(extra_suspects)]
    if objective["key"] == "deliver":
        suspects.append({"where": "table center"})
    if objective["key"] == "retrieve":
        suspects.append({"where": "on the package, table center"})
        if table_ft * 12 // 2 < int(data.get("second_suspect_if_under_in", 15)):
            record, towards = c.direction(dice, "Retrieve package: second Suspect's direction", direction_face)
            rolls.append(record)
            suspects.append({"where": f'6" from the center toward {towards}'})
    for i, marker in enumerate(suspects):
        marker.update(id=f"s{i + 1}", pursuing=False)

    # City markers (p.124).
    city = 0
    if city_markers:
        rules = _need(tables, "street-fight-rules")
        counts = next(e.data for e in rules.entries if e.result == "City markers")
        city = int(counts.get("count", 6)) + sum(b.get("city_markers", 0) for b in built)

    # Player entry (p.124): a direction die per figure; the captain comes last.
    captain = next((f for f in figures if f["captain"]), None)
    walkers = [f for f in figures if f is not captain]
    if entry_faces is not None and len(entry_faces) != len(walkers):
        raise _err(f"entry_faces needs {len(walkers)} D12 face(s), one per crew figure but the captain.", "entry_faces")
    entries: list[dict[str, Any]] = []
    for i, fig in enumerate(walkers):
        record, towards = c.direction(
            dice, f"Entry point of {fig['name']}", entry_faces[i] if entry_faces else None, "entry_faces"
        )
        rolls.append(record)
        entries.append({"figure": fig["id"], "name": fig["name"], "face": record.total, "edge": towards})
    if captain is not None:
        notes.append(c.captain_note(captain["name"]))

    individual = None
    if data.get("individual"):
        hidden = objective["key"] == "locate"
        individual = {**c.INDIVIDUAL_PROFILE, "where": "not on the table: 6 Individual markers" if hidden else "table center"}
    package = None
    if data.get("package"):
        package = {"where": "carried by a crew member you pick" if objective["key"] == "deliver" else "table center"}

    known = None
    if enemy:
        row = next((e for e in _need(tables, c.ENEMIES).entries if e.result.lower() == enemy.strip().lower()), None)
        if row is None:
            allowed = ", ".join(e.result for e in _need(tables, c.ENEMIES).entries)
            raise _err(f"enemy must be a Street Fight Enemies type ({allowed}); got {enemy!r}.", "enemy")
        known = {"name": row.result, "effect": row.effect, **c.profile_of(row.data)}
    abandoned = [b["block"] for b in built if b.get("extra_cover")]
    if abandoned:
        notes.append(
            f"Blocks {', '.join(map(str, abandoned))} are abandoned: scatter difficult terrain and extra cover near them."
        )
    notes.append('Visibility is 9" and nothing raises it (p.124).')

    return {
        "mission": c.MISSION,
        "title": "Street fight",
        "source": c.SOURCE,
        "crew": figures,
        "table_ft": table_ft,
        "visibility_in": 9,
        "blocks": built,
        "objective": objective,
        "suspects": suspects,
        "extra_suspects": extra_suspects,
        "city_markers": city,
        "city_markers_in_use": bool(city_markers),
        "entries": entries,
        "captain": captain["name"] if captain else None,
        "individual": individual,
        "package": package,
        "enemy": known,
        "weird_place": bool(weird_place),
        "rivals": sorted(set(rivals)),
        "not_used": list(c.NOT_USED),
        "notes": notes,
        "nominis": {"supported": False, "why": c.NOMINIS_WHY},
        "rolls": [r.as_dict() for r in rolls],
    }


def initial_state(setup: Mapping[str, Any], tables: Mapping[str, RangeTable]) -> dict[str, Any]:
    """The tracker's first state from a set-up card made by :func:`generate` (state shape in the
    package docstring). Raises :class:`TrackerError` naming the key that is missing or wrong."""
    if setup.get("mission") != c.MISSION:
        raise _err("setup must be a Street Fight set-up (mission street_fight), made by the set-up generator.", "setup")
    for key in ("crew", "objective", "suspects"):
        if key not in setup:
            raise _err(f"setup.{key} is missing: generate the set-up first.", "setup")
    figures = [_crew_figure(raw, i) for i, raw in enumerate(setup["crew"])]
    for fig in figures:
        fig.update(
            status="active", stun=0, die=None, face=None, slot=None, evade_round=None, fired_on_law=False, barbarians_ignore=False
        )
    objective = setup["objective"]
    key = objective.get("key")
    if key not in c.OBJECTIVE_KEYS.values():
        raise _err(f"setup.objective.key must be one of {', '.join(c.OBJECTIVE_KEYS.values())}; got {key!r}.", "setup")
    data = objective.get("data") or {}
    suspects = [
        {"id": str(s["id"]), "where": str(s.get("where", "")), "pursuing": bool(s.get("pursuing"))} for s in setup["suspects"]
    ]
    known = setup.get("enemy")
    state: dict[str, Any] = {
        "source": c.SOURCE,
        "mission": c.MISSION,
        "round": 0,
        "phase": "setup",
        "visibility_in": int(setup.get("visibility_in", 9)),
        "table_ft": int(setup.get("table_ft", 3)),
        "objective": {
            "name": objective["name"],
            "key": key,
            "effect": objective.get("effect", ""),
            "done": False,
            "failed": False,
            "why": "",
            "markers_left": int(data.get("markers", 0)) if key == "locate" else 0,
            "markers_removed": 0,
            "surveilled": 0,
            "surveil_round": None,
            "confront": None,
            "corralled": False,
            "deliverer": None,
        },
        "individual": None
        if not setup.get("individual")
        else {
            **c.INDIVIDUAL_PROFILE,
            "status": "hidden" if key == "locate" else "wandering",
        },
        "package": None
        if not setup.get("package")
        else {"status": "carried" if key == "deliver" else "on_table", "carrier": None},
        "crew": figures,
        "enemies": [],
        "suspects": suspects,
        "suspects_round": None,
        "interesting_round": None,
        "trouble_round": None,
        "city": {
            "in_use": bool(setup.get("city_markers_in_use", True)),
            "markers": int(setup.get("city_markers", 0)),
            "curiosities": 0,
            "crowds": 0,
            "roadblocks": 0,
            "botstructions": 0,
            "reporters": 0,
        },
        "enemy_types": [known] if known else [],
        "known_enemy": bool(known),
        "weird_place": bool(setup.get("weird_place")),
        "reveals": 0,
        "spooks": bool(known and known.get("name") == "Spooks"),
        "separatists_called": False,
        "pending": {"set_up_round": None, "gang_turf_round": None},
        "sirens": None,
        "law": {"attacked": False, "rivals": list(setup.get("rivals") or [])},
        "pay": {"quest_clues": 0, "credits": 0, "rivals": []},
        "detained": [],
        "card": {key: setup.get(key) for key in CARD_KEYS},
        "reaction_dice": [],
        "held_field": None,
        "won": None,
        "last": None,
        "bombs": [],
        "next": {"enemy": 1, "suspect": len(suspects) + 1, "bomb": 1},
    }
    if state["spooks"]:
        for marker in state["suspects"]:
            marker["pursuing"] = True
    refresh(state)
    return state
