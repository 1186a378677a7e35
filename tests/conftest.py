"""Fixtures shared by all tests."""

from __future__ import annotations

import pytest

from arena.match import BotRef
from tests.helpers import bot_ref_for


@pytest.fixture
def polite() -> BotRef:
    """A well-behaved opponent that answers the first legal decision at once."""
    return bot_ref_for("polite")
