"""What the search knows about each game: playout policy, horizon, score of a cut-off.

A Python search gets a few hundred iterations in 100 ms, so each game's profile keeps
playouts short and scores where they stop; every choice below was measured against
the game's heuristic (scripts/winrate.py, 2 players, 60-120 seeded games):

* take-that: every seat but the searcher plays as the heuristic bot (bots/take-that-
  heuristic, the opponent it is measured against: a strong player models its
  opponents), below the root and in playouts, so the tree holds only the searcher's
  decisions; the searcher's own later turns in playouts too. take_that_model.py makes
  the heuristic's decision, value for value, from a sampled state for any seat from
  what that seat sees there, in about 11 us instead of the heuristic's 100-400 us
  (about 600 iterations in 100 ms of CPU, where the first model made 270). Playouts
  stop at the first row taken, scored by the running score plus 0.6 per hand card
  whose twin is still in play. The root is anchored on the heuristic bot's decision,
  which the search must beat by ANCHOR_Z standard errors. Measured and dropped: the
  searcher's own decisions below the root by the heuristic too (below the root the
  tree expands the searcher's next decision at random among the untried ones: with
  some ten visits per root decision and a new sample each time, nearly every visit
  does; a candidates filter offered the heuristic's decision twice, with distinct
  tags, so that a new node is added and the playout starts there) with playouts
  stopping at the second take:
  30 ms, seeds 10000, 200 games, 63.7 % (95 % CI 56.9-70.1 %), score margin +7.6, where
  this profile won 61.5 % (54.6-68.0 %), margin +0.7; but 100 ms, the same 200 games,
  69.0 % (62.3-75.0 %; 76.8 % below), margin +11.7; with the first take
  still the stop, seeds 50000, 100 games at 30 ms: 64.0 %, margin +7.3, this profile
  64.0 %, margin +2.6. It plays for points more than for the win.
  Measured with `winrate.py take-that --bot ismcts
  --against take-that-heuristic --players 2 --cpu-clock --workers 1` (100 ms CPU):
  seeds 10000, 200 games, 76.8 % (95 % CI 70.4-82.1 %), 84.8 ms CPU a decision,
  slowest 165 ms; seeds 60000, 100 games, 76.0 % (66.8-83.3 %);
  seeds 50000, 100 games, 71.5 % (62.0-79.4 %). With the faster opponent model
  (take_that_model.py: the same choices, ~15 % more iterations) seeds 10000, 200 games:
  72.5 % (65.9-78.2 %), 83.6 ms, slowest 144 ms; at 30 ms 66.0 % (59.2-72.2 %), where
  the model before it won 61.5 % (54.6-68.0 %) of the same 200 games: the same strength
  within the noise of a 200-game run either way. With the model inlined into one
  function (`best_decisions`: the same choices for a given iteration count, ~45 % more
  iterations a second), the anchor made by the model from the observation and a
  leaner estimate and legal list, the same 200 games at 30 ms: 70.5 % (63.8-76.4 %),
  margin +3.4, 25.9 ms CPU a decision, slowest 83 ms; at 100 ms 74.5 % (68.0-80.0 %),
  margin +8.1, 82.5 ms CPU a decision, slowest 151 ms.
  At 30 ms (`--budget-ms 30`, seeds 10000, 100 games) 66.0 %, where the old
  search won 69.0 % of the same games; 3 players (one search, two heuristics, 60
  games) 50.0 %, the old search 33.3 %; against random seats (40 games) 100 %.
  Before (issue 13), playouts twisted when they could, else played a card the next
  seat could not answer in the sample, took only when forced, and the other seats
  were tree edges chosen by UCB1: the same command, seeds 10000, 200 games, 70.8 %
  and 67.5 %; 20 games of seeds 50000, 65 %; 61 % without the anchor; playing to the
  end of the round instead of the first take, 54 % instead of 66 %. Modelling only
  the other seats by the heuristic (own turns in playouts by that old policy, about
  335 iterations) was no clearer a gain: 82.5 % of the first 40 games of seeds 50000
  (this profile 65 % of the same 40) and 70 % of the first 50 of seeds 10000 (this
  profile 82 %), 68 of 90 against 67.
* krumme10: the other seats play as the heuristic bot (bots/krumme10-heuristic, the
  opponent it is measured against), below the root and in playouts, so the tree holds
  only the searcher's decisions (as in Take That). krumme10_model.py makes the
  heuristic's decision from a sampled state for any seat (nothing in Krumme10 is
  private: it reads the fields the observation is built from, and runs the heuristic's
  own code, a copy in krumme10_heuristic.py), and keeps its ratings by all that they
  read, which samples share (some 40 % of its calls in a search find them kept): half
  the time of `observe` and the heuristic's `choose`, about 375 iterations a decision
  where those made 270 (the search without a model: 750). The searcher's own playouts
  by the visible sides only (hit the target, else stay under it), cut after one
  decision: the tree's own depth does the looking ahead, scored by the points margin;
  UCB1 exploration 0.2. Measured with `winrate.py krumme10 --bot ismcts --against
  krumme10-heuristic --players 2 --games 200 --cpu-clock --workers 1` (100 ms CPU):
  seeds 10000, 78.5 % (95 % CI 72.3-83.6 %), 58.7 ms CPU a decision (the race at the
  root stops once decided), slowest 197 ms (a full garbage collection falls into some
  searches); seeds 50000 (`--first-seed 50000`), 78.5 % (72.3-83.6 %), 58.3 ms,
  slowest 186 ms, where the search without the model won 69.2 % (62.5-75.2 %),
  46.3 ms; seeds 30000, 71.8 % (65.1-77.5 %), 57.4 ms, where the search without the
  model won 71.0 % (64.4-76.8 %), 45.8 ms. The first model, `observe` and the
  heuristic's `choose`: seeds 10000, 100 games, 77.0 % (67.8-84.2 %), 61.6 ms. Before
  the model (the other seats tree edges chosen by UCB1, issue 13) five runs of the
  command won 73.2 %, 74.8 %, 71.2 %, 72.0 %, 68.0 % (the same command run twice
  differed by up to 11 points: the clock makes the games differ); exploration 0.5 won
  69.2 %, 71.5 %, 68.8 % and 0.3 75.2 %, 64.0 %. Measured and dropped: with the
  model, the searcher's own playouts by the heuristic too and 4 decisions long, seeds
  10000: 75.8 % (69.4-81.2 %), 72.1 ms; UCB1 exploration 0.4, seeds 10000: 76.0 %
  (69.6-81.4 %), 58.0 ms. Before the model: longer playouts (4 decisions 39 %, 12
  decisions 29 %); anchoring the root on the heuristic bot as Take That does
  (ANCHOR_Z 1.0), 67.0 %; scoring what a cut-off leaves pending (the card being
  taken, the cards about to score after an overrun), 66.8 %. One search against two
  heuristics (3 players, 60 games): 44.2 % (32.3-56.7 %), 66.7 ms (before the model
  23.3 %; exploration 0.5: 20.0 %); against random seats (2 players, 40 games) 100 %
  (91.2-100 %), as before the model.
* leylo and twirkle: the bot no longer plays these two by the tree (see leylo_plan.py
  and twirkle_plan.py: the tree search won 1 of 12 LEYLO games and 10-25 % of Twirkle
  games against the heuristics); their profiles stay for the tree search itself.
* leylo: a greedy policy (replace the worst face-up card the held one beats, else turn
  a card up; do not end the round unless lowest), played to the end of the round; the
  search ranges over a few candidate decisions (most of the 24 swaps and 30 placements
  are alike) and keeps the policy's decision unless it clearly beats it.
* twirkle: playouts place whatever fits (never exchange or shift) until the turn after
  the searcher's ends; scored by the running scores.

Policies and candidate filters read the sampled state's fields directly (`row`,
`hands`, `display`, `cards`, `up`, `held`, ...): about a hundred times cheaper than
`observe`. They are facts of the sample, and every policy here reads only what its
seat could see (Take That's: which cards it has not seen, not where they lie).
tests/test_ismcts.py plays every game, so a referee that renames a field fails there,
not in a match.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import krumme10_model
import take_that_model
from tree_search import Decision, Profile

# ----- take-that -------------------------------------------------------------------
TWINS = {n: (n % 10) * 10 + n // 10 for n in range(12, 99) if n % 10 and n % 11}


def take_that_anchor(
    observation: Mapping[str, Any], legal: list[Decision], rng: random.Random, variant: Any
) -> Decision:
    """The Take That heuristic bot's decision (take_that_heuristic.py is a copy of
    bots/take-that-heuristic/bot.py: a bot folder must hold all it runs, and
    tests/test_ismcts.py checks that the two stay the same), made by take_that_model.py
    from the observation: the same ties, so the same decision from the same `rng`, in
    some 20 us instead of the heuristic's 400 (tests/test_ismcts_take_that.py checks it).
    The search keeps it unless another decision beats it by ANCHOR_Z standard errors."""
    position = take_that_model.Observed(observation, variant or {})
    return take_that_model.heuristic_policy(position, observation["seat"], legal, rng)


TOADS = frozenset(11 * d for d in range(2, 9))
#: What a hand card whose twin is still in play is worth: a twist (+2) it may make.
TWIN_VALUE = 0.6


def take_that_estimate(state: Any) -> list[float]:
    """Finished rounds plus the running one (+1 per plus card, -1 or -5 per minus card,
    an unseen profi card at the deck's mean penalty), plus TWIN_VALUE per hand card whose
    twin is still in play (in this sample's hands, row or pile). Read from the sample's
    fields: the same figures as its observation, without building one."""
    plus, seen, unseen = state.plus, state.minus_seen, state.minus_unseen
    gone = set().union(*plus, *seen)
    totals = []
    for seat, hand in enumerate(state.hands):
        done = sum(scores[seat] for scores in state.round_scores)
        minus = len(seen[seat]) + 4 * len(TOADS.intersection(seen[seat]))  # a toad: 1 + 4
        running = len(plus[seat]) - minus - 1.4 * len(unseen[seat])
        # the cards with a twin (not the toads) but those whose twin is gone (twins of
        # distinct cards are distinct; a toad's TWINS.get is None, never gone)
        twinned = len(hand) - len(TOADS.intersection(hand))
        twins = twinned - len(gone.intersection(map(TWINS.get, hand)))
        totals.append(done + running + TWIN_VALUE * twins)
    return totals


# ----- krumme10 --------------------------------------------------------------------
def krumme10_policy(state: Any, seat: int, legal: list[Decision], rng: random.Random) -> Decision:
    """Play by the visible sides only (a seat cannot see down sides, and a playout that
    could would overrate positions rich in flips): hit the target with a top side if one
    does, else stay under it; flip a 0 when taking or scoring (its back is 1 or 5), pass
    steals."""
    action = legal[0]["action"]
    if action in ("take", "score"):
        wanted = [d for d in legal if d.get("flip") == (d.get("top", 0) == 0)]
        return wanted[0] if wanted else legal[0]
    if action != "play":
        return legal[-1]  # a steal chain ends with pass
    missing = state.target - sum(entry.card.top for entry in state.display)
    plain = [d for d in legal if not d["flip"]]
    hits = [d for d in plain if d["top"] == missing]
    under = [d for d in plain if d["top"] < missing]
    return rng.choice(hits or under or [min(plain, key=lambda d: d["top"])])


def krumme10_estimate(state: Any) -> list[float]:
    """Every seat's points so far (with teams: its team's score), as the referee counts
    them at the end (`_scores`: the observation's figures, without building one)."""
    return list(state._scores())


# ----- leylo -----------------------------------------------------------------------
LEYLO_COPIES = {**{str(n): 8 for n in range(12)}, "joker-green": 3, "joker-yellow": 3}
LEYLO_COPIES |= {"joker-red": 3, "action": 6}
#: The referee's card codes (arena/games/leylo/cards.py): 0-11 numbers, 12-14 jokers,
#: 15 the action card; a cleared cell is -1.
LEYLO_ACTION, LEYLO_EMPTY = 15, -1


def leylo_points(card: str, action_value: int) -> int:
    """A card's points (L6): a number its value, a joker 12, an action card 12 or 0."""
    if card == "action":
        return action_value
    return 12 if card.startswith("joker") else int(card)


def leylo_mean(action_value: int) -> float:
    """The mean points of a card of the deck."""
    total = sum(leylo_points(card, action_value) * n for card, n in LEYLO_COPIES.items())
    return total / sum(LEYLO_COPIES.values())


def leylo_code_points(code: int, players: int) -> int:
    """The points of a card code (a cleared cell: 0)."""
    if code == LEYLO_EMPTY:
        return 0
    if code == LEYLO_ACTION:
        return 0 if players == 2 else 12
    return code if code < 12 else 12


def leylo_policy(state: Any, seat: int, legal: list[Decision], rng: random.Random) -> Decision:
    """Greedy by what the seat sees: take the discard when it beats its worst face-up
    card, put a held card over the worst face-up card it beats (or over a face-down
    card when it is below the mean), else discard it and turn a card up; clear every
    line, claim with a card cheaper than an action card. It does not turn up or cover
    its last face-down card (which ends the round) unless it looks lowest, since the
    one who ends the round doubles unless lowest: it swaps to wait instead."""
    action = legal[0]["action"]
    if action == "flip":
        return rng.choice(legal)
    if action == "clear":
        return legal[0]
    players = state.players
    cards, up = state.cards[seat], state.up[seat]
    shown = [(leylo_code_points(cards[i], players), i) for i in range(16) if up[i]]
    worst = max(shown, default=(-1, -1))
    last_card = sum(1 for i in range(16) if not up[i] and cards[i] != LEYLO_EMPTY) == 1
    waiting = last_card and not leylo_looks_lowest(state, seat)
    if action in ("draw", "swap"):
        top = leylo_code_points(state.discard[-1], players) if state.discard else 99
        sources = {d["source"]: d for d in legal if d["action"] == "draw"}
        if top < worst[0] and "discard" in sources:
            return sources["discard"]
        swaps = [d for d in legal if d["action"] == "swap"]
        if (waiting or "pile" not in sources) and swaps:
            return swaps[0]
        return sources.get("pile") or sources.get("discard") or legal[0]
    if action in ("claim", "pass"):
        cheap = leylo_code_points(state.discard[-1], players) < 12
        return legal[0] if cheap and len(legal) > 1 else legal[-1]
    held = leylo_code_points(state.held, players)
    if held < worst[0] or (waiting and worst[1] >= 0):
        return {"action": "replace", "cell": worst[1]}
    reveals = [d for d in legal if d["action"] == "discard"]
    if held < leylo_mean(12 if players > 2 else 0) and reveals:
        return {"action": "replace", "cell": rng.choice(reveals)["reveal"]}
    return rng.choice(reveals) if reveals else {"action": "replace", "cell": worst[1]}


def leylo_looks_lowest(state: Any, seat: int) -> bool:
    """True when the seat's grid looks strictly lowest (face-down cards at the mean)."""
    players = state.players
    mean = leylo_mean(12 if players > 2 else 0)

    def points(other: int) -> float:
        cards, up = state.cards[other], state.up[other]
        return sum(
            leylo_code_points(c, players) if up[i] else mean
            for i, c in enumerate(cards)
            if c != LEYLO_EMPTY
        )

    mine = points(seat)
    return all(mine < points(other) for other in range(players) if other != seat)


def leylo_match(a: int, b: int) -> bool:
    """True when two card codes can lie in one line (L4): equal, or a number card and a
    joker of its colour (numbers 0-3 green, 4-7 yellow, 8-11 red; jokers 12-14 likewise)."""
    if a == b:
        return True
    low, high = min(a, b), max(a, b)
    return 0 <= low < 12 and 12 <= high <= 14 and low // 4 == high - 12


def leylo_affinity(cards: list[int], up: list[bool], cell: int, code: int) -> int:
    """How many face-up cards in the row and the column of `cell` match `code`."""
    row, column = cell - cell % 4, cell % 4
    others = [row + k for k in range(4)] + [column + 4 * k for k in range(4)]
    return sum(1 for o in others if o != cell and up[o] and leylo_match(cards[o], code))


def leylo_candidates(state: Any, seat: int, legal: list[Decision]) -> list[Decision]:
    """The decisions worth searching: a LEYLO turn offers up to 26 (24 swaps) and a
    placement up to 30, most of them alike (face-down cards are interchangeable, and a
    swap changes no points). Keeps both draws and the swaps that build lines; the
    replacements of face-up cards the held card beats or builds a line on (at most 4),
    the face-down cell where it builds most, one reveal; one or two opening flips; one
    more swap as a way to wait (it changes no points)."""
    action = legal[0]["action"]
    cards, up = state.cards[seat], state.up[seat]
    if action in ("draw", "swap"):
        draws = [d for d in legal if d["action"] == "draw"]
        gains = [(leylo_swap_gain(cards, up, *d["cells"]), d) for d in legal if "cells" in d]
        best = [d for _, d in sorted((g for g in gains if g[0] > 0), key=lambda g: -g[0])[:2]]
        wait = [d for d in legal if d["action"] == "swap" and d not in best][:1]
        return draws + best + wait or legal
    if action in ("replace", "discard"):
        return leylo_placements(state, seat, legal) or legal
    if action == "flip":
        cells = [d["cell"] for d in legal]
        near = max(cells, key=lambda c: sum(leylo_affinity(cards, up, c, x) for x in range(16)))
        return [d for d in legal if d["cell"] in {cells[0], near}]
    return legal


def leylo_swap_gain(cards: list[int], up: list[bool], a: int, b: int) -> int:
    """How many more matching face-up neighbours the swapped face-up cards get."""
    gain = 0
    if up[a]:
        gain += leylo_affinity(cards, up, b, cards[a]) - leylo_affinity(cards, up, a, cards[a])
    if up[b]:
        gain += leylo_affinity(cards, up, a, cards[b]) - leylo_affinity(cards, up, b, cards[b])
    return gain


def leylo_placements(state: Any, seat: int, legal: list[Decision]) -> list[Decision]:
    """The placements of the held card worth searching (see `leylo_candidates`)."""
    cards, up, held, players = state.cards[seat], state.up[seat], state.held, state.players
    value = leylo_code_points(held, players)

    def gain(cell: int) -> float:
        points = leylo_code_points(cards[cell], players) - value
        lines = leylo_affinity(cards, up, cell, held) - leylo_affinity(cards, up, cell, cards[cell])
        return points + 3 * lines

    replaces = [d["cell"] for d in legal if d["action"] == "replace"]
    shown = sorted((c for c in replaces if up[c] and gain(c) > 0), key=lambda c: -gain(c))
    hidden = [c for c in replaces if not up[c]]
    kept = [{"action": "replace", "cell": c} for c in shown[:4]]
    if hidden:
        best = max(hidden, key=lambda c: leylo_affinity(cards, up, c, held))
        kept.append({"action": "replace", "cell": best})
    reveals = [d for d in legal if d["action"] == "discard"]
    return kept + reveals[:1]


def leylo_estimate(state: Any) -> list[float]:
    """Totals so far plus each grid's points now, a face-down card at the mean of the deck."""
    view = state.observe(0)
    action = view["action_card_value"]
    mean_hidden = leylo_mean(action)
    totals = []
    for seat, grid in enumerate(view["grids"]):
        running = 0.0
        for cell in grid:
            if cell == "hidden":
                running += mean_hidden
            elif cell != "empty":
                running += leylo_points(cell, action)
        totals.append(view["totals"][seat] + running)
    return totals


# ----- twirkle ---------------------------------------------------------------------
#: Playout preferences by action: place cards, end a placement only when nothing fits.
TWIRKLE_PREFERENCE = {"place": 0, "pick": 1, "end_turn": 2, "end_placing": 3, "pass": 4}


def twirkle_policy(state: Any, seat: int, legal: list[Decision], rng: random.Random) -> Decision:
    """Place whatever fits, never exchange or shift (pass when nothing fits)."""
    best = min(TWIRKLE_PREFERENCE.get(d["action"], 9) for d in legal)
    if best == 9:  # only exchanges or shifting moves are left: the cheapest way out
        ends = [d for d in legal if d["action"] in ("end_exchange", "end_turn")]
        return ends[0] if ends else rng.choice(legal)
    return rng.choice([d for d in legal if TWIRKLE_PREFERENCE.get(d["action"], 9) == best])


def twirkle_estimate(state: Any) -> Sequence[float]:
    """The running scores."""
    scores: list[float] = state.observe(0)["scores"]
    return scores


PROFILES: dict[str, Profile] = {
    "take-that": Profile(
        policy=take_that_model.heuristic_policy,  # every seat plays as the heuristic bot
        anchor=True,
        root_policy=take_that_anchor,
        milestone=lambda decision: decision["action"] == "take",
        playout_limit=lambda view: view["draw_pile"] + 25,  # a bound: a round is shorter
        margin_weight=0.7,
        estimate=take_that_estimate,
        margin_scale=10.0,
        model=take_that_model.heuristic_policy,  # the other seats: no tree edges
    ),
    "krumme10": Profile(
        policy=krumme10_policy,
        playout_limit=lambda view: 1,
        estimate=krumme10_estimate,
        margin_weight=1.0,
        margin_scale=5.0,
        exploration=0.2,
        model=krumme10_model.heuristic_policy,  # the other seats: no tree edges
    ),
    "leylo": Profile(
        policy=leylo_policy,
        candidates=leylo_candidates,
        anchor=True,
        stage=lambda state: state.round_no,
        playout_limit=lambda view: 2000,
        estimate=leylo_estimate,
        margin_weight=1.0,
        margin_scale=15.0,
    ),
    "twirkle": Profile(
        policy=twirkle_policy,
        stage=lambda state: state._to_move()[0],
        stages=2,
        playout_limit=lambda view: 80,
        estimate=twirkle_estimate,
        margin_weight=1.0,
        margin_scale=15.0,
    ),
}


def profile_for(game_id: str) -> Profile:
    """The game's profile; an unknown game gets uniform playouts to the end."""
    return PROFILES.get(game_id, Profile())
