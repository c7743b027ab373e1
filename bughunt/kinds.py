"""The Bug Hunt app's tracker kinds, registered with the live app by ``BughuntConfig.ready()``.

``bughunt-mission``: the mission tracker (reducer, release and set-up in
:mod:`bughunt.tracker_kind`, engine :mod:`bughunt.engine.tracker`). ``bughunt-squad``: the
squad's shared table, whose members are the squad's co-op members (:mod:`bughunt.squad_room`).
"""

from __future__ import annotations

from bughunt import squad_room, tracker_kind
from bughunt.models import Squad
from live.registry import OptionField, TrackerKind

MISSION = TrackerKind(
    kind=tracker_kind.KIND,
    title="Bug Hunt mission",
    app="bughunt",
    reducer=tracker_kind.reducer,
    initial_state=tracker_kind.initial_state,
    release=tracker_kind.release,
    on_record=tracker_kind.on_record,
    template="bughunt/mission.html",
    system=tracker_kind.SYSTEM,
    description="Reaction dice, Contact markers, Spawn Points, Tactical Locations, Objectives and Evac.",
    options=(
        OptionField("priority", "Priority (1-6)", "int", 2, minimum=1, maximum=6),
        OptionField("difficulty", "Difficulty", "choice", "Mess Me Up", choices=tuple(Squad.DIFFICULTIES)),
        OptionField("main_characters", "Main characters (names, commas)", "text", "Alpha, Bravo, Charlie"),
    ),
)

SQUAD = TrackerKind(
    kind=squad_room.KIND,
    title="Bug Hunt squad",
    app="bughunt",
    reducer=squad_room.reducer,
    initial_state=squad_room.initial_state,
    template="bughunt/squad_room.html",
    description="The squad's campaign turn and roster, live on every phone.",
    listed=False,
    # Its members are the squad's editors and readers: only the owner's invitation (logged in
    # the squad log) seats anyone, never a join code.
    invite_only=True,
)

KINDS: tuple[TrackerKind, ...] = (MISSION, SQUAD)
