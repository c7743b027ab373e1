"""Benchmark: the cost of a logged-free engine table roll against rolling the same die bare.

    uv run python benchmarks/table_roll.py

Prints a ratio (engine roll time / bare die time); not a test, no pass or fail.
"""

from __future__ import annotations

import random
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.engine.dice import Dice
from rules.fixturefiles import read_all

N = 20_000


def main() -> None:
    spec = next(s for s in read_all() if s.slug == "primary-alien")
    table = spec.engine()
    dice = Dice(seed=1)
    rng = random.Random(1)
    engine = min(timeit.repeat(lambda: table.roll(dice), number=N, repeat=5))
    bare = min(timeit.repeat(lambda: rng.randint(0, 9) * 10 + rng.randint(0, 9), number=N, repeat=5))
    print(f"table roll: {engine / N * 1e6:.2f} us; bare D100: {bare / N * 1e6:.2f} us; ratio {engine / bare:.1f}x")


if __name__ == "__main__":
    main()
