"""The filters that put a player's own figures first on the tracker screens."""

from __future__ import annotations

from live.templatetags.seats import not_played_by, played_by

FIGURES = [{"id": "c1", "owner": ""}, {"id": "c2", "owner": "7"}, {"id": "c3", "owner": "8"}, {"id": "c4", "owner": "7"}]


def test_a_player_gets_their_own_figures_in_order() -> None:
    assert [f["id"] for f in played_by(FIGURES, "7")] == ["c2", "c4"]
    assert [f["id"] for f in not_played_by(FIGURES, "7")] == ["c1", "c3"]


def test_a_guest_plays_nothing_even_beside_unowned_figures() -> None:
    assert played_by(FIGURES, "") == []
    assert len(not_played_by(FIGURES, "")) == 4
