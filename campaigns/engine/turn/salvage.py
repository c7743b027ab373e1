"""What a Salvage job pays at the turn's post-battle steps (Compendium pp.138, 146-147).

A finished Salvage job's record carries ``salvage`` (``battles.engine.fp_salvage.outcome``):
the Salvage units the crew holds (markers picked up and the post-game finds), the credits,
Quest Rumors, Story Points and Loot rolls its finds gave, the Scrappers' three prices, and the
Illegal job's D6. The service puts it in the turn's facts under ``salvage``; these rules read it.

- **Get paid** (post-battle step 4, p.147): the Salvage units are tallied; Valuable trinkets'
  credits (p.146), Quest Rumors (Interesting data, p.146) and the Survivors' Story Point
  (p.143) are given. An Illegal job caught by the law (D6 5-6, p.138) needs ``illegal_penalty``:
  ``fine`` (credits equal to the die), ``salvage`` (hand over every Salvage unit) or ``rival``
  (an Enforcer Rival). Our ruling: the law is settled here, where the Salvage is tallied (the
  chapter has it checked "when rolling for post-game Rivals", an earlier step that comes before
  the battle's record is read).
- **Trade Salvage** (p.147): ``scrappers`` names the Scrappers' offers bought (their numbers,
  1-3): each costs its price in units and is one roll on the Loot table (core rulebook p.131) at
  Gather the loot. ``salvage_cashed`` units are cashed in at 1 credit each: the chapter allows it
  ONLY toward ship repairs, ship modules and Bot upgrades, so the log says the credits are for
  those. Units neither traded nor cashed are kept (``salvage_units`` in the turn's facts): the
  campaign does not hold a Salvage stash, so the log says how many to note.
- **Check for Salvage mission Points of Interest** (p.146): the tracker rolled the D6 per
  resolved Point of Interest and the D100 per Discovery when the job ended; the step lists them
  (what they gave was counted at Get paid).
- Credits never buy Salvage units (p.147).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from campaigns.engine.turn.resolving import _choice, _count
from campaigns.engine.turn.steps import StepResult, TurnError
from campaigns.engine.view import Change
from campaigns.engine.wording import plural

#: The turn fact holding a finished Salvage job's pay (``fp_salvage.outcome()["salvage"]``).
FACT = "salvage"
#: The turn fact holding the Salvage units the crew still holds after Get paid and the Scrappers.
UNITS = "salvage_units"
#: What an Illegal job caught by the law costs (p.138): one of these.
PENALTIES: tuple[str, ...] = ("fine", "salvage", "rival")
#: What a Salvage unit may pay for, at 1 credit each (p.147).
CASH_USES = "ship repairs, ship modules or Bot upgrades"
ENFORCERS = "Enforcers"


def caught(pay: Mapping[str, Any]) -> bool:
    """Whether the Illegal job's D6 put the law on the crew's trail (p.138)."""
    return bool((pay.get("illegal") or {}).get("caught"))


def get_paid(pay: Mapping[str, Any], inputs: Mapping[str, Any]) -> StepResult:
    """Get paid after a Salvage job (see the module docstring). Raises :class:`TurnError` naming
    ``illegal_penalty`` when the law caught the crew and the penalty is not chosen."""
    units = int(pay.get("units") or 0)
    credits = int(pay.get("credits") or 0)
    rumors = int(pay.get("quest_rumors") or 0)
    story = int(pay.get("story_points") or 0)
    said = [f"Salvage job: {plural(units, 'Salvage unit')} tallied (p.147)."]
    changes: list[Change] = []
    if credits:
        changes.append(Change("credits", {"amount": credits}))
        said.append(f"Valuable trinkets: +{credits} credits (p.146).")
    changes += [Change("rumor_add", {"text": "Quest Rumor (Salvage job data, p.146)"})] * rumors
    if rumors:
        said.append(f"Interesting data: {plural(rumors, 'Quest Rumor')} (p.146).")
    if story:
        changes.append(Change("story_points", {"amount": story}))
        said.append(f"Survivors got out alive: +{story} Story Point (p.143).")
    if caught(pay):
        face = int(pay["illegal"].get("roll") or 0)
        penalty = _choice("illegal_penalty", inputs.get("illegal_penalty"), PENALTIES)
        if penalty == "fine":
            changes.append(Change("credits", {"amount": -face}))
            said.append(f"Illegal job, D6 {face}: the law is on your trail; fine of {face} credits paid (p.138).")
        elif penalty == "salvage":
            said.append(f"Illegal job, D6 {face}: the law is on your trail; {plural(units, 'Salvage unit')} handed over (p.138).")
            units = 0
        else:
            changes.append(Change("rival_add", {"name": ENFORCERS, "notes": "From an Illegal Salvage job (p.138)."}))
            said.append(f"Illegal job, D6 {face}: the law is on your trail; the Enforcers become a Rival (p.138).")
    elif pay.get("illegal"):
        said.append(f"Illegal job, D6 {pay['illegal'].get('roll')}: you got away with it (p.138).")
    loot = int(pay.get("loot_after") or 0)
    if loot:
        said.append(f"Discoveries: {plural(loot, 'roll')} on the Loot table at Gather the loot (p.146).")
    prices = ", ".join(str(p) for p in pay.get("scrappers") or [])
    if prices:
        said.append(f"The Scrappers ask {prices} units for their three Loot rolls (Trade Salvage, p.147).")
    return StepResult(" ".join(said), changes=tuple(changes), facts={UNITS: units})


def trade(pay: Mapping[str, Any], units: int, inputs: Mapping[str, Any]) -> StepResult:
    """Trade Salvage (p.147): the Scrappers' offers bought (``scrappers``: their numbers) and the
    units cashed in (``salvage_cashed``). Raises :class:`TurnError` naming the input when an offer
    is unknown or named twice, or the crew has too few units."""
    prices = [int(p) for p in pay.get("scrappers") or []]
    raw = inputs.get("scrappers")
    picked = raw if isinstance(raw, list | tuple) else [p for p in str(raw or "").replace(" ", ",").split(",") if p]
    bought: list[int] = []
    for item in picked:
        text = str(item).strip()
        if not text.isdecimal() or not 1 <= int(text) <= len(prices) or int(text) in bought:
            raise TurnError(
                f"scrappers: name each offer once by its number, 1 to {len(prices)} (prices {', '.join(map(str, prices))}); "
                f"got {item!r}.",
                field="scrappers",
            )
        bought.append(int(text))
    cost = sum(prices[n - 1] for n in bought)
    if cost > units:
        raise TurnError(
            f"scrappers: the offers cost {cost} Salvage units and the crew holds {units} (credits cannot buy Salvage, p.147).",
            field="scrappers",
        )
    cashed = _count("salvage_cashed", inputs.get("salvage_cashed"))
    if cashed > units - cost:
        raise TurnError(
            f"salvage_cashed: the crew holds {units - cost} Salvage units after the Scrappers; got {cashed}.",
            field="salvage_cashed",
        )
    kept = units - cost - cashed
    said = []
    if bought:
        said.append(
            f"Bought from the Scrappers: offer{'s' if len(bought) > 1 else ''} {', '.join(map(str, bought))} for {cost} units: "
            f"{plural(len(bought), 'roll')} on the Loot table (core rulebook p.131) at Gather the loot (p.147)."
        )
    else:
        said.append("Nothing bought from the Scrappers (p.147).")
    changes: list[Change] = []
    if cashed:
        changes.append(Change("credits", {"amount": cashed}))
        said.append(f"{plural(cashed, 'Salvage unit')} cashed in at 1 credit each, to spend ONLY on {CASH_USES} (p.147).")
    said.append(f"Kept: {plural(kept, 'Salvage unit')}; note them, the campaign sheet holds no Salvage.")
    return StepResult(" ".join(said), changes=tuple(changes), facts={UNITS: kept, "scrapper_loot": len(bought)})


def poi_finds(pay: Mapping[str, Any]) -> StepResult:
    """The post-game Points of Interest rolls the tracker made (p.146), in words."""
    finds = [f"{f.get('poi')}: D6 {f.get('roll')}, {f.get('result')}" for f in pay.get("finds") or []]
    found = [f"D100 {d.get('roll')}, {d.get('result')}" for d in pay.get("discoveries") or []]
    text = f"Points of Interest resolved: {pay.get('poi_resolved', len(finds))} of {pay.get('poi_total', '?')} (p.146). "
    text += ("; ".join(finds) + ".") if finds else "Nothing to roll."
    if found:
        text += f" Discoveries: {'; '.join(found)}."
    return StepResult(text + " Counted at Get paid.")
