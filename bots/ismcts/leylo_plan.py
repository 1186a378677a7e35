"""LEYLO: the greedy evaluation of bots/leylo-heuristic, with the round end's chances.

A LEYLO round runs 100-400 decisions, so a Python tree search with cheap playouts
gets a few dozen round ends per decision, too few to rank a turn's 20-30 decisions
(the search alone won 1 of 12 games against the heuristic). The bot plays an
evaluation instead: the final points of its own grid estimated with face-down cards
at the mean of the unseen cards, minus bonuses for complete and nearly complete lines
(3 of 4 matching: a share of the card's points; 2 of 4: a smaller one), a small tempo
term for turning cards up. Each option of a turn is valued by the best estimate it
leads to, the pile by the expectation over the cards it may hold. What it adds to the
heuristic (bots/leylo-heuristic/bot.py, whose code it copies: a bot sees only its own
folder):

* Line shares by the race (`NEAR_BY_RACE`, `HALF_BY_RACE`): the heuristic counts 0.9 of
  the matching card's points for three of four and 0.1 for two of four all round. But
  a line started early is completed far more often than one started near the end: the
  bot's 3-of-4 lines were cleared in 67 % of the cases while every seat kept eight or
  more face-down cards and in 25 % once a seat kept one (scripts/leylo_line_odds.py).
  The shares follow those rates, so the bot builds lines early (a 3-of-4 line is worth
  twice the card then) and not late (0.74).
* `Feeding`: a placement also pays for what the card it leaves on the discard pile is
  worth to the next seat.
* The option of a turned-up card (`REVEAL_OPTION`): a card turned up is known, so if it
  is high it can be replaced later, where a face-down card can only be replaced
  blindly. Discarding and turning a card up counts that option, so a middling card (a 4
  or 5, the unseen cards' mean is about 5.8) no longer goes over a face-down card. And
  the card to turn up is chosen for the lines it may complete or spoil, over the cards
  it may be (the heuristic turns up any face-down card).
* Ending the round (leylo_endgame.py): worth its exact points, doubled with the
  computed chance that an opponent ends at or below them after its last turn (the
  sum of its face-down cards drawn from the unseen pool; the last turn played
  greedily with the card left on the discard pile or a pile card), less a small bonus.
  A face-down card that the ending placement replaces goes face up onto the discard
  pile, where the next seat sees it before its last turn: that chance is the mean over
  the cards it may be (`View.at_or_below`). The heuristic ends only below a fixed margin.
* A final-lap turn (an opponent ended) minimizes the expected points less the ender's
  points times the chance to end at or below them (the ender doubles then); in the
  last round of a 2-player match it maximizes the chance to win the match.
* Near the round end of a 2-player match (the bot keeps one face-down card, the
  opponent at most two; no final lap yet), when a budget is given: the greedy choice
  is compared with the greedy evaluation's best decision of every other kind (ending
  the round vs waiting; taking the discard vs drawing vs passing with a swap) by flat
  Monte Carlo (leylo_rollout.py): worlds sampled from the observation, all candidates
  in the same worlds, the round played out by a cheap copy of the heuristic, scored by
  the round's points with the doubling. Another kind must be better by SWITCH_MARGIN
  points on average to overrule the greedy choice; at most MAX_WORLDS worlds are
  sampled, fewer when the budget runs out.

Measured with scripts/winrate.py (2 players, 200 games from seed 10000, 100 ms,
--cpu-clock) against leylo-heuristic: 55.0 % before the feeding and round-end terms,
61.5 % with them (95 % CI 54.6-68.0 %; 64.0 % with an ending bonus of 5 instead of 2,
which 400-game blocks of other seeds had put 1 % lower). On those blocks the 2-of-4 line
bonus added about 4 % and the round-end chances about 5 %. Tuning the tempo, the 3-of-4
share, the swap cost, the feeding weight, or a smaller tempo near the round end did not
help. With the rollouts, seeds 10000: 65.2, 61.0 and 66.2 % in three 200-game runs
(the rollouts depend on the clock, so runs differ; CI of the last 59.4-72.4 %); 100-game
blocks, greedy alone -> with rollouts: seeds 50000 65.0 -> 71.0 %, 60000 62.5 -> 65.5 %,
70000 66.5 -> 74.0 %. Variants that did not help: comparing the greedy evaluation's 4
best decisions (50000: 61.0 %); opponents at up to 4 face-down cards (69.0, 74.0,
67.5 % on those blocks, 60.0 % on seeds 10000); 90 % of the budget (50000: 64.0 %); a
switch margin of 0 (64.0 %) or 2 (58.0 %); rollouts at the place decision only
(68.5 %); 3 players (60 games: 45.0 -> 35.0 %, hence 2 players only).

Every kind instead of one rival (the greedy choice against the best of each other
kind, a pass by a swap included: up to three candidates at a turn; a rolled-out world
costs 0.55 ms instead of 0.9 ms, leylo_rollout.completers). Paired runs of the same
deals with 60 iterations a decision (42 worlds, no clock, so a run replays exactly; a
throw-away harness around scripts/winrate.py's play_one), 150 games per block, seeds
50000 / 60000 / 70000: one rival 69.0 / 65.7 / 65.3 %, every kind 66.3 / 73.0 / 69.7 %
(paired differences -2.7 +- 3.3, +7.3 +- 2.9, +4.3 +- 3.6 points; the mean score
margin 0.0, 5.5 and 5.5 points better). With the clock, the command of the task
(`winrate.py leylo --bot ismcts --against leylo-heuristic --players 2 --games 200
--cpu-clock --workers 1`): seeds 10000 66.0, 69.2 (CI 62.5-75.2 %), 66.8 and 65.5 % in
four runs (one rival: 66.2, 61.0, 65.2, 62.5 %); --first-seed 50000 71.0 %, 60000 65.8 %
(one rival, the same command: 65.0 %), 70000 70.2 %; slowest decision 74-76 ms; 3 players
(60 games) 45.0 % as before, 100 % against random (40 games). Did not help, paired as
above (differences on 50000 / 60000): the copy of the heuristic passing by a swap when
nothing beats its grid by 0.5 as the heuristic does (-2.0 / -1.0), or counting the
heuristic's line bonuses in the other grids' estimate (-3.3 / -1.0; both together -0.7
on 50000), though together they raise the copy's agreement with the heuristic's turn
decisions at one face-down card from 58 to 82 %; the bot's own seat in the rollouts
ending by a logistic doubling chance instead of the heuristic's margin (-8.0 / +3.7);
73 worlds instead of 42 (-4.3 / +1.3); rollouts from two own face-down cards (-0.3 /
+0.3; with every kind the margins got 5.7 and 6.8 points worse on 60000 / 70000) or
with the opponent at up to three (-1.7 / +3.0; with every kind -0.7 on 60000); with
every kind, a switch margin of 1.5 (+0.3 / +2.0 on 60000 / 70000, the mean score
margin within 0.6 points).

Where the edge is (paired base, seeds 50000): rounds end in a stand-off, both seats at
one face-down card (the heuristic ends with the bot at one in 154 of 244 rounds, the
bot with the heuristic at one in 151 of 199); the ender wins the round by 14-20 points
when the other still has three or more, which the heuristic does twice as often (64
rounds to 34 on 80000). Kept, paired as above on seeds 50000 / 60000 / 70000 / 80000
(the base 66.3 / 73.0 / 69.7 / 67.0 %): the next seat seeing the face-down card an
ending placement replaces (`View.at_or_below`; +1.3 / 0 / 0 / 0 points, few decisions
change), and with it SWITCH_MARGIN 1.5: 71.3 / 74.7 / 71.7 / 68.3 % (paired against the
base +5.0 +- 2.2, +1.7 +- 1.8, +2.0 +- 2.1, +1.3 +- 2.3; a margin of 2 about the same,
3: -2.0 on 50000), and at most MAX_WORLDS worlds. With the clock, the command of the
task: seeds 10000 68.2 % (CI 61.5-74.3 %) twice (the cap makes runs repeat; before it,
67.2 and 62.3 %), --first-seed 50000 74.0 %, 60000 72.8 %, 70000 71.5 %, 80000 66.8 %;
slowest decision 71-74 ms; 3 players 45.0 % (60 games), 100 % against random (40
games). Did not help (paired, win
points on 50000 / 60000): an ending bonus of the next seat's expected gain in one turn
(-0.7 / 0.0; 2.5 times it: 0.0 on 50000), or of 4 (-3.2 +- 1.6 on 50000); line bonuses
scaled down when few completing cards are left (+0.7 / +0.3); a tempo of 0 when the own
grid is 3 points worse than the other's (0.0 / -9.6), of 2 then (-4.7), 1.5 (-6.1 on
50000) or 0.5 (-1.3 / -6.3); in the last round, ending whenever that wins the match
with 90 % (0.0, the margin 1.6 points worse); a cost for a discard that lets the next
seat end safely (-0.5, it rarely applies); switching only when the rollouts' advantage
exceeds one (+3.3 / -7.7, 70000 -2.0) or two standard errors (+4.7 / -10.3); a switch
margin growing by half the greedy evaluation's gap (0.0 / 0.0), or of 3 for a pass by
a swap (-0.7 / -2.0); the opponent at up to three face-down cards (-1.7 on 50000).
The rollouts' players (paired the same way, win points +- one standard error): the
opponent's seat played by the real leylo-heuristic on its own view of the world -3.3 +-
3.4 / -2.7 +- 3.3 (70000 -2.4 +- 3.8; its slowest decisions 378-975 ms); both seats so
-6.0 +- 6.4 (42 games); the bot's own seat ending by a cheap copy of its doubling chance
(within 0.05 of `View.at_or_below`) -2.0 / -7.0 / -2.0 / -1.7 on 50000-80000 (its future
self ending at the right time makes waiting look better: it ended fewer rounds), with a
penalty of 3 for ending -6.3 / -8.3; passing with a swap that completes a line 0.0 / +0.7
/ -0.7 / -0.7; rollouts only with the opponent at one face-down card -4.3 +- 2.3.

Also dropped (paired against the code above, 150-game blocks of 60 iterations, win
points +- one standard error on seeds 50000 / 60000 unless named; fewer games where
given; a positive score margin is worse for the bot): a reveal valued by the mean over
the unseen cards, so that the cell revealed favours lines (-2.3 +- 5.2, margin +2.5;
60000 after 70 games -4.3 +- 6.9); no feeding cost for a replaced face-down card (-5.3
+- 4.9 / -0.7 +- 6.7 after 75 games); the turn's take-or-draw valued with the feeding
term of the card each placement leaves (-0.3 +- 3.3 / +1.0 +- 4.5 after 51); a tempo of
0 when the bot keeps three or more face-down cards and the opponent one (+0.7 +- 1.8 /
+1.9 +- 1.9 after 106, margins +0.5 / -1.2); rollouts from two own face-down cards in
the last round (-0.7 +- 2.0 / -1.2 +- 3.2 after 82); keeping a line whose points are
below the feeding cost of the card clearing leaves on top (no change in 100 games: lines
of 0s and 1s are rare); in the last round, not ending when the exact chance to win the
match by ending is below 5 % or 20 % (0.0 on 50000 / 70000: the wait rarely saves the
match either); in the last round, a switch margin raised by 1.5 worlds' wins (-1.0 +-
1.0 on 50000 / 70000 after 100); the own seat in last-round rollouts ending when the
match is won rather than by the heuristic's margin (0.0 / 0.0 +- 1.5 on 50000 / 70000,
margins 1.0 worse, slowest decision 256 ms); near the round end (the rollouts' region)
3-of-4 lines at half their share and 2-of-4 at none (+0.7 +- 2.0, +1.4 +- 2.3 after
107, +2.0 +- 1.7, -1.7 +- 1.7 after 116 on 50000-80000; at none for both 0.0 +- 3.0 /
-1.5 +- 2.0 on 50000 / 70000, margins 2.2 and 0.7 worse). Where the last round goes
(600 base games): trailing after round 2 the bot ended round 3 and won it, though not
by enough, in 37 of its 175 losses.

Fresh seeds, 1000 games a block (issue 13, a later session): the blocks above were the
ones this module was tuned on. With a fixed 60 iterations a decision (the 42 worlds the
clock's cap allows; a few games still differ by the clock), seeds 200000 won 63.9 %
(its blocks of 200 games: 58.8-70.5 %) and seeds 400000 68.0 %: about 66 % (+- 2.1).
Variants on seeds 200000 (win points against the code above +- one standard error;
the games diverge, so a pair is hardly a pair): tempo 0.7 -0.5 +- 1.8, 1.3 +1.7 +-
1.6; feeding weight 0.4 +0.4 +- 1.7, 1.0 +1.7 +- 1.7; 3-of-4 share 0.7 -0.4 +- 1.0;
2-of-4 share 0.2 +1.6 +- 1.6; ending bonus 0 -0.9 +- 0.8, 4 -0.2 +- 0.6; tempo 1.5
while the bot keeps fewer face-down cards than the opponent +1.7 +- 0.9, 1.3 while it
keeps more +1.1 +- 1.3, 0 when it keeps three or more and the opponent one -0.5 +- 0.8;
every reveal valued over the cards it may turn up (a line it may complete and clear)
+2.2 +- 2.0; rollouts from two own face-down cards +1.9 +- 1.7, with the opponent at up
to three +1.3 +- 0.9. Nearly every variant came out 1-2 points up on a block whose base
had drawn low (63.9 %): the base regressing to its mean, not gains. Tempo 1.3 (1.5 when
leading the race), feeding 1.0, 2-of-4 0.2 and the exact reveals together: 66.8 % on
200000 (+2.8 +- 2.1) but 65.8 % on 400000 (-2.2 +- 2.0): dropped, the code stays as
it was. Where the edge lies (200 games, seeds 300000, 71 %): the heuristic ends 337
rounds and is doubled in 89 of them (the bot wins those by 37 points), the bot ends
252 and is doubled in 12 (it loses those by 38); the heuristic ends with the bot at
two or more face-down cards in 131 rounds (the bot loses them by 4.7 points), the bot
the other way round in 80 (it wins them by 20). So the bot's edge is mostly the
heuristic's doubling; the bot waits more than the heuristic, and racing harder (the
tempo variants) did not pay.

What did pay is what turning a card up tells (the same 1000-game blocks, and 600000,
never tuned on; win % and the mean score margin, lower is better for the bot):
- `REVEAL_OPTION` 2: 200000 69.3 %, 400000 70.2 %, 600000 69.0 % (the code above: 63.9,
  68.0, 67.0 %), about 69.5 % against 66.3 %; margins -16.6 / -15.7 / -15.8 (-11.5 /
  -16.3 / -13.5). Option 1: 68.7 / 71.1 % (784 games: a run stopped where the bot
  crashed on a grid whose crossing row and column it counted as both cleared, fixed
  since); 3: 70.1 % (852) / 69.1 %; 4: 66.7 / 68.1 % (507); 3 only while the
  opponent keeps three or more face-down cards: 67.0 % (858, 200000).
- With it, the cell turned up chosen by the lines the card may complete or spoil
  (`reveal` with `place`; before, every face-down cell was worth the same, so the
  choice was random): 70.0 / 70.7 / 71.4 %, about 70.7 % (against the option alone
  +0.7 / +0.4 / +2.4 points +- 2.0). On 800000, a block used for nothing before:
  71.2 %, where the code before the option won 64.9 % (+6.3 +- 2.0).
- Did not help on top of the option (600000, and 200000 where named): tempo 1.3 +0.8 +-
  1.6, 0.7 +0.7 +- 1.6; rollouts from two own face-down cards with the opponent at up
  to three -2.5 +- 1.9 (200000), +0.7 +- 1.8. On top of both (600000): option 2.5 -1.2
  +- 1.5; feeding weight 1.0 -1.9 +- 1.5; 2-of-4 share 0.2 -4.6 +- 1.8 (842 games); a
  face-down card replaced by a known one losing an option of its own (1 point, the
  option of turning up 1, so that the two keep their difference) -3.0 +- 1.9; the
  option following the unseen cards (1.3 times their mean points above 6, about 2 at a
  round's start) -0.5 +- 1.1, 800000 +0.3 +- 1.0.
Also dropped (a later session; 1000-game blocks of 60 iterations, win points and the mean
score margin against the code above, +- one standard error): a one-turn lookahead (the six
best placements valued by the expected best estimate after one more draw from the pile, a
card turned up over the cards it may be; 10 ms a decision) 800000 +0.6 +- 1.9, margin -2.2
+- 1.4, 600000 -0.8 +- 1.9, margin -0.3 +- 1.4; with the take-or-draw choice looked ahead
too (800000, 747 games) -1.0 +- 2.2; a doubling counted 1.5 times in the ending value
(454 games) -0.7 +- 0.7; in the last round, rollouts whatever the opponent keeps face down
0.0 +- 0.3 (869 games: few games changed); 80 worlds instead of 42 (736
games) -2.6 +- 1.9; keeping complete lines until the bot's last turn of the round (so
that the card clearing leaves on top feeds nobody) -9.6 +- 1.8 (623 games: with a kept
line, rounds stalled with both seats at one face-down card until the turn limit, in 2
of the first 6 deals; why, not looked into). The doubling chance is calibrated: over 402
round ends of the bot (seeds 300000) it predicted 5.0 % on average and was doubled in
6.2 %.
What paid most: the line shares by the race (1000-game blocks of 60 iterations, win %
against the code before them, paired, +- one standard error; blocks never used to fit
them). A first guess, the rates measured with the heuristic's flat shares rounded
(scripts/leylo_line_odds.py, 300 games from seed 500000: 3-of-4 lines completed in
14.5, 34.3, 52.3, 71.8 % by bucket, 2-of-4 in 0.7, 2.8, 6.3, 14.4 %; shares 0.4, 1.0,
1.5, 2.1 and 0.03, 0.12, 0.26, 0.6), won 77.5 % on 800000 (+6.2 +- 1.8, mean score
margin -23.3 against -16.5) and 74.4 % on 600000 (+2.9 +- 1.9). The rates measured
with that guess in play, which the code uses: 77.8 % on 800000 (+6.6 +- 1.9; against
the guess -0.2 +- 1.7) and 77.8 % on 600000 (+6.5 +- 1.8; against the guess +3.5 +-
1.8). With the clock, the command of the task: seeds 10000 76.5 % (CI 70.2-81.8 %;
67.0 % before), 1000 games from 20000 78.2 % (69.1 % before); 3 players (300 games)
60.3 % (45.0 % before).
Standard library only (the rollouts also use arena.games).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from leylo_endgame import Dist, Final, HiddenSums, LastTurn, at_most

#: The default LEYLO deck (ruling L1): card name -> copies.
DECK: dict[str, int] = {str(v): 8 for v in range(12)}
DECK.update({"joker-green": 3, "joker-yellow": 3, "joker-red": 3, "action": 6})
COLOUR = {str(v): ("green", "yellow", "red")[v // 4] for v in range(12)}
COLOUR.update({"joker-green": "green", "joker-yellow": "yellow", "joker-red": "red"})
LINES = [[4 * r + c for c in range(4)] for r in range(4)] + [
    [4 * r + c for r in range(4)] for c in range(4)
]
#: Line bonuses by (action card value, complete lines only) and the line's four cells.
_CACHES: dict[tuple[int, bool, float, float], dict[tuple[str, ...], float]] = {}
#: Points a turned-up or replaced face-down card is worth for getting closer to the round end.
TEMPO = 1.0
#: A nearly complete line is worth its matching card's points times a share that falls
#: as the round end nears (the heuristic's 0.9 and 0.1 all round). The race is the
#: fewest face-down cards of any seat, the bot's own included, bucketed as at most 1,
#: 2-3, 4-7, 8 or more.
RACE_LIMITS = (1, 3, 7)
#: The share when three of four cards match: three times the rate at which the bot's
#: 3-of-4 lines were cleared by the round's end (scripts/leylo_line_odds.py, 300 games
#: from seed 500000, played with a first guess of these shares: 24.7, 41.9, 55.3, 67.4 %).
NEAR_BY_RACE = (0.74, 1.26, 1.66, 2.02)
#: The same for two of four, four times the rate (the other two cards go too): 1.0, 2.7,
#: 9.0, 22.6 %.
HALF_BY_RACE = (0.04, 0.11, 0.36, 0.9)
#: A swap's cost: a turn that turns nothing up.
SWAP_COST = 0.5
#: Points a turned-up card is worth beyond its tempo: it is known then, so a high one can
#: be replaced later, where a face-down card can only be replaced blindly (an option).
REVEAL_OPTION = 2.0
#: Points ending the round is worth beyond its doubling risk: it stops the opponents from
#: improving their grids further.
END_BONUS = 2.0
#: Points a whole win is worth in the last lap of a match (it outweighs any points).
WIN_WEIGHT = 1000.0


class View:
    """What the policy needs from an observation: card values and the unseen cards."""

    def __init__(self, obs: dict[str, Any]) -> None:
        """Count every card the seat can see and derive the unseen pools."""
        self.obs = obs
        self.seat: int = obs["seat"]
        self.values = {card: card_points(card, obs["action_card_value"]) for card in DECK}
        self.values["empty"] = 0.0
        race = min(obs["face_down"])  # the fewest face-down cards of any seat
        bucket = sum(race > limit for limit in RACE_LIMITS)
        self.near, self.half = NEAR_BY_RACE[bucket], HALF_BY_RACE[bucket]
        # Line bonuses do not depend on the face-down estimate: share them between turns.
        action_value = obs["action_card_value"]
        self.cache = _CACHES.setdefault((action_value, False, self.near, self.half), {})
        self.complete_cache = _CACHES.setdefault((action_value, True, 0.0, 0.0), {})  # no shares
        seen: dict[str, int] = dict.fromkeys(DECK, 0)
        for grid in obs["grids"]:
            for cell in grid:
                if cell in seen:
                    seen[cell] += 1
        for card in obs["discard"]:
            seen[card] += 1
        held = obs["holding"]
        if held is not None and held["card"] in seen:
            seen[held["card"]] += 1
        unseen = {card: DECK[card] - seen[card] for card in DECK}
        known = obs["draw_pile_known"]
        if known is None:
            self.hidden_pool = unseen
            self.pile_pool = unseen
        else:
            pile = dict.fromkeys(DECK, 0)
            for card in known:
                pile[card] += 1
            self.pile_pool = pile
            self.hidden_pool = {card: max(0, unseen[card] - pile[card]) for card in DECK}
        self.ev = self.mean(self.hidden_pool)
        self._sums: HiddenSums | None = None
        self._last_turns: dict[int, LastTurn] = {}
        self.values["hidden"] = self.ev

    def mean(self, pool: dict[str, int]) -> float:
        """Mean value of a pool of cards (6 when it is empty)."""
        total = sum(pool.values())
        if total == 0:
            return 6.0
        return sum(self.values[card] * k for card, k in pool.items()) / total

    def line_bonus(self, grid: list[str]) -> float:
        """Points expected to vanish through lines: complete lines fully, 3-of-4 partly."""
        cache = self.cache
        bonus = 0.0
        for line in LINES:
            key = (grid[line[0]], grid[line[1]], grid[line[2]], grid[line[3]])
            value = cache.get(key)
            if value is None:
                value = cache[key] = self.line_value(key, False)
            bonus += value
        return bonus

    def line_value(self, cells: tuple[str, ...], complete_only: bool) -> float:
        """The bonus of one line of four cells."""
        if "empty" in cells or (complete_only and "hidden" in cells):
            return 0.0
        values = self.values
        numbers = [c for c in cells if c in COLOUR and not c.startswith("joker")]
        jokers = [COLOUR[c] for c in cells if c.startswith("joker")]
        actions = cells.count("action")
        best = 0.0
        if actions == 4:
            best = 4 * values["action"]
        elif actions == 3 and not complete_only:
            best = self.near * values["action"]
        for target in set(numbers):
            matches = numbers.count(target) + jokers.count(COLOUR[target])
            if matches == 4:
                best = max(best, sum(values[c] for c in cells))
            elif matches == 3 and not complete_only:
                best = max(best, self.near * values[target])
            elif matches == 2 and not complete_only:
                best = max(best, self.half * values[target])
        if not numbers and len(jokers) >= 3 and len(set(jokers)) == 1:
            if len(jokers) == 4:
                best = max(best, sum(values[c] for c in cells))
            elif not complete_only:
                best = max(best, 2.0)
        return best

    def rough(self, grid: list[str]) -> float:
        """Points of a grid with face-down cards at the mean, minus line bonuses."""
        values = self.values
        return sum(values[c] for c in grid) - self.line_bonus(grid)

    def estimate(self, grid: list[str]) -> float:
        """Estimated final points of the own grid, with the tempo term and the ending risk."""
        hidden = grid.count("hidden")
        if self.obs["ender"] is not None:
            return self.last_turn_value(grid)
        if hidden == 0:
            return self.ending_value(grid, None)
        return self.rough(grid) + TEMPO * hidden

    # ----- the round end (leylo_endgame.py) --------------------------------------
    def final(self, grid: list[str]) -> Final:
        """A grid as the round end counts it: face-up points after clearing its complete
        lines, and the face-down cards (worth their true values then). Clearing a line
        empties its cells, so a row and a column that cross are never both cleared: the
        lines cleared are all complete rows or all complete columns, whichever is more."""
        shown = sum(self.values[c] for c in grid if c != "hidden")
        cleared = [self.line_bonus_of(tuple(grid[i] for i in line), True) for line in LINES]
        shown -= max(sum(cleared[:4]), sum(cleared[4:]))
        return round(shown), grid.count("hidden")

    @property
    def sums(self) -> HiddenSums:
        """Distributions of face-down sums, built on first use."""
        if self._sums is None:
            self._sums = HiddenSums(self.hidden_pool, self.values)
        return self._sums

    def last_turn(self, seat: int) -> LastTurn:
        """The model of `seat`'s last turn of the round, built on first use."""
        model = self._last_turns.get(seat)
        if model is None:
            grid = self.obs["grids"][seat]
            model = self._last_turns[seat] = LastTurn(grid, self.pile_pool, self.final, self.sums)
        return model

    def ending_value(self, grid: list[str], top: str | None) -> float:
        """What ending the round with `grid` is worth, in own points: the exact points,
        doubled with the chance that an opponent ends at or below them after its last
        turn (`top`: the card left on the discard pile, None when not known), less a
        bonus for stopping the opponents from improving further."""
        points = self.final(grid)[0]
        if points <= 0:
            return points - END_BONUS
        lowest = 1.0
        for seat in range(self.obs["players"]):
            if seat != self.seat:
                next_seat = seat == (self.seat + 1) % self.obs["players"]
                lowest *= 1.0 - self.at_or_below(seat, top if next_seat else None, points)
        return points * (2.0 - lowest) - END_BONUS

    def at_or_below(self, seat: int, top: str | None, points: int) -> float:
        """The chance that `seat` ends at or below `points` after its last turn, with
        `top` on the discard pile. "hidden" is the own face-down card a placement replaces:
        it goes face up onto the pile, so the next seat sees it and takes it when it is good
        (as one unknown card it would be taken blindly, at the mean: the chance came out
        too low). That case is the mean over the cards it may be."""
        model = self.last_turn(seat)
        pool = self.hidden_pool
        total = sum(pool.values())
        if top != "hidden" or not total:
            return at_most(model.distribution(None if top == "hidden" else top), points)
        chance = sum(k * at_most(model.distribution(card), points) for card, k in pool.items() if k)
        return chance / total

    def last_turn_value(self, grid: list[str]) -> float:
        """A final-lap grid: the expected points, less the ender's points times the chance
        that this grid ends at or below them (the ender's score then doubles)."""
        ender = self.obs["ender"]
        shown, hidden = self.final(grid)
        expected = shown + self.ev * hidden
        if ender == self.seat:
            return expected
        theirs = self.final(self.obs["grids"][ender])[0]
        if theirs <= 0:
            return expected
        mine = self.sums.of(hidden)
        at_or_below = at_most(mine, theirs - shown)
        value = expected - theirs * at_or_below
        if self.obs["players"] == 2 and self.obs["round"] == self.obs["rounds"]:
            # The match ends with this lap: only winning it counts (points break ties).
            value -= WIN_WEIGHT * self.win_chance(mine, shown, theirs)
        return value

    def win_chance(self, mine: Dist, shown: int, theirs: int) -> float:
        """The chance to win a 2-player match that ends with this final lap, the own grid
        ending at `shown` plus a face-down sum drawn from `mine`, the ender's at `theirs`."""
        totals = self.obs["totals"]
        lead = totals[1 - self.seat] - totals[self.seat]  # what the own total may add
        chance = 0.0
        for extra, p in enumerate(mine):
            points = shown + extra
            margin = lead + theirs * (2 if points <= theirs else 1) - points
            chance += p * (1.0 if margin > 0 else 0.5 if margin == 0 else 0.0)
        return chance

    def placer(self, grid: list[str]) -> Callable[[int, str], float]:
        """A fast `estimate` of `grid` with one cell changed: only its two lines are recounted."""
        values = self.values
        base = sum(values[c] for c in grid)
        line_keys = [tuple(grid[i] for i in line) for line in LINES]
        per_line = [self.line_bonus_of(key) for key in line_keys]
        bonus = sum(per_line)
        hidden = grid.count("hidden")
        final_lap = self.obs["ender"] is not None  # the doubling counts: no shortcut

        def estimate_after(cell: int, card: str) -> float:
            old = grid[cell]
            left = hidden - (old == "hidden") + (card == "hidden")
            if left == 0 or final_lap:
                after = list(grid)
                after[cell] = card
                return self.estimate(after)
            row, column = cell // 4, 4 + cell % 4
            change = 0.0
            for index in (row, column):
                key = list(line_keys[index])
                key[LINES[index].index(cell)] = card
                change += self.line_bonus_of(tuple(key)) - per_line[index]
            return base - values[old] + values[card] - bonus - change + TEMPO * left

        return estimate_after

    def line_bonus_of(self, key: tuple[str, ...], complete_only: bool = False) -> float:
        """The cached bonus of one line."""
        cache = self.complete_cache if complete_only else self.cache
        value = cache.get(key)
        if value is None:
            value = cache[key] = self.line_value(key, complete_only)
        return value

    def reveal(
        self,
        grid: list[str],
        cell: int,
        top: str | None = None,
        place: Callable[[int, str], float] | None = None,
    ) -> float:
        """Estimate after turning up a face-down cell (`top`: the card discarded; `place`:
        `placer(grid)`, to weigh the lines the card turned up may make or spoil, over the
        cards it may be; without it every face-down cell is worth turning up alike)."""
        if self.obs["ender"] is not None:
            return self.estimate(grid)  # in a final lap it changes no expectation
        pool = self.hidden_pool
        total = sum(pool.values())
        if grid.count("hidden") > 1:
            if place is not None and total:
                mean = sum(k * place(cell, card) for card, k in pool.items() if k) / total
                return mean - REVEAL_OPTION
            return self.estimate(grid) - TEMPO - REVEAL_OPTION
        if total == 0:
            return self.estimate(grid)
        score = 0.0
        for card, k in pool.items():
            if k:
                after = list(grid)
                after[cell] = card
                score += k * self.ending_value(after, top)
        return score / total


#: How much of what the next seat gains from our discard counts against a placement.
FEED_WEIGHT = 0.7


class Feeding:
    """What the card left on the discard pile is worth to the next seat, who may take it
    at its turn instead of drawing from the pile (the heuristic ignores it): how much
    lower its grid gets with the card on its best cell, beyond what a pile card gives it
    on average. Grids are read with face-down cards at the mean, as `View.rough` does."""

    def __init__(self, view: View, obs: dict[str, Any]) -> None:
        self.view = view
        self.grid: list[str] = obs["grids"][(obs["seat"] + 1) % obs["players"]]
        self.base = view.rough(self.grid)
        self.gains: dict[str, float] = {}
        pool = view.pile_pool
        total = sum(pool.values())
        self.pile = sum(k * self.gain(c) for c, k in pool.items() if k) / total if total else 0.0

    def gain(self, card: str) -> float:
        """How much lower the next seat's grid gets with `card` on its best cell."""
        known = self.gains.get(card)
        if known is None:
            best = self.base
            for i, cell in enumerate(self.grid):
                if cell != "empty":
                    after = list(self.grid)
                    after[i] = card
                    best = min(best, self.view.rough(after))
            known = self.gains[card] = self.base - best
        return known

    def damage(self, card: str) -> float:
        """The next seat's gain from `card` over a pile card's ("hidden": the mean over
        the cards a face-down cell may hold)."""
        if card == "hidden":
            pool = self.view.hidden_pool
            total = sum(pool.values())
            if not total:
                return 0.0
            return sum(k * self.damage(c) for c, k in pool.items() if k) / total
        if card == "empty":
            return 0.0
        return max(0.0, self.gain(card) - self.pile)


def placement_score(
    view: View,
    feeding: Feeding,
    grid: list[str],
    card: str,
    decision: dict[str, Any],
    reveals: dict[int, float],
) -> tuple[float, dict[str, Any]]:
    """A placement's estimate plus what the card it leaves on the discard pile feeds the
    next seat; a placement that ends the round counts that in its ending value."""
    ending = grid.count("hidden") == 1 and view.obs["ender"] is None
    if decision["action"] == "discard":
        left = card  # the held card goes to the discard pile
        cell = decision["reveal"]
        if ending:
            return view.reveal(grid, cell, left), decision
        score = reveals[cell]
    else:
        left = grid[decision["cell"]]  # the card it replaces does
        after = list(grid)
        after[decision["cell"]] = card
        if ending and left == "hidden":
            return view.ending_value(after, left), decision
        score = view.estimate(after)
    return score + FEED_WEIGHT * feeding.damage(left), decision


def card_points(card: str, action_value: int) -> float:
    """Points of a card (L6)."""
    if card == "action":
        return float(action_value)
    if card.startswith("joker"):
        return 12.0
    return float(card)


def choose(
    observation: dict[str, Any],
    legal: list[dict[str, Any]],
    rng: random.Random,
    more: Callable[[int], bool] | None = None,
) -> dict[str, Any]:
    """Pick one decision of `legal` for the observation (the whole policy); `more` says
    whether another sampled world may start (None: the greedy evaluation alone)."""
    obs = observation
    phase = obs["phase"]
    if phase == "flip":
        return rng.choice(legal)
    if phase == "clear":
        return legal[0]  # clearing a line never costs points
    view = View(obs)
    grid: list[str] = obs["grids"][obs["seat"]]
    if phase == "claim":
        top = obs["discard"][-1]
        best, best_score = legal[-1], view.estimate(grid)
        for decision in legal[:-1]:
            after = list(grid)
            after[decision["cell"]] = top
            score = view.estimate(after)
            if score < best_score - 0.5:
                best, best_score = decision, score
        return best
    place = view.placer(grid)
    reveals = {i: view.reveal(grid, i, None, place) for i, c in enumerate(grid) if c == "hidden"}
    best_reveal = min(reveals.values(), default=float("inf"))

    def best_placement(card: str) -> float:
        """The best estimate reachable by placing `card`."""
        best = best_reveal
        for i, cell in enumerate(grid):
            if cell != "empty":
                best = min(best, place(i, card))
        return best

    scored: list[tuple[float, dict[str, Any]]] = []
    if phase == "place":
        card = obs["holding"]["card"]
        feeding = Feeding(view, obs)
        for decision in legal:
            scored.append(placement_score(view, feeding, grid, card, decision, reveals))
    else:  # phase turn: take the discard, draw from the pile, or swap
        for decision in legal:
            if decision["action"] == "swap":
                a, b = decision["cells"]
                after = list(grid)
                after[a], after[b] = after[b], after[a]
                scored.append((view.estimate(after) + SWAP_COST, decision))
            elif decision["source"] == "discard":
                scored.append((best_placement(obs["discard"][-1]), decision))
            else:
                pool = view.pile_pool
                total = sum(pool.values())
                if total:
                    expected = sum(k * best_placement(c) for c, k in pool.items() if k) / total
                    scored.append((expected, decision))
    if more is not None and near_round_end(obs):
        return rolled_out(view, grid, scored, rng, more)
    low = min(s for s, _ in scored)
    return rng.choice([d for s, d in scored if s <= low + 1e-9])


#: Part of the decision's budget after which no new world starts (one world's rollouts
#: take a few ms).
BUDGET_SHARE = 0.7
#: At most this many worlds a decision, whatever the clock allows: a decision then
#: depends on how fast the machine is only when the clock cuts it (the same command
#: gave 67.2 % on a loaded machine and 62.3 % on an idle one before the cap), and
#: it is the count the paired blocks measure (60 iterations at BUDGET_SHARE). No other
#: count measured better (150-game blocks, seeds 50000 / 60000: 30 worlds -9.7 / -10.7
#: points, 51 -7.3 / -5.7, 60 -7.7 on 50000, 73 -4.3 / +1.3; as every game diverges
#: then, each difference is +- 4.6, so this says no more than: not better).
MAX_WORLDS = 42
#: The round end is near when the bot keeps at most this many face-down cards ...
OWN_HIDDEN = 1
#: ... and an opponent at most this many: then candidates are compared by rollouts.
OTHER_HIDDEN = 2
#: Mean points by which the rollouts must prefer another kind of decision over the
#: greedy choice to overrule it: a few dozen worlds are noisy, and a switch on noise
#: costs (1.5 won 2.2 % more games than 1.0 over four paired 150-game blocks).
SWITCH_MARGIN = 1.5


def near_round_end(obs: dict[str, Any]) -> bool:
    """True when rollouts to the round end are short and the ending decision is close."""
    if obs["ender"] is not None:
        return False  # a final lap's last turn: leylo_endgame computes it exactly
    if obs["players"] != 2:
        return False  # the rollouts ignore claims (3 players, 60 games: 45.0 -> 35.0 %)
    seat = obs["seat"]
    if obs["face_down"][seat] > OWN_HIDDEN:
        return False
    return min(n for s, n in enumerate(obs["face_down"]) if s != seat) <= OTHER_HIDDEN


def rolled_out(
    view: View,
    grid: list[str],
    scored: list[tuple[float, dict[str, Any]]],
    rng: random.Random,
    more: Callable[[int], bool],
) -> dict[str, Any]:
    """The greedy choice, unless the rollouts (leylo_rollout.py) prefer the greedy
    evaluation's best decision of another kind (`kind`) by SWITCH_MARGIN."""
    import leylo_rollout  # needs arena.games, which run_search has imported already

    ranked = sorted(scored, key=lambda item: item[0])
    greedy = ranked[0][1]
    best_of_kind: dict[str, dict[str, Any]] = {}
    for _, decision in ranked:
        best_of_kind.setdefault(kind(grid, decision), decision)
    rivals = [decision for decision in best_of_kind.values() if decision is not greedy]
    if not rivals:
        return greedy
    sim = sim_for(view)

    def capped(done: int) -> bool:
        return done < MAX_WORLDS and more(done)

    means, _ = leylo_rollout.compare(view.obs, [greedy, *rivals], sim, rng, capped)
    best = min(range(len(means)), key=means.__getitem__)
    return greedy if best == 0 or means[best] >= means[0] - SWITCH_MARGIN else rivals[best - 1]


def kind(grid: list[str], decision: dict[str, Any]) -> str:
    """What the rollouts choose between: ending the round or not; taking the discard,
    drawing, or passing with a swap (which swap is left to the greedy evaluation)."""
    if decision["action"] == "swap":
        return "swap"
    if decision["action"] == "draw":
        return decision["source"]
    return "end" if ends_round(grid, decision) else "wait"


def ends_round(grid: list[str], decision: dict[str, Any]) -> bool:
    """True when a placement turns up or replaces the grid's last face-down card."""
    cell = decision.get("cell", decision.get("reveal"))
    return grid.count("hidden") == 1 and cell is not None and grid[cell] == "hidden"


def sim_for(view: View) -> Any:
    """The rollout policy with this view's card points, mean and pile."""
    import leylo_rollout

    from arena.games.leylo.cards import NAMES

    points = [round(view.values[name]) for name in NAMES] + [0]  # [-1]: an empty cell
    pool = view.pile_pool
    total = sum(pool.values()) or 1
    codes = {name: code for code, name in enumerate(NAMES)}
    chances = [(codes[name], k / total) for name, k in pool.items() if k]
    return leylo_rollout.Sim(points, view.ev, chances)
