"""Friends' crews meet: a PvP battle between two players' campaigns (Compendium pp.35-38), or
an expanded co-op battle where they fight together (pp.39-41), by the meeting's ``kind``.

The flow, each step from the player's own device and campaign:

1. :func:`meeting_invite`: an editor of the host campaign makes an invitation code;
2. :func:`meeting_accept`: an editor of another campaign (usually another user's) accepts it
   with that campaign; the meeting records which turn of each campaign it belongs to;
3. :func:`meeting_field`: each player picks the figures they bring (active crew, not in Sick
   Bay), up to the smaller campaign crew size unless both agreed on another number (p.35);
4. :func:`meeting_setup`: the set-up card (:func:`battles.engine.fp_pvp.generate`): battle
   reason, Power Ratings, initiative points, Seize the Initiative, deployment order, the First
   Player token and the optional third party; every roll goes to both campaigns' logs. A co-op
   battle rolls its enemy waves instead (:func:`coop_setup`);
5. :func:`meeting_track`: the live tracker, each player seated on their own side;
6. :func:`meeting_finish`: each campaign gets its side's result as a finished battle for its
   turn's Record the battle step.

A meeting is seen by the readers of either campaign; a write acts for the side(s) whose campaign
the user edits. Every write is versioned (:mod:`rules.writes`).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q, QuerySet

from battles import pvp_kind, result_services, services
from battles.engine import fp_pvp
from battles.engine.fp_pvp import coop as fp_coop
from battles.engine.fp_pvp import third as fp_third
from battles.models import Battle, Meeting
from campaigns import services as campaign_services
from campaigns.engine.turn.battle import COOP, PVP, BattleRecord
from campaigns.models import Campaign
from campaigns.permissions import EDITOR, campaign_for
from campaigns.selectors import campaign_list, current_turn, fiveparsecs_tables
from live.engine.tracker import Role
from live.models import Membership
from live.services import room_act, room_create, room_share, room_unshare
from rules import writes
from rules.engine.dice import Dice, DiceError
from rules.errors import DropshipError, NotAllowed, NotFound, rule_errors

MISSING = "No such meeting, or neither of its campaigns is shared with you."
#: A meeting's kinds (:attr:`battles.models.Meeting.kind`): a PvP battle (pp.35-38) or an expanded co-op battle (pp.39-41).
KINDS: tuple[str, ...] = ("pvp", "coop")


def _called(meeting: Meeting) -> str:
    return "Co-op battle" if meeting.kind == "coop" else "PvP battle"


def _side_campaigns(meeting: Meeting) -> dict[str, int]:
    return {side: pk for side, pk in (("host", meeting.host_id), ("guest", meeting.guest_id)) if pk is not None}


def sides_of(user: Any, meeting: Meeting, *, at_least: Role = Role.VIEWER) -> list[str]:
    """The sides (``host``, ``guest``) whose campaign ``user`` holds with at least ``at_least``."""
    sides: list[str] = []
    for side, campaign_id in _side_campaigns(meeting).items():
        try:
            campaign_for(user, campaign_id, at_least=at_least)
        except (NotFound, NotAllowed):
            continue
        sides.append(side)
    return sides


def editable_campaigns(user: Any) -> QuerySet[Campaign]:
    """The campaigns ``user`` edits (owns, or plays as an editor): those that may host or accept
    a PvP battle. One query."""
    played = Membership.objects.filter(user=user, role__in=(Role.OWNER.value, Role.PLAYER.value)).values("room_id")
    return Campaign.objects.filter(Q(owner=user) | Q(room_id__in=played)).distinct().order_by("-updated", "-id")


def crew_choices(meeting: Meeting, side: str) -> list[dict[str, Any]]:
    """The figures ``side`` may field (active, not in Sick Bay): ``{"id", "name", "picked"}``."""
    campaign = meeting.host if side == "host" else meeting.guest
    if campaign is None:
        return []
    picked = set((meeting.fielded or {}).get(side) or ())
    fit = campaign.characters.filter(status="active", sick_bay=0).order_by("position", "pk")
    return [{"id": c.pk, "name": c.name, "picked": c.pk in picked} for c in fit]


def reason_choices() -> list[tuple[str, str]]:
    """The PvP battle reasons (p.35) to pick from: ``(key, name)``."""
    table = fiveparsecs_tables().get(fp_pvp.setup.REASONS)
    return [] if table is None else [(str(e.data.get("reason")), e.result) for e in table.entries]


def meeting_for(user: Any, meeting_id: int, *, at_least: Role = Role.VIEWER, lock: bool = False) -> tuple[Meeting, list[str]]:
    """The meeting ``meeting_id`` and the sides ``user`` may act for with ``at_least`` (an
    editor's to change it).

    Raises :class:`NotFound` (404) for a user who reads neither campaign and :class:`NotAllowed`
    (403) when the user holds neither campaign with ``at_least``."""
    rows = Meeting.objects.select_related("host", "guest", "referee")
    meeting = (writes.lock(rows) if lock else rows).filter(pk=meeting_id).first()
    if meeting is None or not (sides_of(user, meeting) or is_referee(user, meeting)):
        raise NotFound(MISSING, field="meeting")
    sides = sides_of(user, meeting, at_least=at_least)
    if not sides and at_least == Role.VIEWER:
        return meeting, sides  # the referee reads the meeting
    if not sides:
        raise NotAllowed("Only an editor of one of the two campaigns may change this meeting.", field="meeting")
    return meeting, sides


def meetings_of(user: Any, *, kind: str = "", status: str = "") -> QuerySet[Meeting]:
    """The meetings of every campaign ``user`` can read (:func:`campaigns.selectors.campaign_list`)
    and those they referee, newest first; ``kind`` (pvp, coop) and ``status`` (invited, accepted,
    set_up, tracking, finished) filter them when given."""
    campaigns = campaign_list(user=user).values("pk")
    meetings = Meeting.objects.filter(Q(host__in=campaigns) | Q(guest__in=campaigns) | Q(referee=user.pk))
    if kind:
        meetings = meetings.filter(kind=kind)
    if status:
        meetings = meetings.filter(status=status)
    return meetings.select_related("host", "guest").order_by("-updated", "-id")


def _log_both(meeting: Meeting, text: str, *, rolls: Sequence[Mapping[str, Any]] = ()) -> None:
    for campaign in (meeting.host, meeting.guest):
        if campaign is not None:
            campaign_services.log(campaign, "battle", text, rolls=rolls)


def meeting_invite(*, user: Any, campaign_id: int, kind: str = "pvp") -> Meeting:
    """Invite another campaign to a PvP battle (p.35) or, with ``kind`` ``coop``, to an expanded
    co-op battle (p.39): a new meeting hosted by ``campaign_id`` (the user must edit it), with an
    8-character ``code`` to give the other player. Raises :class:`DropshipError` naming ``kind``."""
    with transaction.atomic():
        campaign, _ = campaign_for(user, campaign_id, at_least=EDITOR, lock=True)
        if kind not in KINDS:
            raise DropshipError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}.", field="kind")
        code = secrets.token_hex(4).upper()
        while Meeting.objects.filter(code=code).exists():
            code = secrets.token_hex(4).upper()
        meeting = Meeting.objects.create(code=code, host=campaign, host_turn=campaign.turn, kind=kind)
        pages = "pp.39-41" if kind == "coop" else "pp.35-38"
        campaign_services.log(campaign, "battle", f"{_called(meeting)} invitation made: code {code} ({pages}).")
    return meeting


def meeting_accept(*, user: Any, code: str, campaign_id: int) -> Meeting:
    """Accept the invitation ``code`` with ``campaign_id`` (the user must edit it): the meeting
    records the guest campaign and its turn. Raises :class:`NotFound` naming ``code`` for no open
    invitation, and :class:`DropshipError` naming ``campaign`` for the host campaign itself."""
    with transaction.atomic():
        campaign, _ = campaign_for(user, campaign_id, at_least=EDITOR, lock=True)
        meeting = writes.lock(Meeting.objects.select_related("host")).filter(code=str(code or "").strip().upper()).first()
        if meeting is None or meeting.status != "invited":
            raise NotFound("No open invitation with that code: ask the host for a new one.", field="code")
        if meeting.host_id == campaign.pk:
            raise DropshipError("A campaign cannot fight itself: accept with another campaign.", field="campaign")
        meeting.guest = campaign
        meeting.guest_turn = campaign.turn
        meeting.status = "accepted"
        writes.bump(meeting)
        together = "with" if meeting.kind == "coop" else "against"
        _log_both(
            meeting,
            f"{_called(meeting)} agreed: {meeting.host.crew_name or meeting.host.name} (turn {meeting.host_turn}) {together} "
            f"{campaign.crew_name or campaign.name} (turn {campaign.turn}) ({'p.39' if meeting.kind == 'coop' else 'p.35'}).",
        )
    return meeting


def _campaign_of(meeting: Meeting, side: str) -> Campaign:
    campaign = meeting.host if side == "host" else meeting.guest
    assert campaign is not None
    return campaign


def crew_limit(meeting: Meeting, side: str = "host") -> int:
    """Figures ``side`` may bring. PvP (p.35): the two campaigns' crew sizes' smaller one, or the
    number both players agreed on. Co-op (p.39): each crew as its own campaign's crew size."""
    if meeting.kind == "coop":
        campaign = meeting.guest if side == "guest" and meeting.guest is not None else meeting.host
        return campaign_services.options_of(campaign).crew_size
    host = campaign_services.options_of(meeting.host).crew_size
    guest = campaign_services.options_of(meeting.guest).crew_size if meeting.guest else host
    agreed = meeting.agreed_crew or {}
    both = agreed.get("host") if agreed.get("host") is not None and agreed.get("host") == agreed.get("guest") else None
    with rule_errors():
        return fp_pvp.crew_count(host, guest, both)


def _acting_side(sides: Sequence[str], side: str | None) -> str:
    if side is None:
        if len(sides) > 1:
            raise DropshipError("You edit both campaigns: say which side you field (host or guest).", field="side")
        return sides[0]
    if side not in fp_pvp.SIDES:
        raise DropshipError(f"side must be host or guest; got {side!r}.", field="side")
    if side not in sides:
        raise NotAllowed(f"You do not edit the {side}'s campaign.", field="side")
    return side


def meeting_field(
    *,
    user: Any,
    meeting_id: int,
    version: int | None,
    figures: Sequence[int],
    side: str | None = None,
    agreed_crew: int | None = None,
) -> Meeting:
    """Pick the figures a side brings (``figures``: Character ids of that side's campaign,
    active and not in Sick Bay, p.35) and, optionally, the crew count that player agrees to
    (``agreed_crew``, 1-8; it counts once both players agreed on the same number). ``side`` is
    needed only by a user who edits both campaigns. Raises :class:`DropshipError` naming
    ``figures`` (unknown, repeated, unfit or too many), ``side`` or ``agreed_crew``; 409 on a
    stale ``version``; refused once the battle is set up."""
    with transaction.atomic():
        meeting, sides = meeting_for(user, meeting_id, at_least=EDITOR, lock=True)
        writes.check_version(meeting, version)
        if meeting.status != "accepted":
            raise DropshipError(
                "Figures are picked once the invitation is accepted and before the set-up."
                if meeting.status == "invited"
                else "The battle is set up: the figures are fixed.",
                field="figures",
            )
        acting = _acting_side(sides, side)
        if agreed_crew is not None and meeting.kind == "coop":
            raise DropshipError(
                "agreed_crew is a PvP rule (p.35): a co-op crew brings up to its own crew size.", field="agreed_crew"
            )
        if agreed_crew is not None:
            with rule_errors():
                fp_pvp.crew_count(1, 1, agreed_crew)
            meeting.agreed_crew = {**(meeting.agreed_crew or {}), acting: int(agreed_crew)}
        campaign = _campaign_of(meeting, acting)
        picked = [int(pk) for pk in figures]
        if len(set(picked)) != len(picked):
            raise DropshipError("figures names a crew member twice.", field="figures")
        fit = {c.pk: c for c in campaign.characters.filter(pk__in=picked)}
        for pk in picked:
            member = fit.get(pk)
            if member is None:
                raise DropshipError(f"figures: {pk} is not a crew member of {campaign.name}.", field="figures")
            if member.status != "active" or member.sick_bay:
                raise DropshipError(f"figures: {member.name} is not fit to fight (in Sick Bay or gone).", field="figures")
        limit = crew_limit(meeting, acting)
        if not 1 <= len(picked) <= limit:
            why = "your crew size, p.39" if meeting.kind == "coop" else "the smaller crew size, p.35"
            raise DropshipError(f"figures: bring 1 to {limit} crew ({why}).", field="figures")
        meeting.fielded = {**(meeting.fielded or {}), acting: picked}
        writes.bump(meeting)
        names = ", ".join(fit[pk].name for pk in picked)
        campaign_services.log(campaign, "battle", f"{_called(meeting)} {meeting.code}: fielding {names}.")
    return meeting


def _fielded_figures(meeting: Meeting, side: str, tables: Any) -> list[dict[str, Any]]:
    """The side's fielded figures as battle figures (:func:`battles.services._campaign_crew`)."""
    picked = [str(pk) for pk in (meeting.fielded or {}).get(side) or ()]
    crew = {figure["ref"]: figure for figure in services._campaign_crew(_campaign_of(meeting, side), tables)}
    missing = [pk for pk in picked if pk not in crew]
    if missing or not picked:
        raise DropshipError(
            f"The {side} side must pick its figures again: {'none picked' if not picked else 'one is no longer fit'}.",
            field="figures",
        )
    return [crew[pk] for pk in picked]


#: Where a PvP battle is fought (p.35): neutral ground, or the current world of one campaign.
LOCATIONS = ("neutral", "host", "guest")


def _location(meeting: Meeting, where: str) -> dict[str, Any]:
    """The battle's location for the card: ``{"where", "world", "traits"}``. Raises
    :class:`DropshipError` naming ``location`` for another value or a campaign with no world."""
    if where not in LOCATIONS:
        raise DropshipError(f"location must be one of {', '.join(LOCATIONS)}; got {where!r}.", field="location")
    if where == "neutral":
        return {"where": where, "world": "", "traits": []}
    campaign = _campaign_of(meeting, where)
    world = campaign.worlds.filter(current=True).first()
    if world is None:
        raise DropshipError(f"location: {campaign.name} has no current world yet; fight on neutral ground.", field="location")
    return {"where": where, "world": world.name, "traits": [str(t) for t in world.traits or ()]}


def meeting_setup(
    *,
    user: Any,
    meeting_id: int,
    version: int | None,
    reason: str | None = None,
    reason_face: int | None = None,
    cinematic: bool = False,
    seize: Mapping[str, Mapping[str, Any] | None] | None = None,
    third_party: bool = False,
    third_party_category: str = "",
    third_party_numbers: int | None = None,
    faces: Mapping[str, int | None] | None = None,
    location: str = "neutral",
    dice: Dice | None = None,
) -> Meeting:
    """Roll the PvP set-up (pp.35-37) once both sides fielded their figures.

    ``location`` (p.35): ``neutral`` (a moon colony, a station...: both crews shuttle in and no
    world rules apply), or ``host`` / ``guest``: the current world of that side's campaign, as
    established there (its traits go on the card for the table to apply).

    ``seize``: per side ``{"dice", "target", "faces"?}`` from the core rulebook (a side left out
    does not roll); the side's modifier is its figures' best (a Bot's Multi-wave scanner, p.26).
    ``faces``: typed dice, ``first_deploy``, ``first_player``, ``third_party`` (D100) and
    ``third_party_round``. A three-way battle (``third_party``) also builds the third party's
    force (:func:`_third_party_force`: ``third_party_category`` picked, ``third_party_numbers``
    from the core numbers roll). Writes the card to ``setup`` with each side's figures and logs every
    roll in both campaigns. Raises :class:`DropshipError` naming the field; 409 on a stale
    ``version``."""
    faces = faces or {}
    with transaction.atomic():
        meeting, _ = meeting_for(user, meeting_id, at_least=EDITOR, lock=True)
        writes.check_version(meeting, version)
        if meeting.kind == "coop":
            raise DropshipError("This is a co-op battle: roll its enemy waves with the co-op set-up.", field="meeting")
        if meeting.status != "accepted":
            raise DropshipError("Set up a PvP battle once it is accepted, and only once.", field="meeting")
        tables = fiveparsecs_tables()
        figures = {side: _fielded_figures(meeting, side, tables) for side in fp_pvp.SIDES}
        limit = crew_limit(meeting)
        for side, fielded in figures.items():
            if len(fielded) > limit:
                raise DropshipError(f"The {side} side brings {len(fielded)} crew; at most {limit} (p.35).", field="figures")
        rolls_of: dict[str, fp_pvp.Seize | None] = {}
        for side in fp_pvp.SIDES:
            raw = (seize or {}).get(side)
            rolls_of[side] = (
                None
                if not raw
                else fp_pvp.Seize(
                    dice=str(raw.get("dice") or ""),
                    target=int(raw.get("target") or 0),
                    modifier=services.crew_seize_modifier(figures[side]),
                    faces=raw.get("faces"),
                )
            )
        with rule_errors():
            card = fp_pvp.generate(
                dice or Dice(),
                tables,
                figures=figures,
                reason=reason or None,
                reason_face=reason_face,
                cinematic=cinematic,
                seize=rolls_of,
                first_deploy_face=faces.get("first_deploy"),
                first_player_face=faces.get("first_player"),
                third_party=third_party,
                third_party_face=faces.get("third_party"),
                third_party_round_face=faces.get("third_party_round"),
            )
        if card["third_party"]:
            card["third_party"] = _third_party_force(
                meeting, card["third_party"], third_party_category, third_party_numbers, figures, dice or Dice()
            )
            card["rolls"] = [*card["rolls"], *card["third_party"].pop("rolls")]
        meeting.setup = {
            **card,
            "figures": figures,
            "crew_limit": limit,
            "cinematic": bool(cinematic),
            "location": _location(meeting, location),
        }
        meeting.status = "set_up"
        writes.bump(meeting)
        rating = card["power_rating"]
        _log_both(
            meeting,
            f"PvP battle {meeting.code} set up: {card['reason']['result']}; Power Rating host {rating['host']['total']}, "
            f"guest {rating['guest']['total']}; initiative points host {card['initiative_points']['host']}, "
            f"guest {card['initiative_points']['guest']}; {card['deploys_first']} deploys first, "
            f"{card['first_player']} holds the First Player token (pp.35-36).",
            rolls=card["rolls"],
        )
    return meeting


def coop_setup(
    *,
    user: Any,
    meeting_id: int,
    version: int | None,
    forces: Mapping[str, Mapping[str, Any]],
    wave3_numbers: int,
    order_face: int | None = None,
    increased_challenge: bool = False,
    invasion: Sequence[int] = (),
    location: str = "neutral",
    separate_teams: bool = False,
    rivals: bool = False,
    rival_faces: Mapping[str, int | None] | None = None,
    dice: Dice | None = None,
) -> Meeting:
    """Roll an expanded co-op battle's enemy waves once both crews are fielded (p.40,
    :func:`battles.engine.fp_pvp.coop.coop_waves`), with the host campaign's difficulty options.

    ``forces``: ``{"host": {"category", "numbers"}, "guest": {...}}``, the enemy each player
    rolls up (``numbers`` from their core numbers roll, 1-12); ``wave3_numbers``: the core
    numbers roll for Wave 3; ``order_face``: the D6 when both forces are equal; ``invasion``:
    the waves whose type is an Invasion Threat (1-3); ``increased_challenge``: the p.41
    variant; ``location`` as for :func:`meeting_setup` (a world keeps its traits, p.39);
    ``separate_teams``: the Separate Enemy Teams variant (p.41: each force with its own
    campaign's difficulty and crew size; the host's is Wave 1); ``rivals``: a showdown against
    a coalition of Rivals (p.39): each campaign's Rival picked at random (a D100 split evenly
    over its Rival list, in the list's order; typed ``rival_faces`` per side), each force built
    as that Rival's. No Seize the
    Initiative and no initiative points (p.40). Every roll goes to both logs. Raises
    :class:`DropshipError` naming the field (``rivals`` when a campaign has none); 409 on a
    stale ``version``."""
    with transaction.atomic():
        meeting, _ = meeting_for(user, meeting_id, at_least=EDITOR, lock=True)
        writes.check_version(meeting, version)
        if meeting.kind != "coop":
            raise DropshipError("This is a PvP battle: roll its set-up with the PvP set-up.", field="meeting")
        if meeting.status != "accepted":
            raise DropshipError("Set up a co-op battle once it is accepted, and only once.", field="meeting")
        tables = fiveparsecs_tables()
        figures = {side: _fielded_figures(meeting, side, tables) for side in fp_pvp.SIDES}
        place = _location(meeting, location)
        dice = dice or Dice()
        coalition, picks = _rival_coalition(meeting, dice, rival_faces or {}) if rivals else ({}, [])
        own = {side: (campaign_services.options_of(_campaign_of(meeting, side)), len(figures[side])) for side in fp_pvp.SIDES}
        with rule_errors():
            made = fp_coop.coop_waves(
                dice,
                tables,
                forces=forces,
                wave3_numbers=wave3_numbers,
                crew_size=sum(len(f) for f in figures.values()),
                options=campaign_services.options_of(meeting.host),
                order_face=order_face,
                increased_challenge=increased_challenge,
                invasion=invasion,
                separate_teams=own if separate_teams else None,
                rivals=coalition or None,
            )
        rolls = [*picks, *made.pop("rolls")]
        meeting.setup = {
            "mode": fp_pvp.COOP,
            "figures": figures,
            "third_party": {"panic": fp_coop.TOUGH_PANIC, **made},
            "location": place,
            "increased_challenge": bool(increased_challenge),
            "separate_teams": bool(separate_teams),
            "rivals": coalition,
            "rolls": rolls,
        }
        meeting.status = "set_up"
        writes.bump(meeting)
        waves = "; ".join(
            f"Wave {w['wave']} {w['category']}, {w['type']} ({w['count']}){', Rival ' + w['rival'] if w['rival'] else ''}"
            for w in made["waves"]
        )
        _log_both(meeting, f"Co-op battle {meeting.code} set up: {waves}; Wave 3 waits for its check (p.40).", rolls=rolls)
    return meeting


def _rival_coalition(
    meeting: Meeting, dice: Dice, faces: Mapping[str, int | None]
) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """Each campaign's Rival for a coalition (p.39), picked at random: ``({side: name}, rolls)``.
    Raises :class:`DropshipError` naming ``rivals`` for a campaign with none and
    ``rival_faces`` for a face its die cannot show."""
    picked: dict[str, str] = {}
    rolls: list[dict[str, Any]] = []
    for side in fp_pvp.SIDES:
        campaign = _campaign_of(meeting, side)
        rivals = list(campaign.rivals.all())
        if not rivals:
            raise DropshipError(
                f"rivals: {campaign.name} has no Rival; a Rival coalition takes one from each crew (p.39).", field="rivals"
            )
        if len(rivals) == 1:
            picked[side] = rivals[0].name
            continue
        try:
            record = dice.roll_or_enter(
                "D100",
                f"{campaign.name} picks its Rival for the coalition: D100 split evenly over its {len(rivals)} Rivals (p.39)",
                faces=faces.get(side),
            )
        except DiceError as exc:
            raise DropshipError(f"rival_faces.{side}: {exc}", field="rival_faces") from None
        picked[side] = rivals[(int(record.total or 1) - 1) * len(rivals) // 100].name
        rolls.append(record.as_dict())
    return picked, rolls


def _seats(campaign: Campaign) -> tuple[list[int], list[int]]:
    """A campaign's players (its owner and editors) and readers, as user ids."""
    players: list[int] = [campaign.owner_id]
    readers: list[int] = []
    if campaign.room_id is not None:
        for member in Membership.objects.filter(room_id=campaign.room_id):
            if member.user_id == campaign.owner_id:
                continue
            (readers if member.role == Role.VIEWER.value else players).append(member.user_id)
    return players, readers


def meeting_track(
    *,
    user: Any,
    meeting_id: int,
    version: int | None,
    dramatic_combat: bool | None = None,
    hit_numbers: Mapping[str, int] | None = None,
) -> Meeting:
    """Open the PvP battle's live tracker (kind ``fiveparsecs-pvp``): each campaign's owner and
    editors sit on its side and play only its figures; both campaigns' readers watch.
    ``dramatic_combat``: play with Dramatic Combat (p.87; default: when both campaigns use it);
    otherwise ``hit_numbers`` {open, cover} from the core rulebook are required. Asked again it
    returns the meeting as it is. Raises :class:`DropshipError` naming the field; 409 on a stale
    ``version``."""
    with transaction.atomic():
        meeting, _ = meeting_for(user, meeting_id, at_least=EDITOR, lock=True)
        if meeting.status == "tracking":
            return meeting
        writes.check_version(meeting, version)
        if meeting.status != "set_up":
            raise DropshipError("Roll the set-up first; a finished battle is not tracked again.", field="meeting")
        host, guest = meeting.host, _campaign_of(meeting, "guest")
        dramatic = (
            bool(dramatic_combat)
            if dramatic_combat is not None
            else all(campaign_services.options_of(c).dramatic_combat for c in (host, guest))
        )
        seats = {"host": _seats(host), "guest": _seats(guest)}
        referee = meeting.referee_id
        names = {"host": host.crew_name or host.name, "guest": guest.crew_name or guest.name}
        setup = {
            "card": meeting.setup,
            "names": names,
            "players": {side: [str(pk) for pk in seats[side][0]] for side in fp_pvp.SIDES},
            "dramatic_combat": dramatic,
            "hit_numbers": dict(hit_numbers) if hit_numbers else None,
            "referee": str(referee) if referee else None,
        }
        room = room_create(
            user=user,
            kind=pvp_kind.KIND,
            title=f"Co-op: {names['host']} and {names['guest']}"
            if meeting.kind == "coop"
            else f"PvP: {names['host']} vs {names['guest']}",
            options={"setup": setup},
            unlisted=True,
        )
        members = {pk: Role.VIEWER.value for side in fp_pvp.SIDES for pk in seats[side][1]}
        members.update({pk: Role.PLAYER.value for side in fp_pvp.SIDES for pk in seats[side][0]})
        if referee:
            members[referee] = Role.PLAYER.value
        room_share(room, members)
        meeting.room = room
        meeting.status = "tracking"
        writes.bump(meeting)
        _log_both(meeting, f"{_called(meeting)} {meeting.code} is on the table: {room.title} (room {room.pk}).")
    return meeting


def _finished_battle(meeting: Meeting, side: str, campaign: Campaign, *, title: str, enemy: str, category: str) -> Battle:
    """The finished battle ``side``'s campaign keeps of a meeting: its fielded figures, the enemy
    named, and the meeting it came from (``setup[meeting.kind]``)."""
    playing = current_turn(campaign)
    return Battle.objects.create(
        owner=campaign.owner,
        campaign=campaign,
        # The turn being played takes it; between turns, the next turn's Record the battle does.
        turn_number=playing.number if playing is not None else None,
        title=title,
        status="finished",
        setup={
            "crew": (meeting.setup or {}).get("figures", {}).get(side) or [],
            "enemy": {"type": enemy, "category": category},
            meeting.kind: {"meeting": meeting.pk, "side": side},
        },
    )


def _side_battle(meeting: Meeting, side: str, result: Mapping[str, Any]) -> Battle:
    """The finished battle a side's campaign keeps (p.37): its figures, the other crew as the
    enemy, and a record for its turn's Record the battle step: won when the side completed its
    objective (the pay bonus for winning), Hold the Field as the tracker decided, its
    casualties, no Rivals or Battlefield Finds, a bonus Loot roll against a Power Rating of 5+."""
    campaign, other = _campaign_of(meeting, side), _campaign_of(meeting, "guest" if side == "host" else "host")
    mine = result[side]
    if meeting.kind == "coop":
        return _coop_battle(meeting, side, campaign, other, mine)
    title = f"PvP: {campaign.crew_name or campaign.name} vs {other.crew_name or other.name}"[:80]
    battle = _finished_battle(meeting, side, campaign, title=title, enemy=other.crew_name or other.name, category="PvP")
    record = BattleRecord(
        battle_id=battle.pk,
        title=title,
        won=bool(mine["objective_done"]),
        held_field=bool(mine["held_field"]),
        casualties=tuple(str(f["ref"]) for f in mine["casualties"] if f.get("ref")),
        enemy=other.crew_name or other.name,
        mission_type=PVP,
        bonus_loot=int(mine["loot_rolls"]) - 1,
    )
    battle.result = {**mine, "casualties": [f["name"] for f in mine["casualties"]], "source": "pvp", "record": record.as_dict()}
    battle.save(update_fields=["result"])
    return battle


def _coop_battle(meeting: Meeting, side: str, campaign: Campaign, other: Campaign, mine: Mapping[str, Any]) -> Battle:
    """A co-op battle as the finished battle ``side``'s campaign keeps (p.41): won and Held the
    Field when either crew did; its casualties; the enemy waves faced; the record carries the
    aftermath for the turn's steps: +1 to the credits roll, the Invasion check's modifier (+1
    per wave faced with the Invasion Threat trait), and the shared Loot roll, which one player
    makes (the host's campaign rolls it; both crews take the item, p.41)."""
    waves = [w for w in (meeting.setup or {}).get("third_party", {}).get("waves") or () if w["wave"] in mine["waves_faced"]]
    rival = ((meeting.setup or {}).get("rivals") or {}).get(side)
    enemy = (f"Rival coalition: {rival} and ally; " if rival else "") + ", ".join(f"Wave {w['wave']}: {w['type']}" for w in waves)
    enemy = enemy[:80] or "Co-op waves"
    title = f"Co-op: {campaign.crew_name or campaign.name} with {other.crew_name or other.name}"[:80]
    battle = _finished_battle(meeting, side, campaign, title=title, enemy=enemy, category="Co-op waves")
    record = BattleRecord(
        battle_id=battle.pk,
        title=title,
        won=bool(mine["won"]),
        held_field=bool(mine["held_field"]),
        casualties=tuple(str(f["ref"]) for f in mine["casualties"] if f.get("ref")),
        enemy=enemy,
        elite=True,
        mission_type=COOP,
        bonus_loot=int(mine["shared_loot"]) if side == "host" else 0,
        pay_bonus=int(mine["pay_bonus"]),
        invasion_modifier=int(mine["invasion"]["modifier"]),
    )
    shared = "your campaign rolls the shared Loot item" if side == "host" else "the host's campaign rolls the shared Loot item"
    battle.result = {
        **mine,
        "casualties": [f["name"] for f in mine["casualties"]],
        "source": "coop",
        "shared_loot_by": "host",
        "note": f"+1 when rolling for credits; {shared}; both crews take it (p.41).",
        "record": record.as_dict(),
    }
    battle.save(update_fields=["result"])
    return battle


def meeting_finish(*, user: Any, meeting_id: int, version: int | None) -> Meeting:
    """Finish a PvP battle whose tracker is over: each campaign gets a finished battle of its own
    with its side's result (:func:`_side_battle`), and a campaign of the user's whose turn is at
    Record the battle records it at once (the other player's turn takes it when it gets there).
    Both logs say so. Raises :class:`DropshipError` while the battle is still being played; 409
    on a stale ``version``."""
    with transaction.atomic():
        meeting, sides = meeting_for(user, meeting_id, at_least=EDITOR, lock=True)
        writes.check_version(meeting, version)
        if meeting.status != "tracking" or meeting.room is None:
            raise DropshipError(f"Only a {_called(meeting)} being tracked can be finished.", field="meeting")
        state = meeting.room.state
        if state.get("phase") != "over":
            raise DropshipError(
                "The battle is still going: play it to the end on the tracker (or agree to end it).", field="status"
            )
        result = fp_pvp.outcome(state)
        meeting.result = result
        meeting.status = "finished"
        writes.bump(meeting)
        battles = {side: _side_battle(meeting, side, result) for side in fp_pvp.SIDES}
        for side in sides:
            result_services.record_in_turn(user, battles[side])
        held = result["held_field"]
        if held == "both":
            words = "both crews Hold the Field and win (p.41)"
        elif held in (None, "none"):
            words = "nobody Holds the Field (p.37)" if meeting.kind == "pvp" else "the crews did not Hold the Field (p.41)"
        else:
            words = f"{_campaign_of(meeting, held).name} Holds the Field (p.37)"
        _log_both(meeting, f"{_called(meeting)} {meeting.code} finished after {result['rounds']} round(s): {words}.")
    return meeting


# -- the three-way battle's third party and its referee (p.37; issue #21 items 3 and 5) ----------


def _third_party_force(
    meeting: Meeting,
    card: Mapping[str, Any],
    category: str,
    numbers: int | None,
    figures: Mapping[str, Sequence[Any]],
    dice: Dice,
) -> dict[str, Any]:
    """The set-up card's third party with its force (:func:`fp_pvp.third.third_party_force`),
    built with the host campaign's difficulty options against both crews as one force. Raises
    :class:`DropshipError` naming ``third_party_category`` or ``third_party_numbers``."""
    if not category:
        raise DropshipError(
            f"third_party_category: pick the third party's enemy category ({', '.join(fp_third.CATEGORIES)}); "
            "its type is rolled on that category's table.",
            field="third_party_category",
        )
    if numbers is None:
        raise DropshipError(
            "third_party_numbers: give the enemy numbers your core rulebook's roll gives; p.37 adds its extras.",
            field="third_party_numbers",
        )
    with rule_errors():
        force = fp_third.third_party_force(
            dice,
            fiveparsecs_tables(),
            card,
            category=category,
            base_numbers=numbers,
            crew_size=sum(len(f) for f in figures.values()),
            options=campaign_services.options_of(meeting.host),
        )
    return {**card, **force}


def is_referee(user: Any, meeting: Meeting) -> bool:
    """Whether ``user`` sits as the meeting's referee."""
    return bool(getattr(user, "is_authenticated", False)) and meeting.referee_id == user.pk


def _seat_referee(meeting: Meeting, referee: Any) -> None:
    """Seat ``referee`` on the meeting, and at its live tracker when it is open: a player of the
    room who takes the referee's seat with the tracker's own logged action (undo stops there: the
    seat changes on the meeting's page)."""
    if meeting.status == "finished":
        raise DropshipError("This battle is finished: no referee is needed any more.", field="code")
    if meeting.referee_id is not None:
        raise DropshipError("This battle already has a referee.", field="code")
    if sides_of(referee, meeting):
        raise DropshipError("A player of either campaign cannot referee this battle: ask a third user.", field="code")
    meeting.referee = referee
    writes.bump(meeting)
    if meeting.room is not None:
        room_share(meeting.room, {referee.pk: Role.PLAYER.value})
        room_act(user=referee, room_id=meeting.room.pk, type="seat_referee", payload={}, version=meeting.room.version)
    _log_both(
        meeting, f"{_called(meeting)} {meeting.code}: {referee.get_username()} referees it and runs the third party (p.37)."
    )


def referee_join(*, user: Any, code: str) -> Meeting:
    """Take the referee's seat of the meeting whose ``code`` you were given (a third user,
    playing neither campaign): you see the battle live and run its third party. Raises
    :class:`NotFound` naming ``code`` for no such meeting, and :class:`DropshipError` naming
    ``code`` when it is finished, already refereed, or you play one of its campaigns."""
    with transaction.atomic():
        rows = writes.lock(Meeting.objects.select_related("host", "guest", "room"))
        meeting = rows.filter(code=str(code or "").strip().upper()).first()
        if meeting is None:
            raise NotFound("No PvP battle with that code: ask its host for it.", field="code")
        _seat_referee(meeting, user)
    return meeting


def referee_invite(*, user: Any, meeting_id: int, version: int | None, username: str) -> Meeting:
    """The host's editor seats the user called ``username`` as the meeting's referee. Raises
    :class:`NotAllowed` for anyone but an editor of the host campaign, :class:`DropshipError`
    naming ``username`` for no such user, and as :func:`referee_join`; 409 on a stale
    ``version``."""
    with transaction.atomic():
        meeting, sides = meeting_for(user, meeting_id, at_least=EDITOR, lock=True)
        writes.check_version(meeting, version)
        if "host" not in sides:
            raise NotAllowed("Only the host's players invite a referee.", field="username")
        referee = get_user_model().objects.filter(username=str(username or "").strip()).first()
        if referee is None:
            raise DropshipError("username: no user by that name.", field="username")
        try:
            _seat_referee(meeting, referee)
        except DropshipError as exc:
            raise DropshipError(exc.message, field="username") from exc
    return meeting


def check_frees_referee(user: Any, meeting: Meeting) -> None:
    """Refuse (:class:`NotAllowed` naming ``referee``) anyone but the meeting's referee and the
    host campaign's editors freeing its referee seat (:func:`referee_leave`)."""
    if not is_referee(user, meeting) and "host" not in sides_of(user, meeting, at_least=EDITOR):
        raise NotAllowed("Only the referee, or the host's players, free the referee's seat.", field="referee")


def referee_leave(*, user: Any, meeting_id: int, version: int | None) -> Meeting:
    """Free the meeting's referee seat (p.37): the referee leaves, or an editor of the host
    campaign unseats a referee whose device has gone. At the open tracker the seat is freed with
    the tracker's own logged ``unseat_referee`` (undo stops there) and either player runs the third party
    again; the former referee no longer sees the battle. Returns the meeting.

    Raises :class:`NotFound` for a user who reads neither campaign, :class:`NotAllowed` (naming
    ``referee``) for anyone but the referee and the host's editors, :class:`StaleVersion` (409)
    on a stale ``version``, and :class:`DropshipError` naming ``referee`` when nobody referees or
    the battle is finished."""
    with transaction.atomic():
        meeting, _ = meeting_for(user, meeting_id, lock=True)
        check_frees_referee(user, meeting)
        leaving = is_referee(user, meeting)
        writes.check_version(meeting, version)
        referee = meeting.referee
        if referee is None:
            raise DropshipError("This battle has no referee.", field="referee")
        if meeting.status == "finished":
            raise DropshipError("This battle is finished: its referee stays on its record.", field="referee")
        meeting.referee = None
        writes.bump(meeting)
        if meeting.room is not None:
            if meeting.room.state.get("referee"):  # the seat may have been freed at the tracker already
                room_act(user=user, room_id=meeting.room.pk, type="unseat_referee", payload={}, version=meeting.room.version)
            room_unshare(meeting.room, [referee.pk])
        how = "leaves" if leaving else f"is unseated by {user.get_username()}"
        _log_both(
            meeting,
            f"{_called(meeting)} {meeting.code}: the referee {referee.get_username()} {how}; the players run the third party again (p.37).",
        )
    return meeting
