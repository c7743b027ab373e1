"""Benchmark: automatic no-minis battles (Compendium pp.66-73) per second on one core against
the target of 1,000, and the engine's time per battle against the time to roll the same dice
alone (the fair baseline, measured in the same run).

    uv run python benchmarks/nominis_battles.py

A four-figure crew against six enemies with battle flow events on, played to the end by the
automatic policy. Every die the engine rolls is counted through a counting Dice; the "dice
alone" time rolls that many D6 with the same Dice class. Prints numbers and a ratio; not a test,
no pass or fail.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from battles.engine import fp_combat
from battles.engine import nominis as nm
from rules.engine.dice import Dice
from rules.fixturefiles import read_all

BATTLES = 300
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


def main() -> None:
    tables = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}
    crew = [figure(tables, n, "Military rifle", captain=n == "Ada") for n in ("Ada", "Bo", "Cy", "Di")]
    foes = [figure(tables, f"E{i}", "Colony rifle", combat_skill=0, toughness=3) for i in range(6)]
    numbers = fp_combat.hit_numbers(tables, dramatic=True)
    start = nm.new_battle(
        crew=crew, enemies=foes, mission="fight_off", numbers=numbers, options=nm.NoMinisOptions(battle_flow=True)
    )
    began = time.process_time()
    for seed in range(BATTLES):
        nm.play_automatic(start, CountingDice(seed=seed), tables)
    engine = time.process_time() - began
    faces = CountingDice.faces_rolled
    dice = Dice(seed=1)
    began = time.process_time()
    for _ in range(faces):
        dice.face(6)
    bare = time.process_time() - began
    per_battle = engine / BATTLES
    rate = BATTLES / engine
    print(f"{BATTLES} automatic no-minis battles: {rate:.0f} battles/s on one core, {per_battle * 1e3:.2f} ms each")
    print(f"ratio battles/s / target {TARGET}: {rate / TARGET:.2f}")
    print(f"dice alone: {faces} faces ({faces / BATTLES:.0f} per battle) in {bare * 1e3:.1f} ms")
    print(f"ratio engine / dice alone: {engine / bare:.1f}x")


if __name__ == "__main__":
    main()
