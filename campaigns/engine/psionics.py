"""Psionic crew members (Compendium pp.17-21, p.27): who may be one, making one, starting
powers, buying and enhancing powers, and Nullification surgery.

The limits a Psionic lives with in ordinary play (Pistol or Melee weapons only, no Combat
Skill from XP, implants end the powers) are enforced in :mod:`campaigns.engine.characters`
(:func:`~campaigns.engine.characters.weapon_allowed`, :func:`~campaigns.engine.characters.advance`,
:func:`~campaigns.engine.characters.implant_add`).

Numbers (XP costs, recruit prices, the power table) come from the ``char-psionics`` and
``char-new-kit`` fixture tables.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from campaigns.engine.characters import PRECURSOR, Character, CharacterError, implant_add
from campaigns.engine.characters.values import _key, _row, _table
from campaigns.engine.options import CampaignOptions
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable, TableRoll

POWERS_TABLE = "psionic-powers"
RECRUITMENT_TABLE = "psionic-recruitment"
INELIGIBLE_TABLE = "psionic-ineligible"
ADVANCEMENT_TABLE = "psionic-advancement"
EQUIPMENT_TABLE = "psionic-equipment"
ACQUIRE = "Acquire Psionic Power"
ENHANCE = "Power Enhancement"
NULLIFICATION = "Nullification surgery"
PREDICT = "Predict"
#: How a later recruit pays to be a Psionic (p.17).
PAYMENTS: tuple[str, ...] = ("story_points", "credits")


class PsionicError(CharacterError):
    """A Psionic rule was broken; ``field`` names the input and the message the allowed values."""


class CrewFigure(Protocol):
    """What the one-Psionic check reads; both ``Character`` and ``CrewView`` have it."""

    @property
    def psionic(self) -> bool: ...
    @property
    def status(self) -> str: ...


@dataclass(frozen=True)
class PsionicCost:
    """What making a Psionic costs: credits and Story Points (0 and 0 at crew creation)."""

    credits: int = 0
    story_points: int = 0


@dataclass(frozen=True)
class PowerChoice:
    """A choice the player still has to make: one of ``options`` (power names)."""

    options: tuple[str, ...]
    reason: str


# -- who may be a Psionic (p.17) --------------------------------------------------------------


def ineligible_reason(character: Character, tables: Mapping[str, RangeTable]) -> str:
    """Why ``character`` can never be a Psionic, or ``""`` if it can.

    Checks ``kind`` and ``species`` against the psionic-ineligible table (Soulless, any Bot,
    De-converted, Hulker, Genetic Uplift, Bio-upgrade; matched loosely: case, spaces, hyphens
    and a plural s do not matter), lost psionics and implants (an implant would end the powers
    at once, p.18).
    """
    for entry in _table(tables, INELIGIBLE_TABLE).rows():
        wanted = _key(str(entry.data["type"]))
        if wanted in (_key(character.kind), _key(character.species)):
            return f"{entry.result} can never be a Psionic (p.17)."
    if character.psionics_lost:
        return f"{character.name} has lost psionic abilities for good (p.18)."
    if character.implants:
        return f"{character.name} has an implant, which ends psionic abilities (p.18)."
    return ""


def make_psionic(
    character: Character,
    crew: Sequence[CrewFigure],
    tables: Mapping[str, RangeTable],
    options: CampaignOptions,
    *,
    recruit: bool = False,
    payment: str | None = None,
) -> tuple[Character, PsionicCost]:
    """Make ``character`` the crew's Psionic (p.17): (new character with no powers yet, cost).

    ``crew`` is the other crew members (not this one); a living Psionic among them blocks it,
    as only ``max_psionics`` (1) is allowed at a time. At crew creation (``recruit`` False) the
    choice must come before the profile is rolled (``profile_rolled`` False) and is free. A
    later recruit (``recruit`` True) pays with ``payment`` ``story_points`` (1) or ``credits``
    (10), read from psionic-recruitment. Then roll :func:`starting_powers`.

    Raises :class:`PsionicError` when crew Psionics are off in ``options``, the character is
    already a Psionic or can never be one, the crew has one, or the timing or payment is wrong.
    """
    if not options.crew_psionics:
        raise PsionicError(
            f"Crew Psionics are off; the psionics option must be crew or both, got {options.psionics!r}.", field="psionics"
        )
    if character.psionic:
        raise PsionicError(f"{character.name} is already a Psionic.", field="psionic")
    reason = ineligible_reason(character, tables)
    if reason:
        raise PsionicError(reason, field="species")
    rows = _table(tables, RECRUITMENT_TABLE).rows()
    limit = min(int(e.data.get("max_psionics", 1)) for e in rows)
    current = sum(1 for c in crew if c.psionic and c.status not in ("dead", "gone"))
    if current >= limit:
        raise PsionicError(f"The crew already has {current} Psionic(s); at most {limit} at a time (p.17).", field="psionic")
    if not recruit:
        if payment is not None:
            raise PsionicError("payment only applies to a later recruit (recruit=True).", field="payment")
        if character.profile_rolled:
            raise PsionicError(
                "The starting Psionic must be chosen before its profile is rolled (p.17); "
                "only a later recruit can become one, paying 1 Story Point or 10 Credits.",
                field="profile_rolled",
            )
        row = next(e for e in rows if not e.data.get("credits") and not e.data.get("story_points"))
    else:
        if payment not in PAYMENTS:
            raise PsionicError(f"payment must be one of {', '.join(PAYMENTS)}; got {payment!r}.", field="payment")
        row = next(e for e in rows if e.data.get(payment))
    cost = PsionicCost(credits=int(row.data.get("credits", 0)), story_points=int(row.data.get("story_points", 0)))
    return replace(character, psionic=True, powers={}), cost


# -- powers (pp.18-20) ------------------------------------------------------------------------


def _powers(tables: Mapping[str, RangeTable]) -> RangeTable:
    return _table(tables, POWERS_TABLE)


def power_names(tables: Mapping[str, RangeTable]) -> tuple[str, ...]:
    """Every power on the D10 table, in table order."""
    return tuple(e.result for e in _powers(tables).rows())


def _number(tables: Mapping[str, RangeTable], power: str) -> int:
    for entry in _powers(tables).rows():
        if entry.result.lower() == power.strip().lower():
            assert entry.low is not None
            return entry.low
    raise PsionicError(f"power must be one of {', '.join(power_names(tables))}; got {power!r}.", field="power")


def _neighbours(tables: Mapping[str, RangeTable], number: int) -> tuple[str, ...]:
    """Powers one number below and above (no wrap-around past 1 or 10)."""
    table = _powers(tables)
    low, high = table.span
    return tuple(table.lookup(n).result for n in (number - 1, number + 1) if low <= n <= high)


@dataclass(frozen=True)
class PowerDraw:
    """A new Psionic's two starting powers (p.18).

    - ``rolls``: the two D10 table rolls, as rolled or entered.
    - ``values``: the numbers used after a Precursor's Predict swap (``swapped`` names the die,
      1 or 2).
    - ``powers``: the two powers once settled, else empty while ``pending`` waits for the
      duplicate choice (call again with ``faces`` = the rolled faces and ``duplicate_choice``).
    - ``can_swap``: a Precursor could still trade a die for Predict.
    """

    rolls: tuple[TableRoll, TableRoll]
    values: tuple[int, int]
    powers: tuple[str, ...]
    pending: PowerChoice | None
    swapped: int | None
    can_swap: bool
    notes: tuple[str, ...]

    @property
    def faces(self) -> tuple[int, int]:
        """The natural D10 faces, for calling again with the same dice."""
        return self.rolls[0].value, self.rolls[1].value


def starting_powers(
    tables: Mapping[str, RangeTable],
    dice: Dice,
    species: str,
    faces: Sequence[int] | None = None,
    duplicate_choice: str | None = None,
    predict_swap: int | None = None,
) -> PowerDraw:
    """Roll D10 twice on psionic-powers for a new Psionic's two powers (p.18).

    ``faces``: the player's two D10s. ``predict_swap`` (Precursor only): 1 or 2, the die traded
    for Predict; the swap comes before the repeat check. When both dice give the same power the
    player takes the power one number above or below it: ``duplicate_choice`` names it; without
    it the result is ``pending`` with the options. At the table's ends there is one neighbour
    only (1 -> 2, 10 -> 9), which is taken without asking; no wrap-around.

    Raises :class:`PsionicError` for a swap by a non-Precursor, a bad die number, a choice
    that is not one of the neighbours or given when nothing repeats, or the wrong number of
    faces; :class:`rules.engine.tables.TableError` for an impossible face.
    """
    if faces is not None and len(faces) != 2:
        raise PsionicError(f"faces needs two D10s; got {len(faces)}.", field="faces")
    table = _powers(tables)
    rolls = (
        table.roll_or_enter(dice, value=None if faces is None else faces[0], reason="Psionic power, first die"),
        table.roll_or_enter(dice, value=None if faces is None else faces[1], reason="Psionic power, second die"),
    )
    values = [rolls[0].value, rolls[1].value]
    notes: list[str] = []
    precursor = species.strip().lower() == PRECURSOR
    predict = _number(tables, PREDICT)
    if predict_swap is not None:
        if not precursor:
            raise PsionicError(f"Only Precursors may trade a die for Predict; species is {species!r}.", field="predict_swap")
        if predict_swap not in (1, 2):
            raise PsionicError(f"predict_swap must be 1 or 2 (which die); got {predict_swap!r}.", field="predict_swap")
        notes.append(f"Precursor traded die {predict_swap} ({values[predict_swap - 1]}) for {predict} ({PREDICT}).")
        values[predict_swap - 1] = predict
    can_swap = precursor and predict_swap is None and predict not in values
    first, second = (table.lookup(v).result for v in values)
    pending: PowerChoice | None = None
    powers: tuple[str, ...] = (first, second)
    if values[0] == values[1]:
        options = _neighbours(tables, values[0])
        if len(options) == 1:
            powers = (first, options[0])
            notes.append(f"{first} rolled twice; {options[0]} is the only neighbour at the table's end.")
        elif duplicate_choice is None:
            powers = ()
            pending = PowerChoice(options=options, reason=f"{first} rolled twice: take the power one above or below.")
        else:
            chosen = _choose(duplicate_choice, options, "duplicate_choice")
            powers = (first, chosen)
            notes.append(f"{first} rolled twice; took {chosen}.")
    elif duplicate_choice is not None:
        raise PsionicError("duplicate_choice only applies when both dice give the same power.", field="duplicate_choice")
    return PowerDraw(
        rolls=rolls,
        values=(values[0], values[1]),
        powers=powers,
        pending=pending,
        swapped=predict_swap,
        can_swap=can_swap,
        notes=tuple(notes),
    )


def _choose(choice: str, options: Sequence[str], field_name: str) -> str:
    for option in options:
        if option.lower() == choice.strip().lower():
            return option
    raise PsionicError(f"{field_name} must be one of {', '.join(options)}; got {choice!r}.", field=field_name)


def learn_powers(character: Character, draw: PowerDraw) -> Character:
    """Give a new Psionic the two settled powers of ``draw`` (not enhanced). Raises
    :class:`PsionicError` if the character is not a Psionic, already has powers, or the draw is
    still pending."""
    if not character.psionic:
        raise PsionicError(f"{character.name} is not a Psionic; make_psionic first.", field="psionic")
    if character.powers:
        raise PsionicError(f"{character.name} already has powers: {', '.join(character.powers)}.", field="powers")
    if draw.pending is not None or len(draw.powers) != 2:
        options = ", ".join(draw.pending.options) if draw.pending else "none"
        raise PsionicError(f"The power roll still needs a duplicate_choice: one of {options}.", field="duplicate_choice")
    return replace(character, powers={p: False for p in draw.powers})


def _xp_cost(tables: Mapping[str, RangeTable], option: str) -> int:
    return int(_row(_table(tables, ADVANCEMENT_TABLE), option, field_name="option").data["xp"])


def _ready(character: Character) -> None:
    if not character.psionic:
        why = " (psionics lost for good)" if character.psionics_lost else ""
        raise PsionicError(f"{character.name} is not a Psionic{why}; psionic must be true.", field="psionic")
    if not character.alive:
        raise PsionicError(f"{character.name} is {character.status}; status must be active or sick_bay.", field="status")


@dataclass(frozen=True)
class PowerGain:
    """Result of :func:`acquire_power`.

    ``character`` is the new one (XP spent) when ``gained`` is set; unchanged while ``pending``
    (call again with ``face`` = ``roll.value`` and ``choice``) or when ``refused`` (every
    option already known: no power this turn, XP kept).
    """

    character: Character
    roll: TableRoll
    gained: str | None
    pending: PowerChoice | None
    refused: bool
    xp_spent: int
    note: str


def acquire_power(
    character: Character,
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    face: int | None = None,
    choice: str | None = None,
) -> PowerGain:
    """Spend XP (12, psionic-advancement) on a new power (p.20): roll D10 on psionic-powers.

    A known power lets the player take one a number above or below that is not known yet
    (``choice``; asked for when both are open, taken at once when one is). When the rolled
    power and its neighbours are all known the purchase is refused and the XP kept. ``face``
    is the player's D10. Raises :class:`PsionicError` for a non-Psionic, too little XP or a
    bad choice.
    """
    _ready(character)
    cost = _xp_cost(tables, ACQUIRE)
    if character.xp < cost:
        raise PsionicError(f"Acquiring a power costs {cost} XP; {character.name} has {character.xp}.", field="xp")
    roll = _powers(tables).roll_or_enter(dice, value=face, reason=f"New psionic power: {character.name}")
    rolled = roll.entry.result
    known = {p.lower() for p in character.powers}

    def gain(power: str, note: str) -> PowerGain:
        powers = {**character.powers, power: False}
        updated = replace(character, powers=powers, xp=character.xp - cost)
        return PowerGain(updated, roll, power, None, False, cost, note)

    if rolled.lower() not in known:
        if choice is not None:
            raise PsionicError(f"choice only applies when the rolled power is already known; {rolled} is new.", field="choice")
        return gain(rolled, f"Rolled {rolled}.")
    options = tuple(p for p in _neighbours(tables, roll.value) if p.lower() not in known)
    if not options:
        note = f"{rolled} and its neighbours are all known: no new power this turn; XP kept."
        return PowerGain(character, roll, None, None, True, 0, note)
    if len(options) == 1 and choice is None:
        return gain(options[0], f"{rolled} is known; {options[0]} is the only open neighbour.")
    if choice is None:
        pending = PowerChoice(options=options, reason=f"{rolled} is known: take one a number above or below.")
        return PowerGain(character, roll, None, pending, False, 0, pending.reason)
    chosen = _choose(choice, options, "choice")
    return gain(chosen, f"{rolled} is known; took {chosen}.")


def enhance_power(character: Character, power: str, tables: Mapping[str, RangeTable]) -> Character:
    """Spend XP (6, psionic-advancement) so ``power`` adds a D6 to its Projection roll (p.20).
    Once per power. Raises :class:`PsionicError` for a non-Psionic, an unknown or already
    enhanced power, or too little XP."""
    _ready(character)
    name = next((p for p in character.powers if p.lower() == power.strip().lower()), None)
    if name is None:
        raise PsionicError(f"power must be one of {', '.join(character.powers) or 'none'}; got {power!r}.", field="power")
    if character.powers[name]:
        raise PsionicError(f"{name} is already enhanced; once per power.", field="power")
    cost = _xp_cost(tables, ENHANCE)
    if character.xp < cost:
        raise PsionicError(f"Enhancing a power costs {cost} XP; {character.name} has {character.xp}.", field="xp")
    return replace(character, powers={**character.powers, name: True}, xp=character.xp - cost)


def nullification_surgery(character: Character, tables: Mapping[str, RangeTable]) -> tuple[Character, int]:
    """Nullification surgery (p.27): an implant that ends psionics for good. Returns the new
    character and its price in credits. Raises :class:`PsionicError` for a non-Psionic."""
    _ready(character)
    entry = _row(_table(tables, EQUIPMENT_TABLE), NULLIFICATION, field_name="item")
    return implant_add(character, entry.result), int(entry.data["credits"])
