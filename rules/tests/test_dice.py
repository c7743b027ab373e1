from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.engine.dice import Dice, DiceError, Keep, Notation, RollRecord, parse


class TestParse:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("D6", Notation(1, 6, 0)),
            ("1D6+2", Notation(1, 6, 2)),
            ("2D6", Notation(2, 6, 0)),
            ("D100", Notation(1, 100, 0)),
            ("1D3+1", Notation(1, 3, 1)),
            ("2D3+1", Notation(2, 3, 1)),
            ("3d6-1", Notation(3, 6, -1)),
            ("4", Notation(0, 0, 4)),
        ],
    )
    def test_it_reads_book_notation(self, text: str, expected: Notation) -> None:
        assert parse(text) == expected

    @pytest.mark.parametrize("text", ["", "D7", "2X6", "D6+", "0D6", "101D6", "6D"])
    def test_it_refuses_bad_notation_and_says_what_is_allowed(self, text: str) -> None:
        with pytest.raises(DiceError, match="use dice notation such as D6, 2D6"):
            parse(text)

    def test_span_of_2d3_plus_1(self) -> None:
        assert (parse("2D3+1").minimum, parse("2D3+1").maximum) == (3, 7)


class TestRolls:
    def test_a_seed_repeats_the_same_rolls(self) -> None:
        first = [Dice(seed=7).roll("2D6", "x").total for _ in range(1)]
        a, b = Dice(seed=7), Dice(seed=7)
        assert [a.roll("2D6").faces for _ in range(20)] == [b.roll("2D6").faces for _ in range(20)]
        assert first[0] == Dice(seed=7).roll("2D6").total

    def test_record_carries_reason_faces_modifier_and_total(self) -> None:
        record = Dice(seed=1).roll("2D6+1", "Seize the Initiative", modifier=2)
        assert record.reason == "Seize the Initiative"
        assert len(record.faces) == 2
        assert record.modifier == 3
        assert record.natural == sum(record.faces)
        assert record.total == sum(record.faces) + 3
        assert record.entered is False

    def test_separate_dice_keep_each_face(self) -> None:
        record = Dice(seed=3).separate(3, 6, "Objective positions")
        assert len(record.faces) == 3 and record.kept == record.faces
        assert record.total is None and record.keep is Keep.SEPARATE

    def test_highest_and_lowest(self) -> None:
        high = Dice(seed=5).highest(2, 6)
        low = Dice(seed=5).lowest(2, 6)
        assert high.faces == low.faces
        assert high.total == max(high.faces) and low.total == min(low.faces)

    def test_reroll_replaces_chosen_faces_and_remembers_them(self) -> None:
        dice = Dice(seed=11)
        record = dice.roll("3D6", "pool")
        again = dice.reroll(record, [0, 2])
        assert again.faces[1] == record.faces[1]
        assert again.rerolled == (record.faces[0], record.faces[2])
        assert again.total == sum(again.faces)
        with pytest.raises(DiceError, match="has 3 dice"):
            dice.reroll(record, [3])

    def test_entered_roll_is_marked_and_checked(self) -> None:
        record = Dice.enter("2D6", [6, 6], "Evac", modifier=1)
        assert record.entered and record.total == 13 and record.natural == 12
        with pytest.raises(DiceError, match="A D6 shows 1 to 6; got 7"):
            Dice.enter("2D6", [7, 1])
        with pytest.raises(DiceError, match="needs 2 face"):
            Dice.enter("2D6", [3])
        with pytest.raises(DiceError, match="rolls 1 to 100; got 0"):
            Dice.enter_total("D100", 0)

    def test_d100_zero_zero_reads_as_100(self) -> None:
        class Fixed:
            def randint(self, a: int, b: int) -> int:
                return 0

        dice = Dice(seed=1)
        dice.rng = Fixed()  # type: ignore[assignment]
        assert dice.face(100) == 100

    def test_record_round_trips_through_json_form(self) -> None:
        record = Dice(seed=2).roll("D100", "Legality of psionics", modifier=-5)
        assert RollRecord.from_dict(record.as_dict()) == record
        assert "Legality of psionics" in record.describe()


@settings(max_examples=60, deadline=None)
@given(sides=st.sampled_from([3, 6, 10, 12, 20, 100]), seed=st.integers(min_value=0, max_value=2**32))
def test_every_face_is_reachable_and_nothing_else(sides: int, seed: int) -> None:
    dice = Dice(seed=seed)
    seen = {dice.face(sides) for _ in range(sides * 60)}
    assert seen == set(range(1, sides + 1))


@given(count=st.integers(1, 5), sides=st.sampled_from([3, 6, 10]), mod=st.integers(-5, 5), seed=st.integers(0, 10**6))
def test_totals_stay_within_the_notation_span(count: int, sides: int, mod: int, seed: int) -> None:
    notation = Notation(count, sides, mod)
    total = Dice(seed=seed).roll(notation).total
    assert total is not None and notation.minimum <= total <= notation.maximum


def _chi_square(observed: Counter[int | None], expected: dict[int, float]) -> float:
    return sum((observed[k] - e) ** 2 / e for k, e in expected.items())


N = 100_000


def test_2d6_frequencies_fit_the_exact_distribution() -> None:
    dice = Dice(seed=2024)
    observed = Counter(dice.roll("2D6").total for _ in range(N))
    exact = Counter(a + b for a, b in itertools.product(range(1, 7), repeat=2))
    expected = {k: N * v / 36 for k, v in exact.items()}
    # 10 degrees of freedom: the 99.9% critical value is 29.59.
    assert _chi_square(observed, expected) < 29.59


def test_d100_frequencies_are_uniform() -> None:
    dice = Dice(seed=99)
    observed = Counter(dice.d100().total for _ in range(N))
    expected = {k: N / 100 for k in range(1, 101)}
    # 99 degrees of freedom: the 99.9% critical value is 148.23.
    assert _chi_square(observed, expected) < 148.23


def test_lowest_of_2d6_matches_the_exact_distribution() -> None:
    exact = Counter(min(a, b) for a, b in itertools.product(range(1, 7), repeat=2))
    assert dict(exact) == {1: 11, 2: 9, 3: 7, 4: 5, 5: 3, 6: 1}
    dice = Dice(seed=5)
    observed = Counter(dice.lowest(2, 6).total for _ in range(N))
    expected = {k: N * v / 36 for k, v in exact.items()}
    # 5 degrees of freedom: the 99.9% critical value is 20.52.
    assert _chi_square(observed, expected) < 20.52


def test_roll_or_enter_rolls_without_faces_and_records_typed_faces() -> None:
    rolled = Dice(seed=3).roll_or_enter("2D6", "Seize the Initiative")
    assert rolled == Dice(seed=3).roll("2D6", "Seize the Initiative") and not rolled.entered
    typed = Dice(seed=3).roll_or_enter("2D6", "Seize the Initiative", faces=[6, 2], modifier=1)
    assert typed.entered and typed.faces == (6, 2) and typed.total == 9
    single = Dice().roll_or_enter("D6", "Luck", faces=4)
    assert single.faces == (4,) and single.total == 4
    with pytest.raises(DiceError, match="shows 1 to 6"):
        Dice().roll_or_enter("D6", "Luck", faces=7)


class _CallsFace(Dice):
    """A Dice whose faces go through an overridden :meth:`Dice.face` (as a counting or loaded
    Dice does): rolls must then ask it for every face."""

    asked = 0

    def face(self, sides: int) -> int:
        _CallsFace.asked += 1
        return super().face(sides)


@pytest.mark.parametrize("notation", ["D6", "1D6+2", "2D6", "1D3+1", "3D6-1", "D10", "D12", "D20", "D100"])
def test_quick_roll_draws_the_faces_face_would_and_builds_the_constructors_record(notation: str) -> None:
    plain, counted = Dice(seed=11), _CallsFace(seed=11)
    _CallsFace.asked = 0
    for keep in Keep:
        a = plain.roll(notation, "why", modifier=1, keep=keep)
        b = counted.roll(notation, "why", modifier=1, keep=keep)
        assert a == b
        built = RollRecord(
            notation=a.notation,
            reason="why",
            faces=a.faces,
            kept=a.kept,
            natural=a.natural,
            modifier=a.modifier,
            total=a.total,
            keep=keep,
        )
        assert a == built and repr(a) == repr(built) and hash(a) == hash(built)
    assert _CallsFace.asked == 4 * parse(notation).count
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.total = 0  # type: ignore[misc]


def test_keep_given_as_plain_text_still_sums() -> None:
    assert Dice(seed=3).roll("2D6", "why", keep="sum") == Dice(seed=3).roll("2D6", "why")  # type: ignore[arg-type]


@pytest.mark.parametrize("sides", [3, 6, 10, 12, 20])
def test_faces_are_the_generators_randint_draws(sides: int) -> None:
    """Quick faces draw exactly what ``randint(1, sides)`` draws from the seeded generator."""
    dice, rng = Dice(seed=sides), random.Random(sides)
    assert [dice.face(sides) for _ in range(300)] == [rng.randint(1, sides) for _ in range(300)]
    assert list(dice.roll(f"3D{sides}", "why").faces) == [rng.randint(1, sides) for _ in range(3)]
