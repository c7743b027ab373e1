"""Odds before a battle: many automatic no-minis battles of one crew against one enemy
(Compendium pp.66-73 played by :func:`battles.engine.nominis.play_automatic`).

:func:`run_odds` plays ``runs`` battles from the same starting state, each with its own seed
drawn from ``seed``, and counts how often the crew Hold the Field, how many crew become
casualties (mean and the whole spread) and how long battles last. The automatic policy is the
one :func:`battles.engine.nominis.auto_action` documents, so the odds are those of a crew that
plays by that policy, not of the best possible play.

With ``stances`` the run compares the stances of automatic play (cautious, steady, reckless:
how readily the crew withdraws, p.72): the ``runs`` battles are shared out among them, each
stance playing the same seeds, so the differences come from the stance alone; the headline
numbers are those of the starting state's own stance and ``by_stance`` holds each stance's.

Pure Python: no Django imports.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
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
    ``casualties_mean`` and ``rounds_mean``: per battle (rounds are battle rounds). ``stance``:
    the stance these numbers are for; ``by_stance``: each compared stance's ``{"runs",
    "held_field", "chance_hold", "casualties_mean", "retreated_mean"}`` (empty without a
    comparison); ``total_runs``: every battle played."""

    runs: int
    held_field: int
    unfinished: int
    casualties_spread: Mapping[int, int]
    casualties_mean: float
    rounds_mean: float
    seed: int
    stance: str = nominis.DEFAULT_STANCE
    by_stance: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    total_runs: int = 0

    @property
    def chance_hold(self) -> float:
        """The share of battles (0-1) in which the crew Held the Field."""
        return self.held_field / self.runs if self.runs else 0.0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: the fields, ``chance_hold``, the spread keyed by text and ``by_stance`` as
        a list of rows in stance order (``{"stance", ...}``; a list, as JSON stores may sort keys)."""
        return {
            "runs": self.runs,
            "held_field": self.held_field,
            "unfinished": self.unfinished,
            "chance_hold": round(self.chance_hold, 4),
            "casualties_mean": round(self.casualties_mean, 3),
            "casualties_spread": {str(k): v for k, v in sorted(self.casualties_spread.items())},
            "rounds_mean": round(self.rounds_mean, 3),
            "seed": self.seed,
            "stance": self.stance,
            "by_stance": [{"stance": k, **v} for k, v in self.by_stance.items()],
            "total_runs": self.total_runs or self.runs,
        }


@dataclass
class _Tally:
    runs: int = 0
    held: int = 0
    unfinished: int = 0
    rounds: int = 0
    retreated: int = 0
    spread: Counter[int] = field(default_factory=Counter)

    def add(self, result: Mapping[str, Any]) -> None:
        self.runs += 1
        self.held += bool(result["held_field"])
        self.unfinished += not result["finished"]
        self.rounds += int(result["rounds"])
        self.retreated += len(result["retreated"])
        self.spread[len(result["crew_casualties"])] += 1

    @property
    def casualties_mean(self) -> float:
        return sum(k * v for k, v in self.spread.items()) / self.runs if self.runs else 0.0

    def summary(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "held_field": self.held,
            "chance_hold": round(self.held / self.runs, 4) if self.runs else 0.0,
            "casualties_mean": round(self.casualties_mean, 3),
            "retreated_mean": round(self.retreated / self.runs, 3) if self.runs else 0.0,
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
    stances: Sequence[str] | None = None,
) -> Odds:
    """Play ``runs`` automatic battles from ``initial_state`` (a :func:`nominis.new_battle`
    state, any mode) and sum them up.

    Battle ``i`` uses ``Dice(seed=<the i-th draw of random.Random(seed)>)``, so the same seed
    gives the same odds. ``progress(done, runs)`` is called after every ``every`` battles and at
    the end. A battle still going after ``limit_rounds`` rounds counts as not held.

    ``stances`` (names of :data:`nominis.STANCES`): compare them. The ``runs`` battles are
    shared out, a third each for three stances (the starting state's stance, which must be one
    of them, takes what does not divide), every stance on the same seeds; the headline numbers
    are its own stance's. Raises :class:`OddsError` (``runs``) outside
    :data:`MIN_RUNS`-:data:`MAX_RUNS`, (``state``) for a battle that is already over, or
    (``stance``) for an unknown stance or a state whose stance is not compared.
    """
    if not MIN_RUNS <= runs <= MAX_RUNS:
        raise OddsError(f"runs must be from {MIN_RUNS} to {MAX_RUNS}; got {runs}.")
    if initial_state.get("finished"):
        raise OddsError("The battle is already over; odds need a battle that has not started.", field="state")
    own = str((initial_state.get("options") or {}).get("stance") or nominis.DEFAULT_STANCE)
    compared = list(dict.fromkeys(stances or [own]))
    unknown = [s for s in compared if s not in nominis.STANCES]
    if unknown or own not in compared:
        raise OddsError(
            f"stances must be among {', '.join(nominis.STANCES)} and include the battle's own ({own}); "
            f"got {', '.join(compared)}.",
            field="stance",
        )
    share, spare = divmod(runs, len(compared))
    counts = {s: share + (spare if s == own else 0) for s in compared}
    drawn = random.Random(seed)
    seeds = [drawn.getrandbits(32) for _ in range(max(counts.values()))]
    tallies = {s: _Tally() for s in compared}
    done = 0
    for stance in compared:
        start: Mapping[str, Any] = initial_state
        if stance != own:
            start = {**initial_state, "options": {**initial_state["options"], "stance": stance}}
        for battle_seed in seeds[: counts[stance]]:
            final, _events = nominis.play_automatic(start, Dice(seed=battle_seed), tables, limit_rounds=limit_rounds)
            tallies[stance].add(nominis.outcome(final))
            done += 1
            if progress is not None and (done % every == 0 or done == runs):
                progress(done, runs)
    mine = tallies[own]
    return Odds(
        runs=mine.runs,
        held_field=mine.held,
        unfinished=mine.unfinished,
        casualties_spread=dict(mine.spread),
        casualties_mean=mine.casualties_mean,
        rounds_mean=mine.rounds / mine.runs if mine.runs else 0.0,
        seed=seed,
        stance=own,
        by_stance={s: tallies[s].summary() for s in compared} if len(compared) > 1 else {},
        total_runs=runs,
    )
