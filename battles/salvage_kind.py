"""The Salvage job tracker as a live room kind (``fiveparsecs-salvage``; Compendium pp.137-147).

A battle set up as a Salvage job (Mission Selection p.116, the turn's Salvage battle type, or
the player's pick) gets its set-up from :func:`mission_setup` (see :mod:`battles.mission_types`)
and passes the battle tracker's set-up, with that set-up under ``"salvage"``: the tracker's crew
is then the battle's crew (names, Savvy, Bots, Soulless), deployed in two groups, and Tension
starts from their number (p.138). A room also opens from a generated set-up (``options["setup"]``: a mapping or JSON text from
:func:`battles.engine.fp_salvage.generate`, as a campaign battle passes it), or from the rooms
page with the crew typed in (``crew``: ``"Ria 1, Bo, Zed 2 bot"``, a name then its Savvy and any of
bot, soulless, swift), ``difficulty`` (normal, easier, harder), ``illegal`` and ``rivals``
(comma-separated names): the set-up is then rolled with fresh dice (or the player's own:
``marker_face``, the D3 of the Salvage markers, and ``edge_face``, the D12 of the edge) and its
rolls are kept in the state's card. The kernel passes the shipped Five Parsecs tables to the reducer and the set-up.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from live.engine.tracker import Action, Event, TrackerError, flag_value
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable

KIND = "fiveparsecs-salvage"
SYSTEM = "fiveparsecs"
MISSION = "salvage"
DIFFICULTIES: tuple[str, ...] = ("normal", "easier", "harder")
CREW_FLAGS: tuple[str, ...] = ("bot", "soulless", "swift")


def _loaded(tables: Mapping[str, RangeTable]) -> Mapping[str, RangeTable]:
    if "salvage-points-of-interest" not in tables:
        raise TrackerError("The Five Parsecs tables are not loaded: run `manage.py load_tables`.", field="tables")
    return tables


def reducer(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    """The Salvage job reducer (:func:`battles.engine.fp_salvage.apply`), given the Five Parsecs
    tables. Raises :class:`TrackerError` when the rules refuse the action."""
    from battles.engine import fp_salvage

    return fp_salvage.apply(state, action, dice, _loaded(tables))


def release(state: dict[str, Any], player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's ``set_player`` actions that hand ``player``'s crew figures back."""
    from battles.engine import fp_salvage

    return fp_salvage.release(state, player)


def outcome(state: Mapping[str, Any]) -> dict[str, Any]:
    """The finished mission for ``battle_finish``: the standard battle outcome's keys plus ``won``
    and ``salvage`` (see :func:`battles.engine.fp_salvage.outcome`)."""
    from battles.engine import fp_salvage

    return fp_salvage.outcome(state)


def parse_crew(text: str) -> list[dict[str, Any]]:
    """``"Ria 1, Bo, Zed 2 bot"`` as crew entries: a name, then an optional Savvy (a whole number)
    and any of bot, soulless, swift. Raises :class:`TrackerError` naming ``crew``."""
    crew = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        words = part.split()
        flags = {w.lower() for w in words if w.lower() in CREW_FLAGS}
        numbers = [w for w in words if w.lstrip("+-").isdigit()]
        name = " ".join(w for w in words if w.lower() not in CREW_FLAGS and w not in numbers)
        if not name or len(numbers) > 1:
            raise TrackerError(
                f"crew: write each crew member as a name, then their Savvy and bot, soulless or swift if any "
                f"(e.g. Ria 1, Bo, Zed 2 bot); got {part!r}.",
                field="crew",
            )
        crew.append({"name": name, "savvy": int(numbers[0]) if numbers else 0, **{f: f in flags for f in CREW_FLAGS}})
    if not crew:
        raise TrackerError("crew is required: the crew members, e.g. Ria 1, Bo, Zed 2 bot.", field="crew")
    return crew


def initial_state(options: Mapping[str, Any], *, tables: Mapping[str, RangeTable]) -> dict[str, Any]:
    """The tracker's first state: from ``options["setup"]`` (a generated set-up, as a mapping or
    JSON), else rolled now from ``crew``, ``difficulty``, ``illegal`` and ``rivals``. Raises
    :class:`TrackerError` naming the option at fault."""
    from battles.engine import fp_salvage

    tables = _loaded(tables)
    setup = options.get("setup")
    if isinstance(setup, str) and setup.strip():
        try:
            setup = json.loads(setup)
        except json.JSONDecodeError as exc:
            raise TrackerError(f"setup must be JSON: {exc.msg} at line {exc.lineno}.", field="setup") from None
    if isinstance(setup, Mapping) and isinstance(setup.get(MISSION), Mapping) and setup.get("mission") != MISSION:
        return fp_salvage.initial_state(_from_battle(setup), tables)
    if isinstance(setup, Mapping):
        return fp_salvage.initial_state(setup, tables)
    if setup not in (None, ""):
        raise TrackerError("setup must be a generated Salvage job set-up (JSON).", field="setup")
    difficulty = str(options.get("difficulty") or "normal").strip().lower()
    if difficulty not in DIFFICULTIES:
        raise TrackerError(f"difficulty must be one of {', '.join(DIFFICULTIES)}; got {difficulty!r}.", field="difficulty")
    rivals = [r.strip() for r in str(options.get("rivals") or "").split(",") if r.strip()]
    made = fp_salvage.generate(
        Dice(),
        tables,
        crew=parse_crew(str(options.get("crew") or "")),
        options={
            "easier": difficulty == "easier",
            "harder": difficulty == "harder",
            "illegal": flag_value(options.get("illegal"), "illegal"),
        },
        rivals=rivals,
        marker_face=_typed(options.get("marker_face"), "marker_face", 3),
        edge_face=_typed(options.get("edge_face"), "edge_face", 12),
    )
    return fp_salvage.initial_state(made, tables)


def _typed(raw: Any, field: str, sides: int) -> int | None:
    """A die face the player typed for the set-up (1..``sides``), None when blank."""
    text = str(raw if raw is not None else "").strip()
    if not text:
        return None
    if not text.isdigit() or not 1 <= int(text) <= sides:
        raise TrackerError(f"{field} must be a D{sides} face from 1 to {sides}, or blank to roll; got {raw!r}.", field=field)
    return int(text)


def _from_battle(setup: Mapping[str, Any]) -> dict[str, Any]:
    """The Salvage set-up of a battle's tracker set-up: the battle's crew take the place of the
    numbered crew :func:`mission_setup` rolled for, in two groups as equal as possible, and Tension
    starts at their number halved, rounded up (0 when easier; p.138)."""
    made = dict(setup[MISSION])
    crew = [
        {
            "name": str(c.get("name") or ""),
            "savvy": max(-3, min(6, int(c.get("savvy") or 0))),
            "bot": bool(c.get("bot")),
            "soulless": bool(c.get("soulless")),
            "swift": bool(c.get("swift")),
        }
        for c in setup.get("crew") or []
        if isinstance(c, Mapping)
    ]
    if not crew:
        raise TrackerError("setup.crew is required: the battle's crew figures.", field="setup")
    names = [c["name"] for c in crew]
    half = (len(names) + 1) // 2
    options = made.get("options") or {}
    made["crew"] = crew
    made["deployment"] = {**(made.get("deployment") or {}), "groups": [names[:half], names[half:]]}
    made["starting_tension"] = 0 if options.get("easier") else half
    return made


#: What a Salvage job battle's set-up card says about the battle's rolled enemy (pp.139-140).
NO_ENEMY = (
    "No enemy is placed at set-up: the enemy rolled for this battle is not fought. Contacts spawn from the "
    "Tension track and a revealed Contact may bring Hostiles (pp.139-140)."
)


def mission_setup(dice: Dice, tables: Mapping[str, RangeTable], *, crew_size: int, ai_type: str | None) -> dict[str, Any]:
    """The Salvage job set-up (:func:`battles.engine.fp_salvage.generate`, pp.137-138) for
    :mod:`battles.mission_types`: the Salvage markers (1D3+1) and the deployment edge (D12),
    rolled with their reasons for ``crew_size`` numbered crew (the tracker puts the battle's crew
    in their place), the set-up card's lines, and no no-minis play (the chapter plays by
    distances and sight, pp.138-141). ``ai_type`` is not used: Hostiles bring their own.
    Raises :class:`TrackerError` naming the field."""
    from battles.engine import fp_salvage

    size = max(1, min(int(crew_size), 20))
    made = fp_salvage.generate(dice, _loaded(tables), crew=[f"Crew {n + 1}" for n in range(size)])
    deploy = made["deployment"]
    card = [
        "Salvage job (Compendium pp.137-147): no mission objective and no Seize the Initiative; resolve every "
        "Point of Interest (one near the centre of each table quarter) to win (p.138).",
        f"Salvage markers: {made['salvage_markers']} (1D3+1), spread evenly; a crew member who touches one gains "
        "1 Salvage unit, never lost (p.138).",
        f"Deployment: the {deploy['edge']} edge, the crew in two groups as equal as possible, within "
        f'{deploy["within_in"]}" of the edge and at least {deploy["apart_in"]}" apart (p.138).',
        "Tension: set to the crew on the table halved, rounded up, when round 1 ends (p.138).",
        NO_ENEMY,
        f"Table: {made['table']['feet']}x{made['table']['feet']} ft advised; on a smaller one "
        f"{made['table']['smaller']} (p.137).",
        f"Not used: {'; '.join(made['not_used'])}. Allowed: {'; '.join(made['allowed'])} (p.137).",
        "After the job: no Loot or Battlefield Finds rolls and no Invasion check; a D6 per resolved Point of "
        "Interest, and the Salvage goes to Get paid and the Scrappers (pp.146-147).",
    ]
    return {
        **made,
        "objective": {"key": MISSION, "name": "Resolve every Point of Interest", "effect": "p.138"},
        "card": card,
        "no_minis": f"No-minis play does not apply: {fp_salvage.NOMINIS['why']}",
        "no_minis_allowed": False,
        "enemy_fought": False,
    }
