"""The battles app's tracker kinds, registered with the live app by ``BattlesConfig.ready()``.

``fiveparsecs-battle``: the Five Parsecs battle tracker (reducer, release and set-up in
:mod:`battles.fiveparsecs_kind`, engine :mod:`battles.engine.fp_tracker`).
``fiveparsecs-street-fight``: Street Fights (:mod:`battles.street_kind`, engine :mod:`battles.engine.fp_street`).
"""

from __future__ import annotations

from battles import fiveparsecs_kind, street_kind
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

STREET_FIGHT = TrackerKind(
    kind=street_kind.KIND,
    title="Five Parsecs street fight",
    app="battles",
    reducer=street_kind.reducer,
    initial_state=street_kind.initial_state,
    release=street_kind.release,
    template="battles/street_battle.html",
    system=street_kind.SYSTEM,
    description="Compendium pp.123-136: Suspect markers and identification, the opposition revealed, "
    "City markers, the Siren clock and the law, the objective, and getting off the table.",
    listed=False,  # opened from a street fight's set-up, which the services roll
    options=(OptionField("setup", "Street Fight set-up (JSON)", "text", "", help="The card fp_street.generate rolls."),),
)

KINDS: tuple[TrackerKind, ...] = (FIVEPARSECS_BATTLE, STREET_FIGHT)
