"""Campaign set-up options: the updated set-up sequence (Compendium p.8) with every option it
lists, the difficulty toggles (pp.32-34) and progressive difficulty (pp.30-31).

:func:`parse_options` turns form or JSON input into a frozen :class:`CampaignOptions`, naming
the field and its allowed values when something is wrong. Every option here is read by a rule
in ``campaigns.engine`` (see each field's comment for where).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from rules.engine.errors import RuleError

#: Difficulty toggle keys, as in the ``difficulty-toggles`` table's ``toggle`` data (pp.32-34).
TOGGLES: tuple[str, ...] = (
    "strength_adjusted_enemies",
    "money_is_tight",
    "slower_progression",
    "veteran",
    "actually_specialized",
    "armored_leaders",
    "better_leadership",
    "paying_by_the_hour",
    "movement_all_over",
    "fickle_scans",
    "gutter_starting_kit",
    "gutter_small_crew",
    "gutter_no_ship",
    "reduced_lethality",
)
CREW_SIZES: tuple[int, ...] = (4, 5, 6)
PSIONICS_MODES: tuple[str, ...] = ("off", "crew", "enemies", "both")
ELITE_MODES: tuple[str, ...] = ("never", "roll", "always")
PROGRESSIVE_OPTIONS: tuple[int, ...] = (1, 2)
BOOL_OPTIONS: tuple[str, ...] = (
    "introductory_campaign",
    "loans",
    "story_track",
    "expanded_factions",
    "fringe_world_strife",
    "dramatic_combat",
    "casualty_tables",
    "detailed_injuries",
    "expanded_connections",
    "connections_no_roll",
)


class OptionError(RuleError):
    """A set-up option with a value the rules do not allow; ``field`` names it."""


@dataclass(frozen=True)
class CampaignOptions:
    """Everything chosen at campaign set-up.

    - ``crew_size``: 4, 5 or 6 figures; sets the starting crew and, with Short-handed crew, the
      three-figure start (p.34).
    - ``introductory_campaign`` (p.104): turns 1-5 follow the tutorial's reduced step lists.
    - ``loans`` (p.152): set-up rolls the loan; the World step checks enforcement.
    - ``story_track`` (core p.153): adds a manual Story Track step to each turn.
    - ``expanded_factions`` (p.110): adds the Factions fleeing step when invaded.
    - ``victory_condition``, ``difficulty_mode``: the core rulebook's choices, recorded as text.
    - ``toggles``: the difficulty toggles switched on (keys from :data:`TOGGLES`).
    - ``progressive``: progressive difficulty option 1, 2 or both (p.30).
    - ``fringe_world_strife`` (p.148): Instability checks on arrival and after battle.
    - ``dramatic_combat`` (p.87), ``casualty_tables`` (p.99): battle rules, listed in the
      battle brief; dramatic weapons join the weapon list.
    - ``detailed_injuries`` (p.101): the injuries step rolls the Compendium table.
    - ``expanded_connections`` (pp.80-86): Opportunity missions check for a Connection
      (``campaigns.engine.connections``); ``connections_no_roll`` (p.81): every other one has one.
    - ``psionics`` (pp.17-24): ``off``, ``crew`` (a Psionic may join the crew, legality and
      detection steps run), ``enemies`` (enemy Psionics in battle) or ``both``.
    - ``elite_enemies`` (p.48): ``never``, ``roll`` (D6 4+ per encounter) or ``always``.
    - ``house_rules``: notes, shown on the crew sheet.
    """

    crew_size: int = 6
    introductory_campaign: bool = False
    loans: bool = False
    story_track: bool = False
    expanded_factions: bool = False
    victory_condition: str = ""
    difficulty_mode: str = ""
    toggles: frozenset[str] = field(default_factory=frozenset)
    progressive: frozenset[int] = field(default_factory=frozenset)
    fringe_world_strife: bool = False
    dramatic_combat: bool = False
    casualty_tables: bool = False
    detailed_injuries: bool = False
    expanded_connections: bool = False
    connections_no_roll: bool = False
    psionics: str = "off"
    elite_enemies: str = "never"
    house_rules: str = ""

    def has(self, toggle: str) -> bool:
        """Whether a difficulty toggle is on. Raises :class:`OptionError` for an unknown key."""
        if toggle not in TOGGLES:
            raise OptionError(f"No difficulty toggle {toggle!r}; choose from {', '.join(TOGGLES)}.", field="toggles")
        return toggle in self.toggles

    @property
    def crew_psionics(self) -> bool:
        return self.psionics in ("crew", "both")

    @property
    def enemy_psionics(self) -> bool:
        return self.psionics in ("enemies", "both")

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: toggles and progressive as sorted lists."""
        data = asdict(self)
        data["toggles"] = sorted(self.toggles)
        data["progressive"] = sorted(self.progressive)
        return data


def _flag(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if value in (None, "", 0, "0", "off", "false", "False", "no"):
        return False
    if value in (1, "1", "on", "true", "True", "yes"):
        return True
    raise OptionError(f"{name} must be on or off; got {value!r}.", field=name)


def _text(name: str, value: Any, limit: int) -> str:
    text = "" if value is None else str(value).strip()
    if len(text) > limit:
        raise OptionError(f"{name} is limited to {limit} characters; got {len(text)}.", field=name)
    return text


def _choices(name: str, value: Any, allowed: tuple[Any, ...], convert: type) -> frozenset[Any]:
    if value in (None, ""):
        return frozenset()
    items = [value] if isinstance(value, (str, int)) else list(value)
    chosen = set()
    for item in items:
        try:
            converted = convert(item)
        except (TypeError, ValueError):
            converted = None
        if converted not in allowed:
            raise OptionError(f"{name} may only hold {', '.join(map(str, allowed))}; got {item!r}.", field=name)
        chosen.add(converted)
    return frozenset(chosen)


def parse_options(data: Mapping[str, Any]) -> CampaignOptions:
    """Options from a form or JSON mapping; missing keys take the defaults.

    Raises :class:`OptionError` naming the field and the allowed values for an unknown key, a
    crew size other than 4-6, an unknown toggle, psionics mode or elite mode.
    """
    known = set(CampaignOptions.__dataclass_fields__)
    unknown = sorted(set(data) - known)
    if unknown:
        raise OptionError(f"Unknown option {unknown[0]!r}; options are {', '.join(sorted(known))}.", field=unknown[0])
    try:
        crew_size = int(data.get("crew_size", 6))
    except (TypeError, ValueError):
        crew_size = 0
    if crew_size not in CREW_SIZES:
        raise OptionError(f"crew_size must be one of 4, 5, 6; got {data.get('crew_size')!r}.", field="crew_size")
    psionics = str(data.get("psionics") or "off")
    if psionics not in PSIONICS_MODES:
        raise OptionError(f"psionics must be one of {', '.join(PSIONICS_MODES)}; got {psionics!r}.", field="psionics")
    elite = str(data.get("elite_enemies") or "never")
    if elite not in ELITE_MODES:
        raise OptionError(f"elite_enemies must be one of {', '.join(ELITE_MODES)}; got {elite!r}.", field="elite_enemies")
    return CampaignOptions(
        crew_size=crew_size,
        victory_condition=_text("victory_condition", data.get("victory_condition"), 200),
        difficulty_mode=_text("difficulty_mode", data.get("difficulty_mode"), 60),
        toggles=_choices("toggles", data.get("toggles"), TOGGLES, str),
        progressive=_choices("progressive", data.get("progressive"), PROGRESSIVE_OPTIONS, int),
        psionics=psionics,
        elite_enemies=elite,
        house_rules=_text("house_rules", data.get("house_rules"), 4000),
        **{name: _flag(name, data.get(name)) for name in BOOL_OPTIONS},
    )
