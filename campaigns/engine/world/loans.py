"""Loans: Who Do You Owe? (Compendium pp.152-156): terms, interest, enforcement, collectors
and seizure.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from campaigns.engine.view import Change
from campaigns.engine.world.common import Roller, WorldError, _amount, row, table
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

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
