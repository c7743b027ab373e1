"""The battles app's tracker kinds, registered with the live app by ``BattlesConfig.ready()``.

``fiveparsecs-battle``: the Five Parsecs battle tracker (reducer, release and set-up in
:mod:`battles.fiveparsecs_kind`, engine :mod:`battles.engine.fp_tracker`).
``fiveparsecs-salvage``: a Salvage job (:mod:`battles.salvage_kind`, engine
:mod:`battles.engine.fp_salvage`), listed on the rooms page for a standalone job.
``fiveparsecs-street-fight``: Street Fights (:mod:`battles.street_kind`, engine :mod:`battles.engine.fp_street`).
``fiveparsecs-pvp``: a PvP battle between two players' campaigns (pp.35-37; :mod:`battles.pvp_kind`,
engine :mod:`battles.engine.fp_pvp`).
``fiveparsecs-stealth``: a Stealth mission (pp.117-122; :mod:`battles.stealth_kind`, engine
:mod:`battles.engine.fp_stealth`).
"""

from __future__ import annotations

from battles import fiveparsecs_kind, pvp_kind, salvage_kind, stealth_kind, street_kind
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

SALVAGE_JOB = TrackerKind(
    kind=salvage_kind.KIND,
    title="Five Parsecs salvage job",
    app="battles",
    reducer=salvage_kind.reducer,
    initial_state=salvage_kind.initial_state,
    release=salvage_kind.release,
    template="battles/salvage_battle.html",
    system=salvage_kind.SYSTEM,
    description="Compendium pp.137-147: the Tension track, Contacts and Hostiles!, Points of Interest, "
    "Salvage units and the post-game finds.",
    options=(
        OptionField("crew", "Crew", "text", "", help="Name, then Savvy and bot, soulless or swift: Ria 1, Bo, Zed 2 bot"),
        OptionField(
            "difficulty",
            "Difficulty (p.147)",
            "choice",
            "normal",
            choices=(
                ("normal", "Normal"),
                ("easier", "Easier: start at Tension 0"),
                ("harder", "Harder: +1 Tension per Contact removed"),
            ),
        ),
        OptionField("illegal", "Illegal job (p.138)", "bool", False),
        OptionField("rivals", "Your Rivals (for a Rival trap)", "text", "", help="Comma-separated names"),
        OptionField("marker_face", "My D3 for the Salvage markers (optional)", "int", None, minimum=1, maximum=3),
        OptionField("edge_face", "My D12 for the edge (optional)", "int", None, minimum=1, maximum=12),
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

PVP_BATTLE = TrackerKind(
    kind=pvp_kind.KIND,
    title="Five Parsecs PvP or co-op battle",
    app="battles",
    reducer=pvp_kind.reducer,
    initial_state=pvp_kind.initial_state,
    template="battles/pvp_battle.html",
    system=pvp_kind.SYSTEM,
    description="Two players' crews (Compendium pp.35-37): alternating deployment, Reactions in turn, "
    "Quick and Slow phases alternating one or two figures, initiative points, the end-of-round roll; "
    "or together against the enemy waves of an expanded co-op battle (pp.39-41).",
    listed=False,  # opened from a PvP meeting, whose set-up the services roll
    invite_only=True,  # the two campaigns' editors are seated by the meeting, not by a join code
    owner_undoes_all=False,  # each player takes back only their own moves: the host is no referee
    undo_stops=frozenset({"seat_referee", "unseat_referee"}),  # the meeting's referee changes with them
    options=(OptionField("setup", "PvP set-up (JSON)", "text", "", help="The meeting's card, names and players."),),
)

KINDS: tuple[TrackerKind, ...] = (FIVEPARSECS_BATTLE, STEALTH_MISSION, SALVAGE_JOB, STREET_FIGHT, PVP_BATTLE)
