"""HTML screens for rule tables: browse, roll or look up, roll history, name generators, and
your own tables (list, editor, import, export, delete).

Views validate a form, call a service and render a template or, for HTMX requests, one of
its partials. Every page works without JavaScript.
"""

from __future__ import annotations

import json
from itertools import groupby
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.forms import BaseFormSet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.middleware import HtmxDetails
from django_ratelimit.decorators import ratelimit

from rules import selectors, services
from rules.engine import names
from rules.errors import DropshipError, NotFound
from rules.forms import EntryForm, EntryFormSet, TableImportForm, TableRollForm, UserTableForm
from rules.models import RuleTable


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def _roller(request: HtmxHttpRequest) -> services.Roller:
    if request.user.is_authenticated:
        return services.Roller(user_id=request.user.pk)
    if not request.session.session_key:
        request.session.save()
    return services.Roller(user_id=None, session_key=request.session.session_key or "")


def _table_or_404(request: HttpRequest, slug: str) -> RuleTable:
    """A book table or one of the user's own; another user's table is a 404."""
    try:
        return selectors.table_get_for(slug=slug, user=request.user)
    except NotFound as exc:
        raise Http404(exc.message) from exc


def _own_table_or_404(request: HttpRequest, slug: str) -> RuleTable:
    try:
        return selectors.user_table_get(user=request.user, slug=slug)
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
    tables = list(selectors.table_list(system=system, search=query, user=request.user))
    mine = [t for t in tables if t.owner_id is not None]
    tables = [t for t in tables if t.owner_id is None]
    groups = [
        (
            system_title,
            [(chapter, list(rows)) for chapter, rows in groupby(items, key=lambda t: f"{t.book}: {t.chapter}".strip(": "))],
        )
        for system_title, items in groupby(tables, key=lambda t: t.system.title)
    ]
    context = {
        "groups": groups,
        "mine": mine,
        "query": query,
        "system": system,
        "systems": selectors.system_list(),
        "count": len(tables) + len(mine),
    }
    template = "rules/table_list.html#results" if request.htmx else "rules/table_list.html"
    return render(request, template, context)


def _roller_context(
    request: HtmxHttpRequest, table: RuleTable, *, roll_form: TableRollForm, lookup_form: TableRollForm, result: Any = None
) -> dict[str, Any]:
    entries = list(table.entries.all())
    datas = [e.data for e in entries]
    if result is not None:
        datas.append(result.outcome.entry.data)
    return {
        "table": table,
        "roll_form": roll_form,
        "lookup_form": lookup_form,
        "result": result,
        "entries": entries,
        "titles": selectors.titles_named_in(datas=datas, texts=[table.notes], user=request.user),
    }


@require_GET
def table_detail(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    table = _table_or_404(request, slug)
    context = _roller_context(
        request, table, roll_form=TableRollForm(table=table), lookup_form=TableRollForm(table=table, lookup=True)
    )
    return render(request, "rules/table_detail.html", context)


def _wants_lookup(request: HttpRequest) -> bool:
    """The lookup form says ``action=enter``; a client that sends no action but a value (an
    older form, a script) means a lookup too. Only ``action=roll`` or nothing at all rolls."""
    action = request.POST.get("action", "")
    if action:
        return action != "roll"
    return bool(request.POST.get("value", "").strip())


@require_POST
def table_roll(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Roll the table (``action=roll``), or look up the number the player rolled
    (``action=enter`` with ``value``); render the result card, or the form's errors with 400.

    "Look up my roll" without a number is refused, never rolled at random."""
    table = _table_or_404(request, slug)
    lookup = _wants_lookup(request)
    form = TableRollForm(request.POST, table=table, lookup=lookup)
    result = None
    status = 200
    if form.is_valid():
        data = form.cleaned_data
        try:
            if lookup:
                result = services.table_enter(
                    table=table,
                    roller=_roller(request),
                    value=data["value"],
                    modifier=data.get("modifier") or 0,
                    column=data.get("column", ""),
                )
            else:
                result = services.table_roll(
                    table=table, roller=_roller(request), modifier=data.get("modifier") or 0, column=data.get("column", "")
                )
        except DropshipError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
    if not form.is_valid():
        status = 400
    other = TableRollForm(table=table, lookup=not lookup)
    roll_form, lookup_form = (other, form) if lookup else (form, other)
    context = _roller_context(request, table, roll_form=roll_form, lookup_form=lookup_form, result=result)
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
@ratelimit(key="ip", rate=lambda group, request: settings.SIGNUP_RATE, method="POST", block=False)
def signup(request: HtmxHttpRequest) -> HttpResponse:
    """Create an account and sign in. New accounts are limited per address (``SIGNUP_RATE``):
    past the limit the form answers 429 and creates nothing."""
    form: UserCreationForm[Any] = UserCreationForm(request.POST or None)
    if getattr(request, "limited", False):
        form.add_error(None, "Too many new accounts from this address; try again in an hour.")
        return render(request, "registration/signup.html", {"form": form}, status=429)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome aboard, {user.username}.")
        return redirect("rules:table_list")
    return render(request, "registration/signup.html", {"form": form}, status=400 if form.errors else 200)


# -- your own tables ----------------------------------------------------------------------

ENTRY_FIELD_NAMES = {"data": "data_json"}
NEW_TABLE_ROWS = 6


def _systems() -> list[tuple[str, str]]:
    return [(s.slug, s.title) for s in selectors.system_list()]


def _editor_initial(table: RuleTable) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The editor's initial values for ``table``: its fields and its rows in print order."""
    fields = {
        "system": table.system.slug,
        "title": table.title,
        "slug": table.slug,
        "die": table.die,
        "source": table.source,
        "book": table.book,
        "chapter": table.chapter,
        "notes": table.notes,
        "columns": ", ".join(table.columns or []),
        "data_keys": ", ".join(table.data_keys or []),
    }
    order = {c: i for i, c in enumerate(table.columns or [""])}
    entries = sorted(table.entries.all(), key=lambda e: (order.get(e.column, len(order)), e.low or 0, e.position))
    rows = [
        {
            "low": e.low,
            "high": e.high,
            "result": e.result,
            "effect": e.effect,
            "data_json": json.dumps(e.data, ensure_ascii=False) if e.data else "",
            "column": e.column,
        }
        for e in entries
    ]
    return fields, rows


def _show_error(exc: DropshipError, form: UserTableForm, formset: BaseFormSet[EntryForm], used: list[int]) -> list[str]:
    """Put a service error on the field or row it names; returns the errors about the rows as a
    whole (gaps, overlaps, missing data keys) to show above them."""
    if exc.field in form.fields:
        form.add_error(exc.field, exc.message)
        return []
    row = exc.extra.get("row")
    if exc.field == "entries" and isinstance(row, int) and 0 <= row < len(used):
        entry_form = formset.forms[used[row]]
        name = ENTRY_FIELD_NAMES.get(str(exc.extra.get("entry_field")), str(exc.extra.get("entry_field")))
        entry_form.add_error(name if name in entry_form.fields else None, exc.message)
        return []
    return [str(p) for p in exc.extra.get("problems", [])] or [exc.message]


def _editor(request: HtmxHttpRequest, table: RuleTable | None) -> HttpResponse:
    """The table editor, for a new table (``table`` is None) or one of the user's own.

    "Add row" re-shows the form with one more blank row; "Save" validates it all through the
    service and shows every error on the form, keeping what was typed."""
    systems = _systems()
    status = 200
    entry_errors: list[str] = []
    show_errors = True
    if request.method == "POST":
        data = request.POST.copy()
        adding = "add_row" in data
        if adding:
            total = int(data.get("entries-TOTAL_FORMS") or 0)
            data["entries-TOTAL_FORMS"] = str(min(total + 1, 1000))
            show_errors = False
        form = UserTableForm(data, systems=systems)
        formset = EntryFormSet(data, prefix="entries")
        if not adding:
            if form.is_valid() and formset.is_valid():
                used = [i for i, f in enumerate(formset.forms) if f.cleaned_data and not f.cleaned_data.get("DELETE")]
                fields = dict(form.cleaned_data)
                entries = [formset.forms[i].entry() for i in used]
                try:
                    if table is None:
                        saved = services.user_table_create(user=request.user, entries=entries, **fields)
                        messages.success(request, f"Made your table {saved.title}.")
                    else:
                        fields["new_slug"] = fields.pop("slug")
                        saved = services.user_table_update(user=request.user, slug=table.slug, entries=entries, **fields)
                        messages.success(request, f"Saved {saved.title}.")
                    return redirect("rules:table_detail", slug=saved.slug)
                except DropshipError as exc:
                    entry_errors = _show_error(exc, form, formset, used)
            status = 400
    elif table is None:
        form = UserTableForm(initial={"system": "fiveparsecs", "die": "D6"}, systems=systems)
        formset = EntryFormSet(prefix="entries")
        formset.extra = NEW_TABLE_ROWS
    else:
        fields, rows = _editor_initial(table)
        form = UserTableForm(initial=fields, systems=systems)
        formset = EntryFormSet(initial=rows, prefix="entries")
        formset.extra = 1
    context = {
        "table": table,
        "form": form,
        "formset": formset,
        "entry_errors": entry_errors,
        "show_errors": show_errors,
        "max_effect_words": services.MAX_USER_EFFECT_WORDS,
    }
    return render(request, "rules/table_edit.html", context, status=status)


@login_required
@require_GET
def my_tables(request: HtmxHttpRequest) -> HttpResponse:
    """The user's own tables, with links to make, import, edit, export and delete them."""
    return render(request, "rules/my_tables.html", {"tables": selectors.user_table_list(user=request.user)})


@login_required
@require_http_methods(["GET", "POST"])
def my_table_new(request: HtmxHttpRequest) -> HttpResponse:
    return _editor(request, None)


@login_required
@require_http_methods(["GET", "POST"])
def my_table_edit(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    return _editor(request, _own_table_or_404(request, slug))


@login_required
@require_http_methods(["GET", "POST"])
def my_table_delete(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Ask, then delete one of the user's own tables."""
    table = _own_table_or_404(request, slug)
    if request.method == "POST":
        try:
            services.user_table_delete(user=request.user, slug=table.slug)
        except NotFound as exc:
            raise Http404(exc.message) from exc
        messages.success(request, f"Deleted {table.title}.")
        return redirect("rules:my_tables")
    return render(request, "rules/table_delete.html", {"table": table})


@login_required
@require_GET
def my_table_export(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Download a table (one's own or a book table) as fixture JSON that the import reads back."""
    try:
        text = services.user_table_export(user=request.user, slug=slug)
    except NotFound as exc:
        raise Http404(exc.message) from exc
    response = HttpResponse(text, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}.json"'
    return response


@login_required
@require_http_methods(["GET", "POST"])
def my_tables_import(request: HtmxHttpRequest) -> HttpResponse:
    """Import tables from pasted JSON or an uploaded file; all or nothing."""
    status = 200
    if request.method == "POST":
        form = TableImportForm(request.POST, request.FILES)
        if form.is_valid():
            text = form.cleaned_data["text"]
            try:
                made = services.user_tables_import(user=request.user, text=text)
            except DropshipError as exc:
                data = request.POST.copy()
                data["text"] = text  # an uploaded file's text comes back in the box, to fix it there
                form = TableImportForm(data)
                form.is_valid()
                form.add_error("text", exc.message)
            else:
                titles = ", ".join(t.title for t in made)
                messages.success(request, f"Imported {len(made)} table{'s' if len(made) != 1 else ''}: {titles}.")
                return redirect("rules:my_tables")
        status = 400
    else:
        form = TableImportForm()
    context = {"form": form, "max_effect_words": services.MAX_USER_EFFECT_WORDS}
    return render(request, "rules/table_import.html", context, status=status)
