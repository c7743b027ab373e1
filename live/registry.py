"""Tracker kinds that apps register with the live app.

Every app registers its kinds one way: its module ``<app>.kinds`` defines ``KINDS``, a tuple of
:class:`TrackerKind` (the engine's reducer, a function that builds the initial state from
options, the rule system whose tables both get, and the template whose ``tracker`` partial
draws the state), and its ``AppConfig.ready()`` calls :func:`register_kinds` with them. The
kernel (``live.services``) reads a kind's tables once per write through the cached
:func:`rules.selectors.system_tables` and passes them in; neither the reducer nor
``initial_state`` loads tables itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from live.engine.tracker import Action, Event, Reducer
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable
from rules.errors import DropshipError

Tables = Mapping[str, RangeTable]
KindReducer = Callable[[dict[str, Any], Action, Dice, Tables], tuple[dict[str, Any], list[Event]]]
"""A kind's reducer: ``apply(state, action, dice, tables) -> (new_state, events)``."""


@dataclass(frozen=True)
class _WithoutTables:
    """A kind reducer around an engine's three-argument ``apply``: it ignores the tables."""

    apply: Reducer

    def __call__(self, state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> tuple[dict[str, Any], list[Event]]:
        return self.apply(state, action, dice)


def without_tables(reducer: Reducer) -> KindReducer:
    """The kind reducer of an engine that reads no rule tables (its ``apply`` takes three
    arguments): the tables passed in are ignored, so the kernel does not read them for it
    (:func:`reads_tables`)."""
    return _WithoutTables(reducer)


def reads_tables(kind: TrackerKind) -> bool:
    """Whether ``kind``'s reducer reads its system's rule tables: not without a system, nor when
    it was made by :func:`without_tables` (its ``initial_state`` may still read them)."""
    return bool(kind.system) and not isinstance(kind.reducer, _WithoutTables)


@dataclass(frozen=True)
class OptionField:
    """One option shown when opening a table of a kind: ``type`` is ``int``, ``bool``,
    ``choice`` (from ``choices``: value, label pairs), ``text`` or ``table`` (a rule table's
    slug). Values reach ``initial_state`` as text (``"on"`` for a ticked bool); it validates
    them. A ``table`` option reaches it only when it names a book table or one of the acting
    user's own (``room_create`` refuses any other); a ``takes_user`` kind reads it with the user."""

    name: str
    label: str
    type: str = "int"
    default: Any = None
    choices: tuple[tuple[str, str], ...] = ()
    help: str = ""
    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True)
class TrackerKind:
    """A tracker kind: ``reducer`` is the engine's ``apply(state, action, dice, tables)``,
    ``initial_state`` builds the state from options (raising ``TrackerError`` naming a bad
    option); a kind with a ``system`` (a rule system's slug) gets that system's book tables as
    ``initial_state(options, tables=...)`` and as the reducer's ``tables`` (a kind without one
    gets none: an empty mapping for the reducer, no keyword for ``initial_state``). ``template`` has the
    ``tracker`` (live state) and ``controls`` (forms) partials. An unlisted kind is opened only by its app's services.
    A ``takes_user`` kind's ``initial_state(options, user)`` also gets the acting user (to read
    the tables its options name among those the user may use).
    An ``invite_only`` kind's room seats only the members its app's services give it (a
    campaign's room is the campaign's membership list): it has no join code, and its members'
    roles are changed on the app's own pages, which log them.
    ``release(state, user_id)`` lists the kind's own actions, as ``(type, payload)`` made by the
    owner, that hand every figure the user (id as text) plays back to the owner: a member who
    leaves or is removed gets them run, logged and undoable like any other action.
    ``owner_undoes_all``: the owner may take back anyone's last action (a referee); off for a
    kind where each player answers only for their own moves (a PvP battle), where only the
    action's maker may undo it.
    ``undo_stops``: action types undo does not take back (it goes no further, saying why): they
    mirror a change the app made outside the tracker (a PvP battle's referee seated or freed on
    the meeting's page), which taking back at the tracker alone would leave out of step.
    ``on_record(room, entry)`` is called, inside the write's transaction, with each action and
    undo the room logs (a :class:`live.models.RoomAction`): an app keeps its own log of the
    table with it (a Bug Hunt squad's log holds its missions' rolls)."""

    kind: str
    title: str
    app: str
    reducer: KindReducer
    initial_state: Callable[..., dict[str, Any]]
    template: str
    system: str = ""
    description: str = ""
    options: tuple[OptionField, ...] = ()
    listed: bool = True
    invite_only: bool = False
    takes_user: bool = False
    release: Callable[[dict[str, Any], str], list[tuple[str, dict[str, Any]]]] | None = None
    on_record: Callable[[Any, Any], None] | None = None
    owner_undoes_all: bool = True
    undo_stops: frozenset[str] = frozenset()


_KINDS: dict[str, TrackerKind] = {}


def register(kind: TrackerKind) -> None:
    _KINDS[kind.kind] = kind


def register_kinds(kinds: Iterable[TrackerKind]) -> None:
    """Register an app's tracker kinds (its ``<app>.kinds.KINDS``), from its ``AppConfig.ready()``.

    Registering the same kinds again is harmless. Raises :class:`ValueError` when a kind's name
    is already taken by another app's kind."""
    for kind in kinds:
        taken = _KINDS.get(kind.kind)
        if taken is not None and taken.app != kind.app:
            raise ValueError(f"Tracker kind {kind.kind!r} of app {kind.app!r} is already registered by app {taken.app!r}.")
        register(kind)


def get(kind: str) -> TrackerKind:
    """The registered kind. Raises :class:`DropshipError` naming the known kinds."""
    try:
        return _KINDS[kind]
    except KeyError:
        raise DropshipError(f"No tracker kind {kind!r}; choose one of {', '.join(sorted(_KINDS))}.", field="kind") from None


def invite_only(kind: str) -> bool:
    """Whether rooms of ``kind`` seat only the members their app invites (no join codes)."""
    found = _KINDS.get(kind)
    return found is not None and found.invite_only


def kinds() -> list[TrackerKind]:
    """The kinds anyone may open from the rooms page (unlisted ones belong to an app's own screens)."""
    return sorted((k for k in _KINDS.values() if k.listed), key=lambda k: k.title)
