"""Grid-based movement (Compendium pp.90-93) on the Five Parsecs battle tracker.

The table is a few big squares (usually 8-9" across): ``"3x3"``, ``"3x4"`` or ``"4x4"`` from
the ``grid-battle-space`` table, read as *columns x rows*. Columns are lettered ``A``.. along the
table edges the sides deploy from; rows are numbered ``1``.. from the crew's edge (row 1) to the
enemy's edge (the last row). A square is named like ``"B2"``; sub-squares are not modelled.

Rulings:

- Set-up (p.90): a figure is placed (``grid_place``) in a square touching its side's edge: row 1
  for the crew, the last row for the enemy. Flanking forces (Half Flank, Bolstered Flank, p.45)
  and any flank arrival go in the second square counting from the enemy edge (p.91), on a side
  column (A or the last), since they come in from a neutral edge. Placing is open in set-up; in
  a round only a figure with no square yet (an arrival) is placed.
- Status (p.91): the figure's square is Close Quarters when an active figure of the other side is
  in it, else Open; neutrals (``grid_place`` with ``neutral``) never count. It is read when the
  move is recorded, so record the move before the figure shoots.
- ``grid_move`` (once per round, in the figure's own phase; a crew figure before it is done
  acting): Open: an orthogonally adjacent square is a normal move (it may still act), a diagonal
  one a Dash (the figure cannot shoot this round; a Brawl still starts on contact, p.92), its own
  square a move within it; the figure Deploys within its Speed (inches) of the edge or corner
  crossed (p.92). Any other square is refused. Close Quarters: the move is made in inches with
  the core rules; the tracker only records the square it ends in (its own or an adjacent one).

State (only when the option is on): ``state["grid"] = {"size": "3x4", "columns": 3, "rows": 4,
"squares": ["A1", "B1", ...], "neutrals": [{"name", "square"}]}``; each figure has ``square`` (None until placed) and, after a
move, ``grid_move`` ``{"round", "kind": "orthogonal" | "diagonal" | "within" | "close",
"status": "open" | "close", "from", "to", "deploy_in": Speed or None}``; :func:`refresh` writes
each figure's ``square_status`` for the view.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.fp_tracker.base import _err, _need
from battles.engine.fp_tracker.lookups import _any_figure, _mine, _phase
from live.engine.tracker import Action, Event, payload_flag, require_owner
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable

SOURCE = "Compendium pp.90-93"
FLANK_DEPLOYMENTS: tuple[str, ...] = ("half_flank", "bolstered_flank")


def grid_sizes(tables: Mapping[str, RangeTable]) -> tuple[str, ...]:
    """The grid sizes of the ``grid-battle-space`` table (p.90), e.g. ``("3x3", "3x4", "4x4")``."""
    return tuple(str(e.data["grid"]) for e in _need(tables, "grid-battle-space").entries)


def grid_option(tables: Mapping[str, RangeTable], raw: Any, field: str = "options.grid") -> str | None:
    """The ``grid`` battle option: a size from :func:`grid_sizes`, or None (off) when blank,
    ``off`` or False. Raises :class:`TrackerError` naming ``field`` with the allowed values."""
    if raw in (None, "", False) or str(raw).strip().lower() in ("off", "none", "no"):
        return None
    value = str(raw).strip().lower()
    sizes = grid_sizes(tables)
    if value not in sizes:
        raise _err(f"{field} must be one of {', '.join(sizes)} (or off); got {raw!r}.", field)
    return value


def grid_state(size: str) -> dict[str, Any]:
    """The battle's grid bookkeeping for a size such as ``"3x4"`` (columns x rows)."""
    columns, _, rows = size.partition("x")
    names = [_name(c, r) for r in range(1, int(rows) + 1) for c in range(1, int(columns) + 1)]
    return {"size": size, "columns": int(columns), "rows": int(rows), "squares": names, "neutrals": []}


def _square(grid: Mapping[str, Any], raw: Any, field: str) -> tuple[int, int]:
    """A square name as (column, row), 1-based. Raises :class:`TrackerError` naming ``field``."""
    text = str(raw or "").strip().upper()
    last = f"{chr(ord('A') + grid['columns'] - 1)}{grid['rows']}"
    if len(text) >= 2 and text[0].isalpha() and text[1:].isdigit():
        column, row = ord(text[0]) - ord("A") + 1, int(text[1:])
        if 1 <= column <= grid["columns"] and 1 <= row <= grid["rows"]:
            return column, row
    raise _err(f"{field} must be a square of the {grid['size']} grid, A1 to {last}; got {raw!r}.", field)


def _name(column: int, row: int) -> str:
    return f"{chr(ord('A') + column - 1)}{row}"


def status(state: Mapping[str, Any], fig: Mapping[str, Any]) -> str | None:
    """``"close"`` (Close Quarters) when an active figure of the other side shares ``fig``'s
    square, ``"open"`` otherwise; None when the figure has no square (p.91)."""
    square = fig.get("square")
    if not square:
        return None
    others = state["enemies"] if fig["side"] == "crew" else state["crew"]
    return "close" if any(o["status"] == "active" and o.get("square") == square for o in others) else "open"


def refresh(state: dict[str, Any]) -> None:
    """Each figure's ``square_status`` now (for the view); nothing when the grid is off."""
    if not state.get("grid"):
        return
    for fig in state["crew"] + state["enemies"]:
        fig["square_status"] = status(state, fig)


def _grid(state: Mapping[str, Any]) -> dict[str, Any]:
    grid = state.get("grid")
    if not grid:
        raise _err("Grid-based movement is off for this battle (choose a grid size when setting it up, p.90).", "type")
    return grid  # type: ignore[no-any-return]


def _place_rule(state: Mapping[str, Any], fig: Mapping[str, Any], column: int, row: int, flank: bool) -> str | None:
    """Why the square is refused for ``fig`` at set-up (pp.90-91), or None when it is allowed."""
    grid = state["grid"]
    if flank:
        if fig["side"] != "enemy":
            return "only an enemy flanking force deploys on the flank"
        second = grid["rows"] - 1
        if row != second or column not in (1, grid["columns"]):
            return f"a flanking force sets up in the second square from the enemy edge: row {second}, column A or {_name(grid['columns'], 1)[0]}"
        return None
    edge = 1 if fig["side"] == "crew" else grid["rows"]
    if row != edge:
        who = "the crew's" if fig["side"] == "crew" else "the enemy's"
        return f"set-up is in a square touching {who} table edge (row {edge})"
    return None


def _place(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Put a figure (``figure`` crew id or ``enemy`` id) in a ``square`` at set-up, or an arrival
    in a round; ``flank`` (on) for a flanking enemy. ``neutral`` (a name) places a neutral marker
    instead, which never changes a square's status. Raises :class:`TrackerError` naming the key."""
    grid = _grid(state)
    if action.payload.get("neutral"):
        require_owner(action)
        name = str(action.payload["neutral"]).strip()[:40]
        column, row = _square(grid, action.payload.get("square"), "square")
        grid["neutrals"] = [n for n in grid["neutrals"] if n["name"] != name] + [{"name": name, "square": _name(column, row)}]
        return [
            Event(
                "grid_place",
                f"Neutral {name} is in {_name(column, row)}; neutrals do not make a square Close Quarters (p.91).",
                {},
            )
        ]
    key = "enemy" if action.payload.get("enemy") else "figure"
    fig = _any_figure(state, action.payload.get(key), key)
    if fig["side"] == "crew":
        _mine(action, fig)
    else:
        require_owner(action)
    if state["phase"] != "setup" and fig.get("square"):
        raise _err(f"{fig['name']} is already in {fig['square']}; in a round it moves with grid_move.", key)
    column, row = _square(grid, action.payload.get("square"), "square")
    flank = payload_flag(action, "flank")
    if flank and state["phase"] == "setup" and (state.get("deployment") or {}).get("key") not in FLANK_DEPLOYMENTS:
        raise _err("flank: only a Half Flank or Bolstered Flank deployment sets up a flanking force (p.45).", "flank")
    why = _place_rule(state, fig, column, row, flank)
    if why:
        raise _err(f"{_name(column, row)} is refused for {fig['name']}: {why} (p.90).", "square")
    fig["square"] = _name(column, row)
    return [
        Event(
            "grid_place",
            f"{fig['name']} sets up in {fig['square']} (no more than half a square in, p.90).",
            {"figure": fig["id"]},
        )
    ]


def _move(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A figure's grid move to ``square`` (pp.91-92), see the module docstring. ``figure`` is a
    crew id or ``enemy`` an enemy id. Raises :class:`TrackerError` naming the key."""
    grid = _grid(state)
    _phase(state, "quick", "enemy", "slow", what="A grid move")
    key = "enemy" if action.payload.get("enemy") else "figure"
    fig = _any_figure(state, action.payload.get(key), key)
    if fig["side"] == "crew":
        _mine(action, fig)
        if fig["slot"] != state["phase"] or fig["acted"]:
            raise _err(f"{fig['name']} moves during its own activation, before it is done acting.", key)
    else:
        require_owner(action)
        if state["phase"] != "enemy":
            raise _err(f"{fig['name']} moves in the Enemy Action phase.", key)
    if not fig.get("square"):
        raise _err(f"{fig['name']} has no square yet: place it first (grid_place).", key)
    moved = fig.get("grid_move") or {}
    if moved.get("round") == state["round"]:
        raise _err(f"{fig['name']} has already moved this round ({moved['from']} to {moved['to']}).", key)
    here = _square(grid, fig["square"], key)
    there = _square(grid, action.payload.get("square"), "square")
    dx, dy = abs(here[0] - there[0]), abs(here[1] - there[1])
    to = _name(*there)
    if max(dx, dy) > 1:
        raise _err(
            f"{to} is not adjacent to {fig['square']}: a grid move goes to an adjacent square or within the square (p.91).",
            "square",
        )
    now = status(state, fig)
    record: dict[str, Any] = {"round": state["round"], "status": now, "from": fig["square"], "to": to, "deploy_in": None}
    if now == "close":
        record["kind"] = "close"
        text = (
            f"{fig['name']} is at Close Quarters in {fig['square']}: it moves in inches with the core rules "
            f'(Speed {fig["speed"]}") and ends in {to} (p.92).'
        )
    elif (dx, dy) == (0, 0):
        record["kind"] = "within"
        text = f"{fig['name']} moves within {to} (Open): a normal move, it may still act (p.91)."
    else:
        diagonal = dx == 1 and dy == 1
        record["kind"] = "diagonal" if diagonal else "orthogonal"
        record["deploy_in"] = fig["speed"]
        crossed = "corner" if diagonal else "edge"
        how = "a Dash: it cannot shoot this round" if diagonal else "a normal move, it may still act"
        text = (
            f"{fig['name']} moves from {fig['square']} to {to} (Open), {how}; it Deploys within "
            f'{fig["speed"]}" of the {crossed} it crossed (pp.91-92).'
        )
    fig["square"] = to
    fig["grid_move"] = record
    return [Event("grid_move", text, {"figure": fig["id"], "square": to, "kind": record["kind"]})]


def refuse_dashed_shot(state: Mapping[str, Any], fig: Mapping[str, Any]) -> None:
    """Refuse a shot from a figure that Dashed by a diagonal grid move this round (p.91)."""
    moved = fig.get("grid_move") or {}
    if moved.get("kind") == "diagonal" and moved.get("round") == state["round"]:
        raise _err(f"{fig['name']} Dashed this round (a diagonal grid move, p.91) and cannot shoot.", "attacker")
