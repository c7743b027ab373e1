"""Tracker kinds register one way: each app's ``<app>.kinds.KINDS`` through ``live.registry.register_kinds``
(a cross-app test: live itself imports no game system)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from battles.kinds import KINDS as BATTLES_KINDS
from bughunt.kinds import KINDS as BUGHUNT_KINDS
from campaigns.kinds import KINDS as CAMPAIGNS_KINDS
from live import registry
from tabletools.kinds import KINDS as TABLETOOLS_KINDS

APPS = {"battles": BATTLES_KINDS, "bughunt": BUGHUNT_KINDS, "campaigns": CAMPAIGNS_KINDS, "tabletools": TABLETOOLS_KINDS}


def test_every_apps_kinds_are_registered_at_start_up_under_their_app() -> None:
    for app, kinds in APPS.items():
        for kind in kinds:
            assert kind.app == app
            assert registry.get(kind.kind) is kind


def test_the_table_tools_are_their_own_app() -> None:
    assert {k.kind for k in TABLETOOLS_KINDS} == {"stack", "stress", "mass", "threat"}
    assert all(k.template.startswith("tabletools/") for k in TABLETOOLS_KINDS)


def test_registering_again_is_harmless_but_a_name_taken_by_another_app_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_KINDS", dict(registry._KINDS))
    registry.register_kinds(TABLETOOLS_KINDS)
    assert registry.get("threat") is TABLETOOLS_KINDS[-1]
    with pytest.raises(ValueError, match="already registered by app 'tabletools'"):
        registry.register_kinds([replace(TABLETOOLS_KINDS[-1], app="battles")])
