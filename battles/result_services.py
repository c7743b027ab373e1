"""Writes for a Five Parsecs battle's end: finish it (its result from the no-minis play, the live
tracker or the numbers typed in), pay what the battle gave a campaign, and hand the result to
the campaign turn's "Record the battle" step, now or when the turn gets there. The set-up is
:mod:`battles.services`.

Every write is keyword-only, runs in one transaction, takes the battle ``version`` it was made
against (a stale one is refused with :class:`StaleVersion`, 409) and raises
:class:`DropshipError` naming the field at fault, writing nothing then.

Rulings:

- Won: the no-minis objective achieved; from the tracker or by hand, Holding the Field, unless
  ``won`` is given; a special mission's tracker (:mod:`battles.mission_types`) says ``won`` itself.
- A finished Street fight of a campaign pays what the chapter gave during play (a Criminal's
  bounty, Rivals, Quest Clues, the law's hold on surrendered figures; pp.133-136) into the
  campaign, logged, before the turn's Record the battle step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction

from battles import mission_types
from battles.engine import fp_enemies, fp_tracker, nominis
from battles.models import Battle
from battles.services import _engine, _int, _load, _touch
from campaigns import services as campaign_services
from campaigns import turn_services
from campaigns.engine.turn.battle import BattleRecord, record_words
from campaigns.engine.view import Change
from campaigns.models import Campaign, Turn
from campaigns.permissions import EDITOR, campaign_for
from campaigns.selectors import current_turn, fiveparsecs_tables
from rules.engine.dice import Dice
from rules.errors import DropshipError


def _turn_record(battle: Battle, result: Mapping[str, Any]) -> dict[str, Any]:
    """The result in the campaign turn's terms (``BattleRecord.as_dict()``): casualties as crew
    ids, the enemies killed when the battle counted them (no-minis or tracker), the enemy."""
    refs = {c["name"]: c["ref"] for c in battle.setup["crew"] if c.get("ref")}
    enemy = battle.setup["enemy"]
    kills = result.get("enemies_killed")
    return BattleRecord(
        battle_id=battle.pk,
        title=battle.title,
        won=bool(result.get("won")),
        held_field=bool(result.get("held_field")),
        casualties=tuple(refs[n] for n in result.get("casualties", []) if n in refs),
        kills=None if kills is None else int(kills),
        psionic_uses=int(result.get("psionic_uses") or 0),
        enemy=str(enemy.get("type") or enemy.get("category") or ""),
        elite=bool(enemy.get("elite")) and "street" not in result,
        mission_type=str((battle.setup.get("mission_type") or {}).get("type") or ""),
        salvage=result["salvage"] if isinstance(result.get("salvage"), Mapping) else None,
    ).as_dict()


#: "Record the battle" inputs no battle decides, in words for the turn note: with one of them
#: on the step, the player confirms the filled-in step on the turn page rather than the finish
#: recording it at once.
_ASKED_WORDS = {
    "roving_threat": "a Roving Threat",
    "faction_job": "a Faction job",
    "affiliated": "the Faction affiliation",
    "faction_enemy": "the Faction opposing you",
}
_ASKED_AT_THE_TURN = tuple(_ASKED_WORDS)


def _turn_at_record(battle: Battle) -> tuple[Campaign, Turn] | None:
    """The battle's campaign and its turn when the turn's current step is "Record the battle"
    and this finished battle is the turn's battle (``turn_services.turn_battle``); else None."""
    if battle.campaign_id is None or not battle.result or not battle.result.get("record"):
        return None
    campaign = Campaign.objects.get(pk=battle.campaign_id)
    turn = current_turn(campaign)
    if turn is None or turn.position >= len(turn.plan) or turn.plan[turn.position].get("key") != "battle.record":
        return None
    record = turn_services.turn_battle(campaign, turn)
    if record is None or record.battle_id != battle.pk:
        return None
    return campaign, turn


def battle_reportable(battle: Battle) -> bool:
    """Whether :func:`battle_report` would record the battle now: it is finished, not recorded
    yet, and its campaign turn is at "Record the battle" with it (the battle page's button)."""
    return battle.status == "finished" and not battle.reported and _turn_at_record(battle) is not None


def _report(user: Any, battle: Battle, *, confirmed: bool = False) -> bool:
    """Record the battle in its campaign turn when the turn's current step is "Record the
    battle", this is the turn's battle (:func:`_turn_at_record`) and the step asks nothing
    else the player must answer (``confirmed``: the player asked for it, answer or not); the
    step takes its inputs from the battle's record."""
    found = _turn_at_record(battle)
    if found is None:
        return False
    campaign, turn = found
    asked = [name for name, _kind, _choices in turn.plan[turn.position].get("inputs", []) if name in _ASKED_AT_THE_TURN]
    if asked and not confirmed:
        return False
    turn_services.step_resolve(user=user, campaign_id=campaign.pk, version=campaign.version, mode="roll", inputs={})
    battle.reported = True
    return True


def battle_turn_note(battle: Battle) -> str:
    """Where a finished campaign battle stands in its campaign turn, in words ("Recorded in turn
    4: won, held the field, 1 casualty (Bo); next: Gather the loot"), or when the turn will take
    it. Empty for a standalone or unfinished battle."""
    kept = (battle.result or {}).get("record")
    if battle.campaign_id is None or battle.status != "finished" or not kept:
        return ""
    campaign = Campaign.objects.get(pk=battle.campaign_id)
    record = BattleRecord.from_dict(kept)
    words = record_words(record, turn_services.crew_names(campaign))
    turn = current_turn(campaign)
    if turn is None:
        return (
            f"No campaign turn is being played: this result ({words}) fills in Record the battle when the next turn gets there."
        )
    keys = [str(step.get("key")) for step in turn.plan]
    here = keys[turn.position] if turn.position < len(keys) else ""
    title = str(turn.plan[turn.position].get("title")) if here else ""
    if (turn.facts.get(turn_services.BATTLE_SOURCE) or {}).get("id") == battle.pk:
        return f"Recorded in turn {turn.number}: {words}; next: {title or 'the turn is over'}."
    if "battle.record" not in keys:
        return f"Turn {turn.number} has no Record the battle step; the result was {words}."
    if turn.position < keys.index("battle.record"):
        return f"Turn {turn.number} is at {title}: Record the battle will be filled in from this battle ({words}) when the turn gets there."
    if here == "battle.record":
        chosen = turn_services.turn_battle(campaign, turn)
        if chosen is not None and chosen.battle_id == battle.pk:
            asked = [
                _ASKED_WORDS[name]
                for name, _kind, _choices in turn.plan[turn.position].get("inputs", [])
                if name in _ASKED_AT_THE_TURN
            ]
            return (
                f"Turn {turn.number} is at Record the battle, filled in from this battle ({words}): "
                f"answer what only you know ({', '.join(asked) or 'nothing more'}) on the turn page, "
                "or record it now without those answers (Record in the turn now)."
            )
    return f"Turn {turn.number} has recorded its battle already; this result ({words}) was not recorded."


def _kills(battle: Battle, killed_leader: bool, killed_unique: bool) -> tuple[bool, bool]:
    """Whether a Lieutenant, Captain or Unique Individual fell, and whether the Unique
    Individual did: read from the no-minis or tracker state, else as answered."""
    unique = (battle.setup["enemy"].get("unique_individual") or {}).get("name")
    if battle.nominis:
        fallen = [e for e in battle.nominis["state"]["enemies"] if e["status"] == "casualty"]
        return (
            any(e["rank"] == "lieutenant" for e in fallen),
            bool(unique) and any(e["name"].startswith(str(unique)) for e in fallen),
        )
    if battle.room is not None:
        fallen = [e for e in battle.room.state.get("enemies", []) if e.get("status") == "casualty"]
        return any(e.get("rank") in ("lieutenant", "captain", "unique") for e in fallen), any(
            e.get("rank") == "unique" for e in fallen
        )
    return killed_leader, killed_unique


def _elite_rewards(
    battle: Battle, result: Mapping[str, Any], answers: Mapping[str, bool], dice: Dice
) -> fp_enemies.EliteRewards | None:
    """Elite-level rewards (p.50 and the type rules) for an elite battle's ``result``."""
    if not battle.setup["enemy"].get("elite"):
        return None
    force = fp_enemies.EnemyForce.from_dict(battle.setup["enemy"])
    leader, unique = _kills(battle, answers["killed_leader"], answers["killed_unique"])
    killed = int(result.get("enemies_killed") or 0) > 0 if "enemies_killed" in result else answers["killed_any"] or leader
    crew = battle.setup["crew"]
    return _engine(
        lambda: fp_enemies.elite_rewards(
            dice,
            fiveparsecs_tables(),
            force,
            held_field=bool(result["held_field"]),
            killed_any=killed,
            killed_leader=leader,
            killed_unique=unique,
            patron_job=bool((battle.setup["battle"].get("mission") or {}).get("patron")),
            quest_finished=answers["quest_finished"],
            crew_all_casualties=len(result.get("casualties") or []) >= len(crew),
            rival_roll=answers["rival_roll"],
        ),
        where="rewards.",
    )


def _pay_rewards(user: Any, battle: Battle, rewards: fp_enemies.EliteRewards) -> None:
    """Apply the rewards the campaign keeps (credits, Quest Rumors, Rivals) and log every line
    and roll; Loot, Battlefield Finds and XP are the post-battle steps' to roll and give."""
    if battle.campaign_id is None:
        return
    campaign, _ = campaign_for(user, battle.campaign_id, at_least=EDITOR, lock=True)
    enemy = battle.setup["enemy"]
    changes: list[Change] = []
    if rewards.credits:
        changes.append(Change("credits", {"amount": rewards.credits}))
    changes += [Change("rumor_add", {"text": f"Quest Rumor ({enemy.get('type')})"})] * (rewards.quest_rumors + rewards.rumors)
    if rewards.rival:
        notes = "They hate you: +1 to their numbers in every battle." if rewards.rival_hates_you else ""
        changes.append(Change("rival_add", {"name": str(enemy.get("type") or "Elite enemies"), "elite": True, "notes": notes}))
    changes += [Change("rival_add", {"name": "Unnamed Rival", "notes": f"From the battle {battle.title}"})] * rewards.extra_rivals
    words = campaign_services.apply_changes(campaign, changes)
    text = f"Elite rewards after {battle.title}: " + (" ".join(rewards.lines) or "nothing extra.")
    if words:
        text += f" [{'; '.join(words)}]"
    campaign_services.log(campaign, "battle", text, rolls=rewards.rolls, changes=changes)
    campaign_services.touch(campaign)


def _pay_street(user: Any, battle: Battle, street: Mapping[str, Any]) -> None:
    """Apply what a campaign's Street fight gave during play (``street["changes"]``: a Criminal's
    bounty in credits, Rivals, Quest Clues as a note, the law's hold on surrendered figures;
    pp.133-136) and log it; the core post-battle steps do the rest (p.136)."""
    if battle.campaign_id is None or not street.get("changes"):
        return
    campaign, _ = campaign_for(user, battle.campaign_id, at_least=EDITOR, lock=True)
    changes = [Change(str(c["kind"]), dict(c["data"])) for c in street["changes"]]
    words = campaign_services.apply_changes(campaign, changes)
    campaign_services.log(campaign, "battle", f"Street fight {battle.title}: {'; '.join(words)}.", changes=changes)
    campaign_services.touch(campaign)


@transaction.atomic
def battle_finish(
    *,
    user: Any,
    battle_id: int,
    version: int | None,
    held_field: bool | None = None,
    won: bool | None = None,
    casualties: Sequence[str] | None = None,
    killed_any: bool = False,
    killed_leader: bool = False,
    killed_unique: bool = False,
    quest_finished: bool = False,
    rival_roll: bool = False,
    psionic_uses: int = 0,
    dice: Dice | None = None,
) -> Battle:
    """Finish the battle and keep its result: from the no-minis state (it must be over), else
    from the tracker room's state (``fp_tracker.outcome``, or the outcome its kind has in
    ``battles.mission_types.outcome_for``; ``held_field`` fills in an undecided field),
    else from the arguments (a battle played at the table: ``held_field`` required,
    ``casualties`` crew names). ``won`` overrides what the result says (see the Rulings).

    A campaign battle whose campaign turn is at "Record the battle" resolves that step with
    the result (won, held the field, casualties as crew ids, enemy, elite), so the post-battle
    steps follow.

    An elite battle rolls its elite-level rewards (``fp_enemies.elite_rewards``) into
    ``result["elite_rewards"]``: kills are read from the no-minis or tracker state, else taken
    from ``killed_any``/``killed_leader``/``killed_unique``; ``quest_finished`` and
    ``rival_roll`` (the core rules call for a Rival roll) are the player's answers.
    ``psionic_uses``: how many times the crew's Psionics used a power (0-99; only with a Psionic
    in the crew), for the turn's psionic detection step (pp.17-24). A campaign
    battle then gets the credits, Quest Rumors and Rivals, logged with the rolls, before the
    turn's Record the battle step. Raises :class:`DropshipError` naming the field."""
    battle = _load(user, battle_id, version)
    if battle.status == "finished":
        raise DropshipError("The battle is already finished.", field="status")
    crew_names = [c["name"] for c in battle.setup["crew"]]
    if battle.status == "nominis" and battle.nominis:
        state = battle.nominis["state"]
        if not state["finished"]:
            raise DropshipError("The no-minis battle is still going: play it to the end first.", field="status")
        made = nominis.outcome(state)
        result: dict[str, Any] = {
            **made,
            "casualties": list(made["crew_casualties"]),
            "won": bool(made["objective"]["achieved"]) if won is None else bool(won),
            "source": "nominis",
        }
    elif battle.room is not None:
        made = (mission_types.outcome_for(battle.room.kind) or fp_tracker.outcome)(battle.room.state)
        held = made["held_field"] if made["held_field"] is not None else held_field
        if held is None:
            raise DropshipError("held_field is required: the tracker has not settled who holds the field.", field="held_field")
        decided = bool(made["won"]) if "won" in made else bool(held)  # a special mission's objective (p.116)
        result = {**made, "held_field": bool(held), "won": decided if won is None else bool(won), "source": "tracker"}
    else:
        if held_field is None:
            raise DropshipError("held_field is required: did the crew Hold the Field?", field="held_field")
        fallen = [str(c) for c in (casualties or [])]
        unknown = [c for c in fallen if c not in crew_names]
        if unknown:
            raise DropshipError(
                f"casualties must be crew names ({', '.join(crew_names)}); got {unknown[0]!r}.", field="casualties"
            )
        result = {
            "held_field": bool(held_field),
            "won": bool(held_field) if won is None else bool(won),
            "casualties": fallen,
            "source": "manual",
        }
    uses = _int(psionic_uses, "psionic_uses", 0, 99, 0)
    if uses and not any(c.get("psionic") for c in battle.setup["crew"]):
        raise DropshipError(f"psionic_uses must be 0: no crew figure is a Psionic; got {uses}.", field="psionic_uses")
    if uses:
        result["psionic_uses"] = uses
    answers = {
        "killed_any": killed_any,
        "killed_leader": killed_leader,
        "killed_unique": killed_unique,
        "quest_finished": quest_finished,
        "rival_roll": rival_roll,
    }
    # A Street fight's enemies come from its own table (p.129), not the rolled (elite) force.
    rewards = None if "street" in result else _elite_rewards(battle, result, answers, dice or Dice())
    if rewards is not None:
        result["elite_rewards"] = rewards.as_dict()
        _pay_rewards(user, battle, rewards)
    if isinstance(result.get("street"), Mapping):
        _pay_street(user, battle, result["street"])
    result["record"] = _turn_record(battle, result)
    battle.result = result
    battle.status = "finished"
    battle.save(update_fields=["result", "status"])  # the campaign turn reads the record from the row
    _report(user, battle)
    _touch(battle)
    return battle


@transaction.atomic
def battle_report(*, user: Any, battle_id: int, version: int | None) -> Battle:
    """Record a finished campaign battle's result in the campaign turn now that it is at "Record
    the battle", whatever else the step asks (the battle page's "Record in the turn now" and
    ``POST /api/v1/fp-battles/{id}/report/``; the turn page also offers it, filled in from the
    battle). Raises
    :class:`DropshipError` when there is nothing to record or the turn is not at that step with
    this battle as its battle."""
    battle = _load(user, battle_id, version)
    if battle.status != "finished" or battle.campaign_id is None or not battle.result:
        raise DropshipError("Only a finished campaign battle can be recorded in the campaign turn.", field="status")
    if not battle.result.get("record"):  # finished before battles kept their record
        battle.result = {**battle.result, "record": _turn_record(battle, battle.result)}
        battle.save(update_fields=["result"])
    if not _report(user, battle, confirmed=True):
        raise DropshipError(
            "The campaign turn is not at Record the battle with this battle: " + battle_turn_note(battle), field="turn"
        )
    _touch(battle)
    return battle


def record_in_turn(user: Any, battle: Battle) -> bool:
    """Record a finished campaign battle in its campaign's turn now, when the turn is at "Record
    the battle" with this battle and asks nothing more (:func:`_report`); returns whether it did.
    For battles finished outside :func:`battle_finish` (a PvP battle's side, pp.35-37)."""
    done = _report(user, battle)
    if done:
        battle.save(update_fields=["reported"])
    return done
