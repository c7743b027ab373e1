"""Psionic crew: eligibility, one per crew, starting powers, advancement, surgery."""

from __future__ import annotations

from dataclasses import replace

import pytest

from campaigns.engine import characters as C
from campaigns.engine import psionics as P
from campaigns.engine.options import parse_options
from campaigns.engine.view import CrewView
from rules.engine.dice import Dice
from rules.engine.tables import TableError
from rules.fixturefiles import read_all

TABLES = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}
CREW_PSIONICS = parse_options({"psionics": "crew"})


def figure(**changes: object) -> C.Character:
    return replace(C.Character(name="Mira", species="human"), **changes)  # type: ignore[arg-type]


# -- making a Psionic ----------------------------------------------------------------------------


def test_starting_psionic_is_free_before_the_profile_is_rolled() -> None:
    psionic, cost = P.make_psionic(figure(), [], TABLES, CREW_PSIONICS)
    assert psionic.psionic and psionic.powers == {}
    assert cost == P.PsionicCost(credits=0, story_points=0)


def test_starting_psionic_refused_after_the_profile_is_rolled() -> None:
    rolled = C.mark_profile_rolled(figure())
    with pytest.raises(P.PsionicError) as error:
        P.make_psionic(rolled, [], TABLES, CREW_PSIONICS)
    assert error.value.field == "profile_rolled"


def test_later_recruit_pays_story_point_or_credits() -> None:
    rolled = C.mark_profile_rolled(figure())
    _, by_story = P.make_psionic(rolled, [], TABLES, CREW_PSIONICS, recruit=True, payment="story_points")
    assert by_story == P.PsionicCost(credits=0, story_points=1)
    _, by_credits = P.make_psionic(rolled, [], TABLES, CREW_PSIONICS, recruit=True, payment="credits")
    assert by_credits == P.PsionicCost(credits=10, story_points=0)
    with pytest.raises(P.PsionicError) as error:
        P.make_psionic(rolled, [], TABLES, CREW_PSIONICS, recruit=True)
    assert error.value.field == "payment" and "story_points, credits" in str(error.value)


def test_only_one_psionic_per_crew() -> None:
    crew = [CrewView(id="1", name="Old", psionic=True), CrewView(id="2", name="Bo")]
    with pytest.raises(P.PsionicError) as error:
        P.make_psionic(figure(), crew, TABLES, CREW_PSIONICS)
    assert error.value.field == "psionic"
    fallen = [CrewView(id="1", name="Old", psionic=True, status="dead"), CrewView(id="2", name="Bo")]
    assert P.make_psionic(figure(), fallen, TABLES, CREW_PSIONICS)[0].psionic
    other = figure(name="Other", psionic=True, status="sick_bay")
    with pytest.raises(P.PsionicError):
        P.make_psionic(figure(), [other], TABLES, CREW_PSIONICS)


def test_psionics_option_must_allow_crew_psionics() -> None:
    for mode in ("off", "enemies"):
        with pytest.raises(P.PsionicError) as error:
            P.make_psionic(figure(), [], TABLES, parse_options({"psionics": mode}))
        assert error.value.field == "psionics"
    assert P.make_psionic(figure(), [], TABLES, parse_options({"psionics": "both"}))[0].psionic


@pytest.mark.parametrize(
    ("species", "kind"),
    [
        ("soulless", "soulless"),
        ("bot", "bot"),
        ("hulker", "biological"),
        ("de_converted", "biological"),
        ("Genetic Uplift", "biological"),
    ],
)
def test_never_psionic(species: str, kind: str) -> None:
    with pytest.raises(P.PsionicError) as error:
        P.make_psionic(figure(species=species, kind=kind), [], TABLES, CREW_PSIONICS)
    assert error.value.field == "species"
    assert P.ineligible_reason(figure(species=species, kind=kind), TABLES)


def test_lost_psionics_or_implants_block_it() -> None:
    assert P.ineligible_reason(figure(), TABLES) == ""
    with pytest.raises(P.PsionicError):
        P.make_psionic(figure(psionics_lost=True), [], TABLES, CREW_PSIONICS)
    with pytest.raises(P.PsionicError):
        P.make_psionic(figure(implants=("Boosted arm",)), [], TABLES, CREW_PSIONICS)
    with pytest.raises(P.PsionicError):
        P.make_psionic(figure(psionic=True), [], TABLES, CREW_PSIONICS)


# -- starting powers -------------------------------------------------------------------------------


def test_two_different_powers() -> None:
    draw = P.starting_powers(TABLES, Dice(seed=1), "human", faces=(1, 4))
    assert draw.powers == ("Barrier", "Shroud") and draw.pending is None
    assert all(r.record.entered for r in draw.rolls)
    seeded = P.starting_powers(TABLES, Dice(seed=7), "human")
    again = P.starting_powers(TABLES, Dice(seed=7), "human")
    assert seeded == again and seeded.rolls[0].record.notation == "D10"


def test_duplicate_power_asks_for_a_neighbour() -> None:
    draw = P.starting_powers(TABLES, Dice(seed=1), "human", faces=(3, 3))
    assert draw.powers == () and draw.pending is not None
    assert draw.pending.options == ("Grab", "Shroud")
    chosen = P.starting_powers(TABLES, Dice(seed=1), "human", faces=draw.faces, duplicate_choice="shroud")
    assert chosen.powers == ("Lift", "Shroud")
    with pytest.raises(P.PsionicError) as error:
        P.starting_powers(TABLES, Dice(seed=1), "human", faces=(3, 3), duplicate_choice="Barrier")
    assert error.value.field == "duplicate_choice" and "Grab, Shroud" in str(error.value)
    with pytest.raises(P.PsionicError):
        P.starting_powers(TABLES, Dice(seed=1), "human", faces=(3, 4), duplicate_choice="Grab")


def test_duplicate_at_the_table_ends_takes_the_only_neighbour() -> None:
    assert P.starting_powers(TABLES, Dice(seed=1), "human", faces=(1, 1)).powers == ("Barrier", "Grab")
    assert P.starting_powers(TABLES, Dice(seed=1), "human", faces=(10, 10)).powers == ("Psionic Scare", "Guide")


def test_precursor_may_swap_a_die_for_predict() -> None:
    plain = P.starting_powers(TABLES, Dice(seed=1), "precursor", faces=(2, 9))
    assert plain.powers == ("Grab", "Guide") and plain.can_swap
    swapped = P.starting_powers(TABLES, Dice(seed=1), "precursor", faces=(2, 9), predict_swap=2)
    assert swapped.powers == ("Grab", "Predict") and swapped.swapped == 2 and swapped.values == (2, 6)
    assert not swapped.can_swap
    with pytest.raises(P.PsionicError) as error:
        P.starting_powers(TABLES, Dice(seed=1), "human", faces=(2, 9), predict_swap=2)
    assert error.value.field == "predict_swap"
    with pytest.raises(P.PsionicError):
        P.starting_powers(TABLES, Dice(seed=1), "precursor", faces=(2, 9), predict_swap=3)
    doubled = P.starting_powers(TABLES, Dice(seed=1), "precursor", faces=(6, 4), predict_swap=2)
    assert doubled.pending is not None and doubled.pending.options == ("Enrage", "Shock")


def test_bad_faces() -> None:
    with pytest.raises(P.PsionicError):
        P.starting_powers(TABLES, Dice(seed=1), "human", faces=(3,))
    with pytest.raises(TableError):
        P.starting_powers(TABLES, Dice(seed=1), "human", faces=(0, 11))


def test_learn_powers() -> None:
    psionic, _ = P.make_psionic(figure(), [], TABLES, CREW_PSIONICS)
    draw = P.starting_powers(TABLES, Dice(seed=1), "human", faces=(7, 8))
    learned = P.learn_powers(psionic, draw)
    assert learned.powers == {"Shock": False, "Rejuvenate": False}
    with pytest.raises(P.PsionicError):
        P.learn_powers(learned, draw)
    with pytest.raises(P.PsionicError) as pending:
        P.learn_powers(psionic, P.starting_powers(TABLES, Dice(seed=1), "human", faces=(5, 5)))
    assert pending.value.field == "duplicate_choice"
    with pytest.raises(P.PsionicError):
        P.learn_powers(figure(), draw)


# -- advancement ------------------------------------------------------------------------------------


def psionic(xp: int, *powers: str) -> C.Character:
    return figure(psionic=True, xp=xp, powers={p: False for p in powers})


def test_acquire_new_power_costs_12_xp() -> None:
    gain = P.acquire_power(psionic(13, "Barrier", "Grab"), TABLES, Dice(seed=1), face=9)
    assert gain.gained == "Guide" and gain.xp_spent == 12
    assert gain.character.xp == 1 and "Guide" in gain.character.powers
    with pytest.raises(P.PsionicError) as error:
        P.acquire_power(psionic(11, "Barrier"), TABLES, Dice(seed=1), face=9)
    assert error.value.field == "xp"


def test_acquire_known_power_offers_neighbours() -> None:
    start = psionic(12, "Shroud", "Barrier")
    gain = P.acquire_power(start, TABLES, Dice(seed=1), face=4)
    assert gain.pending is not None and gain.pending.options == ("Lift", "Enrage")
    assert gain.character == start and gain.gained is None
    chosen = P.acquire_power(start, TABLES, Dice(seed=1), face=gain.roll.value, choice="Enrage")
    assert chosen.gained == "Enrage" and chosen.character.xp == 0
    with pytest.raises(P.PsionicError):
        P.acquire_power(start, TABLES, Dice(seed=1), face=4, choice="Shock")
    forced = P.acquire_power(psionic(12, "Shroud", "Lift"), TABLES, Dice(seed=1), face=4)
    assert forced.gained == "Enrage"


def test_acquire_refused_when_all_options_known() -> None:
    start = psionic(20, "Lift", "Shroud", "Enrage")
    gain = P.acquire_power(start, TABLES, Dice(seed=1), face=4)
    assert gain.refused and gain.gained is None and gain.character.xp == 20
    edge = P.acquire_power(psionic(12, "Barrier", "Grab"), TABLES, Dice(seed=1), face=1)
    assert edge.refused and edge.character.xp == 12


def test_enhance_power_once() -> None:
    enhanced = P.enhance_power(psionic(7, "Shock"), "shock", TABLES)
    assert enhanced.powers == {"Shock": True} and enhanced.xp == 1
    with pytest.raises(P.PsionicError) as again:
        P.enhance_power(replace(enhanced, xp=6), "Shock", TABLES)
    assert "once" in str(again.value)
    with pytest.raises(P.PsionicError) as unknown:
        P.enhance_power(psionic(6, "Shock"), "Guide", TABLES)
    assert unknown.value.field == "power"
    with pytest.raises(P.PsionicError) as poor:
        P.enhance_power(psionic(5, "Shock"), "Shock", TABLES)
    assert poor.value.field == "xp"


def test_implant_stops_psionic_advancement() -> None:
    wired = C.implant_add(psionic(30, "Shock"), "Cyber eye")
    assert wired.psionics_lost
    with pytest.raises(P.PsionicError) as error:
        P.acquire_power(C.implant_remove(wired, "Cyber eye"), TABLES, Dice(seed=1), face=2)
    assert error.value.field == "psionic" and "lost" in str(error.value)


def test_nullification_surgery() -> None:
    after, credits = P.nullification_surgery(psionic(0, "Grab"), TABLES)
    assert credits == 3
    assert (after.psionic, after.powers, after.psionics_lost, after.implants) == (False, {}, True, ("Nullification surgery",))
    with pytest.raises(P.PsionicError):
        P.nullification_surgery(figure(), TABLES)
