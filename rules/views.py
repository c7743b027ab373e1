"""HTML screens for rule tables: browse, roll or look up, roll history, name generators.

Views validate a form, call a service and render a template or, for HTMX requests, one of
its partials. Every page works without JavaScript.
"""

from __future__ import annotations

from itertools import groupby
from typing import Any

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.middleware import HtmxDetails

from rules import selectors, services
from rules.engine import names
from rules.errors import DropshipError, NotFound
from rules.forms import TableRollForm
from rules.models import RuleTable


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def _roller(request: HtmxHttpRequest) -> services.Roller:
    if request.user.is_authenticated:
        return services.Roller(user_id=request.user.pk)
    if not request.session.session_key:
        request.session.save()
    return services.Roller(user_id=None, session_key=request.session.session_key or "")


def _table_or_404(slug: str) -> RuleTable:
    try:
        return selectors.table_get(slug=slug)
    except NotFound as exc:
        raise Http404(exc.message) from exc


@require_GET
def home(request: HtmxHttpRequest) -> HttpResponse:
    return redirect("rules:table_list")


@require_GET
def table_list(request: HtmxHttpRequest) -> HttpResponse:
    """Tables grouped by system, book and chapter; ``?q=`` searches titles and entry names."""
    query = request.GET.get("q", "").strip()
    system = request.GET.get("system", "")
    tables = list(selectors.table_list(system=system, search=query))
    groups = [
        (
            system_title,
            [(chapter, list(rows)) for chapter, rows in groupby(items, key=lambda t: f"{t.book}: {t.chapter}".strip(": "))],
        )
        for system_title, items in groupby(tables, key=lambda t: t.system.title)
    ]
    context = {"groups": groups, "query": query, "system": system, "systems": selectors.system_list(), "count": len(tables)}
    template = "rules/table_list.html#results" if request.htmx else "rules/table_list.html"
    return render(request, template, context)


@require_GET
def table_detail(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    table = _table_or_404(slug)
    return render(
        request, "rules/table_detail.html", {"table": table, "form": TableRollForm(table=table), "entries": table.entries.all()}
    )


@require_POST
def table_roll(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Roll the table, or log the number the player rolled; render the result card."""
    table = _table_or_404(slug)
    form = TableRollForm(request.POST, table=table)
    result = None
    status = 200
    if form.is_valid():
        data = form.cleaned_data
        try:
            if request.POST.get("action") == "roll" or data.get("value") is None:
                result = services.table_roll(
                    table=table, roller=_roller(request), modifier=data.get("modifier") or 0, column=data.get("column", "")
                )
            else:
                result = services.table_enter(
                    table=table,
                    roller=_roller(request),
                    value=data["value"],
                    modifier=data.get("modifier") or 0,
                    column=data.get("column", ""),
                )
        except DropshipError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
    if not form.is_valid():
        status = 400
    context = {"table": table, "form": form, "result": result, "entries": table.entries.all()}
    template = "rules/table_detail.html#roller" if request.htmx else "rules/table_detail.html"
    return render(request, template, context, status=status)


@require_GET
def roll_history(request: HtmxHttpRequest) -> HttpResponse:
    """The last 50 rolls of this user (or this browser, for a guest), newest first."""
    user_id = request.user.pk if request.user.is_authenticated else None
    rolls = selectors.roll_history(user_id=user_id, session_key=request.session.session_key or "")
    return render(request, "rules/roll_history.html", {"rolls": rolls})


@require_GET
def name_list(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "rules/names.html", {"recipes": names.RECIPES})


@require_POST
def name_generate(request: HtmxHttpRequest, generator: str) -> HttpResponse:
    """One tap, one whole name."""
    try:
        made = services.name_generate(generator=generator, roller=_roller(request))
    except DropshipError as exc:
        if request.htmx:
            return render(request, "rules/names.html#name", {"error": exc.message, "generator": generator}, status=400)
        messages.error(request, exc.message)
        return redirect("rules:names")
    context = {"recipes": names.RECIPES, "made": made, "generator": generator}
    template = "rules/names.html#name" if request.htmx else "rules/names.html"
    return render(request, template, context)


@require_http_methods(["GET", "POST"])
def signup(request: HtmxHttpRequest) -> HttpResponse:
    """Create an account and sign in."""
    form: UserCreationForm[Any] = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        messages.success(request, f"Welcome aboard, {user.username}.")
        return redirect("rules:table_list")
    return render(request, "registration/signup.html", {"form": form}, status=400 if form.errors else 200)
