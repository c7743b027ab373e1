"""The whole post-battle sequence (Bug Hunt pp.201-206): the nine steps in order with the
players' choices."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from bughunt.engine.campaign.losses import (
    advanced_care,
    casualties,
    determine_reputation,
    muster_out,
    replacement,
    retire,
    update_completed_missions,
    vacancies,
)
from bughunt.engine.campaign.progress import (
    accept_offer,
    advance_trooper,
    award_experience,
    military_life,
    operational_progress,
    ready_for_next_turn,
    rest_and_recreation,
)
from bughunt.engine.campaign.state import CampaignError, MissionOutcome, Result, Squad, _table
from bughunt.engine.campaign.turn import court_martial
from rules.engine.dice import Dice, FedDice, RollRecord, fed
from rules.engine.tables import RangeTable

# -- the whole sequence ------------------------------------------------------------------------

TYPED_STEPS = (
    "court_martial",
    "muster_out",
    "reputation",
    "replacement",
    "progress",
    "military_life",
    "rest",
)
"""The post-battle steps that roll dice and take typed faces as one list each (pp.201-206): the
court martial D6, the muster-out 2D6 of each main character who may leave, the Reputation D6s,
each replacement's background (three D100, then two D6 for commendations after a Combat
Operation), Operational Progress, Military Life and R&R. Step 1's D100 and D3 go by name
(``PostBattleChoices.casualty_faces``)."""


@dataclass(frozen=True)
class PostBattleChoices:
    """The player's decisions for :func:`post_battle`.

    - ``mvp``: MVP (else ``outcome.mvp``). ``crippled``: Death-or-crippling casualties who
      leave crippled rather than dead. ``escaped``: lost marines covered by the Escape card;
      ``survived``: the character the Survived card saves from an injury roll's effects.
    - ``casualty_faces`` / ``recovery_faces``: step 1's D100 and Sick Bay D3 faces by name,
      when those rolls were made before (the Survived card is played after them, p.181).
    - ``advanced_care``: troopers to buy advanced care for after step 1 (1 Reputation each,
      skipped with a line when not possible).
    - ``retire``: injured troopers to retire in step 4.
    - ``replacement_names``: names for replacements, used in order for the open vacancies.
    - ``advances``: ``(name, stat)`` pairs bought after step 5.
    - ``accept_offers``: take Military Life offers (``tinker_weapon`` for tinkering;
      ``favor_xp`` / ``favor_bonus`` Reputation for a cashed-in favor).
    - ``spend_reputation_on_rr``: buy R&R in step 8 when not entitled.
    - ``pay_court_martial``: pay 3 Reputation if the court martial finds guilty.
    - ``military_life_pick`` / ``vital_operation_pick``: the player's own random picks.
    """

    mvp: str | None = None
    crippled: tuple[str, ...] = ()
    escaped: tuple[str, ...] = ()
    survived: str | None = None
    casualty_faces: Mapping[str, int] | None = None
    recovery_faces: Mapping[str, int] | None = None
    advanced_care: tuple[str, ...] = ()
    retire: tuple[str, ...] = ()
    replacement_names: tuple[str, ...] = ()
    advances: tuple[tuple[str, str], ...] = ()
    accept_offers: bool = False
    tinker_weapon: str = "Service pistol"
    favor_xp: int = 0
    favor_bonus: int = 0
    spend_reputation_on_rr: bool = False
    pay_court_martial: bool = False
    military_life_pick: str | None = None
    vital_operation_pick: str | None = None


@dataclass(frozen=True)
class PostBattle:
    """The whole sequence: the final squad, every roll in order, and each step's
    ``(step number, title, Result)``; step 0 is the court martial when there was one."""

    squad: Squad
    rolls: tuple[RollRecord, ...]
    steps: tuple[tuple[int, str, Result], ...]

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(line for _, _, result in self.steps for line in result.lines)

    def as_dict(self) -> dict[str, Any]:
        return {
            "squad": self.squad.as_dict(),
            "rolls": [r.as_dict() for r in self.rolls],
            "steps": [{"step": n, "title": title, **result.as_dict()} for n, title, result in self.steps],
        }


def post_battle(
    tables: Mapping[str, RangeTable],
    squad: Squad,
    outcome: MissionOutcome,
    dice: Dice,
    choices: PostBattleChoices | None = None,
    *,
    typed: Mapping[str, Sequence[int] | None] | None = None,
) -> PostBattle:
    """Run the court martial (when no Objective was completed and ``outcome.in_charge`` is
    set, p.201) and the nine post-battle steps (pp.202-206, ``bh-post-battle-sequence``) in
    order with ``choices``. Advanced care, advances and offers the squad cannot afford are
    skipped with a line saying why; other errors are raised as by the step functions.

    ``typed``: the player's own dice per rolling step (keys :data:`TYPED_STEPS`), each step's
    faces taken in the order its rolls are made; a step left out is rolled. Too few or too many
    faces, or a face the die cannot show, raise :class:`DiceError` naming ``<step>_faces``.
    """
    choices = choices or PostBattleChoices()
    unknown = sorted(set(typed or {}) - set(TYPED_STEPS))
    if unknown:
        raise CampaignError(f"typed: {', '.join(unknown)} is no rolling step; steps: {', '.join(TYPED_STEPS)}.")
    step_dice = {key: fed(dice, (typed or {}).get(key), field=f"{key}_faces") for key in TYPED_STEPS}
    titles = {int(e.data["step"]): e.result for e in _table(tables, "bh-post-battle-sequence").entries}
    steps: list[tuple[int, str, Result]] = []

    def keep(step: int, title: str, result: Result) -> Squad:
        steps.append((step, title, result))
        return result.squad

    def try_step(step: int, title: str, attempt: Callable[..., Result], *args: Any, **kwargs: Any) -> None:
        nonlocal squad
        try:
            squad = keep(step, title, attempt(*args, **kwargs))
        except CampaignError as exc:
            steps.append((step, title, Result(squad, (), (f"Skipped: {exc}",))))

    if outcome.objectives_completed == 0 and outcome.in_charge:
        squad = keep(
            0,
            "Court martial",
            court_martial(tables, squad, outcome.in_charge, step_dice["court_martial"], pay_reputation=choices.pay_court_martial),
        )
    squad = keep(
        1,
        titles[1],
        casualties(
            tables,
            squad,
            outcome,
            dice,
            faces=choices.casualty_faces,
            recovery_faces=choices.recovery_faces,
            crippled=choices.crippled,
            escaped=choices.escaped,
            survived=choices.survived,
        ),
    )
    for name in choices.advanced_care:
        try_step(1, "Advanced care", advanced_care, tables, squad, name)
    squad = keep(2, titles[2], update_completed_missions(squad, outcome))
    squad = keep(3, titles[3], muster_out(tables, squad, outcome, step_dice["muster_out"]))
    squad = keep(4, titles[4], determine_reputation(tables, squad, outcome, step_dice["reputation"]))
    for name in choices.retire:
        squad = keep(4, "Retirement", retire(squad, name))
    for departed, new_name in zip(vacancies(squad), choices.replacement_names, strict=False):
        squad = keep(4, "Replacement", replacement(tables, squad, departed, new_name, step_dice["replacement"]))
    mvp = choices.mvp if choices.mvp is not None else outcome.mvp
    if mvp is not None and not squad.get(mvp, field_name="mvp", active=False).active:
        mvp = None
    squad = keep(5, titles[5], award_experience(tables, squad, replace(outcome, mvp=None), mvp=mvp))
    for name, stat in choices.advances:
        try_step(5, "Advance", advance_trooper, tables, squad, name, stat)
    squad = keep(
        6, titles[6], operational_progress(tables, squad, outcome, step_dice["progress"], pick=choices.vital_operation_pick)
    )

    def offers_of(result: Result) -> None:
        if not choices.accept_offers:
            return
        for offer in result.offers:
            try_step(
                7,
                "Offer taken",
                accept_offer,
                tables,
                squad,
                offer,
                weapon=choices.tinker_weapon,
                xp_points=choices.favor_xp,
                bonus_points=choices.favor_bonus,
            )

    life = military_life(tables, squad, step_dice["military_life"], pick=choices.military_life_pick)
    squad = keep(7, titles[7], life)
    offers_of(life)
    rr = rest_and_recreation(tables, squad, step_dice["rest"], pay_reputation=choices.spend_reputation_on_rr)
    squad = keep(8, titles[8], rr)
    offers_of(rr)
    squad = keep(9, titles[9], ready_for_next_turn(squad))
    for step in step_dice.values():
        if isinstance(step, FedDice):
            step.check_used()
    rolls = tuple(r for _, _, result in steps for r in result.rolls)
    return PostBattle(squad=squad, rolls=rolls, steps=tuple(steps))
