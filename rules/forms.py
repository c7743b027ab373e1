"""Forms of the rules app: rolling a table, and editing or importing your own tables; and the
posted-value helpers (a ticked box, typed dice faces) the apps' views share."""

from __future__ import annotations

import json
from typing import Any, cast

from django import forms
from django.http import HttpRequest

from rules.bounds import FACE_MAX, INT_MAX, INT_MIN, range_message
from rules.errors import DropshipError
from rules.models import RuleTable


class TableRollForm(forms.Form):
    """Roll a table (``lookup=False``: modifier and column), or look up the number your own dice
    show (``lookup=True``: ``value`` is required as well).

    The page shows the two as separate forms, so that Enter in "I rolled" looks the number up
    and never rolls; ``auto_id`` differs between them so that their ids do not clash."""

    modifier = forms.IntegerField(required=False, initial=0, min_value=-100, max_value=100, help_text="Added to the roll.")
    column = forms.ChoiceField(required=False, choices=())
    value = forms.IntegerField(required=False, label="I rolled")

    def __init__(self, *args: Any, table: RuleTable, lookup: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "lookup_%s" if lookup else "roll_%s")
        super().__init__(*args, **kwargs)
        self.table = table
        self.lookup = lookup
        columns = table.columns or []
        if columns:
            cast(forms.ChoiceField, self.fields["column"]).choices = [(c, c) for c in columns]
            self.fields["column"].required = True
        else:
            del self.fields["column"]
        if not lookup:
            del self.fields["value"]
        elif table.die:
            low, high = table.to_engine([]).span
            value = self.fields["value"]
            value.required = True
            value.widget.attrs.update({"min": low, "max": high, "placeholder": f"{low}-{high}", "inputmode": "numeric"})
            value.help_text = f"What your {table.die} shows, {low} to {high}."
            value.error_messages["required"] = f"Type the number your {table.die} shows, {low} to {high}."
        if lookup:
            self.order_fields(["value", "modifier", "column"])


def _names(text: str) -> list[str]:
    """``"Aggressive, Cautious"`` → ``["Aggressive", "Cautious"]`` (empty items dropped)."""
    return [part.strip() for part in text.split(",") if part.strip()]


class UserTableForm(forms.Form):
    """The fields of one of your own tables; its rows come in :data:`EntryFormSet`."""

    system = forms.ChoiceField(choices=())
    title = forms.CharField(max_length=200)
    slug = forms.SlugField(
        max_length=120, help_text="Lower-case words joined by hyphens, unique across Dropship, e.g. my-loot-table."
    )
    die = forms.CharField(
        max_length=20, required=False, help_text="D6, 2D6, D100 ...; leave empty for a reference table (no roll)."
    )
    source = forms.CharField(max_length=40, help_text="The page: p.18, pp.17-24, or with the book's name: core p.64.")
    book = forms.CharField(max_length=120, required=False)
    chapter = forms.CharField(max_length=200, required=False)
    notes = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))
    columns = forms.CharField(
        required=False, help_text="Comma separated, for a table with a column per kind; empty for one column."
    )
    data_keys = forms.CharField(required=False, help_text="Comma separated keys every row's data must have.")

    def __init__(self, *args: Any, systems: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["system"]).choices = systems

    def clean_columns(self) -> list[str]:
        return _names(self.cleaned_data.get("columns") or "")

    def clean_data_keys(self) -> list[str]:
        return _names(self.cleaned_data.get("data_keys") or "")

    def clean_die(self) -> str:
        return str(self.cleaned_data.get("die") or "").strip()

    def clean_source(self) -> str:
        return str(self.cleaned_data.get("source") or "").strip()


class EntryForm(forms.Form):
    """One row of a table: its range (empty for a reference table), result, effect and data."""

    low = forms.IntegerField(
        required=False, min_value=INT_MIN, max_value=INT_MAX, widget=forms.NumberInput(attrs={"aria-label": "Low"})
    )
    high = forms.IntegerField(
        required=False, min_value=INT_MIN, max_value=INT_MAX, widget=forms.NumberInput(attrs={"aria-label": "High"})
    )
    result = forms.CharField(max_length=200, widget=forms.TextInput(attrs={"aria-label": "Result"}))
    effect = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2, "aria-label": "Effect"}))
    data_json = forms.CharField(
        required=False,
        label="Data",
        widget=forms.Textarea(attrs={"rows": 1, "aria-label": "Data (JSON)", "placeholder": '{"credits": 2}'}),
    )
    column = forms.CharField(max_length=80, required=False, widget=forms.TextInput(attrs={"aria-label": "Column"}))

    def clean_data_json(self) -> dict[str, Any]:
        raw = (self.cleaned_data.get("data_json") or "").strip()
        if not raw:
            return {}
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f'Data must be a JSON object such as {{"credits": 2}}: {exc.msg}.') from exc
        if not isinstance(value, dict):
            raise forms.ValidationError('Data must be a JSON object such as {"credits": 2}.')
        return value

    def entry(self) -> dict[str, Any]:
        """The cleaned row as the services take it."""
        data = self.cleaned_data
        return {
            "low": data.get("low"),
            "high": data.get("high"),
            "result": data.get("result", ""),
            "effect": data.get("effect", ""),
            "data": data.get("data_json") or {},
            "column": data.get("column", ""),
        }


EntryFormSet = forms.formset_factory(EntryForm, extra=0, can_delete=True, max_num=1000, absolute_max=1000)


class TableImportForm(forms.Form):
    """Paste fixture-format JSON, or upload a ``.json`` file (the file wins when both are given)."""

    text = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 14, "placeholder": '[{"model": "rules.ruletable", "fields": {...}}, ...]'}),
        label="JSON",
    )
    file = forms.FileField(required=False, label="or a JSON file")

    MAX_BYTES = 1_000_000

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        upload = cleaned.get("file")
        if upload:
            if upload.size > self.MAX_BYTES:
                # Named on the field, with the limit, and never read (nor echoed back).
                self.add_error("file", f"file: {upload.size:,} bytes; at most {self.MAX_BYTES:,} bytes (1 MB) are allowed.")
                return cleaned
            try:
                cleaned["text"] = upload.read().decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                raise forms.ValidationError("The file is not UTF-8 text.") from exc
        if not (cleaned.get("text") or "").strip():
            raise forms.ValidationError("Paste the JSON or choose a file.")
        return cleaned


# -- posted values shared by the apps' HTMX views ---------------------------------------------


#: Fields of a posted form that are not the player's own input.
_NOT_TYPED = frozenset({"csrfmiddlewaretoken", "version", "page", "mode"})


def typed_back(request: HttpRequest, form: str | None = None) -> dict[str, Any]:
    """What a refused POST held, to put back into the form it came from with the
    ``typed_value`` and ``typed_mark`` tags (``rules/templatetags/typed_tags.py``):
    ``{"form": form, "values": {field: [values]}}``, or ``{}`` for a GET. ``form`` is the name
    the page's template gives that form; by default, the name of the URL that was posted to."""
    if request.method != "POST":
        return {}
    if form is None:
        form = (request.resolver_match.url_name if request.resolver_match else None) or ""
    return {"form": form, "values": {k: request.POST.getlist(k) for k in request.POST if k not in _NOT_TYPED}}


def posted_flag(request: HttpRequest, key: str) -> bool:
    """Whether the checkbox (or yes/no field) ``key`` was sent ticked."""
    return request.POST.get(key) in ("on", "true", "1", "yes")


def posted_faces(request: HttpRequest, key: str = "faces") -> list[int] | None:
    """Dice faces typed as "3, 5" or "3 5"; ``None`` when empty. Raises :class:`DropshipError`
    naming ``key`` for anything but numbers from 0 to :data:`rules.bounds.FACE_MAX`."""
    raw = request.POST.get(key, "").replace(",", " ").split()
    if not raw:
        return None
    try:
        faces = [int(x) for x in raw]
    except ValueError:
        raise DropshipError(f"{key}: type the dice faces as numbers, e.g. 3, 5.", field=key) from None
    if any(not 0 <= face <= FACE_MAX for face in faces):
        raise DropshipError(f"{key}: each face {range_message(0, FACE_MAX)}.", field=key)
    return faces


def posted_int(
    request: HttpRequest, key: str, default: int | None = 0, *, low: int = INT_MIN, high: int = INT_MAX, field: str | None = None
) -> int | None:
    """The whole number typed in ``key`` (a leading ``+`` allowed), ``default`` when empty.

    Raises :class:`DropshipError` naming ``field`` (default ``key``) and the range for anything
    else or a number outside ``low..high`` (by default the range of an integer column)."""
    raw = request.POST.get(key, "").strip()
    if not raw:
        return default
    try:
        value = int(raw.removeprefix("+"))
    except ValueError:
        raise DropshipError(f"{key} {range_message(low, high)}; got {raw!r}.", field=field or key) from None
    if not low <= value <= high:
        raise DropshipError(f"{key} {range_message(low, high)}; got {value}.", field=field or key)
    return value
