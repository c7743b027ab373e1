"""The Bug Hunt app's tracker kinds, registered with the live app by ``BughuntConfig.ready()``.

``bughunt-mission``: the mission tracker (reducer, release and set-up in
:mod:`bughunt.tracker_kind`, engine :mod:`bughunt.engine.tracker`).
"""

from __future__ import annotations

from bughunt import tracker_kind
from bughunt.models import Squad
from live.registry import OptionField, TrackerKind

MISSION = TrackerKind(
    kind=tracker_kind.KIND,
    title="Bug Hunt mission",
    app="bughunt",
    reducer=tracker_kind.reducer,
    initial_state=tracker_kind.initial_state,
    release=tracker_kind.release,
    template="bughunt/mission.html",
    system=tracker_kind.SYSTEM,
    description="Reaction dice, Contact markers, Spawn Points, Tactical Locations, Objectives and Evac.",
    options=(
        OptionField("priority", "Priority (1-6)", "int", 2, minimum=1, maximum=6),
        OptionField("difficulty", "Difficulty", "choice", "Mess Me Up", choices=tuple(Squad.DIFFICULTIES)),
        OptionField("main_characters", "Main characters (names, commas)", "text", "Alpha, Bravo, Charlie"),
    ),
)

KINDS: tuple[TrackerKind, ...] = (MISSION,)
