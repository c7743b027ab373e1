"""The combat numbers Five Parsecs shares with Bug Hunt (rules.engine.combat_numbers).

Five Parsecs combat reads them from rules.engine, not from Bug Hunt's engine; they must stay the
book's values that the Five Parsecs combat tests expect and equal Bug Hunt's shipped tables."""

from __future__ import annotations

from battles.engine import fp_combat
from rules.engine import combat_numbers
from rules.fixturefiles import read_all

BUGHUNT = {s.slug: s.engine() for s in read_all() if s.system == "bughunt"}


def _data(slug: str, result: str) -> dict[str, object]:
    return dict(next(e.data for e in BUGHUNT[slug].entries if e.result == result))


def test_the_shared_numbers_are_the_books() -> None:
    # test_fp_combat: a saved hit or one below Toughness knocks back 1"; the third Stun marker
    # removes; a Stunned side fights at -1; spare hits within 3"; a Brawl winner moves 2".
    assert combat_numbers.KNOCKBACK_IN == 1
    assert combat_numbers.KNOCKOUT_MARKERS == 3
    assert combat_numbers.STUNNED_BRAWL == -1
    assert combat_numbers.RESPREAD_IN == 3
    assert combat_numbers.BRAWL_WIN_MOVE_IN == 2


def test_five_parsecs_combat_reads_them_from_rules_engine() -> None:
    for name in ("KNOCKBACK_IN", "KNOCKOUT_MARKERS", "STUNNED_BRAWL", "RESPREAD_IN", "BRAWL_WIN_MOVE_IN"):
        assert getattr(fp_combat, name) == getattr(combat_numbers, name)


def test_the_shared_numbers_equal_bug_hunts_tables() -> None:
    assert _data("bh-hit-results", "Saving throw made")["knockback_in"] == combat_numbers.KNOCKBACK_IN
    assert _data("bh-hit-results", "Result below Toughness")["knockback_in"] == combat_numbers.KNOCKBACK_IN
    assert _data("bh-hit-results", "Third Stun marker")["stun_markers"] == combat_numbers.KNOCKOUT_MARKERS
    assert _data("bh-brawling-modifiers", "Stunned")["modifier"] == combat_numbers.STUNNED_BRAWL
