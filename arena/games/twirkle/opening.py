"""W2's public inference for the sampler: which hands are still the dealt ones, and how likely.

W2 deals six cards to every seat and lets the seat with the largest line set start;
when several seats tie for it, the start player is drawn at random among them. Every
seat sees who started (`start_seat`) and with how many cards (`opening_size`), so
every seat knows, of every hand still the dealt one:

- it holds no line set larger than `opening_size` (the bound);
- the start player's, while the opening runs, can still complete a line of that size;
- a hand tying the opening size is less likely than a uniform deal says, because the
  start player was one of the tied seats drawn at random (the tie weight below).

Which hands are still the dealt ones, by the observation alone: a seat's hand is until
a turn of it places or exchanges. The observation shows every seat's last finished
turn (`last_turns`) and how many turns were finished (`turns`, going round from the
start player, the opening first), so it shows whether a seat finished no turn, or one
turn that was a pass; after a seat's second turn its first is no longer shown (and a
pass never draws, an exchange always does), so from then on its hand counts as drawn
at random, like any refilled hand. Of the seat to move it also shows the turn under
way: its hand with the cards it laid (`placed`) or set aside (`exchange`) this turn,
until its placement is refilled or its exchange drawn (from the shift that follows);
a shift after a pass draws nothing, so the hand is still the dealt one.

The tie weight, derived. The deal D is uniform over the arrangements of the 108
cards. W2 fixes s = the largest line set over all hands and draws the start player
sigma uniformly among the T(D) seats whose largest set is s, so

    P(sigma, s | D) = [largest(D_sigma) = s and largest(D_i) <= s for all i] / T(D).

By Bayes, with the uniform prior, P(D | sigma, s, ...) is proportional to that
indicator over T(D), times the likelihood of everything observed later. Of the
later events only chance counts (draws from the bag, the reshuffles after exchanges:
uniform); how seats choose is no evidence here (protocol/SEARCH.md), so the later
events constrain where cards are, and weigh nothing. T(D) is 1 (the start player)
plus the ties among the other seats:

- the observing seat's own, when its hand is still the dealt one (it sees it);
- the hidden still-dealt hands' (t, read off each sampled deal);
- the ties of the seats whose dealt hand is gone (placed or exchanged, or no longer
  shown; the observing seat's too, which its observation no longer shows either):
  nothing the observation shows pins that hand down, so it is summed out,
  each tying with probability q = P(largest = s | laid <= largest <= s) for six cards
  drawn from the 108 (`HANDS_BY_LARGEST_SET`), where `laid` is the number of cards its
  first placement laid when the observation shows it (a placement lays distinct kinds
  of one line set, so the dealt hand held that many) and 1 otherwise. These ties are
  taken as independent of the hidden cards: a gone hand's cards share the deck with
  them, a dependence of a few cards in a hundred that this ignores.

So a deal of the hidden places that obeys the bound weighs w(t) = E[1 / (F + t + B)],
F the start player and the seen tie, B the number of gone ties (Poisson-binomial in
the q's). `tie_acceptance` gives w(t) / w(0) <= 1 for every t: accepting a uniformly
drawn deal that obeys the bound with that probability samples the posterior exactly,
but for that independence (with 2 players and the other hand hidden and still dealt,
F = 1 and B = 0: a tying hand is accepted half as often as one below the opening size).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.games.twirkle.cards import COLOUR_MASK, KIND_OF, SYMBOL_MASK

#: Every set of six kinds that forms a line: the six colours, then the six symbols.
LINE_SETS: tuple[int, ...] = COLOUR_MASK + SYMBOL_MASK

#: How many of the C(108, 6) hands of six cards have a largest line set of 0, 1, ..., 6
#: (each card told apart by copy). tests/games/test_twirkle_sampling.py counts them anew.
HANDS_BY_LARGEST_SET: tuple[int, ...] = (
    0,
    9_176_130,
    1_084_083_930,
    754_874_640,
    63_748_620,
    1_662_120,
    8_748,
)


@dataclass(frozen=True)
class DealtHand:
    """A hidden hand known to be (with `known` public cards) the hand a seat was dealt.

    `places` hold its hidden cards; `known` are its cards already on the board this
    turn. A start player's hand in the opening must still complete the opening line.
    """

    places: tuple[str, ...]
    known: tuple[int, ...]
    starter: bool


@dataclass(frozen=True)
class Opening:
    """What W2 says about the hidden places of one observation.

    `hands` are the hidden hands still as dealt, the start player's (during the
    opening) first if there; `accept[t]` is the probability to keep a deal obeying the
    bound in which `t` of the other hands in `hands` tie the opening size.
    """

    size: int
    hands: tuple[DealtHand, ...]
    accept: tuple[float, ...]


def kind_mask(kinds: Sequence[int]) -> int:
    """The kinds as a bit set."""
    mask = 0
    for kind in kinds:
        mask |= 1 << kind
    return mask


def largest_set_of_mask(mask: int) -> int:
    """W2's largest line set of the kinds in `mask` (`cards.largest_line_set`, on bits)."""
    return max((mask & line_set).bit_count() for line_set in LINE_SETS)


def finished_turns(observation: Mapping[str, Any], seat: int) -> int:
    """How many turns `seat` has finished: turns go round from the start player."""
    players = observation["players"]
    behind = (seat - observation["start_seat"]) % players
    turns: int = observation["turns"]
    return 0 if turns <= behind else (turns - behind - 1) // players + 1


def dealt_places(
    observation: Mapping[str, Any], seat: int
) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    """Where `seat`'s dealt hand is, when the observation shows it still holds it.

    Its places (its hand, and the cards it has set aside in a running exchange) and its
    cards known to be of it (those it laid this turn); None once a turn of it placed or
    exchanged, and after its second turn (see the module docstring).
    """
    phase = observation["phase"]
    if phase == "over":
        return None
    done = finished_turns(observation, seat)
    if done > 1 or (done == 1 and observation["last_turns"][seat]["action"] != "pass"):
        return None
    place = f"hand:{seat}"
    if seat != observation["to_move"]:
        return (place,), ()
    if phase in ("opening", "turn", "placing"):
        return (place,), tuple(KIND_OF[cell["card"]] for cell in observation["placed"])
    if phase == "exchanging":
        return (place, "exchange"), ()
    if observation["turn_action"] == "pass":  # a shift after a pass: nothing was drawn
        return (place,), ()
    return None  # the shift after a placement's refill or an exchange's draw


def first_laid(observation: Mapping[str, Any], seat: int) -> int:
    """How many cards `seat`'s first placement laid, when the observation shows it, else 0."""
    done = finished_turns(observation, seat)
    last = observation["last_turns"][seat]
    if done == 1 and last["action"] == "place":
        return int(last["cards"])
    under_way = seat == observation["to_move"] and observation["turn_action"] == "place"
    if under_way and (done == 0 or (done == 1 and last["action"] == "pass")):
        return len(observation["placed"])
    return 0


def tie_odds(size: int, laid: int) -> float:
    """The probability that a dealt hand whose largest set is at least `laid` (and at
    most `size`, the bound) is exactly `size`."""
    counts = HANDS_BY_LARGEST_SET
    return counts[size] / sum(counts[min(max(laid, 1), size) : size + 1])


def tie_acceptance(fixed: int, odds: Sequence[float], hidden: int) -> tuple[float, ...]:
    """w(t) / w(0) for t = 0 .. `hidden`, w(t) = E[1 / (fixed + t + B)], B the number
    of successes of independent trials with probabilities `odds` (the gone ties)."""
    chances = [1.0]  # chances[b]: the probability that b gone hands tie
    for p in odds:
        chances = [
            (chances[b] if b < len(chances) else 0.0) * (1 - p) + (chances[b - 1] * p if b else 0.0)
            for b in range(len(chances) + 1)
        ]
    weights = [
        sum(chance / (fixed + t + b) for b, chance in enumerate(chances)) for t in range(hidden + 1)
    ]
    return tuple(weight / weights[0] for weight in weights)


def opening_facts(observation: Mapping[str, Any], sizes: Mapping[str, int]) -> Opening:
    """W2's facts about the hidden places (`sizes`, from `sampling.place_sizes`)."""
    seat, starter = observation["seat"], observation["start_seat"]
    size = observation["opening_size"]
    if observation["turns"] >= 2 * observation["players"]:
        return Opening(size, (), (1.0,))  # every seat has finished two turns
    hands: list[DealtHand] = []
    fixed, gone = 1, []  # the start player ties; the gone seats' tie odds
    for other in range(observation["players"]):
        if other == starter:
            if other != seat and observation["phase"] == "opening":
                placed = tuple(KIND_OF[cell["card"]] for cell in observation["placed"])
                hands.insert(0, DealtHand((f"hand:{other}",), placed, True))
            continue
        found = dealt_places(observation, other)
        if found is None:
            gone.append(tie_odds(size, first_laid(observation, other)))
        elif other == seat:
            seen = [KIND_OF[name] for name in observation["hand"]]
            seen += [KIND_OF[name] for name in observation["exchange_selected"]]
            fixed += largest_set_of_mask(kind_mask(seen + list(found[1]))) == size
        else:
            places, known = found
            hands.append(DealtHand(tuple(p for p in places if p in sizes), known, False))
    others = sum(1 for hand in hands if not hand.starter)
    accept = tie_acceptance(fixed, gone, others) if others else (1.0,)
    return Opening(size, tuple(hands), accept)
