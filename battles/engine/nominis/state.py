"""No-minis battles: the names, options, error and small state helpers shared by every step
(Compendium pp.66-73). The state's shape is in the package docstring."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

from battles.engine import fp_combat
from rules.engine.dice import ALLOWED_SIDES, Dice, DiceError, Keep, Notation, RollRecord
from rules.engine.errors import RuleError
from rules.engine.state import copy_state
from rules.engine.tables import Entry, RangeTable

State = dict[str, Any]
Event = dict[str, Any]
Tables = Mapping[str, RangeTable]

ACTIONS_TABLE = "no-minis-initiative-actions"
FIREFIGHT_TABLE = "no-minis-firefight"
FLOW_TABLE = "no-minis-battle-flow-events"
END_TABLE = "no-minis-end-of-round"
NOTES_TABLE = "no-minis-mission-notes"

SCOUT = "Scout for Locations"
MOVE_UP = "Move Up"
TASK = "Carry Out Task"
CHARGE = "Charge"
OPTIMAL_SHOT = "Optimal Shot"
SUPPORT = "Support"
TAKE_COVER = "Take Cover"
KEEP_DISTANCE = "Keep Distance"
ACTIONS: tuple[str, ...] = (SCOUT, MOVE_UP, TASK, CHARGE, OPTIMAL_SHOT, SUPPORT, TAKE_COVER, KEEP_DISTANCE)

MISSIONS: dict[str, str] = {
    "access": "Access",
    "acquire": "Acquire",
    "defend": "Defend",
    "deliver": "Deliver",
    "eliminate": "Eliminate",
    "fight_off": "Fight Off",
    "move_through": "Move Through",
    "patrol": "Patrol",
    "protect": "Protect",
    "secure": "Secure",
    "search": "Search",
}
MODES: tuple[str, ...] = ("assisted", "automatic")
STANCES: dict[str, str] = {
    "cautious": "Cautious",
    "steady": "Steady",
    "reckless": "Reckless",
}
"""How the automatic policy weighs leaving the battle (p.72 Retreat): see
:func:`battles.engine.nominis.policy.withdraw_reason`. ``steady`` is the default."""
DEFAULT_STANCE = "steady"
RANKS: tuple[str, ...] = ("regular", "specialist", "lieutenant")

SEARCH_SITES = 5
"""p.73: Search has 5 suspected Locations (also ``suspected_locations`` in the mission-notes table;
:func:`new_battle` has no tables, so it keeps this copy)."""

KEEP_DISTANCE_IN = 12
"""p.68: Keep Distance leaves the figure open only to weapons over this range (inches); the same
number is ``min_enemy_range_in`` in the initiative-actions table, kept here because the Firefight
helpers run without tables."""

NATURAL_SIX = fp_combat.HitNumbers(open=6, cover=6, source="p.70 natural 6 only")
_HIT_TRAITS = frozenset({"pistol", "snap_shot", "shrapnel", "heavy"})
_IGNORED_TRAITS = frozenset({"area", "terrifying"})  # p.70


class NoMinisError(RuleError):
    """An action or set-up the no-minis rules refuse; ``field`` names the bad key."""


@dataclass(frozen=True)
class NoMinisOptions:
    """Options for a no-minis battle.

    - ``hectic`` (p.70): figures shoot every time they are engaged; later shots in the round hit only
      on natural 6s.
    - ``faster`` (p.70): the first exchange of fire of each Firefight phase is in the open.
    - ``dramatic`` (p.87): Dramatic Combat is in use (recorded for screens: its hit numbers come in
      through ``numbers``; Duck Back and Lunge need positions and are not used, ruling).
    - ``battle_flow`` (p.71): roll a Battle flow event at the start of each round.
    - ``reaction_dice_modifier``: dice added to (or taken from) the core rulebook's normal Reaction
      roll before the no-minis "one die fewer" (p.67).
    - ``stance``: one of :data:`STANCES`, how readily the automatic policy withdraws figures or the
      crew with the Retreat rules (p.72); the player's own choices in assisted play are untouched.
    - ``casualty_tables`` (p.99): a hit that beats Toughness rolls on the casualty table of the
      figure's kind instead of removing it outright (both sides, the book's default).
    - ``critical_hits`` (p.100): with the casualty tables, a natural 6 to hit adds one more roll.
    """

    hectic: bool = False
    faster: bool = False
    dramatic: bool = False
    battle_flow: bool = False
    reaction_dice_modifier: int = 0
    stance: str = DEFAULT_STANCE
    casualty_tables: bool = False
    critical_hits: bool = False

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NoMinisOptions:
        known = {k: data[k] for k in _OPTION_KEYS if k in data}
        return cls(**known)


_OPTION_KEYS: tuple[str, ...] = (
    "hectic",
    "faster",
    "dramatic",
    "battle_flow",
    "reaction_dice_modifier",
    "stance",
    "casualty_tables",
    "critical_hits",
)


# -- small helpers --------------------------------------------------------------------------------


def _table(tables: Tables, slug: str) -> RangeTable:
    table = tables.get(slug)
    if table is None:
        raise NoMinisError(f"the {slug!r} table is needed; pass the fiveparsecs tables.", field="tables")
    return table


def _entry_data(tables: Tables, slug: str, result: str) -> Mapping[str, Any]:
    """The data of the first row of table ``slug`` named ``result``."""
    entry = _index(_table(tables, slug)).by_result.get(result)
    if entry is None:
        raise NoMinisError(f"table {slug!r} has no row {result!r}.", field="tables")
    return entry.data


class _TableIndex:
    """One table's rows by result name (the first of a name) and, for a rollable single-column
    table, by die value: worked out once per table object (tables are frozen)."""

    def __init__(self, table: RangeTable) -> None:
        self.table = table
        self.by_result: dict[str, Entry] = {}
        for entry in table.entries:
            self.by_result.setdefault(entry.result, entry)
        self.by_value: dict[int, Entry] = {}
        if table.die and "" in table.column_names():
            for entry in reversed(table.rows()):  # the first row covering a value wins, as lookup()
                if entry.low is not None and entry.high is not None:
                    self.by_value.update(dict.fromkeys(range(entry.low, entry.high + 1), entry))


#: ``id(table) -> its index``; each index keeps its table, so an id is not reused while listed.
_INDEXES: dict[int, _TableIndex] = {}


def _index(table: RangeTable) -> _TableIndex:
    found = _INDEXES.get(id(table))
    if found is None or found.table is not table:
        if len(_INDEXES) >= 256:  # new table objects (a new tables version): forget the old ones
            _INDEXES.clear()
        found = _INDEXES[id(table)] = _TableIndex(table)
    return found


def _roll_table(dice: Dice, table: RangeTable, reason: str) -> tuple[Entry, Record]:
    """Roll ``table`` as :meth:`RangeTable.roll` does (its die, the total clamped to the die's span,
    the row covering it) and return ``(entry, record in stored form)``. A plain die (no modifier in
    its notation) on a single-column table rolls through :func:`_roll` and the index of
    :func:`_index`; any other table through :meth:`RangeTable.roll`."""
    notation = table.notation
    by_value = _index(table).by_value
    if notation.modifier or not by_value:
        rolled = table.roll(dice, reason=reason)
        return rolled.entry, dict(rolled.record.as_dict())
    record = _roll(dice, notation.count, notation.sides, reason)
    value = min(max(record["total"], notation.minimum), notation.maximum)
    return by_value[value], record


def _copy_state(state: Mapping[str, Any]) -> State:
    """A deep copy of a JSON-ready state (:func:`rules.engine.state.copy_state`)."""
    return copy_state(dict(state))


#: Types copied by reference (immutable): most values of a state, so they skip the call.
_SCALARS = frozenset({str, int, bool, float, type(None)})


def _opts(st: Mapping[str, Any]) -> NoMinisOptions:
    # Read on nearly every step; a battle has one set of options. The options read last are kept
    # with a copy of the dict they came from and given again while the battle's dict is equal.
    global _last_options
    options = st["options"]
    last = _last_options  # one read of one tuple: safe beside other threads
    if last is not None and last[0] == options:
        return last[1]
    found = _options(tuple(options.get(k, d) for k, d in _OPTION_DEFAULTS))
    _last_options = (dict(options), found)
    return found


#: ``(a copy of the options dict, its options)`` of the last :func:`_opts`.
_last_options: tuple[dict[str, Any], NoMinisOptions] | None = None


_OPTION_DEFAULTS: tuple[tuple[str, Any], ...] = tuple((k, v) for k, v in asdict(NoMinisOptions()).items())


@lru_cache(maxsize=64)
def _options(values: tuple[Any, ...]) -> NoMinisOptions:
    # Read on every step of every battle; a battle has one set of options.
    return NoMinisOptions(**{k: v for (k, _), v in zip(_OPTION_DEFAULTS, values, strict=True)})


def _numbers(st: Mapping[str, Any]) -> fp_combat.HitNumbers:
    n = st["numbers"]
    return _hit_numbers(n["open"], n["cover"], n["source"])


@lru_cache(maxsize=64)
def _hit_numbers(open_: Any, cover: Any, source: Any) -> fp_combat.HitNumbers:
    # Every shot needs them; a battle has one set (frozen, so one object serves every shot).
    return fp_combat.HitNumbers(open=int(open_), cover=int(cover), source=str(source))


def _crew(st: Mapping[str, Any], name: Any, field: str = "actor") -> dict[str, Any]:
    for figure in st["crew"]:
        if figure["name"] == name:
            return figure  # type: ignore[no-any-return]
    raise NoMinisError(f"{field} must name a crew figure; got {name!r}.", field=field)


def _enemy(st: Mapping[str, Any], name: Any, field: str = "enemy") -> dict[str, Any]:
    for figure in st["enemies"]:
        if figure["name"] == name:
            return figure  # type: ignore[no-any-return]
    raise NoMinisError(f"{field} must name an enemy figure; got {name!r}.", field=field)


def _active_crew(st: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [c for c in st["crew"] if c["status"] == "active"]


def _active_enemies(st: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [e for e in st["enemies"] if e["status"] == "active"]


def _any_active(figures: Sequence[Mapping[str, Any]]) -> bool:
    """Whether any of ``figures`` is on the field (checked after every step: no list built)."""
    for figure in figures:  # noqa: SIM110 (a loop: no generator on every step)
        if figure["status"] == "active":
            return True
    return False


def _location_of(st: Mapping[str, Any], name: Any, field: str = "location") -> dict[str, Any]:
    for loc in st["locations"]:
        if loc["name"] == name:
            return loc  # type: ignore[no-any-return]
    raise NoMinisError(f"{field} must name a Location; got {name!r}.", field=field)


#: A roll's record in its stored form, :meth:`RollRecord.as_dict` (what events carry).
Record = dict[str, Any]


def _event(kind: str, text: str, rolls: Sequence[RollRecord | Record] = (), **data: Any) -> Event:
    """An event ``{"kind", "text", "rolls": [stored records], **data}``; ``rolls`` are stored
    records (``_roll``) or :class:`RollRecord` objects (the combat resolver's), stored here."""
    if not rolls:
        event: Event = {"kind": kind, "text": text, "rolls": []}
    else:
        event = {"kind": kind, "text": text, "rolls": [r if type(r) is dict else r.as_dict() for r in rolls]}  # type: ignore[union-attr]
    if data:
        event.update(data)
    return event


def _roll(dice: Dice, count: int, sides: int, reason: str, *, modifier: int = 0, separate: bool = False) -> Record:
    """Roll ``count`` D``sides`` plus ``modifier`` for ``reason``; returns the roll's record in its
    stored form: what ``dice.roll(notation, reason, modifier=modifier)`` (or ``dice.separate``
    with ``separate``: each face on its own, no total) gives through :meth:`RollRecord.as_dict`,
    from the same faces drawn in the same order by ``dice.face``. The engine's own plain rolls
    (picks, Battlefield Tests, Reaction dice, Morale, Retreat) come here, the hot path of automatic
    play: no notation to parse and no frozen record to build and convert, one record per roll all
    the same (``{"notation", "reason", "faces", "kept", "natural", "modifier", "total", "keep",
    "entered", "rerolled"}``)."""
    faces = list(dice.faces(count, sides))
    if separate:
        natural = total = None
    else:
        natural = faces[0] if count == 1 else sum(faces)
        total = natural + modifier
    return {
        "notation": _notation(count, sides),
        "reason": reason,
        "faces": faces,
        "kept": list(faces),
        "natural": natural,
        "modifier": modifier,
        "total": total,
        "keep": _SEPARATE if separate else _SUM,
        "entered": False,
        "rerolled": [],
    }


_SUM, _SEPARATE = Keep.SUM.value, Keep.SEPARATE.value


def _enter(notation: str, faces: Any, reason: str, *, modifier: int = 0) -> Record:
    """The record of faces the player typed in (:meth:`Dice.enter`), in its stored form. Raises
    :class:`NoMinisError` (field ``faces``) for faces the dice cannot show."""
    try:
        record = Dice.enter(notation, [int(f) for f in faces], reason, modifier=modifier)
    except (DiceError, TypeError, ValueError) as exc:
        raise NoMinisError(f"faces: {exc}", field="faces") from exc
    return dict(record.as_dict())


@lru_cache(maxsize=64)
def _notation(count: int, sides: int) -> str:
    """The notation Dice.roll records for ``count`` D``sides`` with no modifier: ``D6``, ``2D6``."""
    return str(Notation(count, sides))


def _pick(dice: Dice, items: Sequence[Any], reason: str) -> tuple[Any, list[Record]]:
    """One item at random, by a die as at the table: a die whose faces split evenly over the items
    when there is one, else the smallest die that covers them, rerolling faces past the last item."""
    count = len(items)
    if count == 0:
        raise NoMinisError(f"nothing to pick for {reason}.", field="state")
    if count == 1:
        return items[0], []
    sides, even = _pick_die(count)
    if even:
        record = _roll(dice, 1, sides, reason)
        return items[(record["faces"][0] - 1) // (sides // count)], [record]
    records: list[Record] = []
    while True:
        record = _roll(dice, 1, sides, reason)
        records.append(record)
        if record["faces"][0] <= count:
            return items[record["faces"][0] - 1], records


@lru_cache(maxsize=128)
def _pick_die(count: int) -> tuple[int, bool]:
    """``(sides, splits evenly)`` of the die :func:`_pick` rolls for ``count`` items."""
    even = [s for s in ALLOWED_SIDES if s % count == 0 and s >= count]
    sides = even[0] if even else next(s for s in ALLOWED_SIDES if s >= count)
    return sides, bool(even)


def _panic_faces(panic: Any) -> frozenset[int]:
    """The D6 faces of a Panic range (``"1-2"``, ``"1"``, ``"0"`` or ``""`` for none). Raises
    :class:`NoMinisError` (field ``enemy_panic``) for anything else."""
    if type(panic) is str:
        return _panic_text(panic)
    return _read_panic(panic)


@lru_cache(maxsize=64)
def _panic_text(panic: str) -> frozenset[int]:
    # Read at every end of round; a battle has one or two ranges, each parsed once.
    return _read_panic(panic)


def _read_panic(panic: Any) -> frozenset[int]:
    text = str(panic).strip()
    if text in ("", "0", "-", "none"):
        return frozenset()
    match = re.fullmatch(r"(\d)(?:\s*-\s*(\d))?", text)
    if not match:
        raise NoMinisError(
            f"enemy_panic must be a D6 range such as '1-2', '1' or '0' for none; got {panic!r}.", field="enemy_panic"
        )
    low = int(match[1])
    high = int(match[2] or low)
    if not 1 <= low <= high <= 6:
        raise NoMinisError(f"enemy_panic must lie within 1-6; got {panic!r}.", field="enemy_panic")
    return frozenset(range(low, high + 1))
