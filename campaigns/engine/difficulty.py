"""Difficulty: progressive difficulty (pp.30-31), the difficulty toggles (pp.32-34) and the
elite-level enemy roll (p.48).

- :func:`turn_difficulty` works out what applies on one campaign turn: the chosen toggles plus
  those progressive option 2 switches on, option 1's respawns and extra enemies, and the
  elite-enemy mode.
- :func:`elite_check` makes the per-encounter elite roll.
- :func:`battle_brief` lists the reminders the referee needs for one battle.
- :func:`upkeep`, :func:`free_hull_repair`, :func:`crew_action_cost` (Money is Tight, p.32),
  :func:`starting_crew_count`, :func:`starts_with_ship`, :func:`starting_kit` (Starting in the
  Gutter, p.34) and :func:`injury_exemption` (Reduced Lethality, p.34).

Numbers come from the tables (``progressive-difficulty-option-1``, ``-option-2``,
``difficulty-toggles``, ``elite-encounter-roll``, ``enemy-psionic-determination``). The small
helpers whose signatures take no tables read :data:`TOGGLE_DEFAULTS`, a copy of the toggle
rows' data that the tests keep equal to the fixture; pass ``tables=`` to read the table itself.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from campaigns.engine.options import ELITE_MODES, TOGGLES, CampaignOptions, OptionError
from rules.engine.dice import Dice
from rules.engine.tables import Entry, RangeTable, TableRoll

OPTION_1 = "progressive-difficulty-option-1"
OPTION_2 = "progressive-difficulty-option-2"
TOGGLE_TABLE = "difficulty-toggles"
ELITE_TABLE = "elite-encounter-roll"
ENEMY_PSIONICS_TABLE = "enemy-psionic-determination"

#: Things progressive option 2 can switch on besides toggles (p.31).
OPTION_2_RULES: tuple[str, ...] = ("deployment_variables", "escalating_battles", "elite_level_enemies")

#: Toggles that change a battle (the rest act on upkeep, creation, progression or injuries).
BATTLE_TOGGLES: tuple[str, ...] = (
    "strength_adjusted_enemies",
    "veteran",
    "actually_specialized",
    "armored_leaders",
    "better_leadership",
    "paying_by_the_hour",
    "movement_all_over",
    "fickle_scans",
)

#: Book page of each toggle group (the table cites pp.32-34 for all of them).
GROUP_PAGES: Mapping[str, str] = {
    "Strength-adjusted Enemies": "p.32",
    "Slaves to the Star-grind": "p.32",
    "Hit Me Harder": "p.33",
    "Time is Running Out": "p.34",
    "Starting in the Gutter": "p.34",
    "Reduced Lethality": "p.34",
}

#: Core crew tasks (named in the Compendium's turn lists); Money is Tight charges for two.
CREW_ACTIONS: tuple[str, ...] = (
    "find_a_patron",
    "train",
    "trade",
    "recruit",
    "explore",
    "track",
    "repair_your_kit",
    "decoy",
)

#: Copy of the ``difficulty-toggles`` data the table-less helpers read (kept equal by a test).
TOGGLE_DEFAULTS: Mapping[str, Mapping[str, Any]] = {
    "money_is_tight": {
        "upkeep_one_crew": 0,
        "upkeep_two_to_four_crew": 1,
        "upkeep_per_crew_over_four": 1,
        "find_a_patron_credits": 1,
        "repair_your_kit_credits": 1,
        "free_hull_repair": 0,
    },
    "gutter_starting_kit": {
        "low_tech_weapon_rolls": 3,
        "gear_or_gadget_rolls": 1,
        "military_hi_tech_rolls": 0,
        "starting_credits_per_crew": 0,
    },
    "gutter_small_crew": {"standard_crew_size": 6, "starting_crew": 3},
    "gutter_no_ship": {"starting_ship": False},
    "reduced_lethality": {"injured_min": 2, "exempt_characters": 1},
}

_ELITE_RANK = {"never": 0, "roll": 1, "always": 2}


class DifficultyError(OptionError):
    """A bad input to a difficulty rule, or a table missing what the rule reads; ``field`` names it."""


# -- data -------------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnDifficulty:
    """What difficulty rules apply on campaign turn ``turn``.

    - ``toggles``: effective toggle keys (chosen at set-up plus ``progressive_toggles``).
    - ``progressive_toggles``: toggles that progressive option 2 switched on and the player had
      not chosen.
    - ``respawn_level`` / ``respawns``: option 1's highest Respawn row reached and how many slain
      basic enemies come back (p.30).
    - ``strength_level``, ``extra_basic``, ``extra_specialists``, ``extra_lieutenants``: option
      1's highest Strength row reached and the figures it adds to every encounter.
    - ``deployment_variables`` (p.44), ``escalating_battles`` (p.46): switched on by option 2.
    - ``elite_mode``: ``never``, ``roll`` or ``always``; ``elite_target`` is the D6 score
      needed when rolling (``None`` otherwise).
    - ``applied``: names of the progressive rows reached, option 1 first.
    """

    turn: int
    toggles: frozenset[str] = field(default_factory=frozenset)
    progressive_toggles: frozenset[str] = field(default_factory=frozenset)
    respawn_level: int = 0
    respawns: int = 0
    strength_level: int = 0
    extra_basic: int = 0
    extra_specialists: int = 0
    extra_lieutenants: int = 0
    deployment_variables: bool = False
    escalating_battles: bool = False
    elite_mode: str = "never"
    elite_target: int | None = None
    applied: tuple[str, ...] = ()

    def has(self, toggle: str) -> bool:
        """Whether ``toggle`` is in effect this turn. Raises :class:`DifficultyError` for an unknown key."""
        if toggle not in TOGGLES:
            raise DifficultyError(f"toggle must be one of {', '.join(TOGGLES)}; got {toggle!r}.", field="toggles")
        return toggle in self.toggles

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: toggle sets as sorted lists."""
        return {
            "turn": self.turn,
            "toggles": sorted(self.toggles),
            "progressive_toggles": sorted(self.progressive_toggles),
            "respawn_level": self.respawn_level,
            "respawns": self.respawns,
            "strength_level": self.strength_level,
            "extra_basic": self.extra_basic,
            "extra_specialists": self.extra_specialists,
            "extra_lieutenants": self.extra_lieutenants,
            "deployment_variables": self.deployment_variables,
            "escalating_battles": self.escalating_battles,
            "elite_mode": self.elite_mode,
            "elite_target": self.elite_target,
            "applied": list(self.applied),
        }


@dataclass(frozen=True)
class Reminder:
    """One adjustment the referee applies to a battle: ``key`` (stable id), ``title``, ``text``
    (our words) and ``source`` (book page, e.g. ``"p.33"``)."""

    key: str
    title: str
    text: str
    source: str

    def as_dict(self) -> dict[str, str]:
        return {"key": self.key, "title": self.title, "text": self.text, "source": self.source}


# -- helpers ----------------------------------------------------------------------------


def _table(tables: Mapping[str, RangeTable], slug: str) -> RangeTable:
    try:
        return tables[slug]
    except KeyError:
        raise DifficultyError(
            f"tables must include {slug!r}; got {', '.join(sorted(tables)) or 'none'}.", field="tables"
        ) from None


def _int(data: Mapping[str, Any], key: str, slug: str) -> int:
    try:
        return int(data[key])
    except (KeyError, TypeError, ValueError):
        raise DifficultyError(
            f"Table {slug!r} needs a whole number {key!r} in every row; got {data.get(key)!r}.", field="tables"
        ) from None


def _check_turn(turn: Any) -> int:
    if isinstance(turn, bool) or not isinstance(turn, int) or turn < 1:
        raise DifficultyError(f"turn must be a campaign turn number of 1 or more; got {turn!r}.", field="turn")
    return turn


def _reached(table: RangeTable, turn: int) -> list[Entry]:
    """Rows whose ``campaign_turn`` is at or before ``turn``, in turn order."""
    rows = [e for e in table.rows() if _int(e.data, "campaign_turn", table.slug) <= turn]
    return sorted(rows, key=lambda e: (_int(e.data, "campaign_turn", table.slug), e.position))


def _toggle_row(toggle: str, tables: Mapping[str, RangeTable]) -> Entry:
    table = _table(tables, TOGGLE_TABLE)
    for entry in table.rows():
        if entry.data.get("toggle") == toggle:
            return entry
    raise DifficultyError(f"Table {TOGGLE_TABLE!r} has no row for toggle {toggle!r}.", field="tables")


def _toggle_data(toggle: str, tables: Mapping[str, RangeTable] | None) -> Mapping[str, Any]:
    if tables is None:
        return TOGGLE_DEFAULTS[toggle]
    return _toggle_row(toggle, tables).data


def elite_table_target(tables: Mapping[str, RangeTable]) -> int:
    """The lowest D6 score that gives elite enemies on ``elite-encounter-roll`` (4, p.48)."""
    table = _table(tables, ELITE_TABLE)
    lows = [e.low for e in table.rows() if e.data.get("elite") and e.low is not None]
    if not lows:
        raise DifficultyError(f"Table {ELITE_TABLE!r} has no row with elite set.", field="tables")
    return min(lows)


def _stronger(mode: str, target: int | None, other_mode: str, other_target: int | None) -> tuple[str, int | None]:
    """Of two elite modes keep the one that brings elite enemies more often."""

    def rank(m: str, t: int | None) -> tuple[int, int]:
        return _ELITE_RANK[m], -(t or 0) if m == "roll" else 0

    return (other_mode, other_target) if rank(other_mode, other_target) > rank(mode, target) else (mode, target)


# -- turn difficulty --------------------------------------------------------------------


def turn_difficulty(options: CampaignOptions, turn: int, tables: Mapping[str, RangeTable]) -> TurnDifficulty:
    """What difficulty applies on campaign ``turn`` (1 = first turn), pp.30-31 and p.48.

    A progressive row applies from its ``campaign_turn`` onwards (turn 10 reaches Strength 2).
    Option 1 applies only the highest Respawn row and the highest Strength row reached; option
    2 applies every row reached. The elite mode is the campaign's ``elite_enemies`` option
    (``roll`` uses the 4+ of ``elite-encounter-roll``) or option 2's, whichever brings elite
    enemies more often.

    ``tables`` needs the option tables in use and, for a roll, ``elite-encounter-roll``. Raises
    :class:`DifficultyError` for a turn below 1 (field ``turn``), an unknown elite mode
    (``elite_enemies``) or a missing or malformed table (``tables``).
    """
    turn = _check_turn(turn)
    if options.elite_enemies not in ELITE_MODES:
        raise DifficultyError(
            f"elite_enemies must be one of {', '.join(ELITE_MODES)}; got {options.elite_enemies!r}.", field="elite_enemies"
        )
    applied: list[str] = []
    respawn: Entry | None = None
    strength: Entry | None = None
    if 1 in options.progressive:
        table = _table(tables, OPTION_1)
        for entry in _reached(table, turn):
            kind = entry.data.get("modification")
            if kind == "respawn":
                respawn = entry
            elif kind == "strength":
                strength = entry
            else:
                raise DifficultyError(
                    f"Table {OPTION_1!r}: modification must be respawn or strength; got {kind!r}.", field="tables"
                )
        applied += [e.result for e in (respawn, strength) if e is not None]

    mode = options.elite_enemies
    target = elite_table_target(tables) if mode == "roll" else None
    added: set[str] = set()
    rules: set[str] = set()
    if 2 in options.progressive:
        table = _table(tables, OPTION_2)
        for entry in _reached(table, turn):
            applied.append(entry.result)
            for key in entry.data.get("enables", ()):
                if key in TOGGLES:
                    added.add(key)
                elif key in OPTION_2_RULES:
                    rules.add(key)
                else:
                    allowed = ", ".join((*TOGGLES, *OPTION_2_RULES))
                    raise DifficultyError(f"Table {OPTION_2!r}: enables must name one of {allowed}; got {key!r}.", field="tables")
            if entry.data.get("elite_always"):
                mode, target = _stronger(mode, target, "always", None)
            elif "elite_target" in entry.data:
                mode, target = _stronger(mode, target, "roll", _int(entry.data, "elite_target", OPTION_2))

    return TurnDifficulty(
        turn=turn,
        toggles=frozenset(options.toggles) | added,
        progressive_toggles=frozenset(added - set(options.toggles)),
        respawn_level=_int(respawn.data, "level", OPTION_1) if respawn else 0,
        respawns=_int(respawn.data, "respawns", OPTION_1) if respawn else 0,
        strength_level=_int(strength.data, "level", OPTION_1) if strength else 0,
        extra_basic=_int(strength.data, "basic_enemies", OPTION_1) if strength else 0,
        extra_specialists=_int(strength.data, "specialists", OPTION_1) if strength else 0,
        extra_lieutenants=_int(strength.data, "lieutenants", OPTION_1) if strength else 0,
        deployment_variables="deployment_variables" in rules,
        escalating_battles="escalating_battles" in rules,
        elite_mode=mode,
        elite_target=target if mode == "roll" else None,
        applied=tuple(applied),
    )


def elite_check(
    difficulty: TurnDifficulty,
    tables: Mapping[str, RangeTable],
    dice: Dice,
    value: int | None = None,
) -> tuple[bool, TableRoll | None]:
    """Are this encounter's enemies elite-level (p.48; option 2, p.31)?

    ``never`` gives ``(False, None)`` and ``always`` ``(True, None)`` without a roll (``value``
    is then ignored). ``roll`` rolls D6 on ``elite-encounter-roll`` (or looks up ``value``, the
    player's d6 face). When the target is below the table's 4+ (option 2's 3+), the difference
    is added as a modifier so the table row still decides; the record's reason names the target.

    Raises :class:`DifficultyError` for a missing table and
    :class:`rules.engine.tables.TableError` for a face the D6 cannot show.
    """
    if difficulty.elite_mode == "never":
        return False, None
    if difficulty.elite_mode == "always":
        return True, None
    table = _table(tables, ELITE_TABLE)
    base = elite_table_target(tables)
    target = difficulty.elite_target if difficulty.elite_target is not None else base
    roll = table.roll_or_enter(
        dice,
        value=value,
        modifier=base - target,
        reason=f"Elite-level enemies on {target}+",
    )
    return bool(roll.entry.data.get("elite")), roll


# -- battle brief -----------------------------------------------------------------------


def _plural(count: int, word: str) -> str:
    if count == 1:
        return f"{count} {word}"
    return f"{count} {word[:-1]}ies" if word.endswith("y") else f"{count} {word}s"


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def _toggle_text(toggle: str, data: Mapping[str, Any], crew_fielded: int) -> str:
    if toggle == "strength_adjusted_enemies":
        return f"Skip the enemy numbers roll: start from {crew_fielded} (crew fielded), then add Numbers and any other bonuses."
    if toggle == "veteran":
        return f"Make {_plural(int(data['veteran_enemies']), 'basic enemy')} a veteran with +{data['combat_skill']} Combat Skill; mark the figure."
    if toggle == "actually_specialized":
        return f"Raise specialists to at least Combat Skill +{data['combat_skill_min']} and Toughness {data['toughness_min']}."
    if toggle == "armored_leaders":
        return f"Lieutenants without a Saving Throw get a {data['saving_throw']}+ one."
    if toggle == "better_leadership":
        return (
            f"Unique Individual on {data['unique_individual_target']}+ instead of {data['standard_target']}+. If the enemy "
            f"type can't have one, a success gives a random enemy +{data['combat_skill']} Combat Skill and "
            f"+{data['toughness']} Toughness (at most +{data['combat_skill_max']} and {data['toughness_max']})."
        )
    if toggle == "paying_by_the_hour":
        objectives = " and ".join(data.get("objectives_after_limit", ()))
        return (
            f"At set-up roll 2D6, keep the higher die and add {data['time_limit_bonus']} "
            f"(a round from {data['time_limit_min']} to {data['time_limit_max']}). After that round only {objectives} objectives "
            "count, and clearing the enemy does not finish the others."
        )
    if toggle == "movement_all_over":
        edges = ", ".join(f"{k} {v}" for k, v in dict(data.get("arrival_edge", {})).items())
        order = [str(kind) for kind in data.get("arrival_order", ())]
        return (
            f"End of every round: roll {data['arrival_roll']}; at or under the round number, one enemy arrives at the "
            f"middle of a random edge ({edges}). Arrivals in order: {', '.join(order[:-1])}, then {order[-1]} for the rest."
        )
    if toggle == "fickle_scans":
        return f"Notable Sights still uninvestigated when round {data['deadline_round']} ends are removed."
    raise DifficultyError(f"toggle must be one of {', '.join(BATTLE_TOGGLES)}; got {toggle!r}.", field="toggles")


def _enemy_psionics_text(tables: Mapping[str, RangeTable]) -> str:
    table = _table(tables, ENEMY_PSIONICS_TABLE)
    rows = sorted(table.rows(), key=lambda e: _int(e.data, "step", ENEMY_PSIONICS_TABLE))
    steps = "; ".join(f"{e.result}: {e.effect.rstrip('.')}" for e in rows)
    return f"Check in order, first match decides. {steps}."


def battle_brief(
    options: CampaignOptions,
    turn: int,
    tables: Mapping[str, RangeTable],
    crew_fielded: int,
    *,
    elite: bool | None = None,
) -> list[Reminder]:
    """The adjustments the referee applies to this battle, one :class:`Reminder` each.

    Covered, each only when it applies on ``turn``: progressive option 1 Strength and Respawn
    (p.30), the battle toggles (Strength-adjusted Enemies p.32, Hit Me Harder p.33, Time is
    Running Out p.34; chosen or switched on by option 2), elite-level enemies (p.48), enemy
    psionics (pp.22-23), Deployment Variables (p.44) and Escalating Battles (p.46) from option 2,
    Dramatic Combat (p.87) and the Casualty Tables (p.99). ``crew_fielded`` is the number of
    crew figures in this battle (the Strength-adjusted base count). ``elite``: what the turn's
    elite-level enemy roll decided (p.48), or ``None`` before it was made: once made, the brief
    says the result instead of asking for the roll.

    Raises :class:`DifficultyError` for ``crew_fielded`` below 1 and as :func:`turn_difficulty`.
    """
    if isinstance(crew_fielded, bool) or not isinstance(crew_fielded, int) or crew_fielded < 1:
        raise DifficultyError(f"crew_fielded must be a number of figures, 1 or more; got {crew_fielded!r}.", field="crew_fielded")
    diff = turn_difficulty(options, turn, tables)
    reminders: list[Reminder] = []

    if diff.strength_level:
        parts = [
            _plural(n, word)
            for n, word in (
                (diff.extra_basic, "basic enemy"),
                (diff.extra_specialists, "specialist"),
                (diff.extra_lieutenants, "Lieutenant"),
            )
            if n
        ]
        reminders.append(
            Reminder(
                "progressive_strength",
                f"Progressive difficulty: Strength {diff.strength_level}",
                f"Add {_join(parts)} to the encounter.",
                "p.30",
            )
        )
    if diff.respawn_level:
        reminders.append(
            Reminder(
                "progressive_respawn",
                f"Progressive difficulty: Respawn {diff.respawn_level}",
                f"Replace the first {_plural(diff.respawns, 'basic enemy')} slain at the end of that round; replacements "
                "enter at the middle of the enemy edge. Nothing respawns once the table is clear: the crew wins.",
                "p.30",
            )
        )
    for toggle in BATTLE_TOGGLES:
        if toggle not in diff.toggles:
            continue
        row = _toggle_row(toggle, tables)
        text = _toggle_text(toggle, row.data, crew_fielded)
        if toggle in diff.progressive_toggles:
            text += " (On through progressive difficulty.)"
        page = GROUP_PAGES.get(str(row.data.get("group", "")), "pp.32-34")
        reminders.append(Reminder(toggle, row.result, text, page))
    if diff.elite_mode == "always":
        reminders.append(
            Reminder("elite_enemies", "Elite-level enemies", "Use the elite-level enemy tables for this encounter.", "p.48")
        )
    elif diff.elite_mode == "roll" and elite is not None:
        said = "use the elite-level enemy tables" if elite else "use the standard enemy tables"
        reminders.append(Reminder("elite_enemies", "Elite-level enemies", f"This turn's roll: {said}.", "p.48"))
    elif diff.elite_mode == "roll":
        reminders.append(
            Reminder(
                "elite_enemies",
                "Elite-level enemies",
                f"Roll D6 for this encounter: {diff.elite_target}+ uses the elite-level enemy tables.",
                "p.48",
            )
        )
    if options.enemy_psionics:
        reminders.append(Reminder("enemy_psionics", "Enemy Psionics", _enemy_psionics_text(tables), "pp.22-23"))
    if diff.deployment_variables:
        reminders.append(
            Reminder(
                "deployment_variables",
                "Enemy Deployment Variables",
                "Use the enemy deployment variables for this battle (on through progressive difficulty).",
                "p.44",
            )
        )
    if diff.escalating_battles:
        reminders.append(
            Reminder(
                "escalating_battles",
                "Escalating Battles",
                "Use the escalating battles rules for this battle (on through progressive difficulty).",
                "p.46",
            )
        )
    if options.dramatic_combat:
        reminders.append(
            Reminder(
                "dramatic_combat",
                "Dramatic Combat",
                "Use Adjusted Shooting and the Duck Back and Lunge tests; dramatic weapons are available.",
                "p.87",
            )
        )
    if options.casualty_tables:
        reminders.append(
            Reminder(
                "casualty_tables",
                "Casualty Tables",
                "A hit that beats Toughness rolls on the casualty table for the figure's kind (humanoid, cybernetic, "
                "beast); with several such hits only the highest roll counts.",
                "pp.99-100",
            )
        )
    return reminders


# -- Money is Tight (p.32) --------------------------------------------------------------


def upkeep(
    options: CampaignOptions,
    crew_count: int,
    core_upkeep: int | None = None,
    *,
    tables: Mapping[str, RangeTable] | None = None,
) -> int | None:
    """Upkeep in credits for a crew of ``crew_count`` figures (p.32).

    With Money is Tight: 0 for one figure, 1 for 2-4, plus 1 for each figure past 4 (numbers
    from the toggle's data). Without it the core rulebook's figure applies: ``core_upkeep`` as
    given by the player, or ``None`` when not given.

    Raises :class:`DifficultyError` for ``crew_count`` below 1 or a negative ``core_upkeep``.
    """
    if isinstance(crew_count, bool) or not isinstance(crew_count, int) or crew_count < 1:
        raise DifficultyError(f"crew_count must be 1 or more; got {crew_count!r}.", field="crew_count")
    if core_upkeep is not None and core_upkeep < 0:
        raise DifficultyError(f"core_upkeep must be 0 or more credits; got {core_upkeep!r}.", field="core_upkeep")
    if not options.has("money_is_tight"):
        return core_upkeep
    data = _toggle_data("money_is_tight", tables)
    if crew_count == 1:
        return int(data["upkeep_one_crew"])
    return int(data["upkeep_two_to_four_crew"]) + max(0, crew_count - 4) * int(data["upkeep_per_crew_over_four"])


def free_hull_repair(options: CampaignOptions, *, tables: Mapping[str, RangeTable] | None = None) -> bool:
    """Whether the ship gets its free Hull Point repair this turn (not with Money is Tight, p.32)."""
    if not options.has("money_is_tight"):
        return True
    return bool(_toggle_data("money_is_tight", tables)["free_hull_repair"])


def _action_key(action: str) -> str:
    return "_".join(str(action).strip().lower().replace("-", " ").split())


def crew_action_cost(options: CampaignOptions, action: str, *, tables: Mapping[str, RangeTable] | None = None) -> int:
    """Credits a crew task costs (p.32): Find a Patron and Repair Your Kit cost 1 with Money is
    Tight; everything else 0.

    ``action`` is a key from :data:`CREW_ACTIONS` or its name ("Find a Patron"). Raises
    :class:`DifficultyError` (field ``action``) for anything else.
    """
    key = _action_key(action)
    if key not in CREW_ACTIONS:
        raise DifficultyError(f"action must be one of {', '.join(CREW_ACTIONS)}; got {action!r}.", field="action")
    if not options.has("money_is_tight") or key not in ("find_a_patron", "repair_your_kit"):
        return 0
    return int(_toggle_data("money_is_tight", tables)[f"{key}_credits"])


# -- Starting in the Gutter (p.34) ------------------------------------------------------

#: The core rules' starting credits per crew member, which Meager starting kit takes away (p.34).
CORE_STARTING_CREDITS_PER_CREW = 1


def starting_crew_count(options: CampaignOptions, *, tables: Mapping[str, RangeTable] | None = None) -> int:
    """How many crew the campaign starts with (p.34).

    Short-handed crew starts a campaign of crew size 6 with 3. The book states it only for
    size 6, so with a crew size of 4 or 5 the toggle changes nothing (our ruling).
    """
    if options.has("gutter_small_crew"):
        data = _toggle_data("gutter_small_crew", tables)
        if options.crew_size == int(data["standard_crew_size"]):
            return int(data["starting_crew"])
    return options.crew_size


def starts_with_ship(options: CampaignOptions, *, tables: Mapping[str, RangeTable] | None = None) -> bool:
    """False with the No ship toggle: the crew must buy one later (p.34, core rules p.60)."""
    if not options.has("gutter_no_ship"):
        return True
    return bool(_toggle_data("gutter_no_ship", tables)["starting_ship"])


def starting_kit(options: CampaignOptions, *, tables: Mapping[str, RangeTable] | None = None) -> dict[str, int] | None:
    """Creation kit with Meager starting kit (p.34), else ``None`` (use the core rules).

    Shape: ``{"low_tech_weapon_rolls": 3, "gear_or_gadget_rolls": 1 (player's choice of Gear or
    Gadget), "military_hi_tech_rolls": 0, "starting_credits_per_crew": 0}``.
    """
    if not options.has("gutter_starting_kit"):
        return None
    data = _toggle_data("gutter_starting_kit", tables)
    keys = ("low_tech_weapon_rolls", "gear_or_gadget_rolls", "military_hi_tech_rolls", "starting_credits_per_crew")
    return {key: int(data[key]) for key in keys}


# -- Reduced Lethality (p.34) -----------------------------------------------------------


def injury_exemption(
    options: CampaignOptions,
    injured_ids: Iterable[str],
    *,
    tables: Mapping[str, RangeTable] | None = None,
) -> int:
    """How many injured characters may skip the injury roll and recover fully (p.34).

    With Reduced Lethality and 2 or more distinct injured characters: 1 (any kind, Bots and
    Soulless included). Otherwise 0.
    """
    count = len(set(injured_ids))
    if not options.has("reduced_lethality"):
        return 0
    data = _toggle_data("reduced_lethality", tables)
    return int(data["exempt_characters"]) if count >= int(data["injured_min"]) else 0
