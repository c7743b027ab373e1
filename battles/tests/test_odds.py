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


def test_the_odds_compare_the_stances_on_the_same_seeds_within_the_same_number_of_battles() -> None:
    # p.72: a Cautious crew withdraws sooner, so it Holds the Field less often, with fewer casualties.
    calls: list[tuple[int, int]] = []
    made = odds.run_odds(
        start(enemies=6), TABLES, runs=90, seed=5, stances=tuple(nm.STANCES), progress=lambda d, n: calls.append((d, n)), every=30
    )
    assert calls == [(30, 90), (60, 90), (90, 90)]  # 90 battles in all: bounded as before
    rows = made.as_dict()["by_stance"]
    table = {row["stance"]: row for row in rows}
    assert [row["stance"] for row in rows] == ["cautious", "steady", "reckless"] and sum(row["runs"] for row in rows) == 90
    assert made.stance == "steady" and made.runs == 30 and made.held_field == table["steady"]["held_field"]
    assert table["reckless"]["retreated_mean"] == 0 < table["steady"]["retreated_mean"] < table["cautious"]["retreated_mean"]
    assert table["cautious"]["chance_hold"] < table["reckless"]["chance_hold"]
    assert table["cautious"]["casualties_mean"] < table["reckless"]["casualties_mean"]
    alone = odds.run_odds(start(enemies=6), TABLES, runs=30, seed=5)
    assert alone.as_dict()["by_stance"] == [] and alone.chance_hold == made.chance_hold  # the same seeds


def test_the_battle_s_own_stance_takes_the_spare_battles_and_must_be_compared() -> None:
    reckless = {**start(), "options": {**start()["options"], "stance": "reckless"}}
    made = odds.run_odds(reckless, TABLES, runs=11, seed=1, stances=tuple(nm.STANCES))
    assert made.stance == "reckless" and made.runs == 5 and made.as_dict()["total_runs"] == 11
    with pytest.raises(odds.OddsError) as error:
        odds.run_odds(reckless, TABLES, runs=10, seed=1, stances=["cautious", "steady"])
    assert error.value.field == "stance"
