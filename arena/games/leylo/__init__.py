"""LEYLO (``leylo``): 4x4 grids of face-down cards, lines, jokers and action-card claims.

The package splits the referee into the deck table and grid facts (`cards`), the
rules (`game`), every decision it can offer, built once and shared (`decisions`),
the observation's parts kept between calls (`views`), search support (`search`:
hidden places and states sampled from an observation), the fast random playout
(`playout`), exact cheaper draws from a generator (`draws`) and the referee as
those helpers see it (`state`); the rules page for bot authors is
``protocol/games/leylo.md``.

Imports go down: `game` imports `playout` and `search`, which know the referee
only as `state.LeyloState`, a Protocol that `Leylo` implements. That is the
internal interface, public names with no underscore but meant for this package
alone (bots see observations, never the referee):

- the state's fields (`Leylo`'s annotated attributes), which `search` writes when
  it fills a blank state, and `playout` reads; for the quiet turns it plays
  itself (a swap or a placing, then no line, no claim gap, no reshuffle, no end
  of a round) `playout` writes what the referee would: a swap's two cells, the
  phase, the mover, the turn count, the next seat and the emptied claim queue;
- the steps `flip`, `draw`, `place`, `claim`, `after_action`, `end_turn`,
  `offer_claim`, `clear_line` and `go_on`: each is the referee's own code for one
  decision (or what follows one), the same code `Leylo._apply` runs;
- the facts `face_down_count`, `face_down_cells`, `filled_cells`, `swap_pairs`,
  `claim_cells`, `line_indexes` and `has_line`: what the legal lists are built
  from, read only;
- and `Game.to_move`.

A fast playout may take a step only where the legal list offers its decision
(the playout picks an index into that list, as ``rng.choice`` would), and
appends that decision to the history itself. So every rule stays in the
referee, and a playout leaves the state, history and generator as the plain
``rng.choice(legal)`` loop would (the tests play whole games both ways).
"""

from __future__ import annotations

from arena.games.leylo.game import Leylo

__all__ = ["Leylo"]
