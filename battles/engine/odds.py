"""Odds before a battle: many automatic no-minis battles of one crew against one enemy
(Compendium pp.66-73 played by :func:`battles.engine.nominis.play_automatic`).

:func:`run_odds` plays ``runs`` battles from the same starting state, each with its own seed
drawn from ``seed``, and counts how often the crew Hold the Field, how many crew become
casualties (mean and the whole spread) and how long battles last. The automatic policy is the
one :func:`battles.engine.nominis.auto_action` documents, so the odds are those of a crew that
plays by that policy, not of the best possible play.

Pure Python: no Django imports.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from battles.engine import nominis
from rules.engine.dice import Dice
from rules.engine.errors import RuleError
from rules.engine.tables import RangeTable

#: The fewest and most battles one odds run may play.
MIN_RUNS = 10
MAX_RUNS = 2000


class OddsError(RuleError):
    """A run that cannot be played; ``field`` names the input at fault."""

    default_field = "runs"


@dataclass(frozen=True)
class Odds:
    """What ``runs`` automatic battles gave.

    ``held_field``: battles in which the crew Held the Field; ``unfinished``: battles stopped at
    the round limit; ``casualties_spread``: crew casualties per battle -> number of battles;
    ``casualties_mean`` and ``rounds_mean``: per battle (rounds are battle rounds)."""

    runs: int
    held_field: int
    unfinished: int
    casualties_spread: Mapping[int, int]
    casualties_mean: float
    rounds_mean: float
    seed: int

    @property
    def chance_hold(self) -> float:
        """The share of battles (0-1) in which the crew Held the Field."""
        return self.held_field / self.runs if self.runs else 0.0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: the fields, ``chance_hold``, and the spread keyed by text."""
        return {
            "runs": self.runs,
            "held_field": self.held_field,
            "unfinished": self.unfinished,
            "chance_hold": round(self.chance_hold, 4),
            "casualties_mean": round(self.casualties_mean, 3),
            "casualties_spread": {str(k): v for k, v in sorted(self.casualties_spread.items())},
            "rounds_mean": round(self.rounds_mean, 3),
            "seed": self.seed,
        }


def run_odds(
    initial_state: Mapping[str, Any],
    tables: Mapping[str, RangeTable],
    *,
    runs: int,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
    every: int = 10,
    limit_rounds: int = 30,
) -> Odds:
    """Play ``runs`` automatic battles from ``initial_state`` (a :func:`nominis.new_battle`
    state, any mode) and sum them up.

    Battle ``i`` uses ``Dice(seed=<the i-th draw of random.Random(seed)>)``, so the same seed
    gives the same odds. ``progress(done, runs)`` is called after every ``every`` battles and at
    the end. A battle still going after ``limit_rounds`` rounds counts as not held.
    Raises :class:`OddsError` (``runs``) outside :data:`MIN_RUNS`-:data:`MAX_RUNS`, or
    (``state``) for a battle that is already over.
    """
    if not MIN_RUNS <= runs <= MAX_RUNS:
        raise OddsError(f"runs must be from {MIN_RUNS} to {MAX_RUNS}; got {runs}.")
    if initial_state.get("finished"):
        raise OddsError("The battle is already over; odds need a battle that has not started.", field="state")
    seeds = random.Random(seed)
    held = unfinished = 0
    rounds_total = 0
    spread: Counter[int] = Counter()
    for done in range(1, runs + 1):
        final, _events = nominis.play_automatic(
            initial_state, Dice(seed=seeds.getrandbits(32)), tables, limit_rounds=limit_rounds
        )
        result = nominis.outcome(final)
        held += bool(result["held_field"])
        unfinished += not result["finished"]
        rounds_total += int(result["rounds"])
        spread[len(result["crew_casualties"])] += 1
        if progress is not None and (done % every == 0 or done == runs):
            progress(done, runs)
    casualties_total = sum(k * v for k, v in spread.items())
    return Odds(
        runs=runs,
        held_field=held,
        unfinished=unfinished,
        casualties_spread=dict(spread),
        casualties_mean=casualties_total / runs,
        rounds_mean=rounds_total / runs,
        seed=seed,
    )
