"""What the forms of an HTML page show, read as a browser would: for tests that check a refused
form comes back with what the player had typed, ticked and chosen."""

from __future__ import annotations

from html.parser import HTMLParser


class _Forms(HTMLParser):
    """What each form on a page shows: ``{form id or action: {field: [values shown]}}``; a box or
    a radio counts when checked, an option when selected, a text area by its text."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: dict[str, dict[str, list[str]]] = {}
        self.form: dict[str, list[str]] | None = None
        self.select = ""
        self.area = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        has = {k for k, _ in attrs}
        if tag == "form":
            self.form = self.forms.setdefault(a.get("id") or a.get("action", ""), {})
        elif self.form is None:
            return
        elif tag == "input" and a.get("type") not in ("hidden", "submit"):
            if a.get("type") in ("checkbox", "radio"):
                self.form.setdefault(a["name"], [])
                if "checked" in has:
                    self.form[a["name"]].append(a.get("value", "on"))  # a box with no value posts "on"
            else:
                self.form[a["name"]] = [a.get("value", "")]
        elif tag == "select":
            self.select = a["name"]
            self.form.setdefault(self.select, [])
        elif tag == "option" and self.select and "selected" in has:
            self.form[self.select].append(a.get("value", ""))
        elif tag == "textarea":
            self.area = a["name"]
            self.form[self.area] = [""]

    def handle_data(self, data: str) -> None:
        if self.form is not None and self.area:
            self.form[self.area] = [self.form[self.area][0] + data]

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.form = None
        elif tag == "select":
            self.select = ""
        elif tag == "textarea":
            self.area = ""


def forms_of(html: str) -> dict[str, dict[str, list[str]]]:
    """``{form id (else its action): {field name: [values shown]}}`` of ``html``."""
    parser = _Forms()
    parser.feed(html)
    return parser.forms
