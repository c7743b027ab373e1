"""Writes for crew tasks (campaign turn step "Assign and resolve crew tasks": the Fixer's +1,
p.25, and Money is Tight's costs, p.32) and the crew's starting kit (Meager starting kit,
p.34). One transaction each, against the campaign ``version``; logged and undoable."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from campaigns import crew_services, quest_services
from campaigns.engine import difficulty, quests, tasks
from campaigns.engine.view import Change
from campaigns.models import Campaign
from campaigns.selectors import fiveparsecs_tables
from campaigns.services import apply_changes, engine_call, load_edit, log, options_of, touch
from rules.engine.dice import Dice
from rules.errors import DropshipError

#: The log step that marks the starting kit as taken.
STARTING_KIT_STEP = "setup.starting_kit"


@transaction.atomic
def crew_task(
    *,
    user: Any,
    campaign_id: int,
    version: int | None,
    character_id: int,
    task: str,
    modifier: int = 0,
    face: int | None = None,
    dice: Dice | None = None,
) -> tasks.CrewTask:
    """Resolve one crew member's task (see :func:`campaigns.engine.tasks.crew_task`): pay its
    cost (1 credit for Find a Patron or Repair Your Kit with Money is Tight) and roll Find a
    Patron, Recruit or Track (1D6 + ``modifier`` + 1 for a Fixer); the log line gives the total
    and every reason. Work on the Quest counts toward the Quest's Hard work step (p.79,
    :func:`campaigns.quest_services.work_on_the_quest`). Only active crew take tasks. Raises :class:`DropshipError`: ``credits``
    naming the cost when the crew cannot pay (nothing is written), ``character``, ``task``."""
    campaign, before = load_edit(user, campaign_id, version)
    member = campaign.characters.filter(pk=character_id).first()
    if member is None or member.status != "active":
        raise DropshipError(f"character must be an active crew member of this campaign; got {character_id}.", field="character")
    if task == quests.WORK_TASK:
        return quest_services.work_on_the_quest(campaign, member, before)
    sheet = crew_services.to_engine(member)
    done = engine_call(
        lambda: tasks.crew_task(
            options_of(campaign), task, sheet, fiveparsecs_tables(), dice or Dice(), modifier=modifier, face=face
        ),
        dice_field="face",
    )
    name = tasks.TASK_NAMES[done.task]
    if done.cost > campaign.credits:
        raise DropshipError(
            f"credits: {name} costs {done.cost} credit(s) with Money is Tight (p.32) and the crew has {campaign.credits}.",
            field="credits",
        )
    changes = [Change("credits", {"amount": -done.cost})] if done.cost else []
    apply_changes(campaign, changes)
    campaign.save()
    said = f"{name} ({member.name})"
    if done.record is not None:
        said += f": rolled {done.record.natural}, total {done.total}; read it in your core rules"
    if done.reasons:
        said += f" [{'; '.join(done.reasons)}]"
    log(campaign, "crew", said + ".", rolls=[done.record] if done.record else [], changes=changes, before=before)
    touch(campaign)
    return done


@transaction.atomic
def starting_kit(*, user: Any, campaign_id: int, version: int | None) -> Campaign:
    """Take the crew's starting kit once, before the first turn: the core 1 credit per crew
    member, or none with Meager starting kit (p.34), whose rolls (3 Low-Tech Weapons, 1 Gear
    or Gadget, no Military or Hi-Tech) the log lists. Raises :class:`DropshipError` (``turn``)
    once the campaign has begun or the kit was taken, and (``crew``) with no crew yet."""
    campaign, before = load_edit(user, campaign_id, version)
    if campaign.turn > 0:
        raise DropshipError("turn: the starting kit comes before the first campaign turn.", field="turn")
    if campaign.log.filter(step=STARTING_KIT_STEP, undone=False).exists():
        raise DropshipError("turn: the starting kit was already taken.", field="turn")
    crew = campaign.characters.exclude(status__in=("dead", "gone")).count()
    if not crew:
        raise DropshipError("crew: make the crew first; the kit is counted per crew member.", field="crew")
    kit = difficulty.starting_kit(options_of(campaign), tables=fiveparsecs_tables())
    per_crew = kit["starting_credits_per_crew"] if kit is not None else difficulty.CORE_STARTING_CREDITS_PER_CREW
    changes = [Change("credits", {"amount": per_crew * crew})] if per_crew else []
    apply_changes(campaign, changes)
    campaign.save()
    if kit is None:
        text = f"Starting kit: {per_crew * crew} credits ({per_crew} per crew member); roll your core starting kit."
    else:
        text = (
            f"Starting kit (Meager starting kit, p.34): {kit['low_tech_weapon_rolls']} Low-Tech Weapons rolls, "
            f"{kit['gear_or_gadget_rolls']} Gear or Gadget roll, {kit['military_hi_tech_rolls']} Military or Hi-Tech "
            f"rolls, {per_crew * crew} credits."
        )
    log(campaign, "setup", text, changes=changes, step=STARTING_KIT_STEP, before=before)
    touch(campaign)
    return campaign
