from __future__ import annotations

import pytest

from rules.engine.dice import Dice
from rules.engine.tables import Entry, RangeTable, TableError


def d6_table(*ranges: tuple[int, int], column: str = "", columns: tuple[str, ...] = ()) -> RangeTable:
    return RangeTable.build(
        "demo",
        "Demo",
        "D6",
        [Entry(result=f"r{lo}", low=lo, high=hi, column=column, position=i) for i, (lo, hi) in enumerate(ranges)],
        columns,
    )


def test_a_covering_table_validates() -> None:
    d6_table((1, 2), (3, 5), (6, 6)).validate()


def test_a_gap_is_named() -> None:
    with pytest.raises(TableError, match=r"'demo' has a gap at 3-4 \(D6\)"):
        d6_table((1, 2), (5, 6)).validate()


def test_an_overlap_is_named() -> None:
    with pytest.raises(TableError, match="'demo' has an overlap at 3-3"):
        d6_table((1, 3), (3, 6)).validate()


def test_a_missing_top_is_a_gap() -> None:
    with pytest.raises(TableError, match="gap at 6"):
        d6_table((1, 5)).validate()


def test_running_past_the_die_is_refused() -> None:
    with pytest.raises(TableError, match="runs to 7; D6 stops at 6"):
        d6_table((1, 7)).validate()


def test_each_column_must_cover_the_die() -> None:
    table = RangeTable.build(
        "ai",
        "AI",
        "D6",
        [Entry("a", 1, 6, column="Cautious", position=1), Entry("b", 1, 5, column="Aggressive", position=1)],
        ("Cautious", "Aggressive"),
    )
    with pytest.raises(TableError, match="column 'Aggressive' has a gap at 6"):
        table.validate()


def test_lookup_and_its_error_names_the_range() -> None:
    table = d6_table((1, 2), (3, 6))
    assert table.lookup(4).result == "r3"
    with pytest.raises(TableError, match="enter a number from 1 to 6; got 9"):
        table.lookup(9)


def test_modified_rolls_are_clamped_to_the_span() -> None:
    table = d6_table((1, 2), (3, 5), (6, 6))
    outcome = table.roll(Dice(seed=1), modifier=10)
    assert outcome.value == 6 and outcome.clamped and outcome.entry.result == "r6"
    assert outcome.record.total is not None and outcome.record.total > 6
    low = table.roll(Dice(seed=1), modifier=-10)
    assert low.value == 1 and low.entry.result == "r1"


def test_2d6_table_spans_2_to_12() -> None:
    table = RangeTable.build("t", "Threat", "2D6", [Entry("fail", 2, 6), Entry("partial", 7, 9), Entry("success", 10, 12)])
    table.validate()
    assert table.span == (2, 12)
    assert table.lookup(7).result == "partial"


def test_reference_tables_cannot_roll_or_carry_ranges() -> None:
    table = RangeTable.build("ref", "Ref", "", [Entry("Krag", None, None)])
    table.validate()
    with pytest.raises(TableError, match="reference table"):
        table.roll(Dice(seed=1))
    with pytest.raises(TableError, match="cannot have a range"):
        RangeTable.build("ref", "Ref", "", [Entry("x", 1, 2)]).validate()


def test_unknown_column_lists_the_columns() -> None:
    with pytest.raises(TableError, match="choose one of ''"):
        d6_table((1, 6)).lookup(3, column="Boss")


def test_roll_or_enter_looks_up_the_typed_total_with_its_modifier() -> None:
    table = RangeTable.build("t", "Test table", "D6", [Entry("Low", 1, 3), Entry("High", 4, 6)])
    typed = table.roll_or_enter(Dice(seed=1), value=3, modifier=1)
    assert typed.record.entered and typed.record.natural == 3 and typed.value == 4 and typed.entry.result == "High"
    rolled = table.roll_or_enter(Dice(seed=1))
    assert rolled == table.roll(Dice(seed=1))
    with pytest.raises(TableError, match="rolls 1 to 6; got 9"):
        table.roll_or_enter(Dice(), value=9)
