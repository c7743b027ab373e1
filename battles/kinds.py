"""The battles app's tracker kinds, registered with the live app by ``BattlesConfig.ready()``.

``fiveparsecs-battle``: the Five Parsecs battle tracker (reducer, release and set-up in
:mod:`battles.fiveparsecs_kind`, engine :mod:`battles.engine.fp_tracker`).
"""

from __future__ import annotations

from battles import fiveparsecs_kind
from live.registry import OptionField, TrackerKind

FIVEPARSECS_BATTLE = TrackerKind(
    kind=fiveparsecs_kind.KIND,
    title="Five Parsecs battle",
    app="battles",
    reducer=fiveparsecs_kind.reducer,
    initial_state=fiveparsecs_kind.initial_state,
    release=fiveparsecs_kind.release,
    template="battles/fiveparsecs_battle.html",
    system=fiveparsecs_kind.SYSTEM,
    description="Seize the Initiative, Reaction dice, Quick/Enemy/Slow phases, Stun markers, Morale, "
    "escalation, deployment variables, casualty tables.",
    listed=False,  # opened from a battle's set-up screen, which builds the set-up
    options=(
        OptionField(
            "setup",
            "Battle set-up (JSON)",
            "text",
            "",
            help='{"crew": [{"name", "reactions", "speed", "combat_skill", "toughness", "weapons"}], '
            '"enemies": [{"name", "count", "profile", "weapons", "panic"}], "options": {...}}',
        ),
    ),
)

KINDS: tuple[TrackerKind, ...] = (FIVEPARSECS_BATTLE,)
