"""The table as a spectator sees it: what every seat may know, nothing one seat alone knows.

A match in play is watched through this view (the live pages, arena.service.live):
the piles, the scores, the cards played, how many cards each hand holds, never a
card of a hand or a face-down card. It is made from the seats' own observations
(protocol 2's envelopes, `Game.observation`), not from the game state, so it can
hold nothing a seat does not see:

- the fields that are about the viewing seat itself (its own hand, the card it
  picked, what it set aside to exchange) are left out (`OWN`): every seat's view
  holds its own, so they differ by construction, and the hand sizes stay;
- a field a game shows differently to one seat (LEYLO's card held from the pile,
  the draw pile's known cards after a reshuffle) gets the form the others see
  (`REDACTED`);
- every other field must be the same in every seat's view: then every seat knows
  it. One that is not (a game whose views changed, not yet listed here) is left
  out too, as None, rather than shown from one seat's view.

The layouts draw it as they draw another seat's view of a hand: backs, counted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

#: Per game, the fields of a view that belong to the viewing seat alone.
OWN: dict[str, frozenset[str]] = {
    "take-that": frozenset({"hand"}),
    "twirkle": frozenset({"hand", "picked", "exchange_selected", "returned"}),
    "leylo": frozenset(),
    "krumme10": frozenset(),
}


def _leylo_holding(values: Sequence[Any]) -> Any:
    """The card held, as the seats that did not draw it see it: face down."""
    return {**values[0], "card": "hidden"} if values[0] is not None else None


#: Per game, the fields some seats see and others not, and their form for everyone:
#: made from the field's value in every seat's view (they differ).
REDACTED: dict[str, dict[str, Callable[[Sequence[Any]], Any]]] = {
    "leylo": {"holding": _leylo_holding, "draw_pile_known": lambda _values: None},
}


def public_view(game: str, views: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A spectator's envelope from every seat's (`views`, by seat): seat is None."""
    own, redacted = OWN[game], REDACTED.get(game, {})
    fields: dict[str, Any] = {}
    for key, value in views[0]["game"].items():
        if key in own:
            continue
        values = [view["game"][key] for view in views]
        if all(other == value for other in values[1:]):
            fields[key] = value
        else:
            fields[key] = redacted[key](values) if key in redacted else None
    common = {
        key: value if all(view[key] == value for view in views[1:]) else None
        for key, value in views[0].items()
        if key not in ("seat", "game")
    }
    return {**common, "seat": None, "game": fields}
