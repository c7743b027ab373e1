"""World rules: new worlds, Loans (pp.152-156), Fringe World Strife (pp.148-151) and
Expanded Factions (pp.110-115).

Every function takes the Compendium tables (``Mapping[str, RangeTable]`` keyed by slug) and a
:class:`~rules.engine.dice.Dice`, reads its numbers from the tables' entry ``data`` and returns
frozen results holding every :class:`~rules.engine.dice.RollRecord` and the
:class:`~campaigns.engine.view.Change` objects the service should apply. Nothing is written.

Physical dice: a table roll takes ``value`` (the natural total the player's dice show); the
other dice of a rule take ``faces``, the player's faces **in the order the rule asks for
them** (one number per die; a D100 is one number). When typed faces run out the app rolls.
A random pick among N things ("a random Faction") is one die: the smallest of D3, D6, D10,
D12, D20, D100 that N divides (face ranges split evenly), otherwise the smallest die with at
least N faces, rerolling faces above N.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar

from campaigns.engine.options import OptionError
from campaigns.engine.view import Change, FactionView
from rules.engine import names
from rules.engine.dice import ALLOWED_SIDES, Dice, DiceError, RollRecord, parse
from rules.engine.tables import Entry, RangeTable, TableError, TableRoll

T = TypeVar("T")


class WorldError(OptionError):
    """A world rule given something it cannot use; ``field`` names the input at fault."""


# -- shared helpers ----------------------------------------------------------------------


def table(tables: Mapping[str, RangeTable], slug: str) -> RangeTable:
    """The table ``slug``. Raises :class:`WorldError` (field ``tables``) when it is missing."""
    try:
        return tables[slug]
    except KeyError:
        raise WorldError(f"The rule table {slug!r} is not loaded; load the Compendium fixtures.", field="tables") from None


def row(tables: Mapping[str, RangeTable], slug: str, result: str) -> Entry:
    """The entry named ``result`` of table ``slug`` (case-insensitive). Raises :class:`WorldError`."""
    for entry in table(tables, slug).entries:
        if entry.result.lower() == result.lower():
            return entry
    raise WorldError(f"Table {slug!r} has no row {result!r}.", field="tables")


class Roller:
    """Dice for one rule: takes the player's typed ``faces`` first, in order, then rolls.

    Every roll is kept in :attr:`records`. Raises :class:`WorldError` (field ``faces``) for a
    typed face the die cannot show.
    """

    def __init__(self, dice: Dice, faces: Sequence[int] | None = None, *, field_name: str = "faces") -> None:
        self.dice = dice
        self.queue = [int(f) for f in (faces or ())]
        self.records: list[RollRecord] = []
        self.field_name = field_name

    def roll(self, notation: str, reason: str, *, modifier: int = 0) -> RollRecord:
        """Roll ``notation`` (plus ``modifier``), or take its faces from the typed queue."""
        parsed = parse(notation)
        if self.queue and parsed.count:
            if len(self.queue) < parsed.count:
                raise WorldError(
                    f"{reason}: {parsed} needs {parsed.count} typed face(s); {len(self.queue)} left.", field=self.field_name
                )
            taken, self.queue = self.queue[: parsed.count], self.queue[parsed.count :]
            try:
                record = Dice.enter(parsed, taken, reason, modifier=modifier)
            except DiceError as exc:
                raise WorldError(f"{reason}: {exc}", field=self.field_name) from exc
        else:
            record = self.dice.roll(parsed, reason, modifier=modifier)
        self.records.append(record)
        return record

    def table(
        self,
        tables: Mapping[str, RangeTable],
        slug: str,
        *,
        value: int | None = None,
        modifier: int = 0,
        column: str = "",
        reason: str | None = None,
    ) -> TableRoll:
        """Roll table ``slug``; ``value`` (or, failing that, the next typed face) is the natural total."""
        found = table(tables, slug)
        if value is None and self.queue and found.notation.count == 1:
            value = self.queue.pop(0)
        try:
            result = found.roll_or_enter(self.dice, value=value, modifier=modifier, column=column, reason=reason)
        except TableError as exc:
            raise WorldError(str(exc), field="value") from exc
        self.records.append(result.record)
        return result

    def pick(self, items: Sequence[T], reason: str) -> T:
        """One of ``items`` at random (see the module docstring for the die used)."""
        if not items:
            raise WorldError(f"{reason}: nothing to choose from.", field="faces")
        count = len(items)
        if count == 1:
            return items[0]
        even = [s for s in ALLOWED_SIDES if s % count == 0]
        if even:
            sides = even[0]
            face = self.roll(f"D{sides}", f"{reason} (1-{count})").total or 1
            return items[(face - 1) // (sides // count)]
        sides = next(s for s in ALLOWED_SIDES if s >= count)
        for _ in range(1000):
            face = self.roll(f"D{sides}", f"{reason} (1-{count}, reroll higher)").total or 1
            if face <= count:
                return items[face - 1]
        raise WorldError(f"{reason}: no usable face after many rolls.", field="faces")  # pragma: no cover


def _amount(roller: Roller, amount: Any, reason: str) -> int:
    """A number from table data: an int as is, dice notation ("1D6+2") rolled."""
    if amount is None or amount == "":
        return 0
    if isinstance(amount, int):
        return amount
    return roller.roll(str(amount), reason).total or 0


# -- new worlds ----------------------------------------------------------------------------


@dataclass(frozen=True)
class NewWorld:
    """A freshly reached world: ``name``, fixed ``traits`` (a Krag colony's) and the name rolls."""

    name: str
    traits: tuple[str, ...]
    krag_colony: bool
    rolls: tuple[RollRecord, ...] = ()

    def change(self) -> Change:
        """The ``world`` change that replaces the old world's record with this one."""
        return Change(
            "world",
            {
                "name": self.name,
                "traits": list(self.traits),
                "psionic_legality": "",
                "instability": 0,
                "invaded": False,
                "unstable": False,
                "strife": "",
            },
        )


def krag_colony(tables: Mapping[str, RangeTable]) -> Mapping[str, Any]:
    """The Krag colony rule's data (p.12): ``world_traits`` (list) and ``story_points`` (cost to
    add one to the known worlds). Raises :class:`WorldError` when the krag-profile table lacks it."""
    for entry in table(tables, "krag-profile").entries:
        if entry.data.get("kind") == "colony":
            return entry.data
    raise WorldError("Table 'krag-profile' has no colony row.", field="tables")


def new_world(tables: Mapping[str, RangeTable], dice: Dice, *, name: str = "", is_krag_colony: bool = False) -> NewWorld:
    """A new world on arrival. Without ``name`` one is rolled on the name tables (pp.157-158:
    world names, or colony names for a Krag colony). A Krag colony (p.12) always has the traits
    listed in the krag-profile data; other worlds get their traits from the World traits step."""
    rolls: tuple[RollRecord, ...] = ()
    chosen = name.strip()
    if len(chosen) > 80:
        raise WorldError(f"name is limited to 80 characters; got {len(chosen)}.", field="name")
    if not chosen:
        try:
            generated = names.generate(names.recipe("colony" if is_krag_colony else "world"), tables, dice)
        except KeyError as exc:
            raise WorldError(f"The name tables are not loaded ({exc}).", field="tables") from exc
        chosen, rolls = generated.name, generated.records
    traits = tuple(krag_colony(tables).get("world_traits", ())) if is_krag_colony else ()
    return NewWorld(name=chosen, traits=traits, krag_colony=is_krag_colony, rolls=rolls)


# -- psionic legality (p.20) -----------------------------------------------------------------

#: psionic-legality ``status`` data -> the world's ``psionic_legality`` value in the view.
LEGALITY_STATUS = {"outlawed": "outlawed", "unusual": "unusual", "common": "who_cares"}


def psionic_legality(tables: Mapping[str, RangeTable], dice: Dice, *, value: int | None = None) -> tuple[str, TableRoll]:
    """D100 on psionic-legality (p.20) -> (``outlawed`` / ``unusual`` / ``who_cares``, roll).
    ``value`` is a typed D100 (1-100); raises :class:`WorldError` (field ``value``) outside it."""
    roll = Roller(dice).table(tables, "psionic-legality", value=value, reason="Psionic legality")
    status = str(roll.entry.data.get("status", ""))
    if status not in LEGALITY_STATUS:
        raise WorldError(f"psionic-legality row {roll.entry.result!r} has unknown status {status!r}.", field="tables")
    return LEGALITY_STATUS[status], roll


# -- Loans (pp.152-156) ---------------------------------------------------------------------

LOAN_VALUE_KEYS = ("origin", "interest", "aggressiveness", "whims")


@dataclass(frozen=True)
class LoanTerms:
    """Who lent the ship's money and on what terms (pp.152-154).

    - ``origin``: loan-origin result ("Corporate"); ``enforcement_column``: its column in the
      loan-enforcement table; ``collection_squad``: the Rival type its squads are.
    - ``extra_credits``: credits added to the ship's cost (Unity fees, a lender's whims).
    - ``interest``: the rate's name after the originator's override; ``low_interest`` and
      ``high_interest`` are credits added per turn (high may be ``"1D6"``, rolled each turn);
      the low rate applies while ``low_interest_max_owed`` or less is owed.
    - ``aggressiveness``, ``threshold_1``, ``threshold_2``, ``extra_roll_step`` (credits).
    - ``amount``: ship cost + ``extra_credits`` when the ship's cost was given, else None;
      ``upfront``: credits to pay at once so that the debt starts below threshold 1.
    """

    origin: str
    enforcement_column: str
    collection_squad: str
    extra_credits: int
    interest: str
    low_interest: int
    high_interest: int | str
    low_interest_max_owed: int
    aggressiveness: str
    threshold_1: int
    threshold_2: int
    extra_roll_step: int
    amount: int | None = None
    upfront: int = 0
    rolls: tuple[RollRecord, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready; ``rolls`` as roll dicts."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "rolls"}
        data["rolls"] = [r.as_dict() for r in self.rolls]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LoanTerms:
        """Inverse of :meth:`as_dict`. Raises :class:`WorldError` (field ``loan_terms``) for a missing key."""
        names_ = [f.name for f in fields(cls) if f.name not in ("amount", "upfront", "rolls")]
        missing = [n for n in names_ if n not in data]
        if missing:
            raise WorldError(f"Loan terms lack {', '.join(missing)}.", field="loan_terms")
        values: dict[str, Any] = {n: data[n] for n in names_}
        return cls(
            **values,
            amount=data.get("amount"),
            upfront=int(data.get("upfront") or 0),
            rolls=tuple(RollRecord.from_dict(r) for r in data.get("rolls") or ()),
        )


def loan_setup(
    tables: Mapping[str, RangeTable],
    dice: Dice,
    values: Mapping[str, int] | None = None,
    *,
    ship_cost: int | None = None,
) -> LoanTerms:
    """Roll a new loan (pp.152-154): origin, interest rate and enforcement thresholds (D100 each).

    ``values`` may hold the player's rolls: ``origin``, ``interest``, ``aggressiveness`` (D100
    totals) and ``whims`` (the D6 a Free Trader or Suspicious Character adds). ``ship_cost`` is
    the core rulebook's ship price in credits (not in our source): give it to get ``amount``.
    Raises :class:`WorldError` for an unknown value key, a roll the die cannot show or a
    negative ship cost.
    """
    given = dict(values or {})
    unknown = sorted(set(given) - set(LOAN_VALUE_KEYS))
    if unknown:
        raise WorldError(f"Unknown loan roll {unknown[0]!r}; rolls are {', '.join(LOAN_VALUE_KEYS)}.", field=unknown[0])
    if ship_cost is not None and ship_cost < 0:
        raise WorldError(f"ship_cost must be 0 or more credits; got {ship_cost}.", field="ship_cost")
    roller = Roller(dice)
    origin = roller.table(tables, "loan-origin", value=given.get("origin"), reason="Loan origin")
    column = str(origin.entry.data.get("enforcement_column", origin.entry.result))
    whims = Roller(dice, [given["whims"]] if "whims" in given else None, field_name="whims")
    extra = _amount(whims, origin.entry.data.get("loan_increase", 0), "Loan: lender's whims")
    roller.records.extend(whims.records)
    interest = roller.table(tables, "loan-interest", value=given.get("interest"), reason="Loan interest rate")
    rate = interest.entry
    override = dict(rate.data.get("originator_override") or {}).get(origin.entry.result)
    if override:
        rate = row(tables, "loan-interest", str(override))
    aggr = roller.table(tables, "loan-aggressiveness", value=given.get("aggressiveness"), reason="Loan enforcement thresholds")
    squad = next(
        (e.result for e in table(tables, "loan-collection-squads").entries if e.data.get("originator") == column),
        "Bounty hunters",
    )
    threshold_1 = int(aggr.entry.data["threshold_1"])
    amount = None if ship_cost is None else ship_cost + extra
    high = rate.data.get("high_interest", 0)
    return LoanTerms(
        origin=origin.entry.result,
        enforcement_column=column,
        collection_squad=squad,
        extra_credits=extra,
        interest=rate.result,
        low_interest=int(rate.data.get("low_interest", 0)),
        high_interest=high if isinstance(high, int) else str(high),
        low_interest_max_owed=int(rate.data.get("low_interest_max_owed", 30)),
        aggressiveness=aggr.entry.result,
        threshold_1=threshold_1,
        threshold_2=int(aggr.entry.data["threshold_2"]),
        extra_roll_step=int(aggr.entry.data.get("extra_roll_step", 5)),
        amount=amount,
        upfront=0 if amount is None else max(0, amount - (threshold_1 - 1)),
        rolls=tuple(roller.records),
    )


def loan_interest(terms: LoanTerms, owed: int, dice: Dice, *, face: int | None = None) -> tuple[int, RollRecord | None]:
    """Credits of interest added after this turn's payment (p.154): the low rate while ``owed``
    is at most ``low_interest_max_owed``, else the high rate (a ``1D6`` rate is rolled; ``face``
    is the player's die). Returns (credits, roll or None)."""
    if owed <= 0:
        return 0, None
    rate: int | str = terms.low_interest if owed <= terms.low_interest_max_owed else terms.high_interest
    if isinstance(rate, int):
        return rate, None
    record = Roller(dice, None if face is None else [face]).roll(rate, "Loan interest")
    return record.total or 0, record


def enforcement_points(terms: LoanTerms, before: int, after: int) -> tuple[int, ...]:
    """Debt levels (credits) crossed going from ``before`` to ``after``: threshold 1, threshold 2,
    then every ``extra_roll_step`` credits past threshold 2 (p.154). Reaching a level counts."""
    levels = [terms.threshold_1]
    level = max(terms.threshold_1, terms.threshold_2)
    if level > terms.threshold_1:
        levels.append(level)
    while level <= after:
        level += max(1, terms.extra_roll_step)
        levels.append(level)
    return tuple(p for p in levels if before < p <= after)


@dataclass(frozen=True)
class Enforcement:
    """Loan enforcement this turn: the levels crossed, each method rolled (result names), the
    debt after fees (credits), the rolls, the changes and a short text."""

    points: tuple[int, ...]
    methods: tuple[str, ...]
    balance: int
    rolls: tuple[RollRecord, ...]
    changes: tuple[Change, ...]
    text: str


def loan_enforcement(
    terms: LoanTerms,
    before: int,
    after: int,
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    values: Sequence[int] = (),
    faces: Sequence[int] | None = None,
) -> Enforcement:
    """Enforcement rolls for the debt moving from ``before`` to ``after`` credits (pp.154-156).

    One D100 per level crossed (see :func:`enforcement_points`), on the lender's column of
    loan-enforcement. Fees are added to the debt at once and can cross further levels.
    ``values`` are typed D100 totals in order; ``faces`` typed dice for fee rolls. Changes:
    ``loan`` (fees, warrants and collectors as notes), ``rival_add`` (Fringe-style collection
    squads, ``collector`` True). Raises :class:`WorldError` for typed rolls the dice cannot show.
    """
    roller = Roller(dice, faces)
    typed = [int(v) for v in values]
    pending = list(enforcement_points(terms, before, after))
    crossed: list[int] = []
    methods: list[str] = []
    changes: list[Change] = []
    lines: list[str] = []
    balance = after
    for _ in range(100):
        if not pending:
            break
        level = pending.pop(0)
        crossed.append(level)
        roll = roller.table(
            tables,
            "loan-enforcement",
            value=typed.pop(0) if typed else None,
            column=terms.enforcement_column,
            reason=f"Loan enforcement at {level} credits",
        )
        method = str(roll.entry.data.get("method", ""))
        methods.append(roll.entry.result)
        if method == "fees":
            fee = _amount(roller, roll.entry.data.get("credits", 0), "Loan fees")
            changes.append(Change("loan", {"balance": fee, "note": f"Fees: +{fee} credits owed."}))
            lines.append(f"{level} cr: fees, +{fee} credits on the loan.")
            pending.extend(enforcement_points(terms, balance, balance + fee))
            balance += fee
        elif method == "collectors_fringe":
            changes.append(
                Change(
                    "rival_add",
                    {
                        "name": f"{terms.collection_squad} (collection squad)",
                        "kind": terms.collection_squad,
                        "collector": True,
                        "notes": "Loan collection squad: follows you everywhere; 10 credits sends them off when they catch you.",
                    },
                )
            )
            lines.append(f"{level} cr: an armed collection squad ({terms.collection_squad}) becomes a Rival.")
        elif method == "collectors":
            changes.append(Change("loan", {"note": "Collectors on your tail: check at each Upkeep (1D6+1)."}))
            lines.append(f"{level} cr: collectors are after you.")
        elif method in ("temporary_seizure", "permanent_seizure"):
            kind = "temporary" if method == "temporary_seizure" else "permanent"
            changes.append(Change("loan", {"note": f"Warrant ({kind} seizure) issued at {balance} credits owed."}))
            lines.append(f"{level} cr: a {kind} seizure warrant for your ship, at {balance} credits owed.")
        else:
            lines.append(f"{level} cr: {roll.entry.result}.")
    text = " ".join(lines) if lines else f"No enforcement: the debt ({after} credits) crossed no threshold."
    return Enforcement(tuple(crossed), tuple(methods), balance, tuple(roller.records), tuple(changes), text)


def collectors_check(
    tables: Mapping[str, RangeTable], turns_on_world: int, dice: Dice, *, faces: Sequence[int] | None = None
) -> tuple[bool, int, tuple[RollRecord, ...]]:
    """Collectors at Upkeep (p.155): roll the method's check (1D6+1); at or under the turns
    spent on this world they catch you and fine you 3D6 credits. Returns (caught, fine, rolls);
    ``faces`` are the typed dice in order (the D6, then the three fine dice)."""
    data = row(tables, "loan-enforcement-methods", "Collectors").data
    roller = Roller(dice, faces)
    check = roller.roll(str(data.get("check", "1D6+1")), "Collectors catch up?")
    caught = (check.total or 0) <= turns_on_world
    fine = _amount(roller, data.get("fine_credits", "3D6"), "Collectors' fine") if caught else 0
    return caught, fine, tuple(roller.records)


def seizure_check(
    tables: Mapping[str, RangeTable], method: str, times: int, dice: Dice, *, faces: Sequence[int] | None = None
) -> tuple[bool, RollRecord]:
    """A seizure warrant's turn roll (p.155): 2D6, seized on 2 up to the method's top number,
    which grows by one for each extra time the method was rolled. ``method`` is
    ``Temporary seizure`` or ``Permanent seizure``; ``times`` at least 1."""
    if times < 1:
        raise WorldError(f"times must be 1 or more; got {times}.", field="times")
    data = row(tables, "loan-enforcement-methods", method).data
    top = int(data["seize_high"]) + (times - 1) * int(data.get("range_step", 1))
    record = Roller(dice, faces).roll(str(data.get("roll", "2D6")), f"{method} (2-{top} seizes)")
    return (record.total or 0) <= top, record


# -- Fringe World Strife (pp.148-151) -------------------------------------------------------


@dataclass(frozen=True)
class Stability:
    """Arrival check (p.148): ``unstable`` when the D6 meets ``target``; ``instability`` starts
    at the track's arrival value (0 for a stable world)."""

    unstable: bool
    instability: int
    target: int
    roll: RollRecord


def world_stability(tables: Mapping[str, RangeTable], dice: Dice, *, value: int | None = None, calm: bool = False) -> Stability:
    """Is the new world Unstable? D6 against 4+, or 5+ with ``calm`` (the book's gentler choice).
    ``value`` is a typed D6. Raises :class:`WorldError` (field ``value``) for a face off the die."""
    roll = Roller(dice).table(tables, "fringe-world-stability", value=value, reason="Is the world Unstable?")
    data = roll.entry.data
    target = int(data["unstable_target_calm"] if calm else data["unstable_target"])
    unstable = roll.value >= target
    start = int(row(tables, "fringe-instability-track", "Arrival").data["instability"]) if unstable else 0
    return Stability(unstable=unstable, instability=start, target=target, roll=roll.record)


@dataclass(frozen=True)
class InstabilityCheck:
    """Instability at the Invasion step (p.148): ``before`` + ``added`` -> ``after`` (after any
    strife reduction). ``strife`` names the Fringe World Strife result ("" when none) and
    ``detail`` its sub-roll (raiders, invaders); ``stops_tracking`` when the result is "NA"."""

    before: int
    added: int
    after: int
    strife: str
    detail: str
    stops_tracking: bool
    rolls: tuple[RollRecord, ...]
    changes: tuple[Change, ...]
    text: str


def instability_check(
    current: int,
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    rivals_here: int = 0,
    patron_job: bool = False,
    held_vs_roving: bool = False,
    factions: Sequence[FactionView] = (),
    strife_value: int | None = None,
    faces: Sequence[int] | None = None,
) -> InstabilityCheck:
    """Add 1D6, +1 per active Rival here, -1 for a completed Patron job, -1 for holding the field
    against a Roving Threat (numbers from fringe-instability-track). At the strife threshold
    (10) roll D100 on fringe-world-strife and subtract its reduction.

    ``strife_value`` is a typed D100; ``faces`` are the other typed dice in order (the 1D6 added,
    then any sub-roll: hull damage, raiders or invaders D6). Changes: ``world`` (instability,
    strife, ``unstable`` False once the world stops tracking), ``ship`` hull damage,
    ``rival_add`` (Heating Up) and, with ``factions``, an Economic Collapse costs each Faction
    Influence (p.114). Raises :class:`WorldError` for typed dice the die cannot show or
    negative counts.
    """
    if rivals_here < 0:
        raise WorldError(f"rivals_here must be 0 or more; got {rivals_here}.", field="rivals_here")
    track = {e.result: e.data for e in table(tables, "fringe-instability-track").entries}
    roller = Roller(dice, faces)
    added = roller.roll(str(track["Invasion step"]["instability"]), "Instability grows").total or 0
    added += rivals_here * int(track["Active Rival on this world"]["instability"])
    if patron_job:
        added += int(track["Patron job completed"]["instability"])
    if held_vs_roving:
        added += int(track["Held the Field against a Roving Threat"]["instability"])
    total = current + added
    threshold = int(track["Strife threshold"]["instability"])
    changes: list[Change] = []
    text = f"Instability {current} -> {total}."
    if total < threshold:
        changes.append(Change("world", {"instability": total}))
        return InstabilityCheck(current, added, total, "", "", False, tuple(roller.records), tuple(changes), text)
    strife = roller.table(tables, "fringe-world-strife", value=strife_value, reason="Fringe World Strife")
    data = strife.entry.data
    name = strife.entry.result
    stops = bool(data.get("stops_tracking"))
    after = 0 if stops else max(0, total + int(data.get("instability") or 0))
    detail = ""
    extra: list[Change] = []
    if name == "Raiders":
        detail = roller.table(tables, "fringe-strife-raiders", reason="Who raids you?").entry.result
    elif name == "Invasion Imminent":
        detail = roller.table(tables, "fringe-strife-invaders", reason="Who invades?").entry.result
    elif "hull_damage" in data:
        damage = _amount(roller, data["hull_damage"], "Sabotage: hull damage")
        detail = f"{damage} hull damage"
        extra.append(Change("ship", {"hull_damage": damage}))
    if int(data.get("rivals") or 0):
        extra.append(
            Change(
                "rival_add",
                {
                    "name": "Criminal Elements rival",
                    "kind": "Criminal Elements",
                    "notes": "Roll the type on the core rulebook's Criminal Elements subtable (p.94).",
                },
            )
        )
    if factions:
        extra.extend(_strife_faction_changes(name, factions, tables))
    label = f"{name} ({detail})" if detail else name
    world: dict[str, Any] = {"instability": after, "strife": label}
    if stops:
        world["unstable"] = False
    changes.append(Change("world", world))
    changes.extend(extra)
    tail = "Instability is no longer tracked." if stops else f"Instability drops to {after}."
    text = f"Instability {current} -> {total}: strife! {label}: {strife.entry.effect} {tail}"
    return InstabilityCheck(current, added, after, name, detail, stops, tuple(roller.records), tuple(changes), text)


def _strife_faction_changes(strife: str, factions: Sequence[FactionView], tables: Mapping[str, RangeTable]) -> list[Change]:
    effects = {e.result: e.data for e in table(tables, "faction-fringe-strife-effects").entries}
    influence = int(effects.get(strife, {}).get("influence") or 0)
    if not influence:
        return []
    changes: list[Change] = []
    for faction in factions:
        if faction.influence + influence <= 0:
            changes.append(Change("faction_remove", {"name": faction.name}))
        else:
            changes.append(Change("faction", {"name": faction.name, "influence": influence}))
    return changes


def strife_blocks_factions(strife: str) -> bool:
    """Whether the world's current strife stops Faction activities (p.114: Crackdown, Civil War)."""
    return strife.startswith(("Crackdown", "Civil War"))


# -- Expanded Factions (pp.110-115) ---------------------------------------------------------


@dataclass
class _Live:
    """A Faction being changed inside one rule (mutable working copy)."""

    name: str
    type: str
    influence: int
    power: int
    loyalty: int
    no_job_turn: int = 0
    no_activity_turn: int = 0
    attacked_turn: int = 0
    gone: bool = False

    @classmethod
    def of(cls, view: FactionView) -> _Live:
        return cls(
            view.name,
            view.type,
            view.influence,
            view.power,
            view.loyalty,
            view.no_job_turn,
            view.no_activity_turn,
            view.attacked_turn,
        )


@dataclass(frozen=True)
class FactionOutcome:
    """What a Faction rule did: text, rolls, changes (``faction``, ``faction_add``,
    ``faction_remove`` and others) and facts for the turn."""

    text: str
    rolls: tuple[RollRecord, ...] = ()
    changes: tuple[Change, ...] = ()
    facts: Mapping[str, Any] = field(default_factory=dict)


class _Board:
    """The Factions of a world while a rule runs; turns the result into changes."""

    def __init__(self, factions: Iterable[FactionView], roller: Roller, tables: Mapping[str, RangeTable]) -> None:
        self.original = {f.name: f for f in factions}
        self.live = {name: _Live.of(f) for name, f in self.original.items()}
        self.roller = roller
        self.tables = tables
        self.lines: list[str] = []
        self.extra: list[Change] = []

    def alive(self) -> list[_Live]:
        return [f for f in self.live.values() if not f.gone]

    def get(self, name: str, field_name: str = "faction") -> _Live:
        found = self.live.get(name)
        if found is None or found.gone:
            known = ", ".join(f.name for f in self.alive()) or "none"
            raise WorldError(f"{field_name} must be one of the Factions here ({known}); got {name!r}.", field=field_name)
        return found

    def pick(self, reason: str, among: Sequence[_Live] | None = None) -> _Live:
        return self.roller.pick(list(self.alive() if among is None else among), reason)

    def others(self, faction: _Live) -> list[_Live]:
        return [f for f in self.alive() if f is not faction]

    def lower_or_higher(self, faction: _Live, *, higher: bool, tie: str = "random") -> str:
        """Which score is higher (or lower); ties go ``random`` or to ``power``."""
        if faction.influence == faction.power:
            if tie == "power":
                return "power"
            return self.roller.pick(["influence", "power"], f"{faction.name}: which score")
        bigger = "influence" if faction.influence > faction.power else "power"
        smaller = "power" if bigger == "influence" else "influence"
        return bigger if higher else smaller

    def adjust(self, faction: _Live, score: str, delta: int) -> None:
        setattr(faction, score, getattr(faction, score) + delta)

    def settle(self, *, struggle_winner: _Live | None = None, job_faction: str = "") -> None:
        """Remove Factions at 0 Power or Influence (p.115) and apply what follows a destruction."""
        mech = {str(e.data.get("step")): e.data for e in table(self.tables, "faction-mechanics").entries}
        while True:
            dead = [f for f in self.alive() if f.influence <= 0 or f.power <= 0]
            if not dead:
                return
            for faction in dead:
                faction.gone = True
                self.lines.append(f"{faction.name} is destroyed.")
                if struggle_winner is not None and not struggle_winner.gone:
                    rule = mech.get("destroyed_struggle", {})
                    if struggle_winner.loyalty >= int(rule.get("min_loyalty", 4)):
                        self.extra.append(
                            Change(
                                "rival_add",
                                {
                                    "name": f"{faction.name} remnants",
                                    "kind": "Hired Muscle",
                                    "notes": "Roll the type on the Hired Muscle table (core p.96).",
                                },
                            )
                        )
                        self.lines.append(f"Remnants of {faction.name} come after you as a Rival.")
                    if job_faction == struggle_winner.name:
                        struggle_winner.loyalty += int(rule.get("loyalty", 2))
                        self.lines.append(f"Loyalty to {struggle_winner.name} +{rule.get('loyalty', 2)}.")
                survivors = self.alive()
                if survivors:
                    after = mech.get("after_destroyed", {})
                    scores = {
                        s.name: self.roller.roll(
                            str(after.get("dice", "1D6")), f"{s.name} after a destruction", modifier=s.power
                        ).total
                        or 0
                        for s in survivors
                    }
                    top = max(scores.values())
                    for s in survivors:
                        if scores[s.name] == top:
                            s.influence += int(after.get("influence", 1))
                            self.lines.append(f"{s.name} fills the gap: Influence +{after.get('influence', 1)}.")

    def changes(self) -> list[Change]:
        out: list[Change] = []
        for name, faction in self.live.items():
            before = self.original.get(name)
            if faction.gone:
                if before is not None:
                    out.append(Change("faction_remove", {"name": name}))
                continue
            if before is None:
                out.append(
                    Change(
                        "faction_add",
                        {
                            "name": name,
                            "type": faction.type,
                            "influence": faction.influence,
                            "power": faction.power,
                            "loyalty": faction.loyalty,
                        },
                    )
                )
                continue
            data: dict[str, Any] = {"name": name}
            for score in ("influence", "power", "loyalty"):
                delta = getattr(faction, score) - getattr(before, score)
                if delta:
                    data[score] = delta
            for turn_field in ("no_job_turn", "no_activity_turn", "attacked_turn"):
                if getattr(faction, turn_field) != getattr(before, turn_field):
                    data[turn_field] = getattr(faction, turn_field)
            if len(data) > 1:
                out.append(Change("faction", data))
        return out + self.extra

    def outcome(self, text: str = "", facts: Mapping[str, Any] | None = None) -> FactionOutcome:
        body = " ".join(([text] if text else []) + self.lines)
        return FactionOutcome(body, tuple(self.roller.records), tuple(self.changes()), dict(facts or {}))


def _mechanic(tables: Mapping[str, RangeTable], step: str) -> Mapping[str, Any]:
    for entry in table(tables, "faction-mechanics").entries:
        if entry.data.get("step") == step:
            return entry.data
    raise WorldError(f"Table 'faction-mechanics' has no {step!r} row.", field="tables")


def _unique_name(base: str, taken: Iterable[str]) -> str:
    used = set(taken)
    if base not in used:
        return base
    number = 2
    while f"{base} {number}" in used:
        number += 1
    return f"{base} {number}"


def faction_generate(
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    name: str = "",
    small: bool = False,
    taken: Iterable[str] = (),
    value: int | None = None,
    faces: Sequence[int] | None = None,
) -> tuple[FactionView, tuple[RollRecord, ...]]:
    """One new Faction (p.110): D100 type, then Influence and Power of 1D3+1 each plus the type's
    modifiers; ``small`` (a New Faction event, p.114) rolls 1D3 instead. Without ``name`` it is
    named after its type (numbered past names in ``taken``). Loyalty starts at 0. ``value`` is
    the typed D100; ``faces`` the two typed D3 (Influence, then Power)."""
    roller = Roller(dice, faces)
    kind = roller.table(tables, "faction-type", value=value, reason="Faction type")
    mech = _mechanic(tables, "generate")
    notation = "1D3" if small else str(mech.get("influence", "1D3+1"))
    influence = (roller.roll(notation, "Faction Influence").total or 0) + int(kind.entry.data.get("influence_mod", 0))
    notation = "1D3" if small else str(mech.get("power", "1D3+1"))
    power = (roller.roll(notation, "Faction Power").total or 0) + int(kind.entry.data.get("power_mod", 0))
    chosen = name.strip() or _unique_name(kind.entry.result, taken)
    return FactionView(name=chosen, type=kind.entry.result, influence=influence, power=power), tuple(roller.records)


def factions_generate(
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    taken: Iterable[str] = (),
    faces: Sequence[int] | None = None,
) -> FactionOutcome:
    """The Factions of a new world (p.110): 1D3+1 of them, each by :func:`faction_generate`.
    ``faces`` are typed dice in order: the count die, then per Faction its D100 type, D3 and D3.
    Changes: one ``faction_add`` per Faction; facts ``factions`` (names)."""
    roller = Roller(dice, faces)
    count = roller.roll(str(_mechanic(tables, "generate").get("factions", "1D3+1")), "How many Factions").total or 0
    board = _Board((), roller, tables)
    used = list(taken)
    made: list[str] = []
    for _ in range(count):
        faction, _rolls = faction_generate(tables, dice, taken=used, faces=_drain(roller, 3))
        roller.records.extend(_rolls)
        board.live[faction.name] = _Live.of(faction)
        used.append(faction.name)
        made.append(f"{faction.name} (Influence {faction.influence}, Power {faction.power})")
    return board.outcome(f"{count} Factions: {'; '.join(made)}.", {"factions": [n for n in board.live]})


def _drain(roller: Roller, count: int) -> list[int]:
    """Hand the next ``count`` typed faces to a nested rule."""
    taken, roller.queue = roller.queue[:count], roller.queue[count:]
    return taken


def faction_job_check(
    faction: FactionView, tables: Mapping[str, RangeTable], dice: Dice, *, turn: int, value: int | None = None
) -> tuple[bool, RollRecord | None, str]:
    """Captain's Faction job check (p.111): 1D6 at or under the Faction's Influence offers a job.
    A Faction silenced for this ``turn`` (Shoot out) offers none and no die is rolled.
    Returns (offered, roll or None, text)."""
    if faction.no_job_turn == turn:
        return False, None, f"{faction.name} cannot offer a job this turn."
    mech = _mechanic(tables, "job_check")
    record = Roller(dice, None if value is None else [value], field_name="value").roll(
        str(mech.get("dice", "1D6")), f"Faction job from {faction.name}"
    )
    offered = (record.total or 0) <= faction.influence
    extra = int(_mechanic(tables, "job").get("extra_enemies", 1))
    text = (
        f"{faction.name} has a job (a Patron job without Danger Pay or Benefits; +{extra} standard enemy)."
        if offered
        else f"{faction.name} has no job for you."
    )
    return offered, record, text


def faction_loyalty_gain(
    faction: FactionView, tables: Mapping[str, RangeTable], dice: Dice, *, affiliated: bool = False, value: int | None = None
) -> tuple[int, RollRecord]:
    """After winning a job for a Faction (p.112): 1D6 at or above current Loyalty gives +1; an
    affiliated Patron job needs the target in the data (a 6). Returns (Loyalty gained, roll)."""
    mech = _mechanic(tables, "gain_loyalty")
    record = Roller(dice, None if value is None else [value], field_name="value").roll(
        str(mech.get("dice", "1D6")), f"Loyalty with {faction.name}"
    )
    target = int(mech.get("affiliated_target", 6)) if affiliated else faction.loyalty
    gained = int(mech.get("loyalty", 1)) if (record.total or 0) >= target else 0
    return gained, record


def faction_favor(
    faction: FactionView, tables: Mapping[str, RangeTable], dice: Dice, *, value: int | None = None
) -> tuple[bool, int, RollRecord]:
    """Calling in a favor (p.112, a captain-only crew task): 1D6 at or under Loyalty grants a
    favor (see faction-favors) and costs Loyalty equal to the roll. Returns (granted, Loyalty
    lost, roll)."""
    mech = _mechanic(tables, "favor")
    record = Roller(dice, None if value is None else [value], field_name="value").roll(
        str(mech.get("dice", "1D6")), f"Favor from {faction.name}"
    )
    roll = record.total or 0
    granted = roll <= faction.loyalty
    return granted, roll if granted else 0, record


def factions_flee(
    factions: Sequence[FactionView], tables: Mapping[str, RangeTable], dice: Dice, *, faces: Sequence[int] | None = None
) -> FactionOutcome:
    """The world is invaded (p.114). Each Faction with Power 4 or less rolls 1D6: under its Power
    it flees along with you (-1 Power, -1 Influence, minimum 1 each); otherwise it is gone.
    Power 5+ Factions stay to fight: facts ``galactic_war_bonus`` (+1 each) and ``factions_fled``
    (names). ``faces`` are typed D6s in Faction order."""
    roller = Roller(dice, faces)
    board = _Board(factions, roller, tables)
    weak = _mechanic(tables, "invasion")
    strong = _mechanic(tables, "invasion_fight")
    fled: list[str] = []
    fighters = 0
    for faction in board.alive():
        if faction.power <= int(weak.get("max_power", 4)):
            roll = roller.roll(str(weak.get("dice", "1D6")), f"Does {faction.name} escape?").total or 0
            if roll < faction.power:
                floor = int(weak.get("minimum", 1))
                faction.power = max(floor, faction.power + int(weak.get("power", -1)))
                faction.influence = max(floor, faction.influence + int(weak.get("influence", -1)))
                fled.append(faction.name)
                board.lines.append(f"{faction.name} flees with you.")
            else:
                faction.gone = True
                board.lines.append(f"{faction.name} is scattered by the invasion.")
        elif faction.power >= int(strong.get("min_power", 5)):
            fighters += 1
            board.lines.append(
                f"{faction.name} stays to fight (+{strong.get('galactic_war_bonus', 1)} on Galactic War Progress); it no longer follows you."
            )
            faction.gone = True
    bonus = fighters * int(strong.get("galactic_war_bonus", 1))
    return board.outcome("Factions and the invasion:", {"factions_fled": fled, "galactic_war_bonus": bonus})


def _struggle(
    board: _Board, attacker: _Live, defender: _Live, *, job_faction: str, job_won: bool, bonus: int, label: str
) -> _Live | None:
    """Both roll 1D6+Power (+bonus for a Faction the crew won a job for); the loser drops its
    higher score by 1. Ties: nobody loses (our ruling). Returns the winner or None."""
    scores: dict[str, int] = {}
    for side in (attacker, defender):
        mod = side.power + (bonus if job_won and job_faction == side.name else 0)
        scores[side.name] = board.roller.roll("1D6", f"{label}: {side.name}", modifier=mod).total or 0
    if scores[attacker.name] == scores[defender.name]:
        board.lines.append(f"{label}: {attacker.name} and {defender.name} are even; nothing changes.")
        return None
    winner, loser = (attacker, defender) if scores[attacker.name] > scores[defender.name] else (defender, attacker)
    score = board.lower_or_higher(loser, higher=True)
    board.adjust(loser, score, -1)
    board.lines.append(f"{label}: {winner.name} beats {loser.name} ({loser.name} -1 {score.capitalize()}).")
    return winner


def faction_activity(
    factions: Sequence[FactionView],
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    turn: int,
    job_faction: str = "",
    affiliated: bool = False,
    job_won: bool = False,
    strife: str = "",
    value: int | None = None,
    faces: Sequence[int] | None = None,
) -> FactionOutcome:
    """Faction activities at the Check for Invasion step (p.113; the caller skips it on an
    invaded world). After a direct job for ``job_faction`` (not an ``affiliated`` one) that
    Faction first starts a Faction Struggle; then one random Faction rolls D100 on
    faction-activity. Requirements not met, or a Faction silenced this ``turn``, mean nothing
    happens. A Crackdown or Civil War ``strife`` stops all activities (p.114).

    ``value`` is the typed D100; ``faces`` the other typed dice in order (random picks, D6s).
    Changes: ``faction`` deltas, ``faction_remove``, ``credits`` (Office party), ``rival_add``;
    facts ``faction_activity`` (the result name) and ``offers`` (list of words).
    """
    roller = Roller(dice, faces)
    board = _Board(factions, roller, tables)
    if strife_blocks_factions(strife):
        return board.outcome(f"No Faction activities: {strife}.")
    if not board.alive():
        return board.outcome("No Factions on this world.")
    rows = {e.result: e.data for e in table(tables, "faction-activity").entries}
    struggle_data = rows.get("Faction struggle", {})
    bonus = int(struggle_data.get("job_bonus", 1))
    winner: _Live | None = None
    if job_faction and not affiliated:
        starter = board.get(job_faction, "faction_job")
        others = board.others(starter)
        if others:
            target = board.pick(f"{starter.name} struggles against", others)
            winner = _struggle(
                board, starter, target, job_faction=job_faction, job_won=job_won, bonus=bonus, label="Faction struggle"
            )
            board.settle(struggle_winner=winner, job_faction=job_faction)
    facts: dict[str, Any] = {"offers": []}
    if board.alive():
        actor = board.pick("Which Faction acts")
        roll = roller.table(tables, "faction-activity", value=value, reason=f"Faction activity: {actor.name}")
        name, data = roll.entry.result, roll.entry.data
        facts["faction_activity"] = name
        lacks = (
            (data.get("min_influence") is not None and actor.influence < int(data["min_influence"]))
            or (data.get("min_power") is not None and actor.power < int(data["min_power"]))
            or (bool(data.get("requires_successful_job")) and not (job_won and job_faction == actor.name))
        )
        if actor.no_activity_turn == turn:
            board.lines.append(f"{actor.name} would act ({name}) but is laying low this turn.")
        elif lacks:
            board.lines.append(f"{actor.name}: {name}, but it does not meet the requirement; nothing happens.")
        else:
            winner = _activity(board, actor, name, data, facts, job_faction=job_faction, job_won=job_won, bonus=bonus) or winner
            board.settle(struggle_winner=winner if name == "Faction struggle" else None, job_faction=job_faction)
    return board.outcome("Faction activities:", facts)


def _activity(
    board: _Board,
    actor: _Live,
    name: str,
    data: Mapping[str, Any],
    facts: dict[str, Any],
    *,
    job_faction: str,
    job_won: bool,
    bonus: int,
) -> _Live | None:
    roller = board.roller
    dice_notation = str(data.get("dice", "1D6"))
    if name == "Consolidate power base":
        roll = roller.roll(dice_notation, f"{actor.name} consolidates").total or 0
        if roll > actor.power:
            actor.power += int(data.get("power", 1))
            board.lines.append(f"{actor.name} consolidates: Power +1.")
        else:
            board.lines.append(f"{actor.name} tries to consolidate, without result.")
    elif name == "Undermine Faction":
        others = board.others(actor)
        if not others:
            board.lines.append(f"{actor.name} has nobody to undermine.")
            return None
        target = board.pick(f"{actor.name} undermines", others)
        roll = roller.roll(dice_notation, f"{actor.name} undermines {target.name}").total or 0
        if roll >= int(data.get("target", 5)):
            score = board.lower_or_higher(target, higher=True)
            board.adjust(target, score, int(data.get("change", -1)))
            board.lines.append(f"{actor.name} undermines {target.name}: -1 {score.capitalize()}.")
        else:
            board.lines.append(f"{actor.name} fails to undermine {target.name}.")
    elif name == "Hostile take-over":
        others = board.others(actor)
        if not others:
            board.lines.append(f"{actor.name} has nobody to take over.")
            return None
        target = board.pick(f"{actor.name} moves on", others)
        roll = roller.roll(dice_notation, f"{actor.name} takes over {target.name}").total or 0
        if roll > target.influence:
            target.influence += int(data.get("target_influence", -1))
            actor.influence += int(data.get("influence", 1))
            board.lines.append(f"{actor.name} takes ground from {target.name}: Influence moves by 1.")
        else:
            board.lines.append(f"{target.name} resists {actor.name}'s take-over.")
    elif name == "Public relations campaign":
        roll = roller.roll(dice_notation, f"{actor.name} public relations").total or 0
        if roll > actor.influence:
            actor.influence += int(data.get("influence", 1))
            board.lines.append(f"{actor.name} wins hearts: Influence +1.")
        else:
            board.lines.append(f"{actor.name}'s campaign falls flat.")
    elif name == "Capitalize on events":
        score = board.lower_or_higher(actor, higher=False)
        board.adjust(actor, score, int(data.get("change", 1)))
        board.lines.append(f"{actor.name} capitalizes: {score.capitalize()} +1.")
    elif name == "Faction struggle":
        others = board.others(actor)
        if not others:
            board.lines.append(f"{actor.name} has no one to fight.")
            return None
        target = board.pick(f"{actor.name} struggles against", others)
        return _struggle(board, actor, target, job_faction=job_faction, job_won=job_won, bonus=bonus, label="Faction struggle")
    elif name == "Office party":
        if actor.loyalty > 0:
            board.extra.append(Change("credits", {"amount": actor.loyalty}))
        board.lines.append(f"{actor.name} throws an office party: +{actor.loyalty} credits.")
    elif name == "Plans within plans":
        facts["offers"].append(f"{actor.name} offers you a Quest")
        board.extra.append(Change("note", {"text": f"{actor.name} offers you a Quest."}))
        board.lines.append(f"{actor.name} offers you a Quest.")
    elif name == "Day to day operations":
        facts["offers"].append(f"{actor.name} offers a job next turn")
        board.extra.append(Change("note", {"text": f"{actor.name} will offer a job next turn."}))
        board.lines.append(f"{actor.name} will offer you a job next turn.")
    elif name == "Defensive posture":
        board.lines.append(f"{actor.name} digs in: hostile actions against it this turn fail.")
    else:
        board.lines.append(f"{actor.name} lies low.")
    return None


def faction_event(
    factions: Sequence[FactionView],
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    turn: int,
    rival_names: Sequence[str] = (),
    value: int | None = None,
    faces: Sequence[int] | None = None,
) -> FactionOutcome:
    """The Faction event after the crew and campaign events (p.114): D100 on faction-events.

    ``turn`` is the current campaign turn ("next turn" effects mark ``turn + 1``);
    ``rival_names`` the crew's Rivals (for "We thought we would do you a favor"). ``value`` is the
    typed D100; ``faces`` the other typed dice in order. Changes: ``faction``, ``faction_add``,
    ``faction_remove``, ``story_points``, ``rival_add`` / ``rival_remove``, ``note``; facts
    ``faction_event``.
    """
    roller = Roller(dice, faces)
    board = _Board(factions, roller, tables)
    roll = roller.table(tables, "faction-events", value=value, reason="Faction event")
    name, data = roll.entry.result, roll.entry.data
    facts = {"faction_event": name}
    alive = board.alive()
    if not alive and name != "New Faction":
        return board.outcome(f"Faction event: {name}, but there are no Factions here.", facts)
    if name == "New Faction":
        faction, rolls = faction_generate(tables, dice, small=True, taken=board.live, faces=_drain(roller, 3))
        roller.records.extend(rolls)
        board.live[faction.name] = _Live.of(faction)
        board.lines.append(
            f"New Faction: {faction.name} (Influence {faction.influence}, Power {faction.power}); it offers you a job next turn."
        )
    elif name == "Shoot out":
        if len(alive) < 2:
            board.lines.append("Shoot out: only one Faction here, so nothing happens.")
        else:
            first = board.pick("Shoot out: first side")
            second = board.pick("Shoot out: second side", board.others(first))
            a = roller.roll(str(data.get("dice", "1D6")), f"Shoot out: {first.name}", modifier=first.power).total or 0
            b = roller.roll(str(data.get("dice", "1D6")), f"Shoot out: {second.name}", modifier=second.power).total or 0
            if a == b:
                board.lines.append(f"Shoot out between {first.name} and {second.name}: a draw, nothing changes.")
            else:
                loser = second if a > b else first
                score = board.lower_or_higher(loser, higher=True, tie="power")
                board.adjust(loser, score, int(data.get("change", -1)))
                loser.no_job_turn = loser.no_activity_turn = turn + 1
                board.lines.append(f"Shoot out: {loser.name} loses (-1 {score.capitalize()}, no job or activity next turn).")
    elif name == "Tensions rising":
        board.extra.append(
            Change("note", {"text": f"Faction jobs next turn: +{data.get('danger_pay_credits', 1)} credit Danger Pay."})
        )
        board.lines.append("Tensions rising: Faction jobs next turn pay more danger money.")
    elif name == "Truce":
        for quiet in alive:
            quiet.no_activity_turn = turn + 1
        board.lines.append("Truce: no Faction activities next turn.")
    elif name == "Power base":
        target = board.pick("Power base")
        score = board.lower_or_higher(target, higher=False)
        board.adjust(target, score, int(data.get("change", 1)))
        board.lines.append(f"Power base: {target.name} {score.capitalize()} +1.")
    elif name == "Tip off":
        target = board.pick("Tip off")
        board.extra.append(Change("note", {"text": f"{target.name} tips you off: +{data.get('quest_clues', 1)} Quest Clue."}))
        board.lines.append(f"Tip off: {target.name} gives you a Quest Clue.")
    elif name == "Befriending the leadership":
        board.extra.append(Change("story_points", {"amount": int(data.get("story_points", 1))}))
        best = max(alive, key=lambda f: f.loyalty)
        board.lines.append(f"Befriending the leadership: {best.name} warms to you, +1 story point.")
    elif name == "New Leadership":
        target = board.pick("New Leadership")
        for score in ("influence", "power"):
            face = roller.roll(str(data.get("dice", "1D6")), f"New leader: {target.name} {score}").total or 0
            if face <= int(data.get("down_on", 1)):
                board.adjust(target, score, -1)
            elif face >= int(data.get("up_on", 6)):
                board.adjust(target, score, 1)
        board.lines.append(f"New Leadership at {target.name}: Influence {target.influence}, Power {target.power}.")
    elif name == "Outside interference":
        target = board.pick("Outside interference")
        face = roller.roll(str(data.get("dice", "1D6")), f"Outside interference: {target.name}").total or 0
        if face > target.power:
            target.influence += int(data.get("influence", -1))
            board.lines.append(f"Outside interference: {target.name} -1 Influence.")
        else:
            board.lines.append(f"Outside interference: {target.name} holds firm.")
    elif name == "Internal struggle":
        target = board.pick("Internal struggle")
        face = roller.roll(str(data.get("dice", "1D6")), f"Internal struggle: {target.name}").total or 0
        if face == 1:
            target.influence += int(data.get("influence", -1))
            board.lines.append(f"Internal struggle: {target.name} -1 Influence.")
        elif face == 6:
            target.power += int(data.get("power", -1))
            board.lines.append(f"Internal struggle: {target.name} -1 Power.")
        else:
            board.lines.append(f"Internal struggle at {target.name} blows over.")
    elif name == "Public display of support":
        target = board.pick("Public display of support")
        target.influence += int(data.get("influence", 1))
        board.lines.append(f"{target.name} gains +1 Influence.")
    elif name == "Armed to the teeth":
        target = board.pick("Armed to the teeth")
        target.power += int(data.get("power", 1))
        board.lines.append(f"{target.name} gains +1 Power.")
    elif name == "A little visit":
        attacked = [f for f in alive if f.attacked_turn and f.attacked_turn >= turn - 1]
        if attacked:
            who = max(attacked, key=lambda f: f.attacked_turn)
            board.extra.append(
                Change("rival_add", {"name": f"{who.name} enforcers", "kind": "Enforcers", "notes": f"Sent by {who.name}."})
            )
            board.lines.append(f"A little visit: {who.name} sends Enforcers after you (new Rival).")
        else:
            board.lines.append("A little visit: you attacked no Faction lately, so nobody comes.")
    elif name == "We thought we would do you a favor":
        loyal = [f for f in alive if f.loyalty >= int(data.get("min_loyalty", 3))]
        if loyal and rival_names:
            friend = board.pick("Which loyal Faction helps", loyal)
            gone = roller.pick(list(rival_names), "Which Rival is removed")
            board.extra.append(Change("rival_remove", {"name": gone}))
            board.lines.append(f"{friend.name} takes care of your Rival {gone}.")
        else:
            board.lines.append("A Faction would do you a favor, but you need Loyalty 3+ and a Rival.")
    elif name == "Dark secrets":
        patron = board.pick("Dark secrets")
        others = board.others(patron)
        target_name = board.pick("Dark secrets target", others).name if others else "an unknown enemy"
        board.extra.append(
            Change(
                "note",
                {
                    "text": f"{patron.name} offers a Quest against {target_name}: success costs the target 1 Influence and 1 Power, +2 Loyalty."
                },
            )
        )
        board.lines.append(f"Dark secrets: {patron.name} sends you on a Quest against {target_name}.")
    board.settle()
    return board.outcome(f"Faction event: {name}.", facts)
