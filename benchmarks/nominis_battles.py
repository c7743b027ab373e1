"""Benchmark: automatic no-minis battles (Compendium pp.66-73) per second on one core against
the target of 1,000, and the engine's time per battle against the time to roll the same dice
alone (the fair baseline, measured in the same run).

    uv run python benchmarks/nominis_battles.py [battles per run] [runs]

A four-figure crew against six enemies with battle flow events on, played to the end by the
automatic policy. The same battles (seeds 0..N-1) are timed ``runs`` times with a plain Dice
(CPU time of this process); the median run, the spread of the runs and the best are printed,
since the machine may be shared. The dice the engine rolls are counted in a separate, untimed
pass through a counting Dice; the "dice alone" time rolls that many D6 with the same Dice class.
A last, instrumented pass shows how the time splits between the shared combat resolver
(``fp_combat`` shots and Brawls, with their dice), the other dice (Dice.roll, and the faces the
engine draws for its own rolls) and the no-minis engine itself (with the records of its own
rolls and every event). Prints numbers, ratios, whether the median meets the target, and the
Python it ran on (the interpreter's build changes the figure); not a test: it never fails.
"""

from __future__ import annotations

import platform
import statistics
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from battles.engine import fp_combat
from battles.engine import nominis as nm
from rules.engine.dice import Dice
from rules.fixturefiles import read_all

BATTLES = 300
RUNS = 7
TARGET = 1000  # automatic battles per second on one core (issue "One tracker kernel ...")


class CountingDice(Dice):
    """A Dice that counts the dice it rolls (one per face drawn)."""

    faces_rolled = 0

    def face(self, sides: int) -> int:
        CountingDice.faces_rolled += 1
        return super().face(sides)


def figure(tables: Any, name: str, weapon: str, **kw: Any) -> dict[str, Any]:
    base = {"name": name, "reactions": 2, "speed": 4, "combat_skill": 1, "toughness": 4, "savvy": 0}
    return {**base, "weapons": [nm.weapon_dict(fp_combat.weapon(tables, weapon))], **kw}


def play_all(start: dict[str, Any], tables: Any, battles: int, dice: type[Dice] = Dice) -> float:
    """CPU seconds to play seeds 0..battles-1 to the end."""
    began = time.process_time()
    for seed in range(battles):
        nm.play_automatic(start, dice(seed=seed), tables)
    return time.process_time() - began


def split(start: dict[str, Any], tables: Any, battles: int) -> tuple[float, float, float]:
    """(total, in fp_combat shots and Brawls, in other dice) CPU seconds, by wrapping them. Other
    dice: :meth:`Dice.roll` calls and the faces the engine draws itself (``Dice.face``) outside
    the resolver; the records the engine builds for its own faces count as engine time."""
    spent = {"combat": 0.0, "dice": 0.0}
    inside = [False]
    shot, brawl, roll, face = fp_combat.resolve_shot, fp_combat.resolve_brawl, Dice.roll, Dice.face
    clock = time.process_time

    def timed(resolve: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            inside[0] = True
            began = clock()
            try:
                return resolve(*args, **kwargs)
            finally:
                spent["combat"] += clock() - began
                inside[0] = False

        return wrapper

    def timed_dice(method: Any) -> Any:
        def wrapper(self: Dice, *args: Any, **kwargs: Any) -> Any:
            if inside[0]:
                return method(self, *args, **kwargs)
            inside[0] = True  # a roll's own faces are not counted twice
            began = clock()
            try:
                return method(self, *args, **kwargs)
            finally:
                spent["dice"] += clock() - began
                inside[0] = False

        return wrapper

    fp_combat.resolve_shot, fp_combat.resolve_brawl = timed(shot), timed(brawl)
    Dice.roll, Dice.face = timed_dice(roll), timed_dice(face)  # type: ignore[method-assign]
    try:
        total = play_all(start, tables, battles)
    finally:
        fp_combat.resolve_shot, fp_combat.resolve_brawl = shot, brawl
        Dice.roll, Dice.face = roll, face  # type: ignore[method-assign]
    return total, spent["combat"], spent["dice"]


def interpreter() -> str:
    """The Python this runs on, with what its configure flags say of profile-guided and link-time
    optimization (a build without them runs pure Python code slower). A build optimized by other
    means (Debian's) still shows "no"."""
    flags = str(sysconfig.get_config_var("CONFIG_ARGS") or "")
    said = ", ".join(
        f"{name} {'yes' if flag in flags else 'no'}" for name, flag in (("PGO", "--enable-optimizations"), ("LTO", "--with-lto"))
    )
    return f"Python {platform.python_version()} ({sys.executable}); its configure flags: {said}"


def main() -> None:
    battles = int(sys.argv[1]) if len(sys.argv) > 1 else BATTLES
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else RUNS
    tables = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}
    crew = [figure(tables, n, "Military rifle", captain=n == "Ada") for n in ("Ada", "Bo", "Cy", "Di")]
    foes = [figure(tables, f"E{i}", "Colony rifle", combat_skill=0, toughness=3) for i in range(6)]
    numbers = fp_combat.hit_numbers(tables, dramatic=True)
    start = nm.new_battle(
        crew=crew, enemies=foes, mission="fight_off", numbers=numbers, options=nm.NoMinisOptions(battle_flow=True)
    )
    play_all(start, tables, battles, CountingDice)  # untimed: counts the dice (and warms the caches)
    faces = CountingDice.faces_rolled
    rates = sorted(battles / play_all(start, tables, battles) for _ in range(runs))
    best, median = rates[-1], statistics.median(rates)
    dice = Dice(seed=1)
    began = time.process_time()
    for _ in range(faces):
        dice.face(6)
    bare = time.process_time() - began
    engine = battles / best
    print(f"{battles} automatic no-minis battles per run, {runs} runs, one core (CPU time of this process)")
    print(f"  on {interpreter()}")
    print(
        f"battles/s: median {median:.0f}, spread {rates[0]:.0f}-{best:.0f} "
        f"(+{(best - median) / median:.0%} / -{(median - rates[0]) / median:.0%} of the median), best {best:.0f}"
    )
    print(f"  {1e3 / median:.2f} ms per battle (median run), {1e3 / best:.2f} ms (best run)")
    print(
        f"ratio battles/s / target {TARGET}: median {median / TARGET:.2f}, best {best / TARGET:.2f} "
        f"(median {'MET' if median >= TARGET else 'MISSED'})"
    )
    print(f"dice alone: {faces} faces ({faces / battles:.0f} per battle) in {bare * 1e3:.1f} ms")
    print(f"ratio engine / dice alone: {engine / bare:.1f}x")
    total, combat, other = split(start, tables, battles)
    print(
        f"time split (instrumented run): fp_combat shots and Brawls {combat / total:.0%}, "
        f"other dice rolls {other / total:.0%}, no-minis engine {(total - combat - other) / total:.0%}"
    )


if __name__ == "__main__":
    main()
