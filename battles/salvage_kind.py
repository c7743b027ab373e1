"""The Salvage job tracker as a live room kind (``fiveparsecs-salvage``; Compendium pp.137-147).

A room opens from a generated set-up (``options["setup"]``: a mapping or JSON text from
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
