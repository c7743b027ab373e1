"""Grid-based movement (Compendium pp.90-93) on the Five Parsecs battle tracker: the set-up edge
rule and flankers, Open and Close Quarters, orthogonal moves and diagonal Dashes, refusals,
neutrals, the option off, undo, and the option from the API and the set-up form."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from battles.models import Battle
from battles.tests.fp_data import CREW, PUNKS
from battles.tests.test_fp_tracker_engine import new, play, run, to_quick
from battles.tests.test_fp_views import STANDALONE
from live import services as live_services
from live.engine.tracker import TrackerError


def placed(**squares: str) -> dict[str, Any]:
    """A 3x4 grid battle after Seize the Initiative, each figure (c1, e1, ...) in its square."""
    state = new(options={"grid": "3x4"})
    state, _ = play(state, "seize", faces="6, 6")
    for fid, square in squares.items():
        key = "enemy" if fid.startswith("e") else "figure"
        payload: dict[str, Any] = {key: fid, "square": square}
        state, _ = play(state, "grid_place", **payload)
    return state


def fig(state: dict[str, Any], fid: str) -> dict[str, Any]:
    return next(f for f in state["crew"] + state["enemies"] if f["id"] == fid)


def test_the_option_reads_the_grid_sizes_and_names_the_field() -> None:
    state = new(options={"grid": "4x4"})
    assert state["grid"]["size"] == "4x4" and state["grid"]["rows"] == 4 and len(state["grid"]["squares"]) == 16
    assert all(f["square"] is None for f in state["crew"] + state["enemies"])
    with pytest.raises(TrackerError) as exc:
        new(options={"grid": "5x5"})
    assert exc.value.field == "options.grid" and "3x3, 3x4, 4x4" in str(exc.value)


def test_set_up_is_on_the_sides_own_edge() -> None:
    state = placed(c1="B1", e1="C4")
    assert fig(state, "c1")["square"] == "B1" and fig(state, "e1")["square"] == "C4"
    for key, fid, square in (("figure", "c2", "B2"), ("enemy", "e2", "A1"), ("figure", "c2", "D1"), ("figure", "c2", "B9")):
        with pytest.raises(TrackerError) as exc:
            payload: dict[str, Any] = {key: fid, "square": square}
            play(state, "grid_place", **payload)
        assert exc.value.field == "square", square
    with pytest.raises(TrackerError, match="row 1"):
        play(state, "grid_place", figure="c2", square="A3")


def test_flankers_set_up_in_the_second_square_from_the_enemy_edge() -> None:
    state = placed()
    with pytest.raises(TrackerError) as exc:  # no flank deployment was rolled
        play(state, "grid_place", enemy="e1", square="A3", flank="on")
    assert exc.value.field == "flank"
    state["deployment"] = {"name": "Half flank", "key": "half_flank", "effect": ""}
    state, _ = play(state, "grid_place", enemy="e1", square="C3", flank="on")
    assert fig(state, "e1")["square"] == "C3"
    for square in ("C4", "B3", "A2"):
        with pytest.raises(TrackerError):
            play(state, "grid_place", enemy="e2", square=square, flank="on")
    with pytest.raises(TrackerError):
        play(state, "grid_place", figure="c1", square="A3", flank="on")


def test_open_orthogonal_move_may_still_act_and_deploys_within_speed() -> None:
    state = to_quick(placed(c1="B1", e1="C4"))
    assert fig(state, "c1")["square_status"] == "open"
    state, events = play(state, "grid_move", figure="c1", square="B2")
    ria = fig(state, "c1")
    assert ria["square"] == "B2" and ria["grid_move"]["kind"] == "orthogonal" and ria["grid_move"]["deploy_in"] == 5
    assert "may still act" in events[0].text and 'within 5"' in events[0].text
    state, _ = play(state, "resolve", attacker="c1", target="e1", range=12, faces="6, 1")  # it may still shoot
    with pytest.raises(TrackerError) as exc:
        play(state, "grid_move", figure="c1", square="B3")
    assert exc.value.field == "figure" and "already moved" in str(exc.value)


def test_a_diagonal_move_is_a_dash_and_the_figure_cannot_shoot() -> None:
    state = to_quick(placed(c1="B1", e1="C4"))
    state, events = play(state, "grid_move", figure="c1", square="C2")
    assert fig(state, "c1")["grid_move"]["kind"] == "diagonal" and "Dash" in events[0].text
    with pytest.raises(TrackerError) as exc:
        play(state, "resolve", attacker="c1", target="e1", range=12)
    assert exc.value.field == "attacker" and "Dashed" in str(exc.value)


def test_a_move_within_the_square_and_a_far_square() -> None:
    state = to_quick(placed(c1="B1", e1="C4"))
    with pytest.raises(TrackerError) as exc:
        play(state, "grid_move", figure="c1", square="B3")
    assert exc.value.field == "square" and "not adjacent" in str(exc.value)
    state, _ = play(state, "grid_move", figure="c1", square="B1")
    assert fig(state, "c1")["grid_move"]["kind"] == "within" and fig(state, "c1")["grid_move"]["deploy_in"] is None


def test_close_quarters_when_an_enemy_shares_the_square_and_neutrals_do_not_count() -> None:
    state = placed(c1="A1", e1="A4")
    state, _ = play(state, "grid_place", neutral="Civilian", square="A1")
    assert fig(state, "c1")["square_status"] == "open"  # a neutral is not an enemy (p.91)
    fig(state, "e1")["square"] = "A1"  # the enemy has reached Ria's square
    state, _ = play(state, "set_player", figure="c3", player="")  # any action refreshes the status
    assert fig(state, "c1")["square_status"] == "close" and fig(state, "e1")["square_status"] == "close"
    state = to_quick(state)
    state, events = play(state, "grid_move", figure="c1", square="B2")
    ria = fig(state, "c1")
    assert ria["grid_move"]["kind"] == "close" and ria["grid_move"]["status"] == "close" and ria["grid_move"]["deploy_in"] is None
    assert "Close Quarters" in events[0].text and "core rules" in events[0].text
    state, _ = play(state, "resolve", attacker="c1", target="e1", range=4, faces="6, 1")  # no Dash at Close Quarters


def test_casualties_leave_the_square_open() -> None:
    state = placed(c1="A1", e1="A4")
    fig(state, "e1")["square"] = "A1"
    state, _ = play(state, "adjust", enemy="e1", status="casualty")
    assert fig(state, "c1")["square_status"] == "open"


def test_enemies_move_in_the_enemy_phase_and_players_only_their_figures() -> None:
    state = to_quick(placed(c1="B1", e1="B4"))
    with pytest.raises(TrackerError):
        play(state, "grid_move", enemy="e1", square="B3")
    with pytest.raises(TrackerError) as exc:  # Bo acts in the Slow phase
        play(state, "grid_move", figure="c2", square="A1")
    assert exc.value.field == "figure"
    state, _ = play(state, "next_phase")
    state, _ = play(state, "grid_move", enemy="e1", square="B3")
    assert fig(state, "e1")["square"] == "B3"
    with pytest.raises(TrackerError) as exc:  # e2 was never placed
        play(state, "grid_move", enemy="e2", square="B3")
    assert "no square" in str(exc.value)
    state, _ = play(state, "grid_place", enemy="e2", square="A4")  # an unplaced figure may still set up on its edge
    with pytest.raises(TrackerError):  # a placed figure moves, it is not placed again in a round
        play(state, "grid_place", enemy="e2", square="B4")


def test_the_option_off_changes_nothing() -> None:
    state = new()
    assert "grid" not in state and "grid" not in state["options"]
    assert all("square" not in f for f in state["crew"] + state["enemies"])
    state = to_quick(state)
    with pytest.raises(TrackerError) as exc:
        play(state, "grid_move", figure="c1", square="A2")
    assert exc.value.field == "type" and "off" in str(exc.value)
    state, _ = play(state, "resolve", attacker="c1", target="e1", range=12, faces="6, 1")


def test_a_refused_move_writes_nothing_and_the_state_is_plain_data() -> None:
    import json

    state = to_quick(placed(c1="B1", e1="C4"))
    before = json.dumps(state, sort_keys=True)
    with pytest.raises(TrackerError):
        play(state, "grid_move", figure="c1", square="B4")
    assert json.dumps(state, sort_keys=True) == before
    moved = run(state, ("grid_move", {"figure": "c1", "square": "C2"}))
    assert json.loads(json.dumps(moved)) == moved


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_the_api_creates_a_grid_battle_and_the_tracker_moves_a_figure_and_undoes_it(player: Any) -> None:
    api = APIClient()
    api.force_authenticate(player)
    body = {"enemy": PUNKS, "crew": CREW, "hit_numbers": {"open": 5, "cover": 6}, "seed": 4}
    bad = api.post("/api/v1/fp-battles/", {**body, "options": {"grid": "9x9"}}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "options.grid" and "3x4" in bad.json()["detail"]
    battle = api.post("/api/v1/fp-battles/", {**body, "options": {"grid": "3x3"}}, format="json").json()
    assert battle["setup"]["options"]["grid"] == "3x3"
    tracked = api.post(f"/api/v1/fp-battles/{battle['id']}/track/", {"version": 1}, format="json").json()
    room = tracked["room"]
    actions = f"/api/v1/rooms/{room}/actions/"

    def act(type_: str, version: int, **payload: Any) -> Any:
        return api.post(actions, {"type": type_, "payload": payload, "version": version}, format="json")

    state = api.get(f"/api/v1/rooms/{room}/").json()
    assert state["state"]["grid"]["size"] == "3x3"
    version = state["version"]
    refused = act("grid_place", version, figure="c1", square="B2")
    assert refused.status_code == 400 and refused.json()["field"] == "square"
    version = act("grid_place", version, figure="c1", square="B1").json()["version"]
    version = act("seize", version, dice="2D6", target=10, faces="6, 6").json()["version"]
    version = act("next_phase", version).json()["version"]
    version = act("roll_reactions", version, faces="1, 6").json()["version"]
    for n, fid in enumerate(("c1", "c2")):
        version = act("assign_reaction", version, figure=fid, die=n + 1).json()["version"]
    version = act("next_phase", version).json()["version"]
    moved = act("grid_move", version, figure="c1", square="B2")
    assert moved.status_code == 200, moved.content
    ria = next(f for f in moved.json()["state"]["crew"] if f["id"] == "c1")
    assert ria["square"] == "B2" and ria["grid_move"]["kind"] == "orthogonal"
    live_services.room_undo(user=player, room_id=room, version=moved.json()["version"])
    undone = api.get(f"/api/v1/rooms/{room}/").json()["state"]
    assert next(f for f in undone["crew"] if f["id"] == "c1")["square"] == "B1"


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_the_set_up_form_offers_the_grid_and_the_tracker_shows_the_squares(player: Any) -> None:
    client = Client()
    client.force_login(player)
    page = client.get(reverse("battles:list")).content.decode()
    assert 'name="grid"' in page and '<option value="4x4"' in page
    refused = client.post(reverse("battles:create"), {**STANDALONE, "grid": "2x2"})
    assert refused.status_code == 400 and "options.grid must be one of 3x3, 3x4, 4x4" in refused.content.decode()
    assert 'data-testid="grid" aria-invalid="true"' in refused.content.decode()
    response = client.post(reverse("battles:create"), {**STANDALONE, "grid": "3x4"})
    battle = Battle.objects.get(pk=int(response["Location"].rstrip("/").split("/")[-1]))
    assert battle.setup["options"]["grid"] == "3x4"
    client.post(reverse("battles:act", args=[battle.pk, "track"]), {"version": battle.version})
    battle.refresh_from_db()
    room = battle.room
    assert room is not None
    result = live_services.room_act(
        user=player, room_id=room.pk, type="grid_place", payload={"figure": "c1", "square": "A1"}, version=room.version
    )
    body = client.get(reverse("live:room", args=[room.pk])).content.decode()
    assert 'data-testid="square-c1"' in body and "A1: Open" in body and "no square yet" in body
    assert 'id="grid-place-c2"' in body and "Grid 3x4" in body
    assert result.room.version > room.version
