"""Odds: many automatic no-minis battles summed up (chance to Hold the Field, casualties)."""

from __future__ import annotations

from typing import Any

import pytest

from battles.engine import fp_combat, odds
from battles.engine import nominis as nm
from rules.fixturefiles import read_all

TABLES = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}
NUMBERS = fp_combat.HitNumbers(open=5, cover=6, source="test")


def figure(name: str, weapon: str, **kw: Any) -> dict[str, Any]:
    base = {"name": name, "reactions": 2, "speed": 4, "combat_skill": 0, "toughness": 3, "savvy": 0}
    return {**base, "weapons": [nm.weapon_dict(fp_combat.weapon(TABLES, weapon))], **kw}


def start(crew_skill: int = 0, enemies: int = 4) -> dict[str, Any]:
    crew = [figure(n, "Military rifle", combat_skill=crew_skill, captain=n == "Ada") for n in ("Ada", "Bo", "Cy", "Di")]
    foes = [figure(f"E{i}", "Colony rifle") for i in range(enemies)]
    return nm.new_battle(crew=crew, enemies=foes, mission="fight_off", numbers=NUMBERS, options=nm.NoMinisOptions())


def test_the_same_seed_gives_the_same_odds_and_progress_is_reported() -> None:
    calls: list[tuple[int, int]] = []
    first = odds.run_odds(start(), TABLES, runs=30, seed=7, progress=lambda d, n: calls.append((d, n)))
    again = odds.run_odds(start(), TABLES, runs=30, seed=7)
    assert first.as_dict() == again.as_dict()
    assert calls == [(10, 30), (20, 30), (30, 30)]
    assert sum(first.casualties_spread.values()) == 30
    assert 0 <= first.chance_hold <= 1 and first.rounds_mean >= 1


def test_a_stronger_crew_against_fewer_enemies_holds_the_field_more_often() -> None:
    weak = odds.run_odds(start(crew_skill=0, enemies=8), TABLES, runs=60, seed=3)
    strong = odds.run_odds(start(crew_skill=2, enemies=3), TABLES, runs=60, seed=3)
    assert strong.chance_hold > weak.chance_hold
    assert strong.casualties_mean < weak.casualties_mean


def test_runs_out_of_range_or_a_finished_battle_are_refused() -> None:
    with pytest.raises(odds.OddsError) as error:
        odds.run_odds(start(), TABLES, runs=5, seed=1)
    assert error.value.field == "runs" and "10 to 2000" in error.value.message
    over = {**start(), "finished": True}
    with pytest.raises(odds.OddsError) as error:
        odds.run_odds(over, TABLES, runs=10, seed=1)
    assert error.value.field == "state"
