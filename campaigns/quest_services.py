"""Writes for the Expanded Quest Progression outside the turn's progress step (pp.78-79): paying
for Quest information (01-10) and the Work on the Quest crew task (29-38). One transaction each,
against the campaign ``version``; logged and undoable. The progress step itself is a turn step
(``post.quest``, :func:`campaigns.engine.quests.progress`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction

from campaigns.engine import quests, tasks
from campaigns.models import Campaign, Character
from campaigns.services import apply_changes, engine_call, load_edit, log, touch
from rules.errors import DropshipError


@transaction.atomic
def quest_pay(*, user: Any, campaign_id: int, version: int | None) -> Campaign:
    """Pay the pending Paid information step's cost (the 1D6 credits rolled when it was drawn)
    for 1 Quest Rumor (p.79); the Quest may progress again. Raises :class:`DropshipError`
    (``quest``) with no such step and (``credits``) when the crew cannot pay; nothing is
    written then."""
    campaign, before = load_edit(user, campaign_id, version)
    _state, changes, text = engine_call(lambda: quests.pay(campaign.quest_step or {}, campaign.credits))
    words = apply_changes(campaign, changes)
    campaign.save()
    log(campaign, "crew", f"{text} Changes: {'; '.join(words)}.", changes=changes, before=before)
    touch(campaign)
    return campaign


def work_on_the_quest(campaign: Campaign, member: Character, before: Mapping[str, Any]) -> tasks.CrewTask:
    """The Work on the Quest crew task (29-38, p.79) for ``member``, inside the crew task write
    (``task_services.crew_task``): one more task done; the last one needed gives 1 Quest Rumor.
    Raises :class:`DropshipError` (``task``) while the step is not pending."""
    _state, changes, text = engine_call(lambda: quests.work(campaign.quest_step or {}, member.name))
    words = apply_changes(campaign, changes)
    campaign.save()
    log(campaign, "crew", f"{text} Changes: {'; '.join(words)}.", changes=changes, before=before)
    touch(campaign)
    return tasks.CrewTask(quests.WORK_TASK, 0, 0, None, ("Work on the Quest (p.79)",))


@transaction.atomic
def quest_start(*, user: Any, campaign_id: int, version: int | None, name: str) -> Campaign:
    """Take up a Quest (acquired by the core rules) named ``name``; its progress then runs at the
    turn's Determine Quest Progress step (pp.78-80). Raises :class:`DropshipError` (``name``)
    for a blank name and (``quest``) while another Quest is active."""
    campaign, before = load_edit(user, campaign_id, version)
    if campaign.quest:
        raise DropshipError(f"quest: the crew is already on the Quest {campaign.quest!r}; finish it first.", field="quest")
    if not name.strip():
        raise DropshipError("name is required: what is the Quest called?", field="name")
    campaign.quest, campaign.quest_step = name.strip()[:200], {}
    campaign.save()
    log(campaign, "crew", f"Quest taken up: {campaign.quest} (Expanded Quest Progression, p.78).", before=before)
    touch(campaign)
    return campaign
