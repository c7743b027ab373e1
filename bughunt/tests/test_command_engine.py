"""Whose marine is this (co-op play): who may act with a unit at the mission tracker."""

from __future__ import annotations

import pytest

from bughunt.engine.tracker.command import NotYourMarine, commands
from live.engine.tracker import Action, NotYours, Role

VASQUEZ = {"id": "u1", "name": "Vasquez", "owner": "7"}
HICKS = {"id": "u2", "name": "Hicks", "owner": ""}


def test_the_owner_referees_every_figure_and_a_player_their_own() -> None:
    commands(Action("shoot", {"figure": "f2"}, actor="1", role=Role.OWNER), HICKS)
    commands(Action("shoot", {"figure": "f1"}, actor="7", role=Role.PLAYER), VASQUEZ)


def test_another_players_marine_is_a_bad_request_naming_who_commands_it() -> None:
    with pytest.raises(NotYourMarine, match="Vasquez is not one of your figures: another player commands them") as caught:
        commands(Action("shoot", {"figure": "f1"}, actor="8", role=Role.PLAYER), VASQUEZ)
    assert caught.value.field == "figure" and not isinstance(caught.value, NotYours)
    with pytest.raises(NotYourMarine, match="the referee commands them") as caught:
        commands(Action("hold", {"unit": "u2"}, actor="7", role=Role.PLAYER), HICKS)
    assert caught.value.field == "unit"


def test_a_viewer_acts_with_nothing() -> None:
    with pytest.raises(NotYours):
        commands(Action("hold", {"unit": "u1"}, actor="7", role=Role.VIEWER), VASQUEZ)
