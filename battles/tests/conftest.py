"""The battle tests use the campaigns tests' fixtures: the shipped fiveparsecs tables and two users."""

from __future__ import annotations

from campaigns.tests.conftest import fiveparsecs_tables, other, player

__all__ = ["fiveparsecs_tables", "other", "player"]
