"""Twirkle, the tile-laying card game (ids, rules and referee in small modules).

`cards` holds the 108 cards and the line rule as bit masks, `board` the
unbounded layout with its incrementally kept frontier, leaves, line ends and
masks, `shifting` the end-of-turn shift (W6), `moves` the compact decisions the
referee lists and plays, `state` the rules' numbers and the referee as its
helpers see it, `game` the referee itself, `playout` its random playouts a whole
turn at a time (`fast`: the same turns in C, by the optional compiled
`_engine`), and `sampling` what search needs: the hidden places and states drawn
from one seat's observation.

Imports go down: `game` imports `playout`, `fast` and `sampling`, which know the
referee only as `state.TwirkleState`, a Protocol that `Twirkle` implements. That
is the internal interface, public names with no underscore but meant for this
package alone (bots see observations, never the referee):

- the state's fields (`Twirkle`'s annotated attributes): `sampling` writes them
  into a blank state whose turn the referee has begun; `fast` writes back what
  the compiled turns changed, as laying, lifting and drawing those cards one by
  one would have; `playout` sets the turn's action and phase, the picked card,
  and moves a card from the hand to the selected ones, as the referee's own
  ``pick``, ``exchange`` and ``pass`` do;
- the steps `place`, `finish_placing`, `finish_exchange`, `lift`, `put` and
  `end_turn`: each is the referee's own code for one decision (or the "end"
  step it takes by itself), the same code its `_play` runs;
- the facts `exchange_cap`, `shift_starts` and `next_put`, what the legal lists
  are built from, read only.

A playout may take a step only where the legal list offers its decision, and
only at a turn's start hand the state to `fast` or `playout.Turns`; it appends
the decisions to the history itself. So every rule stays in the referee, and a
playout leaves the state, history, chance log and generators as the plain
``rng.choice(legal)`` loop would (the tests play whole games both ways, and hold
the compiled engine to `Turns`).
"""

from arena.games.twirkle.game import Twirkle

__all__ = ["Twirkle"]
