"""The expanded co-op battle's opposition (Compendium pp.39-41): two crews against waves.

:func:`coop_waves` builds the set-up card's enemy side:

- each player's enemy force, generated as normal with +2 numbers (p.40): the category picked
  and the type rolled D100 on that category's elite table (pp.48-65), with the numbers the
  player's core roll gave; the larger force is Wave 1, the other Wave 2 (a D6 decides when they
  are equal: 1-3 the host's force first); Wave 2 gets one more Unique Individual;
- Wave 3 (p.40): a Hired Muscle force with one more specialist and a Unique Individual always.
  Ruling: it is rolled at set-up, with the numbers the players' core roll gave, so the tracker
  needs no core table mid-battle; it stays off the table until the end-of-round 2D6 calls it;
- Tough Fight (p.41): every wave has a Panic range of 1, and Cautious or Defensive AI plays as
  Tactical;
- the Increased Challenge variant (p.41): one more Lieutenant in Waves 1 and 2, two more basic
  enemies in Wave 3;
- ``invasion``: the waves whose type has the Invasion Threat trait (the players say so: the
  trait is in the core rulebook), for the aftermath's Invasion check (+1 per such wave);
- Separate Enemy Teams (p.41): each player's force is built with their own campaign's
  difficulty options and their own crew's size, and the host's is Wave 1, the guest's Wave 2;
- a Rival coalition (p.39): each force is one crew's Rival's (``rivals``), built as a Rival's
  force (Grudge adds its numbers) and named on its wave.

Every figure comes out as a tracker figure (:func:`battles.engine.fp_pvp.third.figure_of`)
with its ``wave``. Every die is rolled or typed and kept in ``rolls``. Raises
:class:`battles.engine.fp_pvp.setup.PvpError` naming the field at fault. Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from battles.engine import fp_enemies
from battles.engine.fp_enemies.base import EnemyFigure, EnemyForce
from battles.engine.fp_pvp.setup import PvpError
from battles.engine.fp_pvp.third import CATEGORIES, _extra, figure_of
from campaigns.engine.options import CampaignOptions
from rules.engine.dice import Dice, DiceError, RollRecord
from rules.engine.tables import RangeTable

#: Extra enemies each of the two known forces gets (p.40).
MORE_NUMBERS = 2
#: The category Wave 3 is rolled on (p.40: the Hired Muscle tables).
WAVE3_CATEGORY = "Hired Muscle"
#: Tough Fight (p.41): every wave's Panic range.
TOUGH_PANIC = "1"
#: AI types Tough Fight plays as Tactical (p.41), by name or by the tables' letter (C, D).
AS_TACTICAL = ("cautious", "defensive", "c", "d")
#: The round Wave 2 arrives at the start of, and the first round whose end checks for Wave 3 (p.40).
WAVE2_ROUND = 3
#: From the end of this round a cleared table ends the battle even before Wave 3 (p.40, Make it Quick).
QUICK_FROM = 6


def _tough(figure: dict[str, Any], wave: int) -> dict[str, Any]:
    ai = str(figure.get("ai") or "")
    if ai.strip().lower() in AS_TACTICAL:
        figure["ai"] = "T"  # Tactical
        figure["kit"] = [
            *figure.get("kit", ()),
            f"Tough Fight: plays Tactical AI, not {'Cautious' if ai[:1].lower() == 'c' else 'Defensive'} (p.41)",
        ]
    figure["wave"] = wave
    return figure


def _force(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    category: str,
    numbers: int,
    crew_size: int,
    options: CampaignOptions,
    field: str,
    extra_basics: int,
    reason: str,
    rival: bool = False,
    unique_always: bool = False,
) -> EnemyForce:
    if category not in CATEGORIES:
        raise PvpError(f"{field}.category must be one of {', '.join(CATEGORIES)}; got {category!r}.", field=field)
    if not 1 <= int(numbers) <= 12:
        raise PvpError(f"{field}.numbers (your core numbers roll) must be from 1 to 12; got {numbers}.", field=field)
    try:
        force = fp_enemies.roll_elite_enemy(
            dice,
            tables,
            crew_size=max(1, int(crew_size)),
            options=options,
            category=category,
            base_numbers=int(numbers),
            rival=rival,
            unique_always=unique_always,
        )
        return fp_enemies.pressed_force(dice, tables, force, numbers=extra_basics, reasons=[reason])
    except fp_enemies.EnemyError as exc:
        raise PvpError(exc.message, field=field) from None


def _more_unique(dice: Dice, tables: Mapping[str, RangeTable], force: EnemyForce, field: str) -> tuple[EnemyFigure, EnemyForce]:
    """One more Unique Individual for ``force`` (rolled as the force's own would be)."""
    try:
        made = fp_enemies.pressed_force(
            dice,
            tables,
            replace(force, unique_individual=None, figures=tuple(f for f in force.figures if f.rank != "unique")),
            unique_individual=True,
        )
    except fp_enemies.EnemyError as exc:
        raise PvpError(exc.message, field=field) from None
    if made.unique_individual is None:
        raise PvpError("This force's type has no Unique Individual to add.", field=field)
    return made.unique_individual, made


def _plain(force: EnemyForce) -> list[EnemyFigure]:
    return [f for f in force.figures if f.rank != "unique"]


def coop_waves(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    forces: Mapping[str, Mapping[str, Any]],
    wave3_numbers: int,
    crew_size: int,
    options: CampaignOptions | None = None,
    order_face: int | None = None,
    increased_challenge: bool = False,
    invasion: Sequence[int] = (),
    separate_teams: Mapping[str, tuple[CampaignOptions, int]] | None = None,
    rivals: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The co-op battle's enemy waves (module docstring).

    ``forces``: ``{"host": {"category", "numbers"}, "guest": {...}}``, each player's enemy
    (``numbers``: 1-12 from their core numbers roll); ``wave3_numbers``: the core numbers roll
    for Wave 3; ``crew_size``: both crews' figures together; ``order_face``: the D6 when the two
    forces are equal in size; ``invasion``: wave numbers (1-3) with the Invasion Threat trait;
    ``separate_teams``: ``{side: (that campaign's options, its crew size)}`` for the Separate
    Enemy Teams variant; ``rivals``: ``{side: the Rival's name}`` for a Rival coalition.

    Returns ``{"waves": [{"wave", "from", "category", "type", "panic", "lines", "count",
    "invasion", "rival"}], "figures": [tracker figures with "wave"], "rolls"}``.
    Raises :class:`PvpError` naming ``forces.host``, ``forces.guest``, ``wave3_numbers``,
    ``order_face`` or ``invasion``."""
    bad = [w for w in invasion if int(w) not in (1, 2, 3)]
    if bad:
        raise PvpError(f"invasion lists waves 1 to 3; got {bad}.", field="invasion")
    opts = options or CampaignOptions()
    rolls: list[RollRecord] = []
    built: dict[str, EnemyForce] = {}
    for side in ("host", "guest"):
        raw = forces.get(side)
        if not isinstance(raw, Mapping):
            raise PvpError(f"forces.{side}: each player rolls up an enemy (category and numbers, p.40).", field=f"forces.{side}")
        own_options, own_crew = (separate_teams or {}).get(side) or (opts, crew_size)
        built[side] = _force(
            dice,
            tables,
            category=str(raw.get("category") or ""),
            numbers=int(raw.get("numbers") or 0),
            crew_size=own_crew,
            options=own_options,
            field=f"forces.{side}",
            extra_basics=MORE_NUMBERS,
            reason="Co-op battle (p.40): +2 enemies.",
            rival=bool((rivals or {}).get(side)),
        )
        rolls.extend(built[side].rolls)
    sizes = {side: len(built[side].figures) for side in built}
    if separate_teams:  # each player's own enemy, Wave 1 and Wave 2 respectively (p.41)
        first = "host"
    elif sizes["host"] == sizes["guest"]:
        try:
            record = dice.roll_or_enter(
                "D6", "Co-op battle: which equal force is Wave 1 (1-3 the host's, p.40)", faces=order_face
            )
        except DiceError as exc:
            raise PvpError(str(exc), field="order_face") from None
        rolls.append(record)
        first = "host" if int(record.total or 0) <= 3 else "guest"
    else:
        first = max(sizes, key=lambda s: sizes[s])
    second = "guest" if first == "host" else "host"
    wave3 = _force(
        dice,
        tables,
        category=WAVE3_CATEGORY,
        numbers=int(wave3_numbers or 0),
        crew_size=crew_size,
        options=opts,
        field="wave3_numbers",
        extra_basics=2 if increased_challenge else 0,
        reason="Co-op battle, Wave 3 (p.40): Hired Muscle, one more specialist, a Unique Individual.",
        unique_always=True,  # no roll for it: Wave 3 always has one (p.40)
    )
    rolls.extend(wave3.rolls)
    unique2, made2 = _more_unique(dice, tables, built[second], "forces." + second)
    rolls.extend(made2.rolls[len(built[second].rolls) :])
    wave3_unique = wave3.unique_individual
    if wave3_unique is None:
        wave3_unique, made3 = _more_unique(dice, tables, wave3, "wave3_numbers")
        rolls.extend(made3.rolls[len(wave3.rolls) :])
    lieutenant = {side: _extra(built[side], "lieutenant", 1) if increased_challenge else [] for side in built}
    uniques: dict[str, list[EnemyFigure]] = {side: [] for side in built}
    for side, force in built.items():
        if force.unique_individual is not None:
            uniques[side].append(force.unique_individual)
    lists: dict[int, list[EnemyFigure]] = {
        1: _plain(built[first]) + lieutenant[first] + uniques[first],
        2: _plain(built[second]) + lieutenant[second] + uniques[second] + [unique2],
        3: _plain(wave3) + _extra(wave3, "specialist", 1) + [wave3_unique],
    }
    waves = []
    figures: list[dict[str, Any]] = []
    order: tuple[tuple[int, EnemyForce, str], ...] = ((1, built[first], first), (2, built[second], second), (3, wave3, ""))
    for number, force, owner in order:
        made = [_tough(figure_of(f, tables), number) for f in lists[number]]
        figures.extend(made)
        waves.append(
            {
                "wave": number,
                "from": owner,
                "category": force.category,
                "type": force.type,
                "panic": TOUGH_PANIC,
                "lines": list(force.lines),
                "count": len(made),
                "invasion": number in {int(w) for w in invasion},
                "rival": (rivals or {}).get(owner) or "",
            }
        )
    return {"waves": waves, "figures": figures, "rolls": [r.as_dict() for r in rolls]}
