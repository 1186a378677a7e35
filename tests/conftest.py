"""Fixtures shared by all tests."""

from __future__ import annotations

import pytest

from arena.match import BotRef
from arena.sandbox import uids
from tests.helpers import bot_ref_for


@pytest.fixture
def polite() -> BotRef:
    """A well-behaved opponent that answers the first legal decision at once."""
    return bot_ref_for("polite")


@pytest.fixture
def used_uids(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sandbox uids handed out during a test (to check that none still runs after it)."""
    used: list[int] = []
    real = uids.acquire

    def recording() -> uids.UidSlot:
        slot = real()
        used.append(slot.uid)
        return slot

    monkeypatch.setattr(uids, "acquire", recording)
    return used
