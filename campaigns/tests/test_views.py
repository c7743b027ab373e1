"""Campaign screens through the test client: every page for the owner, a reader and an
outsider; a bad form comes back with the field named and the typed input kept."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from campaigns import crew_services, services, turn_services
from campaigns.models import CampaignJob

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(fiveparsecs_tables: None, player: Any):  # type: ignore[no-untyped-def]
    made = services.campaign_create(user=player, name="Screens", options={"psionics": "crew", "loans": True})
    made.refresh_from_db()
    crew_services.character_create(user=player, campaign_id=made.pk, version=made.version, name="Dorn", species="krag")
    made.refresh_from_db()
    turn_services.turn_start(user=player, campaign_id=made.pk, version=made.version)
    made.refresh_from_db()
    return made


def _pages(campaign: Any) -> list[str]:
    member = campaign.characters.get()
    entry = campaign.log.first()
    return [
        reverse("campaigns:list"),
        reverse("campaigns:detail", args=[campaign.pk]),
        reverse("campaigns:turn", args=[campaign.pk]),
        reverse("campaigns:settings", args=[campaign.pk]),
        reverse("campaigns:log", args=[campaign.pk]) + "?kind=step&q=turn",
        reverse("campaigns:log_entry", args=[campaign.pk, entry.pk]),
        reverse("campaigns:sheet", args=[campaign.pk]),
        reverse("campaigns:character", args=[campaign.pk, member.pk]),
        reverse("campaigns:import"),
    ]


def test_every_page_for_owner_reader_and_outsider(campaign: Any, player: Any, other: Any) -> None:
    owner = Client()
    owner.force_login(player)
    for url in _pages(campaign):
        assert owner.get(url).status_code == 200, url
    turn_page = owner.get(reverse("campaigns:turn", args=[campaign.pk])).content.decode()
    assert "Decide whether to travel" in turn_page and 'data-testid="roll"' in turn_page

    outsider = Client()
    outsider.force_login(other)
    assert outsider.get(reverse("campaigns:detail", args=[campaign.pk])).status_code == 404
    services.member_invite(user=player, campaign_id=campaign.pk, username=other.username, role="reader")
    reading = outsider.get(reverse("campaigns:turn", args=[campaign.pk])).content.decode()
    assert "Decide whether to travel" in reading and 'data-testid="roll"' not in reading
    refused = outsider.post(reverse("campaigns:act", args=[campaign.pk, "adjust"]), {"version": campaign.version, "credits": 5})
    assert refused.status_code == 403


def test_a_bad_form_names_the_field_and_keeps_the_input(campaign: Any, player: Any) -> None:
    client = Client()
    client.force_login(player)
    response = client.post(
        reverse("campaigns:act", args=[campaign.pk, "step"]),
        {"version": campaign.version, "page": "turn", "mode": "manual", "text": ""},
    )
    assert response.status_code == 400 and "text is required" in response.content.decode()
    stale = client.post(
        reverse("campaigns:act", args=[campaign.pk, "character_create"]),
        {"version": campaign.version - 1, "page": "detail", "name": "Late", "species": "skulker"},
    )
    assert stale.status_code == 409 and 'value="Late"' in stale.content.decode()
    made = client.post(reverse("campaigns:create"), {"name": "", "crew_size": "6"})
    assert made.status_code == 400 and "name is required" in made.content.decode()
    done = client.post(
        reverse("campaigns:act", args=[campaign.pk, "step"]),
        {"version": campaign.version, "page": "turn", "mode": "roll", "input_travel": "no"},
    )
    assert done.status_code == 302
    campaign.refresh_from_db()
    assert campaign.log.filter(step="travel.decide", text__contains="stay").exists()


def test_roll_species_fills_the_new_crew_form_and_undo_takes_a_change_back(campaign: Any, player: Any) -> None:
    client = Client()
    client.force_login(player)
    act = reverse("campaigns:act", args=[campaign.pk, "species_roll"])
    response = client.post(act, {"version": campaign.version, "value": "70"})
    assert response.status_code == 302 and response["Location"].endswith("?species=skulker#new-member")
    page = client.get(response["Location"]).content.decode()
    assert 'name="species" list="species-list" value="skulker"' in page
    assert "Undo: Primary Alien (p.16): 70 gives Skulker" in page
    campaign.refresh_from_db()
    bad = client.post(act, {"version": campaign.version, "value": "0"})
    assert bad.status_code == 400 and 'aria-invalid="true"' in bad.content.decode()
    client.post(reverse("campaigns:act", args=[campaign.pk, "undo"]), {"version": campaign.version})
    assert campaign.log.get(text__startswith="Primary Alien").undone


def test_a_battle_step_links_to_the_battle_set_up_for_this_campaign(campaign: Any, player: Any) -> None:
    client = Client()
    client.force_login(player)
    turn = campaign.turns.get()
    while turn_services.step_guide(campaign, turn)["spec"].phase != "battle":  # type: ignore[index]
        campaign.refresh_from_db()
        turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=campaign.version, mode="manual", text="ok")
        turn.refresh_from_db()
    page = client.get(reverse("campaigns:turn", args=[campaign.pk])).content.decode()
    assert f'href="/battles/fp/?campaign={campaign.pk}"' in page
    form = client.get(f"/battles/fp/?campaign={campaign.pk}").content.decode()
    assert f'<option value="{campaign.pk}" selected' in form


@pytest.mark.parametrize(
    ("name", "header"),
    [
        ("Sulaco\r\nSet-Cookie: x=1", 'attachment; filename="sulaco-set-cookie-x1-{id}.dropship.json"'),
        ('The "Bad" Crew', 'attachment; filename="the-bad-crew-{id}.dropship.json"'),
        ("Ñostromo Ωmega", "attachment; filename*=utf-8''%C3%B1ostromo-%CF%89mega-{id}.dropship.json"),
        ("", 'attachment; filename="campaign-{id}.dropship.json"'),
    ],
)
def test_an_export_download_names_its_file_safely_whatever_the_campaign_name(
    campaign: Any, player: Any, name: str, header: str
) -> None:
    job = CampaignJob.objects.create(
        owner=player, kind="export", campaign=campaign, state="done", document={"campaign": {"name": name}}
    )
    client = Client()
    client.force_login(player)
    response = client.get(reverse("campaigns:job_download", args=[job.pk]))
    assert response.status_code == 200
    assert response["Content-Disposition"] == header.format(id=campaign.pk)
    assert response.json() == {"campaign": {"name": name}}


@pytest.mark.parametrize(
    ("action", "fields", "named"),
    [
        ("character_update", {"xp": "2147483648"}, "xp must be a whole number from 0 to 1000000"),
        ("injury", {"injury": "Cut", "sick_bay": "40000"}, "sick_bay must be a whole number from 0 to 32767"),
        ("ship", {"ship_name": "Tin Can", "hull": "2147483648", "max_hull": "10"}, "hull must be a whole number from 0 to 32767"),
        ("adjust", {"credits": "99999999999999999999"}, "credits must be a whole number from -1000000 to 1000000"),
        ("creation_results", {"stat_savvy": "-40000"}, "stat_savvy must be a whole number from -99 to 99"),
    ],
)
def test_an_out_of_range_number_in_a_campaign_form_is_refused_naming_the_field_and_range(
    campaign: Any, player: Any, action: str, fields: dict[str, str], named: str
) -> None:
    client = Client()
    client.force_login(player)
    member = campaign.characters.get()
    body = {"version": campaign.version, "page": "detail", "character": member.pk, **fields}
    response = client.post(reverse("campaigns:act", args=[campaign.pk, action]), body)
    assert response.status_code == 400
    assert named in response.content.decode()
    before = campaign.version
    campaign.refresh_from_db()
    assert campaign.version == before


def test_a_reader_posting_a_bad_campaign_form_is_told_their_role_not_the_form_error(
    campaign: Any, player: Any, other: Any
) -> None:
    services.member_invite(user=player, campaign_id=campaign.pk, username=other.username, role="reader")
    client = Client()
    client.force_login(other)
    response = client.post(
        reverse("campaigns:act", args=[campaign.pk, "ship"]),
        {"version": campaign.version, "page": "detail", "hull": "lots"},
    )
    assert response.status_code == 403
    assert "this needs" in response.content.decode() and "must be a whole number" not in response.content.decode()


def test_an_outsider_posting_a_bad_campaign_form_gets_404(campaign: Any, other: Any) -> None:
    client = Client()
    client.force_login(other)
    response = client.post(reverse("campaigns:act", args=[campaign.pk, "ship"]), {"hull": "lots"})
    assert response.status_code == 404


def test_xp_awarded_at_the_turn_step_is_bounded_naming_the_crew_member(campaign: Any) -> None:
    from campaigns.turn_rules import rule_xp
    from rules.errors import DropshipError

    member = campaign.characters.get()
    for raw in ("99999999999999999999", "²", "-3"):
        with pytest.raises(DropshipError) as refused:
            rule_xp(campaign, {f"xp_{member.pk}": raw})
        assert refused.value.field == f"xp_{member.pk}" and "from 0 to 1000000" in refused.value.message
    assert rule_xp(campaign, {f"xp_{member.pk}": "3"}).changes[0].data["xp"] == 3


def test_a_superscript_digit_in_a_number_field_is_refused_not_a_server_error(campaign: Any, player: Any) -> None:
    client = Client()
    client.force_login(player)
    log = client.get(reverse("campaigns:log", args=[campaign.pk]) + "?turn=%C2%B2")
    assert log.status_code == 200
    stale = client.post(reverse("campaigns:act", args=[campaign.pk, "adjust"]), {"version": "²", "credits": "1"})
    assert stale.status_code == 400 and "version is required" in stale.content.decode()
    wrong = client.post(
        reverse("campaigns:act", args=[campaign.pk, "injury"]),
        {"version": campaign.version, "page": "character", "character": "²"},
    )
    assert wrong.status_code == 400


def test_step_undo_on_the_page_and_in_the_api_call_the_same_service(campaign: Any, player: Any) -> None:
    """Step undo takes back the turn's last step (with what came after it), not only the last
    change (a crew edit made after the step), from either side."""
    from rest_framework.test import APIClient

    client = Client()
    client.force_login(player)
    api = APIClient()
    api.force_authenticate(player)
    undos = {
        "page": lambda: client.post(reverse("campaigns:act", args=[campaign.pk, "step_undo"]), {"version": campaign.version}),
        "api": lambda: api.post(
            f"/api/v1/campaigns/{campaign.pk}/turns/current/undo/", {"version": campaign.version}, format="json"
        ),
    }
    first = turn_services.step_guide(campaign, campaign.turns.get())["spec"].key  # type: ignore[index]
    for side, undo in undos.items():
        campaign.refresh_from_db()
        turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=campaign.version, mode="manual", text=side)
        campaign.refresh_from_db()
        services.campaign_adjust(user=player, campaign_id=campaign.pk, version=campaign.version, credits=2, reason=side)
        campaign.refresh_from_db()
        assert undo().status_code in (200, 302)
        assert campaign.log.get(kind="step", text__endswith=f": {side}").undone
        assert campaign.log.filter(kind="undo").latest("id").text.startswith("Undid: ")
        assert turn_services.step_guide(campaign, campaign.turns.get())["spec"].key == first  # type: ignore[index]
