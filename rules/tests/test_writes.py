"""The one versioned write (rules.writes) and the one engine-error translator (rules.errors)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from rules.engine.dice import DiceError
from rules.engine.errors import RuleError
from rules.errors import DropshipError, StaleVersion, rule_errors, translate
from rules.writes import bump, check_version


@dataclass
class Row:
    version: int = 3
    saved: list[Any] = field(default_factory=list)

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.saved.append(kwargs.get("update_fields"))


def test_a_missing_version_is_refused_naming_version_unless_optional() -> None:
    with pytest.raises(DropshipError, match=r"version is required.*now 3") as caught:
        check_version(Row(), None)
    assert caught.value.status == 400 and caught.value.field == "version"
    check_version(Row(), None, required=False)


def test_a_stale_version_is_refused_with_the_current_version_and_state() -> None:
    with pytest.raises(StaleVersion) as caught:
        check_version(Row(), 2, message="Changed.", state={"round": 4})
    assert caught.value.status == 409 and caught.value.message == "Changed."
    assert caught.value.as_dict() == {"detail": "Changed.", "field": "version", "version": 3, "state": {"round": 4}}
    check_version(Row(), 3)


def test_bump_moves_the_version_on_by_one_and_saves_the_fields_named() -> None:
    row = Row()
    assert bump(row, fields=["state"]) == 4 and row.saved == [["state", "version", "updated"]]
    assert bump(row) == 5 and row.saved[-1] is None


def test_translate_keeps_the_engines_message_and_field() -> None:
    err = translate(RuleError("crew_size must be 4, 5 or 6.", field="crew_size"))
    assert (err.message, err.field, err.status) == ("crew_size must be 4, 5 or 6.", "crew_size", 400)
    assert translate(RuleError("no."), field="stat").field == "stat"
    assert translate(RuleError("no.", field="ai"), where="enemy.").field == "enemy.ai"
    assert translate(RuleError("no."), where="enemy.").field == "enemy"
    assert translate(DiceError("A D6 shows 1 to 6; got 7."), dice_field="faces", where="enemy.").field == "enemy.faces"


def test_rule_errors_turns_a_refusal_into_the_400_answer() -> None:
    with pytest.raises(DropshipError) as caught, rule_errors(dice_field="value"):
        raise DiceError("A D6 shows 1 to 6; got 7.")
    assert caught.value.field == "value" and isinstance(caught.value.__cause__, DiceError)
