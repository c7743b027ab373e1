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
#: Keys of the loan's state kept beside its terms (see :func:`loan_state_apply`).
COLLECTORS = "collectors"
WARRANTS = "warrants"
IMPOUNDED = "impounded"
SEIZURE = "seizure"
TEMPORARY = "Temporary seizure"
PERMANENT = "Permanent seizure"
#: Lenders that charge no interest while they hold the ship (p.155).
NO_INTEREST_WHILE_IMPOUNDED = ("Unity Program", "Local Sector")


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
    - ``impounded``: the ship is held after a temporary seizure (read from the loan's state,
      see :func:`loan_state_apply`); a Unity or Sector Government loan then takes no interest.
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
    impounded: bool = False

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready; ``rolls`` as roll dicts."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("rolls", "impounded")}
        data["rolls"] = [r.as_dict() for r in self.rolls]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LoanTerms:
        """Inverse of :meth:`as_dict`. Raises :class:`WorldError` (field ``loan_terms``) for a missing key."""
        names_ = [f.name for f in fields(cls) if f.name not in ("amount", "upfront", "rolls", "impounded")]
        missing = [n for n in names_ if n not in data]
        if missing:
            raise WorldError(f"Loan terms lack {', '.join(missing)}.", field="loan_terms")
        values: dict[str, Any] = {n: data[n] for n in names_}
        return cls(
            **values,
            amount=data.get("amount"),
            upfront=int(data.get("upfront") or 0),
            rolls=tuple(RollRecord.from_dict(r) for r in data.get("rolls") or ()),
            impounded=bool(data.get(IMPOUNDED)),
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
    is the player's die). Interest goes on while the ship is impounded, except on a Unity or
    Sector Government loan (p.155). Returns (credits, roll or None)."""
    if owed <= 0:
        return 0, None
    if terms.impounded and terms.enforcement_column in NO_INTEREST_WHILE_IMPOUNDED:
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
            changes.append(Change("loan", {COLLECTORS: 1, "note": "Collectors on your tail: checked each turn (1D6+1)."}))
            lines.append(f"{level} cr: collectors are after you.")
        elif method in ("temporary_seizure", "permanent_seizure"):
            kind = "temporary" if method == "temporary_seizure" else "permanent"
            warrant = TEMPORARY if kind == "temporary" else PERMANENT
            note = f"Warrant ({kind} seizure) issued at {balance} credits owed."
            changes.append(Change("loan", {"warrant": warrant, "owed": balance, "note": note}))
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


# -- the loan's state: collectors, warrants, seizure (pp.155-156) ---------------------------


def loan_state_apply(loan: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """The loan (terms, balance and state) after one ``loan`` change's state keys:

    - ``collectors``: delta of the Collectors chasing the crew (``loan["collectors"]``, a count).
    - ``warrant`` (``Temporary seizure`` / ``Permanent seizure``) with ``owed``: a warrant is
      issued at that debt, or rolled again (``times`` + 1: the seizure range grows by one);
      ``loan["warrants"]`` maps the method to ``{"times", "owed"}``.
    - ``warrant_cleared``: the method whose warrant is cancelled.
    - ``seizure``: a seizure under way (``{"method", "owed"}``, later ``"battle"``: the fight's
      battle id) waiting for the crew to give up the ship or fight it out, or ``None`` once
      settled.
    - ``impounded``: ``{"owed"}`` when the ship is held, ``None`` when it is released.

    Pure: returns a new dict; keys it does not know are left to the caller (``balance``, ``note``).
    """
    out = dict(loan)
    if data.get(COLLECTORS):
        out[COLLECTORS] = max(0, int(out.get(COLLECTORS) or 0) + int(data[COLLECTORS]))
    if data.get("warrant"):
        warrants = {k: dict(v) for k, v in dict(out.get(WARRANTS) or {}).items()}
        method = str(data["warrant"])
        if method in warrants:
            warrants[method]["times"] = int(warrants[method].get("times", 1)) + 1
        else:
            warrants[method] = {"times": 1, "owed": int(data.get("owed") or 0)}
        out[WARRANTS] = warrants
    if data.get("warrant_cleared"):
        out[WARRANTS] = {k: v for k, v in dict(out.get(WARRANTS) or {}).items() if k != data["warrant_cleared"]}
    if SEIZURE in data:
        out[SEIZURE] = dict(data[SEIZURE]) if data[SEIZURE] else None
    if IMPOUNDED in data:
        out[IMPOUNDED] = dict(data[IMPOUNDED]) if data[IMPOUNDED] else None
    return out


@dataclass(frozen=True)
class LoanChecks:
    """The turn's checks on Collectors and seizure warrants (p.155): rolls, changes and words.
    ``seizing`` is the warrant whose holders come for the ship (``""`` if none)."""

    rolls: tuple[RollRecord, ...]
    changes: tuple[Change, ...]
    lines: tuple[str, ...]
    seizing: str = ""


def loan_checks(
    loan: Mapping[str, Any],
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    turns_on_world: int,
    credits: int,
    faces: Sequence[int] | None = None,
) -> LoanChecks:
    """Each campaign turn (p.155): every Collector rolls 1D6+1 against ``turns_on_world``
    (campaign turns spent on this world, this one included); one that catches the crew fines
    them 3D6 credits, paid from ``credits`` when they can, else added to the loan with a Bounty
    Hunter Rival; either way that Collector is gone. Then each seizure warrant rolls 2D6 (2-5
    temporary, 2-6 permanent, one more for each extra time it was rolled); on a seizure the
    crew gives up the ship or fights it out (``seizing``; see :func:`loan_seizure_settle`). A
    ship already impounded is not seized again by a temporary warrant; one seizure at a time.
    ``faces`` are typed dice in the order rolled. Every roll is in ``rolls`` with its reason."""
    rolls: list[RollRecord] = []
    changes: list[Change] = []
    lines: list[str] = []
    left = credits
    typed = list(faces or ())
    for number in range(int(loan.get(COLLECTORS) or 0)):
        caught, fine, made = collectors_check(tables, turns_on_world, dice, faces=typed[:4] or None)
        typed = typed[sum(len(r.faces) for r in made) :]
        rolls.extend(made)
        who = f"Collectors {number + 1}"
        if not caught:
            lines.append(f"{who} roll {made[0].total}, over the {turns_on_world} turn(s) spent here: they have not caught up.")
            continue
        changes.append(Change("loan", {COLLECTORS: -1, "note": f"{who} caught up: fined {fine} credits."}))
        if fine <= left:
            left -= fine
            changes.append(Change("credits", {"amount": -fine}))
            lines.append(f"{who} catch up (roll {made[0].total}): the crew pays the {fine} credit fine.")
        else:
            changes.append(Change("loan", {"balance": fine, "note": f"Unpaid collectors' fine: +{fine} credits owed."}))
            changes.append(
                Change(
                    "rival_add",
                    {"name": "Bounty hunters (unpaid fine)", "kind": "Bounty hunters", "notes": "Unpaid loan fine (p.155)."},
                )
            )
            lines.append(
                f"{who} catch up (roll {made[0].total}): the {fine} credit fine goes on the loan and Bounty hunters become a Rival."
            )
    seizing = ""
    pending = loan.get(SEIZURE)
    for method in (PERMANENT, TEMPORARY):
        warrant = dict(loan.get(WARRANTS) or {}).get(method)
        if not warrant or pending or seizing:
            continue
        if method == TEMPORARY and loan.get(IMPOUNDED):
            continue
        seized, record = seizure_check(tables, method, int(warrant.get("times", 1)), dice, faces=typed[:2] or None)
        typed = typed[2:]
        rolls.append(record)
        if seized:
            seizing = method
            owed = int(loan.get("balance") or 0)
            changes.append(
                Change("loan", {SEIZURE: {"method": method, "owed": owed}, "note": f"{method}: they come for the ship."})
            )
            lines.append(f"{method} warrant: {record.total}, they come for the ship. Give it up or fight it out.")
        else:
            lines.append(f"{method} warrant: {record.total}, not this turn.")
    return LoanChecks(tuple(rolls), tuple(changes), tuple(lines), seizing)


#: How a seizure under way ends: the crew gives the ship up, or fought it out and escaped, or
#: fought it out and nobody escaped.
SEIZURE_ENDS: tuple[str, ...] = ("give_up", "escaped", "caught")


def loan_seizure_settle(loan: Mapping[str, Any], end: str, tables: Mapping[str, RangeTable]) -> tuple[tuple[Change, ...], str]:
    """Settle the seizure under way (pp.155-156). ``end``: ``give_up`` (or ``caught``: the fight
    was lost with nobody escaping) hands the ship over: a temporary seizure impounds it until
    the debt is 10 credits below what was owed then; a permanent one loses it for good.
    ``escaped`` (at least one crew member got away from the fight): the crew keeps the ship and
    must leave this world, the warrant stays and an Enforcer Rival joins the roster.
    ``escaped`` and ``caught`` need the fight set up first. Returns (changes, words). Raises
    :class:`WorldError` naming ``end``."""
    seizure = loan.get(SEIZURE)
    if not seizure:
        raise WorldError("end: no one is coming for the ship right now.", field="end")
    if end not in SEIZURE_ENDS:
        raise WorldError(f"end must be one of {', '.join(SEIZURE_ENDS)}; got {end!r}.", field="end")
    if end in ("escaped", "caught") and not seizure.get("battle"):
        raise WorldError(f"end {end!r} needs the fight set up first; or give_up.", field="end")
    method = str(seizure["method"])
    if end == "escaped":
        rival = {"name": "Enforcers (seizure warrant)", "kind": "Enforcers", "notes": "They tried to seize the ship (p.156)."}
        text = (
            "The crew fought it out and got away with the ship: leave this world; the warrant stands, Enforcers become a Rival."
        )
        return (Change("loan", {SEIZURE: None}), Change("rival_add", rival)), text
    data = row(tables, "loan-enforcement-methods", method).data
    clear = int(data.get("clear_below_credits", 10))
    owed = int(seizure.get("owed") or 0)
    if method == TEMPORARY:
        text = f"The ship is impounded until the debt is {owed - clear} credits or less."
        change = Change("loan", {SEIZURE: None, IMPOUNDED: {"owed": owed}, "note": text})
        return (change,), text
    text = "The ship is seized for good."
    return (Change("loan", {SEIZURE: None, "warrant_cleared": method, "note": text}), Change("ship", {"lost": True})), text


def loan_payment(loan: Mapping[str, Any], paid: int, tables: Mapping[str, RangeTable]) -> tuple[tuple[Change, ...], str]:
    """Pay ``paid`` credits off the loan (p.155): warrants whose debt was brought 10 credits
    below what was owed when they were issued are cancelled, and an impounded ship comes back
    the same way. Returns (changes, words). Raises :class:`WorldError` (``credits``) for a
    payment of 0 or less, or above the debt."""
    owed = int(loan.get("balance") or 0)
    if paid <= 0 or paid > owed:
        raise WorldError(f"credits must be 1 to {owed} (the debt); got {paid}.", field="credits")
    after = owed - paid
    changes: list[Change] = [Change("credits", {"amount": -paid}), Change("loan", {"balance": -paid})]
    words = [f"Paid {paid} credits off the loan: {after} owed."]
    for method, warrant in dict(loan.get(WARRANTS) or {}).items():
        clear = int(row(tables, "loan-enforcement-methods", method).data.get("clear_below_credits", 10))
        if after <= int(warrant.get("owed") or 0) - clear:
            changes.append(Change("loan", {"warrant_cleared": method, "note": f"{method} warrant cancelled."}))
            words.append(f"The {method.lower()} warrant is cancelled.")
    impounded = loan.get(IMPOUNDED)
    if impounded:
        clear = int(row(tables, "loan-enforcement-methods", TEMPORARY).data.get("clear_below_credits", 10))
        if after <= int(impounded.get("owed") or 0) - clear:
            changes.append(Change("loan", {IMPOUNDED: None, "note": "The ship is released."}))
            words.append("The impounded ship is released.")
    return tuple(changes), " ".join(words)


@dataclass(frozen=True)
class FightItOut:
    """The set-up of "Fight it out" (p.156): the crew starts in the centre, at least
    ``edge_distance`` inches from every edge; the enemy (Enforcers with ``extra_basic`` more
    basic enemies) comes in split over two random edges; the crew must escape over
    ``escape_edge``."""

    enemy_edges: tuple[str, str]
    escape_edge: str
    extra_basic: int
    edge_distance: int
    rolls: tuple[RollRecord, ...]


EDGES: tuple[str, ...] = ("north", "east", "south", "west")


def fight_it_out(tables: Mapping[str, RangeTable], dice: Dice) -> FightItOut:
    """Roll the Fight it out set-up (p.156): the two enemy edges (a random edge of the four,
    then one of the other three) and the escape edge, each a random pick (see the package
    docstring), edges named as in :data:`EDGES`."""
    data = row(tables, "loan-enforcement-methods", "Fight it out").data
    roller = Roller(dice)
    first = roller.pick(EDGES, "Fight it out: first enemy edge")
    second = roller.pick([e for e in EDGES if e != first], "Fight it out: second enemy edge")
    escape = roller.pick(EDGES, "Fight it out: the edge to escape across")
    return FightItOut(
        enemy_edges=(first, second),
        escape_edge=escape,
        extra_basic=int(data.get("extra_basic", 2)),
        edge_distance=int(data.get("edge_distance_in", 12)),
        rolls=tuple(roller.records),
    )
