"""Benchmark: CPU per action of the Five Parsecs battle tracker's reducer. Not a test: it prints numbers.

    uv run python benchmarks/fp_tracker_actions.py            # timings
    uv run python benchmarks/fp_tracker_actions.py --profile  # and the top of a cProfile

The battles are the seeded ones of ``battles/tests/test_fp_tracker_pinned.py`` (5 crew against
two enemy groups, one elite; Dramatic Combat, casualty tables, and a run with every option on):
their actions are recorded once, then each is applied again to its state before, through the
kind's reducer (``battles.fiveparsecs_kind.reducer``, the call the live kernel makes), with the
tables in memory as the kernel passes them. It prints the mean and median CPU time per action,
and per action type. Pure engine: no database.
"""

from __future__ import annotations

import cProfile
import pstats
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from battles import fiveparsecs_kind  # noqa: E402
from battles.tests.test_fp_tracker_pinned import OPTIONS, TABLES, battle  # noqa: E402
from live.engine.tracker import Action  # noqa: E402
from rules.engine.dice import Dice  # noqa: E402

Step = tuple[Action, int, dict[str, Any]]

SEEDS = range(1, 7)
REPEATS = 5


def recorded() -> list[Step]:
    """Every action of the battles with its dice seed and the state before it."""
    steps: list[Step] = []
    for options in OPTIONS.values():
        for seed in SEEDS:
            for action, dice, before, _after, events in battle(seed, options):
                if not isinstance(events, str):  # refused actions are not timed
                    steps.append((action, int(dice.seed or 0), before))
    return steps


def run(steps: list[Step]) -> None:
    for action, seed, before in steps:
        fiveparsecs_kind.reducer(before, action, Dice(seed=seed), TABLES)


def main() -> None:
    steps = recorded()
    run(steps)  # warm caches, as a running server has them
    per_type: dict[str, list[float]] = defaultdict(list)
    totals = []
    for _ in range(REPEATS):
        started_all = time.process_time()
        for action, seed, before in steps:
            started = time.perf_counter()
            fiveparsecs_kind.reducer(before, action, Dice(seed=seed), TABLES)
            per_type[action.type].append(time.perf_counter() - started)
        totals.append((time.process_time() - started_all) / len(steps))
    every = [t for times in per_type.values() for t in times]
    print(
        f"{len(steps)} actions x {REPEATS}: CPU per action {min(totals) * 1e3:.3f} ms (best run), "
        f"{statistics.mean(totals) * 1e3:.3f} ms (mean run); wall median {statistics.median(every) * 1e3:.3f} ms"
    )
    for type_, times in sorted(per_type.items(), key=lambda kv: -statistics.mean(kv[1])):
        print(
            f"  {type_:18} n={len(times) // REPEATS:4}  median {statistics.median(times) * 1e3:.3f} ms"
            f"  mean {statistics.mean(times) * 1e3:.3f} ms"
        )
    if "--profile" in sys.argv:
        profile = cProfile.Profile()
        profile.runcall(run, steps)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(35)
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
