"""The battles app's tracker kinds, registered with the live app by ``BattlesConfig.ready()``.

``fiveparsecs-battle``: the Five Parsecs battle tracker (reducer, release and set-up in
:mod:`battles.fiveparsecs_kind`, engine :mod:`battles.engine.fp_tracker`).
``fiveparsecs-stealth``: a Stealth mission (pp.117-122; :mod:`battles.stealth_kind`, engine
:mod:`battles.engine.fp_stealth`).
"""

from __future__ import annotations

from battles import fiveparsecs_kind, stealth_kind
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

STEALTH_MISSION = TrackerKind(
    kind=stealth_kind.KIND,
    title="Five Parsecs Stealth mission",
    app="battles",
    reducer=stealth_kind.reducer,
    initial_state=stealth_kind.initial_state,
    release=stealth_kind.release,
    template="battles/stealth_battle.html",
    system=stealth_kind.SYSTEM,
    description="Stealth rounds, patrols and spotting rolls, Stay Down, Distraction, Lure, the alarm and "
    "reinforcements, the objective and exfiltration (Compendium pp.117-122).",
    listed=False,  # opened from a Stealth battle's set-up screen
    options=(OptionField("setup", "Stealth set-up (JSON)", "text", "", help='The battle set-up plus "stealth".'),),
)

KINDS: tuple[TrackerKind, ...] = (FIVEPARSECS_BATTLE, STEALTH_MISSION)
