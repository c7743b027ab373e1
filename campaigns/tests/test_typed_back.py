"""A refused form loses nothing: the page that names the field at fault comes back with every
value the player had typed, ticked or chosen, in the form they sent, and only in that form (the
crew task's "Your D6" does not fill the fight pick's). The turn page's steps, the crew task,
the campaign page's component and contact forms, and the character page's equipment and
protection forms."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.template import Context, Template
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign
from campaigns.tests.test_turn_inputs import _v, go_to, ids, make
from rules.templatetags.typed_tags import typed_mark, typed_value
from tests.html_forms import forms_of


def action(campaign: Campaign, name: str) -> str:
    return reverse("campaigns:act", args=[campaign.pk, name])


def signed_in(player: Any) -> Client:
    client = Client()
    client.force_login(player)
    return client


def at_step(player: Any, key: str) -> tuple[Campaign, dict[str, str], Client]:
    """A campaign of :func:`make`'s crew at turn step ``key``, its crew's ids by name, and the
    owner's signed-in client."""
    campaign = make(player)
    go_to(player, campaign, key)
    return campaign, ids(campaign), signed_in(player)


def turn_forms(client: Client, campaign: Campaign) -> dict[str, dict[str, list[str]]]:
    return forms_of(client.get(reverse("campaigns:turn", args=[campaign.pk])).content.decode())


def test_the_tags_give_back_only_the_form_that_was_posted() -> None:
    typed = {"form": "crew_task", "values": {"face": ["7"], "task": ["trade"], "armored": ["3", "5"]}}
    assert typed_value(typed, "crew_task", "face") == "7"
    assert typed_value(typed, "fight_pick", "face", "") == ""  # another form: its own default
    assert typed_value(typed, "crew_task", "task_modifier", "0") == ""  # posted empty, not the default
    assert typed_value({}, "step", "input_xp_1", "0") == "0"  # a plain page load shows the default
    assert typed_mark(typed, "crew_task", "armored", 5) == "checked"
    assert typed_mark(typed, "crew_task", "armored", 4) == ""
    assert typed_mark(typed, "crew_task", "task", "trade", "selected") == "selected"
    assert typed_mark(typed, "step", "input_elite", "", default=True) == "checked"  # not posted: default
    assert typed_mark(typed, "crew_task", "input_elite", "", default=True) == ""  # posted without it
    page = Template('{% load typed_tags %}<input name="x" value="{% typed_value typed "f" "x" %}">')
    shown = page.render(Context({"typed": {"form": "f", "values": {"x": ['"><b>bold']}}}))
    assert shown == '<input name="x" value="&quot;&gt;&lt;b&gt;bold">'  # what comes back is escaped


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_a_refused_battle_record_keeps_every_choice_count_word_and_tick(player: Any) -> None:
    campaign, crew, client = at_step(player, "battle.record")
    page = turn_forms(client, campaign)["step-form"]
    assert page["input_won"] == [] and page["input_elite"] == [""] and page["input_kills"] == [""]  # nothing typed yet
    sent = {
        "version": _v(campaign),
        "page": "turn",
        "mode": "roll",
        "input_won": "yes",
        "input_casualties": [crew["Ria"], crew["Bo"]],
        "input_kills": "2",
        "input_enemy": "Punks",
        "input_elite": "no",
    }  # no held_field: refused
    refused = client.post(action(campaign, "step"), sent)
    assert refused.status_code == 400 and b"Record the battle needs held_field (one of yes, no)." in refused.content
    shown = forms_of(refused.content.decode())
    step = shown["step-form"]
    assert step["input_won"] == ["yes"] and step["input_held_field"] == []
    assert sorted(step["input_casualties"]) == sorted([crew["Ria"], crew["Bo"]])
    assert step["input_kills"] == ["2"] and step["input_enemy"] == ["Punks"] and step["input_elite"] == ["no"]
    assert shown["manual-form"]["text"] == [""]  # the other forms of the step are as they were
    assert _v(campaign) == sent["version"]  # and nothing was written
    done = client.post(action(campaign, "step"), {**sent, "input_held_field": "yes"})
    assert done.status_code == 302


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_refused_xp_and_a_refused_hand_record_keep_what_was_typed(player: Any) -> None:
    campaign, crew, client = at_step(player, "post.xp")
    page = turn_forms(client, campaign)["step-form"]
    assert page[f"input_xp_{crew['Ria']}"] == ["0"] and page[f"input_xp_{crew['Zed']}"] == [""]  # the defaults
    xp = {f"input_xp_{crew['Ria']}": "3", f"input_xp_{crew['Bo']}": "", f"input_xp_{crew['Zed']}": "1"}
    refused = client.post(action(campaign, "step"), {"version": _v(campaign), "page": "turn", "mode": "roll", **xp})
    assert refused.status_code == 400
    step = forms_of(refused.content.decode())["step-form"]
    assert {k: step[k] for k in xp} == {k: [v] for k, v in xp.items()}  # Bo's blank stays blank, not "0"

    by_hand = {"version": _v(campaign), "page": "turn", "mode": "manual", "text": "Ria trained.", "step_credits": "two"}
    refused = client.post(action(campaign, "step"), by_hand)
    assert refused.status_code == 400 and b"step_credits" in refused.content
    shown = forms_of(refused.content.decode())
    assert shown["manual-form"]["text"] == ["Ria trained."] and shown["manual-form"]["step_credits"] == ["two"]
    assert shown["step-form"][f"input_xp_{crew['Ria']}"] == ["0"]  # the step's own form shows its defaults


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_a_refused_crew_task_keeps_who_what_and_the_die(player: Any) -> None:
    campaign, crew, client = at_step(player, "world.crew_tasks")
    task = {
        "version": _v(campaign),
        "page": "turn",
        "character": crew["Bo"],
        "task": "recruit",
        "task_modifier": "1",
        "face": "9",
    }
    refused = client.post(action(campaign, "crew_task"), task)
    assert refused.status_code == 400
    shown = forms_of(refused.content.decode())[action(campaign, "crew_task")]
    assert shown["character"] == [crew["Bo"]] and shown["task"] == ["recruit"]
    assert shown["task_modifier"] == ["1"] and shown["face"] == ["9"]


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_the_campaign_page_keeps_a_refused_component_and_contact(player: Any) -> None:
    campaign, client = make(player), signed_in(player)
    page = "detail"
    bought = {"version": _v(campaign), "page": page, "component": "Shuttle", "core_cost": "-3", "miniaturized": "on"}
    refused = client.post(action(campaign, "component"), bought)
    assert refused.status_code == 400
    shown = forms_of(refused.content.decode())[action(campaign, "component")]
    assert shown["component"] == ["Shuttle"] and shown["core_cost"] == ["-3"]
    assert shown["miniaturized"] == ["on"] and shown["retrofit"] == []
    contact = {"version": _v(campaign), "page": page, "kind": "rival", "name": "", "notes": "owes us", "elite": "on"}
    refused = client.post(action(campaign, "contact_add"), contact)
    assert refused.status_code == 400
    shown = forms_of(refused.content.decode())[action(campaign, "contact_add")]
    assert shown["kind"] == ["rival"] and shown["notes"] == ["owes us"] and shown["elite"] == ["on"]
    assert not campaign.rivals.exists()


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_a_refused_take_off_keeps_its_tick_so_a_resend_does_not_add_the_item(player: Any) -> None:
    """The character page's equipment and protection forms: "take it away/off instead" comes
    back ticked with the name typed, so sending the corrected form again removes, not adds."""
    campaign, client = make(player), signed_in(player)
    ria = ids(campaign)["Ria"]
    page = reverse("campaigns:character", args=[campaign.pk, int(ria)])
    shown = forms_of(client.get(page).content.decode())
    assert shown[action(campaign, "equip")]["remove"] == [] and shown[action(campaign, "protection")]["remove"] == []
    for form, sent, field in (
        ("equip", {"item": "Plasma rifle"}, "item"),
        ("protection", {"name": "Flak screen", "kind": "screen"}, "name"),
    ):
        refused = client.post(
            action(campaign, form),
            {"version": _v(campaign), "page": "character", "character": ria, "remove": "on", **sent},
        )
        assert refused.status_code == 400 and f"{field} must be one of".encode() in refused.content
        back = forms_of(refused.content.decode())
        assert back[action(campaign, form)]["remove"] == ["on"] and back[action(campaign, form)][field] == [sent[field]]
        html = refused.content.decode().split(f'action="{action(campaign, form)}"')[1].split("</form>")[0]
        assert re.search(rf'name="{field}"[^>]*aria-invalid="true"', html)  # the field at fault is marked
        other = "protection" if form == "equip" else "equip"
        assert back[action(campaign, other)]["remove"] == []  # only the form that was sent
