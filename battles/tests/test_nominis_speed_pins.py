"""Seeded automatic no-minis battles (Compendium pp.66-73) pinned before the engine's speed work
(issue #18): the final state and every event, rolls and their reasons included, of each battle
hashed together per set-up. Making the engine faster must not move a single die or line."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from battles.engine import fp_combat
from battles.engine import nominis as nm
from battles.engine.nominis import state
from battles.tests.test_nominis import TABLES, crew_fig, foe, full_crew, full_enemies
from rules.engine.dice import Dice

DRAMATIC = fp_combat.hit_numbers(TABLES, dramatic=True)


def bench_crew() -> list[dict[str, Any]]:
    """The benchmark's crew (benchmarks/nominis_battles.py)."""
    return [crew_fig(n, "Military rifle", combat_skill=1, toughness=4, captain=n == "Ada") for n in ("Ada", "Bo", "Cy", "Di")]


def bench_foes() -> list[dict[str, Any]]:
    return [foe(f"E{i}", "Colony rifle", combat_skill=0, toughness=3) for i in range(6)]


def elite_foes() -> list[dict[str, Any]]:
    return [
        foe("L1", "Colony rifle", rank="lieutenant", fearless=True),
        foe("S1", "Shotgun", rank="specialist", psionic_powers=["Obscure"]),
        foe("H1", "Colony rifle", unique="Enemy Heavy"),
        *(foe(f"E{i}", "Colony rifle" if i % 2 else "Blade") for i in range(5)),
    ]


def _setups() -> dict[str, tuple[dict[str, Any], range]]:
    return {
        "benchmark": (
            {
                "crew": bench_crew(),
                "enemies": bench_foes(),
                "numbers": DRAMATIC,
                "options": nm.NoMinisOptions(battle_flow=True),
            },
            range(200),
        ),
        "mixed_hectic_casualty_tables": (
            {
                "crew": full_crew(),
                "enemies": full_enemies(),
                "mission": "secure",
                "numbers": DRAMATIC,
                "options": nm.NoMinisOptions(
                    battle_flow=True, hectic=True, faster=True, casualty_tables=True, critical_hits=True, stance="cautious"
                ),
            },
            range(60),
        ),
        "elite_pirates_psi_hunters": (
            {
                "crew": [*full_crew()[:3], crew_fig("Psy", "Hand gun", psionic=True)],
                "enemies": elite_foes(),
                "mission": "acquire",
                "enemy_panic": "1-2",
                "enemy_rules": {"type": "Pirates", "category": "test", "normal_panic": "1-2", "data": {}},
                "psi_hunters": True,
                "options": nm.NoMinisOptions(battle_flow=True, casualty_tables=True),
            },
            range(60),
        ),
        "anarchists_beasts_reckless": (
            {
                "crew": bench_crew(),
                "enemies": [foe(f"B{i}", "Blade", toughness=4) for i in range(7)],
                "mission": "patrol",
                "mission_setup": {"patrol_points": 2, "notable_sights": 1},
                "enemy_panic": "1-2",
                "enemy_rules": {
                    "type": "Anarchists",
                    "category": "test",
                    "normal_panic": "1-2",
                    "data": {"stubborn_casualties": 2, "wave_roll": "6", "mark_modifier": 1},
                },
                "enemy_kind": "beasts",
                "options": nm.NoMinisOptions(casualty_tables=True, stance="reckless"),
            },
            range(60),
        ),
    }


# SHA-256 (first 16 hex digits) over the sorted JSON of every seed's [final state, events], in seed
# order; then the summed rounds, enemies killed and crew casualties as a readable check.
PINNED: dict[str, tuple[str, int, int, int]] = {
    "anarchists_beasts_reckless": ("c7a8fcba791ea5b6", 336, 103, 237),
    "benchmark": ("f4e30179b1afd86c", 1275, 726, 288),
    "elite_pirates_psi_hunters": ("dbf989ee124dd251", 317, 100, 140),
    "mixed_hectic_casualty_tables": ("8af0a0db3991c3a9", 258, 161, 111),
}


@pytest.mark.parametrize("name", sorted(_setups()))
def test_seeded_automatic_battles_keep_every_state_event_and_roll(name: str) -> None:
    kwargs, seeds = _setups()[name]
    kwargs = {"numbers": fp_combat.HitNumbers(open=5, cover=6, source="test"), "mission": "fight_off", **kwargs}
    start = nm.new_battle(**kwargs)
    digest = hashlib.sha256()
    rounds = killed = casualties = 0
    for seed in seeds:
        end, events = nm.play_automatic(start, Dice(seed=seed), TABLES)
        assert end["finished"] or any(e["kind"] == "limit" for e in events)
        digest.update(json.dumps([end, events], sort_keys=True).encode())
        result = nm.outcome(end)
        rounds += result["rounds"]
        killed += result["enemies_killed"]
        casualties += len(result["crew_casualties"])
    assert (digest.hexdigest()[:16], rounds, killed, casualties) == PINNED[name]


@pytest.mark.parametrize(
    ("count", "sides", "modifier", "separate"),
    [
        (1, 6, 0, False),
        (2, 6, 3, False),
        (2, 6, -2, False),
        (1, 3, 0, False),
        (1, 100, 0, False),
        (4, 6, 0, True),
        (1, 6, 0, True),
    ],
)
def test_the_engines_own_rolls_make_exactly_the_record_dice_roll_makes(
    count: int, sides: int, modifier: int, separate: bool
) -> None:
    # One roll, one record: the fast path draws the same faces and logs the same record.
    for seed in range(20):
        fast = state._roll(Dice(seed=seed), count, sides, "why", modifier=modifier, separate=separate)
        if separate:
            slow = Dice(seed=seed).separate(count, sides, "why")
        else:
            slow = Dice(seed=seed).roll(f"{count}D{sides}", "why", modifier=modifier)
        assert fast == slow.as_dict()


def test_a_table_roll_through_the_index_equals_the_tables_own_roll() -> None:
    table = TABLES[nm.FLOW_TABLE]
    for seed in range(200):
        entry, record = state._roll_table(Dice(seed=seed), table, "Battle flow event (p.71)")
        rolled = table.roll(Dice(seed=seed), reason="Battle flow event (p.71)")
        assert (entry, record) == (rolled.entry, rolled.record.as_dict())


def test_typed_faces_keep_the_record_dice_enter_makes_and_bad_faces_name_the_field() -> None:
    # The Reaction roll (p.67) and a Battlefield Test (p.67) with the player's own dice.
    start = nm.new_battle(
        crew=bench_crew(), enemies=bench_foes(), mission="fight_off", numbers=DRAMATIC, options=nm.NoMinisOptions()
    )
    st, events = nm.apply(start, {"type": "roll_initiative", "faces": [2, 5, 1]}, Dice(seed=1), TABLES)
    assert st["initiative_dice"] == [2, 5, 1]
    assert events[0]["rolls"] == [Dice.enter("3D6", [2, 5, 1], "Reaction roll, one die fewer than normal (p.67)").as_dict()]
    for faces in ([2, 7, 1], ["x", 1, 1], [1, 1]):
        with pytest.raises(nm.NoMinisError) as err:
            nm.apply(start, {"type": "roll_initiative", "faces": faces}, Dice(seed=1), TABLES)
        assert err.value.field == "faces"
