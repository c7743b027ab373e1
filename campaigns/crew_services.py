"""Writes for the crew and the ship: creation with the Krag, Skulker and Psionic rules,
advancement, psionic powers, training, Bot upgrades, implants, kit, worn armour and screens, a
Bot's built-in Saving Throw, injuries, and ship parts.

Every function takes the campaign ``version`` it was made against, runs in one transaction,
logs what it did with its rolls, and charges credits where the rules cost any (refusing when the
crew cannot pay). Engine refusals come back as :class:`DropshipError` naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from django.db import transaction

from campaigns.engine import characters as ch
from campaigns.engine import difficulty, psionics, wording
from campaigns.engine import ship as ship_engine
from campaigns.engine.slots import PROFILE_KEYS
from campaigns.engine.view import Change, CrewView
from campaigns.models import Campaign, Character, Ship
from campaigns.selectors import fiveparsecs_tables, slot_tables
from campaigns.services import apply_changes, current_world, engine_call, load_edit, log, options_of, touch
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable
from rules.errors import DropshipError, rule_errors

T = TypeVar("T")
COLUMN_FIELDS = ("name", "species", "kind", "xp", "status", "sick_bay")


def to_engine(member: Character) -> ch.Character:
    """The engine character for a stored crew member."""
    profile = {k: getattr(member, k) for k in (*PROFILE_KEYS, "luck")}
    data = {**member.sheet, **{f: getattr(member, f) for f in COLUMN_FIELDS}, "profile": profile}
    return ch.Character.from_dict(data)


def store(member: Character, sheet: ch.Character) -> None:
    """Write an engine character back to its row (columns and the ``sheet`` JSON)."""
    data = sheet.as_dict()
    for key, value in data.pop("profile").items():
        setattr(member, key, value)
    for f in COLUMN_FIELDS:
        setattr(member, f, data.pop(f))
    member.sheet = data
    member.save()


def battle_stats(member: Character, tables: Mapping[str, RangeTable]) -> dict[str, int]:
    """A stored crew member's battle profile after their injury penalties (p.101; see
    :func:`campaigns.engine.characters.battle_stats`)."""
    return engine_call(lambda: ch.battle_stats(to_engine(member), tables))


def crew_views(campaign: Campaign) -> list[CrewView]:
    return [
        CrewView(
            id=str(c.pk),
            name=c.name,
            species=c.species,
            psionic=bool(c.sheet.get("psionic")) and not c.sheet.get("psionics_lost"),
            status=c.status,
            xp=c.xp,
            sick_bay=c.sick_bay,
            injuries=tuple(str(i) for i in c.sheet.get("injuries") or ()),
            savvy=c.savvy,
            captain=c.is_captain,
        )
        for c in campaign.characters.all()
    ]


def presets(campaign: Campaign) -> dict[str, dict[str, int]]:
    """Species starting profiles from the campaign's ``starting_profiles`` table, keyed by the
    row's ``species`` data or its result name in lower case."""
    table = slot_tables(campaign).get("starting_profiles")
    if table is None:
        return {}
    found: dict[str, dict[str, int]] = {}
    for entry in table.entries.all():
        key = str(entry.data.get("species") or entry.result).strip().lower()
        found[key] = {k: int(entry.data[k]) for k in (*PROFILE_KEYS, "luck") if k in entry.data}
    return found


def _member(campaign: Campaign, character_id: int) -> Character:
    member = campaign.characters.filter(pk=character_id).first()
    if member is None:
        raise DropshipError(f"No crew member {character_id} in this campaign.", field="character")
    return member


def _pay(campaign: Campaign, credits: int, what: str) -> None:
    if credits > campaign.credits:
        raise DropshipError(f"credits: {what} costs {credits} credits and the crew has {campaign.credits}.", field="credits")
    campaign.credits -= credits


def _user_table(campaign: Campaign, key: str) -> RangeTable | None:
    table = slot_tables(campaign).get(key)
    return table.to_engine() if table is not None else None


# -- creation -------------------------------------------------------------------------------


@transaction.atomic
def character_create(
    *,
    user: Any,
    campaign_id: int,
    version: int | None,
    name: str,
    species: str,
    kind: str | None = None,
    profile: Mapping[str, Any] | None = None,
    psionic: bool = False,
    payment: str | None = None,
    captain: bool = False,
    power_faces: Sequence[int] | None = None,
    duplicate_choice: str | None = None,
    predict_swap: int | None = None,
    dice: Dice | None = None,
) -> Character:
    """A new crew member with the species base profile: Krag and Skulker from the Compendium
    (pp.12, 14), other species from the campaign's starting profiles table, or ``profile``
    typed by hand (the five stats, Luck optional).

    ``psionic`` makes them the crew's Psionic before the profile is rolled (p.17): once the
    crew has played a turn, a recruit pays ``payment`` (``story_points`` or ``credits``).
    Their two powers are rolled at once (D10 twice, ``power_faces`` for physical dice); a
    repeated power needs ``duplicate_choice``, and a Precursor may swap a die for Predict
    (``predict_swap``: 0 or 1). Raises :class:`DropshipError` naming the field at fault.
    """
    campaign, before_edit = load_edit(user, campaign_id, version)
    if not name.strip():
        raise DropshipError("name is required.", field="name")
    tables = fiveparsecs_tables()
    options = options_of(campaign)
    known = presets(campaign)
    if profile and species.strip().lower() not in ("krag", "skulker"):
        known = {**known, species.strip().lower(): dict(profile)}
    sheet = engine_call(lambda: ch.new_character(name.strip()[:60], species, tables, known, kind=kind or None))
    rolls = []
    notes = [f"{sheet.name} joins the crew: {sheet.species}, {sheet.kind}"]
    if psionic:
        crew = [to_engine(c) for c in campaign.characters.all()]
        recruit = campaign.turn > 0
        sheet, cost = engine_call(
            lambda: psionics.make_psionic(sheet, crew, tables, options, recruit=recruit, payment=payment or None)
        )
        if cost.credits:
            _pay(campaign, cost.credits, "a Psionic recruit")
        if cost.story_points:
            if campaign.story_points < cost.story_points:
                raise DropshipError("payment: the crew has no Story Point to spend.", field="payment")
            campaign.story_points -= cost.story_points
        dice = dice or Dice()
        draw = engine_call(
            lambda: psionics.starting_powers(
                tables,
                dice,
                sheet.species,
                faces=power_faces,
                duplicate_choice=duplicate_choice or None,
                predict_swap=predict_swap,
            )
        )
        if draw.pending is not None:
            raise DropshipError(
                f"duplicate_choice: both dice gave the same power ({draw.pending.reason}); choose "
                f"{' or '.join(draw.pending.options)} and send the same dice ({', '.join(map(str, draw.faces))}).",
                field="duplicate_choice",
                extra={"choices": list(draw.pending.options), "faces": list(draw.faces)},
            )
        sheet = engine_call(lambda: psionics.learn_powers(sheet, draw))
        rolls = [r.record for r in draw.rolls]
        notes.append(f"Psionic with {', '.join(draw.powers)}" + (f" ({'; '.join(draw.notes)})" if draw.notes else ""))
        if cost.credits or cost.story_points:
            notes.append(f"paid {cost.credits} credits / {cost.story_points} Story Points")
    member = Character(campaign=campaign, is_captain=captain, position=campaign.characters.count())
    store(member, sheet)
    campaign.save()
    log(campaign, "crew", "; ".join(notes), rolls=rolls, before=before_edit)
    touch(campaign)
    return member


@transaction.atomic
def character_creation_results(
    *,
    user: Any,
    campaign_id: int,
    version: int | None,
    character_id: int,
    stat_changes: Mapping[str, int] | None = None,
    credits_results: int = 0,
    credits_faces: Sequence[int] | None = None,
    patrons: int = 0,
    rivals: int = 0,
    dice: Dice | None = None,
) -> Character:
    """Apply what the core creation tables gave the character: stat increases, the number of
    "1D6 credits" results (rolled here: 1D3 for a Skulker, 1D6-1 with Money is Tight), and
    the Patrons and Rivals gained, after the species rules (a Krag with a Patron gains a Rival;
    a Skulker ignores the first Rival). Once only. Raises :class:`DropshipError`."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    member = _member(campaign, character_id)
    sheet = to_engine(member)
    if sheet.profile_rolled:
        raise DropshipError(f"{member.name}'s creation results are already in.", field="character")
    profile = sheet.profile
    with rule_errors():
        for stat, amount in (stat_changes or {}).items():
            if amount:
                profile = profile.with_stat(stat, profile.get(stat) + int(amount))
    sheet = ch.mark_profile_rolled(replace(sheet, profile=profile))
    tables = fiveparsecs_tables()
    dice = dice or Dice()
    total, records = engine_call(
        lambda: ch.creation_credits(options_of(campaign), sheet.species, dice, credits_results, faces=credits_faces)
    )
    patrons, rivals, notes = engine_call(lambda: ch.creation_contacts(sheet.species, patrons, rivals, tables))
    changes = [Change("credits", {"amount": total})] if total else []
    changes += [Change("patron_add", {"name": f"Patron of {member.name} ({i + 1})"}) for i in range(patrons)]
    changes += [Change("rival_add", {"name": f"Rival of {member.name} ({i + 1})"}) for i in range(rivals)]
    store(member, sheet)
    words = apply_changes(campaign, changes)
    text = f"{member.name}'s creation results: " + ", ".join(
        [f"{wording.key_words(k)} {v:+d}" for k, v in (stat_changes or {}).items() if v] + words + list(notes)
    )
    log(campaign, "crew", text, rolls=records, changes=changes, before=before_edit)
    touch(campaign)
    return member


# -- advancement and psionics -----------------------------------------------------------------


@transaction.atomic
def character_advance(*, user: Any, campaign_id: int, version: int | None, character_id: int, stat: str) -> Character:
    """Spend XP to raise ``stat`` by one: the costs and maxima come from the campaign's core
    upgrade table, or the Slower Progression table when that toggle is on (p.32). A Psionic
    cannot raise Combat Skill (p.18)."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    member = _member(campaign, character_id)
    costs = engine_call(
        lambda: ch.upgrade_costs(options_of(campaign), fiveparsecs_tables(), _user_table(campaign, "advancement_costs"))
    )
    before = member.xp
    sheet = engine_call(lambda: ch.advance(to_engine(member), stat, costs))
    store(member, sheet)
    log(
        campaign,
        "crew",
        f"{member.name}: {stat.replace('_', ' ')} to {sheet.profile.get(stat)} for {before - sheet.xp} XP",
        before=before_edit,
    )
    touch(campaign)
    return member


POWER_ACTIONS = ("acquire", "enhance")


@transaction.atomic
def character_power(
    *,
    user: Any,
    campaign_id: int,
    version: int | None,
    character_id: int,
    action: str,
    power: str = "",
    face: int | None = None,
    choice: str | None = None,
    dice: Dice | None = None,
) -> Character:
    """Acquire a psionic power (12 XP, D10) or enhance one (6 XP) (p.19). An acquire that lands
    on a known power asks for ``choice`` (send the same ``face``)."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    member = _member(campaign, character_id)
    tables = fiveparsecs_tables()
    if action == "enhance":
        sheet = engine_call(lambda: psionics.enhance_power(to_engine(member), power, tables))
        store(member, sheet)
        log(campaign, "crew", f"{member.name} enhances {power} (+D6 projection)", before=before_edit)
    elif action == "acquire":
        gain = engine_call(
            lambda: psionics.acquire_power(to_engine(member), tables, dice or Dice(), face=face, choice=choice or None)
        )
        if gain.pending is not None:
            raise DropshipError(
                f"choice: {gain.pending.reason}; choose {' or '.join(gain.pending.options)} (same die: {gain.roll.value}).",
                field="choice",
                extra={"choices": list(gain.pending.options), "face": gain.roll.value},
            )
        store(member, gain.character)
        log(campaign, "crew", f"{member.name}: {gain.note}", rolls=[gain.roll.record], before=before_edit)
    else:
        raise DropshipError(f"action must be one of {', '.join(POWER_ACTIONS)}; got {action!r}.", field="action")
    touch(campaign)
    return member


# -- training, upgrades, implants, kit, injuries ----------------------------------------------------


@transaction.atomic
def character_training(
    *, user: Any, campaign_id: int, version: int | None, character_id: int, course: str, credits: int | None = None
) -> Character:
    """Buy an Advanced Training course (post-battle step Invest in Advanced Training): the
    Compendium's courses (p.25) at their price, or a core course at the ``credits`` you give,
    plus the 1 credit application fee unless the crew has an Instructor."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    member = _member(campaign, character_id)
    crew_training = [course for c in campaign.characters.all() for course in c.sheet.get("training", [])]
    cost = engine_call(lambda: ch.training_cost(course, fiveparsecs_tables(), crew_training, credits=credits))
    sheet = engine_call(lambda: ch.training_add(to_engine(member), cost.course))
    _pay(campaign, cost.total, cost.course)
    store(member, sheet)
    campaign.save()
    note = " (roll for availability as the core rules say)" if cost.availability_roll else " (no availability roll: Instructor)"
    log(
        campaign,
        "crew",
        f"{member.name} takes {cost.course} for {cost.total} credits{note}",
        changes=[Change("credits", {"amount": -cost.total})],
        before=before_edit,
    )
    touch(campaign)
    return member


@transaction.atomic
def character_bot_upgrade(
    *,
    user: Any,
    campaign_id: int,
    version: int | None,
    character_id: int,
    upgrade: str,
    shots: int | None = None,
    damage: int | None = None,
    cost_reduction: int = 0,
) -> Character:
    """Install a Bot upgrade (p.26) at purchase time: Bots only, one per campaign turn, one of
    each; the built-in weapon costs 3 credits per Shot and 1 per point of Damage."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    member = _member(campaign, character_id)
    sheet, price = engine_call(
        lambda: ch.bot_upgrade(
            to_engine(member),
            upgrade,
            fiveparsecs_tables(),
            campaign.turn,
            shots=shots,
            damage=damage,
            cost_reduction=cost_reduction,
        )
    )
    _pay(campaign, price, upgrade)
    store(member, sheet)
    campaign.save()
    log(
        campaign,
        "crew",
        f"{member.name} gets {upgrade} for {price} credits",
        changes=[Change("credits", {"amount": -price})],
        before=before_edit,
    )
    touch(campaign)
    return member


@transaction.atomic
def character_implant(*, user: Any, campaign_id: int, version: int | None, character_id: int, implant: str) -> Character:
    """Give an implant. A Psionic loses their powers for good (p.18); Nullification surgery
    (p.27) costs 3 credits."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    member = _member(campaign, character_id)
    tables = fiveparsecs_tables()
    if implant.strip().lower() == "nullification surgery":
        sheet, price = engine_call(lambda: psionics.nullification_surgery(to_engine(member), tables))
        _pay(campaign, price, "Nullification surgery")
    else:
        sheet, price = engine_call(lambda: ch.implant_add(to_engine(member), implant)), 0
    lost = bool(member.sheet.get("psionic")) and sheet.psionics_lost and not member.sheet.get("psionics_lost")
    store(member, sheet)
    campaign.save()
    log(
        campaign,
        "crew",
        f"{member.name} gets {implant}" + (" and loses their psionic powers for good" if lost else ""),
        before=before_edit,
    )
    touch(campaign)
    return member


@transaction.atomic
def character_equip(
    *,
    user: Any,
    campaign_id: int,
    version: int | None,
    character_id: int,
    item: str,
    traits: Sequence[str] = (),
    remove: bool = False,
) -> Character:
    """Hand an item to a crew member (or take it back with ``remove``). Weapon traits come from
    the dramatic weapons table for a name it knows (whatever is typed), else are typed; a
    Psionic may only use Pistol or Melee weapons (p.18), refused naming ``item``."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    member = _member(campaign, character_id)
    tables = fiveparsecs_tables()
    if remove:
        sheet = engine_call(lambda: ch.unequip(to_engine(member), item))
    else:
        sheet = engine_call(lambda: ch.equip(to_engine(member), item.strip(), tuple(traits) or None, tables))
    store(member, sheet)
    log(campaign, "crew", f"{member.name} {'drops' if remove else 'takes'} {item.strip()}", before=before_edit)
    touch(campaign)
    return member


@transaction.atomic
def character_protection(
    *,
    user: Any,
    campaign_id: int,
    version: int | None,
    character_id: int,
    name: str,
    kind: str = "",
    saving_throw: int | None = None,
    remove: bool = False,
) -> Character:
    """Put worn protective gear on a crew member, typed by the player (the core rulebook's list
    is not in our sources): ``name``, ``kind`` ``armor`` or ``screen`` and ``saving_throw``, its
    Saving Throw as a D6 target 2-6; or take the gear called ``name`` off with ``remove``. A
    battle gives the figure its best Saving Throw of each kind (p.26, ``characters.saving_throw``).
    Raises :class:`DropshipError` naming ``name``, ``kind`` or ``saving_throw``."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    member = _member(campaign, character_id)
    if remove:
        sheet = engine_call(lambda: ch.take_off(to_engine(member), name))
        said = f"{member.name} takes off {name.strip()}"
    else:
        if saving_throw is None or isinstance(saving_throw, bool) or not 2 <= int(saving_throw) <= 6:
            raise DropshipError(
                f"saving_throw must be a D6 target from 2 to 6 (5 = 5+); got {saving_throw!r}.", field="saving_throw"
            )
        sheet = engine_call(lambda: ch.wear(to_engine(member), name, kind, int(saving_throw)))
        worn = sheet.protection[-1]
        said = f"{member.name} wears {worn.name} ({worn.kind.title()} {worn.save}+)"
    store(member, sheet)
    log(campaign, "crew", said, before=before_edit)
    touch(campaign)
    return member


@transaction.atomic
def character_bot_save(*, user: Any, campaign_id: int, version: int | None, character_id: int, bot_save: int | None) -> Character:
    """Set a Bot's built-in Armor Saving Throw, the core rulebook's number typed by the player
    (2-6, ``None`` for none). Improved armor casing and the Deflection module (p.26) build on
    it in battle. Raises :class:`DropshipError` naming ``kind`` (not a Bot) or ``bot_save``."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    member = _member(campaign, character_id)
    sheet = engine_call(lambda: ch.set_bot_save(to_engine(member), bot_save))
    store(member, sheet)
    said = f"built-in Armor Saving Throw {bot_save}+" if bot_save is not None else "no built-in Saving Throw"
    log(campaign, "crew", f"{member.name}: {said}", before=before_edit)
    touch(campaign)
    return member


STATUS_CHOICES = ("active", "sick_bay", "dead", "gone")


@transaction.atomic
def character_injury(
    *, user: Any, campaign_id: int, version: int | None, character_id: int, injury: str = "", sick_bay: int = 0, status: str = ""
) -> Character:
    """Record an injury with its Sick Bay turns, or a new status. A Bot that is Killed loses its
    upgrades (p.26)."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    member = _member(campaign, character_id)
    sheet = to_engine(member)
    if status:
        if status not in STATUS_CHOICES:
            raise DropshipError(f"status must be one of {', '.join(STATUS_CHOICES)}; got {status!r}.", field="status")
        sheet = ch.character_killed(sheet) if status == "dead" else replace(sheet, status=status)
    if injury.strip() or sick_bay:
        sheet = engine_call(lambda: ch.injury_apply(sheet, injury.strip() or "Injury", int(sick_bay)))
    store(member, sheet)
    log(
        campaign,
        "crew",
        f"{member.name}: "
        + ", ".join(
            x for x in (injury.strip(), f"Sick Bay {sick_bay}" if sick_bay else "", wording.value_words("status", status)) if x
        ),
        before=before_edit,
    )
    touch(campaign)
    return member


#: Key of ``World.strife`` holding the world's medical facilities (p.101): ``{"facilities":
#: bool, "roll": the D6, "searched": {"turn": n, "crew": [ids]}}``.
MEDICAL_KEY = "medical"


def medical_here(campaign: Campaign) -> dict[str, Any]:
    """What the crew knows of the current world's medical facilities (p.101; see
    :data:`MEDICAL_KEY`); empty before the first treatment there or with no world."""
    world = current_world(campaign)
    return dict((world.strife or {}).get(MEDICAL_KEY) or {}) if world is not None else {}


def _searcher(campaign: Campaign, patient: Character, searcher_id: int | None) -> Character:
    """The crew member who looks for an off-worlder: ``searcher_id``, else the active crew
    member with the best Savvy (the first in crew order on a tie)."""
    able = [c for c in campaign.characters.filter(status="active")]
    if searcher_id is not None:
        chosen = next((c for c in able if c.pk == searcher_id), None)
        if chosen is None:
            names = ", ".join(f"{c.pk} ({c.name})" for c in able) or "none"
            raise DropshipError(f"searcher must be an active crew member ({names}); got {searcher_id}.", field="searcher")
        return chosen
    if not able:
        raise DropshipError(
            f"searcher: nobody is active to look for an off-worlder who could treat {patient.name}.", field="searcher"
        )
    return max(able, key=lambda c: (c.savvy, -able.index(c)))


@transaction.atomic
def character_treat(
    *,
    user: Any,
    campaign_id: int,
    version: int | None,
    character_id: int,
    injury: str,
    searcher: int | None = None,
    facilities_value: int | None = None,
    search_face: int | None = None,
    dice: Dice | None = None,
) -> Character:
    """Pay for the medical treatment of a lasting injury (Detailed Post-Battle Injuries, p.101).

    The cost is the one noted when the injury was rolled (an Extensive injury's 1D6+1 credits,
    3 for an Injured arm, leg or torso). The first treatment on a world rolls D6 for its medical
    facilities (``facilities_value``: your own die), kept for that world; without facilities a
    crew member (``searcher``: a crew id, else the active one with the best Savvy) spends a
    campaign action on 1D6+Savvy (``search_face``), once per campaign turn each: 6+ finds an
    off-worlder for 1 credit more; a failed search is logged and nothing is paid. Once paid the
    injury and its penalty are gone, and an Extensive injury's Sick Bay time (turns equal to its
    cost) begins. Raises :class:`DropshipError`: ``injury`` when it waits for no treatment,
    ``credits`` naming the cost when the crew cannot pay (nothing is written then),
    ``searcher`` for a crew member who cannot search."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    member = _member(campaign, character_id)
    sheet = to_engine(member)
    cost = engine_call(lambda: ch.treatment_cost(sheet, injury), dice_field="injury")
    what = f"Treating {member.name}'s {injury}"
    if cost > campaign.credits:
        raise DropshipError(
            f"credits: {what} costs {cost} credits and the crew has {campaign.credits}.", field="credits", extra={"cost": cost}
        )
    world = current_world(campaign)
    tables = fiveparsecs_tables()
    dice = dice or Dice()
    rolls: list[Any] = []
    words: list[str] = []
    medical = medical_here(campaign)
    facilities_roll = None
    if world is not None and "facilities" not in medical:
        facilities_roll = engine_call(
            lambda: ch.medical_facilities(tables, dice, facilities_value), dice_field="facilities_value"
        )
        rolls.append(facilities_roll.record)
        medical = {"facilities": bool(facilities_roll.entry.data.get("facilities")), "roll": facilities_roll.record.total}
        words.append(f"medical facilities on {world.name or 'this world'}: {facilities_roll.entry.result} (p.101)")
    extra = 0
    if world is not None and not medical.get("facilities"):
        helper = _searcher(campaign, member, searcher)
        searched = dict(medical.get("searched") or {})
        done = list(searched.get("crew") or []) if searched.get("turn") == campaign.turn else []
        if helper.pk in done:
            raise DropshipError(
                f"searcher: {helper.name} already looked for an off-worlder this campaign turn; pick someone else.",
                field="searcher",
            )
        entry = facilities_roll.entry if facilities_roll else _medical_row(tables, facilities=False)
        found = engine_call(
            lambda: ch.off_worlder_search(entry, helper.savvy, helper.name, dice, face=search_face), dice_field="search_face"
        )
        rolls.append(found.record)
        medical["searched"] = {"turn": campaign.turn, "crew": [*done, helper.pk]}
        if not found.found:
            words.append(f"{helper.name} finds nobody to treat {member.name} (1D6+Savvy {found.total}, needed {found.target}+)")
            _medical_store(world, medical)
            log(campaign, "crew", f"{what}: " + "; ".join(words) + ". Nothing paid.", rolls=rolls, before=before_edit)
            touch(campaign)
            return member
        extra = found.extra_credits
        words.append(f"{helper.name} finds an off-worlder (1D6+Savvy {found.total}): +{extra} credit fee")
    total = cost + extra
    _pay(campaign, total, what)
    sheet = engine_call(lambda: ch.injury_treat(sheet, injury, sick_bay_turns=cost if injury == ch.EXTENSIVE_INJURY else None))
    store(member, sheet)
    if world is not None:
        _medical_store(world, medical)
    campaign.save()
    words.append(f"paid {total} credits")
    if injury == ch.EXTENSIVE_INJURY:
        words.append(f"Sick Bay for {sheet.sick_bay} campaign turn(s) begins")
    else:
        words.append("the penalty is gone")
    log(
        campaign,
        "crew",
        f"{what} (p.101): " + "; ".join(words) + ".",
        rolls=rolls,
        changes=[Change("credits", {"amount": -total})],
        before=before_edit,
    )
    touch(campaign)
    return member


def _medical_row(tables: Mapping[str, RangeTable], *, facilities: bool) -> Any:
    """The medical facilities row (p.101) with or without facilities."""
    return next(e for e in tables[ch.MEDICAL_TABLE].rows() if bool(e.data.get("facilities")) == facilities)


def _medical_store(world: Any, medical: Mapping[str, Any]) -> None:
    world.strife = {**(world.strife or {}), MEDICAL_KEY: dict(medical)}
    world.save(update_fields=["strife"])


EDITABLE = (*PROFILE_KEYS, "luck", "xp")


@transaction.atomic
def character_update(
    *,
    user: Any,
    campaign_id: int,
    version: int | None,
    character_id: int,
    name: str | None = None,
    notes: str | None = None,
    captain: bool | None = None,
    values: Mapping[str, int] | None = None,
) -> Character:
    """Edit a crew member by hand: name, notes, captain, or stats and XP (for results of
    core-rulebook rolls the app does not make). Every edit is logged."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    member = _member(campaign, character_id)
    said = []
    for key, value in (values or {}).items():
        if key not in EDITABLE:
            raise DropshipError(f"Only {', '.join(EDITABLE)} can be edited; got {key!r}.", field=key)
        if int(value) != getattr(member, key):
            said.append(f"{key.replace('_', ' ')} {getattr(member, key)} -> {int(value)}")
            setattr(member, key, int(value))
    if name is not None and name.strip() and name.strip() != member.name:
        said.append(f"renamed {member.name} -> {name.strip()}")
        member.name = name.strip()[:60]
    if notes is not None:
        member.notes = notes
    if captain is not None and captain != member.is_captain:
        if captain:
            campaign.characters.update(is_captain=False)
        member.is_captain = captain
        said.append("captain" if captain else "no longer captain")
    engine_call(lambda: to_engine(member))
    member.save()
    if said:
        log(campaign, "crew", f"{member.name}: " + "; ".join(said), before=before_edit)
    touch(campaign)
    return member


# -- ship -----------------------------------------------------------------------------------------


def ship_engine_of(ship: Ship) -> ship_engine.Ship:
    return engine_call(
        lambda: ship_engine.Ship.from_dict(
            {"name": ship.name, "hull": ship.hull, "max_hull": ship.max_hull, "components": ship.components, "debt": ship.debt}
        )
    )


def _ship_store(ship: Ship, made: ship_engine.Ship) -> None:
    data = made.as_dict()
    for key in ("name", "hull", "max_hull", "components", "debt"):
        setattr(ship, key, data[key])
    ship.save()


def _ship(campaign: Campaign) -> Ship:
    ship = Ship.objects.filter(campaign=campaign).first()
    if ship is None:
        raise DropshipError("The crew has no ship (Starting in the Gutter); buy one first.", field="ship")
    return ship


@transaction.atomic
def ship_update(*, user: Any, campaign_id: int, version: int | None, name: str, hull: int, max_hull: int, debt: int = 0) -> Ship:
    """Set the ship's name, hull points and debt (credits), or get a ship when the crew has
    none (the core rules set its hull and debt)."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    ship = Ship.objects.filter(campaign=campaign).first() or Ship(campaign=campaign)
    made = engine_call(
        lambda: ship_engine.Ship(
            name=name.strip() or "Ship", hull=hull, max_hull=max_hull, components=_ship_components(ship), debt=debt
        )
    )
    _ship_store(ship, made)
    if campaign.loan.get("origin"):  # with Loans (p.152) the ship's debt is the loan
        campaign.loan = {**campaign.loan, "balance": made.debt}
    log(campaign, "ship", f"Ship {made.name}: hull {made.hull}/{made.max_hull}, debt {made.debt} credits", before=before_edit)
    touch(campaign)
    return ship


def _ship_components(ship: Ship) -> tuple[ship_engine.Component, ...]:
    return tuple(ship_engine.Component.from_dict(c) for c in (ship.components or []))


@transaction.atomic
def ship_component(
    *,
    user: Any,
    campaign_id: int,
    version: int | None,
    name: str,
    core_cost: int | None = None,
    miniaturized: bool = False,
    retrofit: bool = False,
) -> Ship:
    """Buy a component (p.27 parts at their price, core parts at ``core_cost``), optionally
    miniaturized (+5 credits), or ``retrofit`` the miniaturized mod on one you have (8 credits).
    Miniaturized components do not count towards fuel costs."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    ship = _ship(campaign)
    tables = fiveparsecs_tables()
    current = ship_engine_of(ship)
    if retrofit:
        made, price = engine_call(lambda: ship_engine.miniaturize(current, name, tables))
        what = f"miniaturized {name}"
    else:
        made, price = engine_call(
            lambda: ship_engine.component_buy(current, name, tables, core_cost=core_cost, miniaturized=miniaturized)
        )
        what = f"{name}{' (miniaturized)' if miniaturized else ''}"
    _pay(campaign, price, what)
    _ship_store(ship, made)
    campaign.save()
    fuel = ship_engine.fuel_relevant_components(made)
    log(
        campaign,
        "ship",
        f"Ship: {what} for {price} credits; {fuel} components count for fuel",
        changes=[Change("credits", {"amount": -price})],
        before=before_edit,
    )
    touch(campaign)
    return ship


def starting_crew_count(campaign: Campaign) -> int:
    """How many figures the crew starts with (crew size, or 3 when Short-handed, p.34)."""
    return difficulty.starting_crew_count(options_of(campaign))


@transaction.atomic
def species_roll(*, user: Any, campaign_id: int, version: int | None, value: int | None = None, dice: Dice | None = None) -> str:
    """Roll the new Primary Alien table (p.16, D100) for a recruit's species, or look up the
    player's ``value`` (1-100). The roll goes into the log; returns the species key (``krag``,
    ``engineer`` ...) for the new-crew form. Raises :class:`DropshipError` (``value``) for a
    number off the table."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    species, rolled = engine_call(lambda: ch.primary_alien(fiveparsecs_tables(), dice or Dice(), value), dice_field="value")
    log(
        campaign,
        "crew",
        f"Primary Alien (p.16): {rolled.record.total} gives {rolled.entry.result}.",
        rolls=[rolled.record],
        before=before_edit,
    )
    touch(campaign)
    return species


@dataclass(frozen=True)
class _Member:
    id: str
    species: str
    status: str


@transaction.atomic
def fight_pick(
    *, user: Any, campaign_id: int, version: int | None, face: int | None = None, dice: Dice | None = None
) -> Character:
    """Who gets into a fight or a row among the crew (a character event's random crew member):
    always a Krag when one is active, rolled among them, else anyone active (p.12). ``face`` is
    the player's own pick, 1 to the number of candidates in crew order. The pick and its roll go
    into the log, with the reminder that Story Points cannot dodge a Krag's fight. Raises
    :class:`DropshipError` when no one is active or ``face`` is out of range."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    members = list(campaign.characters.order_by("id"))
    crew = [_Member(str(m.pk), m.species, m.status) for m in members]
    pick = engine_call(lambda: ch.fight_candidate(crew, dice or Dice(), face=face), dice_field="face")
    chosen = next(m for m in members if str(m.pk) == pick.id)
    note = " A Krag: no Story Point can avoid or reroll it." if pick.krag else ""
    log(
        campaign,
        "crew",
        f"In the fight (p.12): {chosen.name}.{note}",
        rolls=[pick.roll] if pick.roll else [],
        before=before_edit,
    )
    touch(campaign)
    return chosen
