"""Five Parsecs Street Fights as a live room kind (``fiveparsecs-street-fight``, Compendium pp.123-136).

A street fight's room gets its set-up card (made by :func:`battles.engine.fp_street.generate`)
as ``options["setup"]``: a mapping, or the same as JSON text. A battle set up as a Street fight
(Mission Selection, p.116; see :mod:`battles.mission_types`) passes the battle tracker's set-up
instead, with the card :func:`mission_setup` rolled under ``"street_fight"``: the battle's crew
then takes the card's crew slots (:func:`battle_card`). The kind is unlisted: its rooms are
opened by the battles services. The kernel passes the shipped Five Parsecs tables in.
:func:`outcome` gives the result in the standard battle's shape for the post-battle steps.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from live.engine.tracker import Action, Event, TrackerError
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable

KIND = "fiveparsecs-street-fight"
SYSTEM = "fiveparsecs"
MISSION = "street_fight"
#: The most crew slots a set-up rolls for (the generator takes 1-12 figures).
MAX_SLOTS = 12
#: What a crew slot is called until the battle's crew takes it.
SLOT_NAME = "Crew figure"
#: Where the generator puts the Suspect marker each crew figure brings (p.124).
SPREAD = "along a street, spread evenly"


def _loaded(tables: Mapping[str, RangeTable]) -> Mapping[str, RangeTable]:
    if "street-fight-objectives" not in tables:
        raise TrackerError("The Five Parsecs tables are not loaded: run `manage.py load_tables`.", field="tables")
    return tables


def reducer(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    """The street fight reducer, given the Five Parsecs tables. Raises :class:`TrackerError` when
    the rules refuse the action or the tables are not loaded."""
    from battles.engine import fp_street

    return fp_street.apply(state, action, dice, _loaded(tables))


def release(state: dict[str, Any], player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's ``set_player`` actions that hand ``player``'s crew figures back."""
    from battles.engine import fp_street

    return fp_street.release(state, player)


def outcome(state: Mapping[str, Any]) -> dict[str, Any]:
    """The finished fight's result for ``battle_finish`` (see :func:`battles.engine.fp_street.outcome`)."""
    from battles.engine import fp_street

    return fp_street.outcome(state)


def initial_state(options: Mapping[str, Any], *, tables: Mapping[str, RangeTable]) -> dict[str, Any]:
    """The tracker's first state from ``options["setup"]``, the generated set-up card (a mapping
    or JSON text of one). Raises :class:`TrackerError` naming ``setup`` or the key at fault."""
    from battles.engine import fp_street

    setup = options.get("setup")
    if isinstance(setup, str):
        try:
            setup = json.loads(setup) if setup.strip() else None
        except json.JSONDecodeError as exc:
            raise TrackerError(f"setup must be JSON: {exc.msg} at line {exc.lineno}.", field="setup") from None
    if not isinstance(setup, Mapping):
        raise TrackerError("setup is required: a Street Fight set-up card (see the set-up generator).", field="setup")
    if setup.get("mission") != MISSION and isinstance(setup.get(MISSION), Mapping):
        setup = battle_card(setup)
    return fp_street.initial_state(setup, _loaded(tables))


def mission_setup(dice: Dice, tables: Mapping[str, RangeTable], *, crew_size: int, ai_type: str | None) -> dict[str, Any]:
    """The Street fight set-up for :mod:`battles.mission_types` (pp.123-128): the chapter's card
    (:func:`fp_street.generate`: buildings of 4 blocks, the objective, Suspect and City markers,
    an entry point per crew slot; every roll logged with its reason) rolled for ``crew_size``
    crew slots (1-12) that the battle's crew takes when the tracker opens (:func:`battle_card`),
    with ``card`` lines for the set-up card and the no-minis answer (not offered, and why:
    ``fp_street.NOMINIS_WHY``). The opposition is the chapter's (p.129: rolled at the first
    reveal), so ``ai_type`` and the battle's enemy force are not used. Raises ``TrackerError``."""
    from battles.engine import fp_street

    slots = [{"name": f"{SLOT_NAME} {i + 1}"} for i in range(max(1, min(int(crew_size), MAX_SLOTS)))]
    made = fp_street.generate(dice, _loaded(tables), crew=slots)
    objective = made["objective"]
    kinds: dict[str, int] = {}
    for block in made["blocks"]:
        kinds[block["name"]] = kinds.get(block["name"], 0) + 1
    city = f"{made['city_markers']} City markers (p.124)" if made["city_markers_in_use"] else "no City markers"
    card = [
        f"Street fight (Compendium pp.123-136): {objective['name']} (D100 {objective['face']}, pp.127-128).",
        "Blocks (p.124): " + ", ".join(f"{n} x{k}" if k > 1 else n for n, k in kinds.items()) + ".",
        f"Suspect markers: one per crew figure deployed, and {len(made['suspects']) - len(slots)} more "
        f'(Warehouses and the objective, pp.124, 128); {city}; visibility 9" (p.124).',
        "Each crew figure walks on at a random edge point, the captain last (p.124).",
        "The opposition is rolled on the Street Fight Enemies table at the first reveal (p.129): "
        "the battle's rolled enemy force is not put on the table.",
        "Not used here: " + ", ".join(made["not_used"]) + " (pp.123, 128).",
        "Without miniatures: not offered. " + fp_street.NOMINIS_WHY,
    ]
    return {
        **made,
        "card": card,
        "slots": len(slots),
        "no_minis": fp_street.NOMINIS_WHY,
        "no_minis_allowed": False,
    }


#: Words in a campaign Rival's name or kind that make it one of the law's (p.136), by the key the
#: tracker keeps (``fp_street.LAW_RIVALS``). A ruling: campaign Rivals are free text.
LAW_RIVAL_WORDS: dict[str, str] = {"bounty hunter": "bounty_hunter", "vigilante": "vigilante", "enforcer": "enforcer"}


def with_rivals(made: Mapping[str, Any], rivals: Iterable[str]) -> dict[str, Any]:
    """A :func:`mission_setup` card with the campaign's Rivals that raise a surrendering crew
    member's Perpetrator level (p.136: a Bounty Hunter or Vigilante Rival, level 2; an Enforcer
    Rival, level 3), read from each Rival's name and kind (``rivals``), and a card line naming them."""
    found = sorted({key for text in rivals for word, key in LAW_RIVAL_WORDS.items() if word in text.lower()})
    if not found:
        return dict(made)
    line = "Rivals the law knows you by (p.136): " + ", ".join(k.replace("_", " ") for k in found) + "."
    return {**made, "rivals": found, "card": [*made.get("card", []), line]}


def battle_card(setup: Mapping[str, Any]) -> dict[str, Any]:
    """The Street fight card a battle's tracker set-up carries (``setup["street_fight"]``, made by
    :func:`mission_setup`) with the battle's crew (``setup["crew"]``) in its slots: the rolled
    entry points go to the crew figures but the captain, in order (a figure past the rolled ones
    enters at a random point, rolled at the table); the "one Suspect per crew figure" markers
    follow the crew's number (p.124). Raises :class:`TrackerError` naming ``setup``."""
    from battles.engine import fp_street

    card = dict(setup[MISSION])
    raw = setup.get("crew")
    if not isinstance(raw, list | tuple) or not raw:
        raise TrackerError("setup.crew is required: the battle's crew figures.", field="setup")
    crew = [
        {
            k: figure.get(k)
            for k in ("name", "ref", "savvy", "reactions", "speed", "combat_skill", "toughness", "captain", "owner")
            if figure.get(k) is not None
        }
        for figure in raw
        if isinstance(figure, Mapping)
    ]
    captain = next((f for f in crew if f.get("captain")), None)
    walkers = [(i, f) for i, f in enumerate(crew) if f is not captain]
    rolled = list(card.get("entries") or [])
    entries = [
        {**rolled[n], "figure": f"c{i + 1}", "name": f["name"]}
        if n < len(rolled)
        else {"figure": f"c{i + 1}", "name": f["name"], "face": None, "edge": "a random point (roll a direction die)"}
        for n, (i, f) in enumerate(walkers)
    ]
    others = [s for s in card.get("suspects") or [] if s.get("where") != SPREAD]
    markers = [*({"where": SPREAD} for _ in crew), *others]
    suspects = [{**s, "id": f"s{n + 1}", "pursuing": bool(s.get("pursuing"))} for n, s in enumerate(markers)]
    notes = [n for n in card.get("notes") or [] if "(captain) enters last" not in n]
    if captain is not None:
        notes.insert(0, fp_street.captain_note(str(captain["name"])))
    return {
        **card,
        "crew": crew,
        "entries": entries,
        "suspects": suspects,
        "captain": captain["name"] if captain else None,
        "notes": notes,
    }
