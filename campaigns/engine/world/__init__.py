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

The package holds one module per section: :mod:`.common` (the error, table look-ups and
the :class:`Roller`), :mod:`.worlds` (new worlds, psionic legality), :mod:`.loans`, :mod:`.strife`
and :mod:`.factions`; every public name is re-exported here.

Pure Python: no Django imports.
"""

from __future__ import annotations

from campaigns.engine.world.common import Roller, WorldError, row, table
from campaigns.engine.world.factions import (
    FactionOutcome,
    faction_activity,
    faction_event,
    faction_favor,
    faction_generate,
    faction_job_check,
    faction_loyalty_gain,
    factions_flee,
    factions_generate,
)
from campaigns.engine.world.loans import (
    LOAN_VALUE_KEYS,
    SEIZURE_ENDS,
    Enforcement,
    FightItOut,
    LoanChecks,
    LoanTerms,
    collectors_check,
    enforcement_points,
    fight_it_out,
    loan_checks,
    loan_enforcement,
    loan_interest,
    loan_payment,
    loan_seizure_settle,
    loan_setup,
    loan_state_apply,
    seizure_check,
)
from campaigns.engine.world.strife import InstabilityCheck, Stability, instability_check, strife_blocks_factions, world_stability
from campaigns.engine.world.worlds import LEGALITY_STATUS, NewWorld, krag_colony, new_world, psionic_legality

__all__ = [
    "LEGALITY_STATUS",
    "LOAN_VALUE_KEYS",
    "SEIZURE_ENDS",
    "Enforcement",
    "FactionOutcome",
    "FightItOut",
    "InstabilityCheck",
    "LoanChecks",
    "LoanTerms",
    "NewWorld",
    "Roller",
    "Stability",
    "WorldError",
    "collectors_check",
    "enforcement_points",
    "faction_activity",
    "faction_event",
    "faction_favor",
    "faction_generate",
    "faction_job_check",
    "faction_loyalty_gain",
    "factions_flee",
    "factions_generate",
    "fight_it_out",
    "instability_check",
    "krag_colony",
    "loan_checks",
    "loan_enforcement",
    "loan_interest",
    "loan_payment",
    "loan_seizure_settle",
    "loan_setup",
    "loan_state_apply",
    "new_world",
    "psionic_legality",
    "row",
    "seizure_check",
    "strife_blocks_factions",
    "table",
    "world_stability",
]
