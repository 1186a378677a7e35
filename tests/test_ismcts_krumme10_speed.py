"""The faster Krumme10 search makes the very same choices as before, for the same rng.

The ISMCTS bot's strength grows with its iterations, so its Krumme10 search was made
faster without changing any choice it makes for a given number of iterations: a
determinizer that reads one observation once for all its samples (drawing the very
same states), a lazily seeded chance, keys built once per kind of decision, and
quicker but operation-for-operation equal sums in the generic search (which Take That
uses too). The identities these rest on are checked one by one below, against
reference copies of the code they replaced, and the decisions of fixed-iteration
searches of fixed positions are compared with the ones the code before made
(`GOLDEN`: recorded with it, decision and the rng's next draw after the search, so a
search that drew differently fails even where it chose alike). A change meant to change
the choices records them anew: the lists `decide` makes in the two tests below.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

from arena.games import Game, load_game
from arena.games.base import Chance
from arena.games.krumme10 import Card, Krumme10
from arena.games.krumme10.cards import lying
from arena.games.krumme10.moves import _MOVES
from arena.games.krumme10.sampling import Undersides, multiset_key, undersides
from tests.helpers import load_bot_module

ismcts = load_bot_module("ismcts")
tree_search = ismcts.tree_search
VARIANTS: list[dict[str, Any]] = [
    {},
    {"pink4": True},
    {"long": True},
    {"showdown": True},
    {"teams": True},
    {"pink4": True, "long": True, "showdown": True},
]


def positions(
    game_cls: type[Game], count: int, seed: int, players: list[int], variants: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Positions with a choice, from seeded random games stopped at random points."""
    found: list[dict[str, Any]] = []
    rng = random.Random(seed)
    number = 0
    while len(found) < count:
        seats = players[number % len(players)]
        variant = dict(variants[number % len(variants)])
        if variant.get("teams") and seats < 4:
            variant.pop("teams")
        game = game_cls.new(seats, seed + number, variant)
        stop = rng.randrange(0, 300)
        for _ in range(stop):
            if game.is_over():
                break
            game.apply_joint({s: rng.choice(game.legal(s)) for s in game.to_move()})
        number += 1
        if game.is_over():
            continue
        for seat in game.to_move():
            legal = game.legal(seat)
            if len(legal) > 1:
                found.append(
                    {"observation": game.observe(seat), "legal": list(legal), "game": game}
                )
                break
    return found


def krumme10_positions(count: int = 36) -> list[dict[str, Any]]:
    return positions(Krumme10, count, 1000, [2, 4, 6, 2, 3, 5], VARIANTS)


def decide(position: dict[str, Any], game_id: str, iterations: int) -> tuple[Any, float]:
    """The search's decision with `iterations` from rng seed 1, and the rng's next draw."""
    observation = position["observation"]
    problem = tree_search.Problem(
        game=load_game(game_id),
        observation=observation,
        legal=position["legal"],
        seat=observation["seat"],
        players=observation["players"],
        variant=dict(position["game"].variant),
    )
    rng = random.Random(1)
    limits = tree_search.Limits(1e9, iterations)
    result = tree_search.search(problem, ismcts.profile_for(game_id), limits, rng)
    return result.decision, rng.random()


# ----- the searches choose as before ------------------------------------------------
def test_krumme10_searches_choose_and_draw_as_before() -> None:
    found = krumme10_positions()
    got = [decide(p, "krumme10", n) for n in (60, 200) for p in found]
    assert got == GOLDEN_KRUMME10


def test_take_that_searches_choose_and_draw_as_before() -> None:
    """The generic search's shortcuts keep Take That's choices too (these also pin its
    playout model's choices: a change of the model's choices records them anew)."""
    found = positions(load_game("take-that"), 12, 5000, [2, 3, 4, 2], [{}])
    got = [decide(p, "take-that", 60) for p in found]
    assert got == GOLDEN_TAKE_THAT


# ----- the determinizer draws the states determinize drew ---------------------------
def reference_sample(
    deals: Undersides, rng: random.Random
) -> tuple[dict[Any, list[Any]], list[Any]]:
    """`Undersides.sample` as it was (one `_choices` lookup per face, `rng.shuffle`)."""
    import bisect

    downs: dict[Any, list[Any]] = {}
    left = list(deals.supply)
    state: tuple[int, ...] = ()
    for i, face in enumerate(deals.faces):
        choices = deals._choices(i, state)
        drawn = bisect.bisect_right(choices.running, rng.random() * choices.running[-1])
        split, state = choices.outcomes[min(drawn, len(choices.outcomes) - 1)]
        under: list[Any] = []
        for k, count in zip(deals.adjacent[i], split, strict=True):
            left[k] -= count
            kind = deals.kinds[k]
            under += [kind[1] if kind[0] == face else kind[0]] * count
        rng.shuffle(under)
        downs[face] = under
    pile = [kind for kind, count in zip(deals.kinds, left, strict=True) for _ in range(count)]
    return downs, pile


def reference_determinize(
    observation: Mapping[str, Any], players: int, variant: dict[str, Any], rng: random.Random
) -> Krumme10:
    """`Krumme10._determinize` as it was: everything read from the observation per sample."""
    state = Krumme10.blank(players, variant, rng.getrandbits(64))
    assert isinstance(state, Krumme10)
    state._restore_public(observation)
    needs, supply = state._unseen()
    deals = undersides(multiset_key(needs), multiset_key(supply))
    downs, pile = reference_sample(deals, rng)

    def fill(card: Card) -> Card:
        if card.known:
            return card
        value, pink = downs[card.top, card.top_pink].pop()
        return Card(card.top, value, card.top_pink, pink)

    state.hands = [[fill(card) for card in hand] for hand in state.hands]
    state.display = [entry._replace(card=fill(entry.card)) for entry in state.display]
    state.to_take = [fill(card) for card in state.to_take]
    state.discard = [fill(card) for card in state.discard]
    state.points = [[fill(card) for card in pile] for pile in state.points]
    state.pile = [lying(kind)[rng.random() < 0.5] for kind in pile]
    rng.shuffle(state.pile)
    return state


def fields(state: Krumme10) -> dict[str, Any]:
    """The state's fields but its chance, which is compared by what it draws."""
    return {k: v for k, v in vars(state).items() if k not in ("chance", "_parts")}


def test_the_determinizer_draws_what_determinize_drew() -> None:
    """Same states (every field, the pile's order, the chance's draws) and the same rng
    state after, sample after sample of one observation; and `determinize` is it."""
    for position in krumme10_positions(60):
        observation = position["observation"]
        seat, players = observation["seat"], observation["players"]
        variant = position["game"].variant
        sampler = Krumme10.determinizer(observation, seat, players, variant)
        old_rng, new_rng, one_rng = random.Random(7), random.Random(7), random.Random(7)
        for _ in range(4):
            old = reference_determinize(observation, players, variant, old_rng)
            new = sampler(new_rng)
            one = Krumme10.determinize(observation, seat, players, variant, one_rng)
            assert fields(new) == fields(old) == fields(one)
            assert new.observe(seat) == observation
            assert new_rng.getstate() == old_rng.getstate() == one_rng.getstate()
            draw = new.chance.shuffled("x", range(20))
            assert (
                draw == old.chance.shuffled("x", range(20)) == one.chance.shuffled("x", range(20))
            )
            # Samples own what a move mutates: playing one on leaves the next alike.
            new.playout(random.Random(3))


def test_a_seeded_chance_draws_as_a_simulation_and_so_do_its_clones() -> None:
    lazy, plain = Krumme10.blank(2, {}, 99).chance, Chance.simulation(99)
    early = lazy.clone()  # before any draw: the same seed
    first = lazy.shuffled("a", range(30))
    assert first == plain.shuffled("a", range(30))
    late = lazy.clone()  # after one: the generator's state
    second = lazy.shuffled("b", range(30))
    assert second == plain.shuffled("b", range(30))
    assert late.shuffled("b", range(30)) == second
    assert early.shuffled("a", range(30)) == first
    assert lazy.log == [] and lazy.simulated


# ----- the search's shortcuts compute what the plain code computed --------------------
def test_move_keys_are_the_searchs_decision_keys() -> None:
    for move in _MOVES.values():
        assert move.key == tree_search.decision_key(move.decision())
    for position in krumme10_positions(20):
        game = position["game"]
        seat = game.to_move()[0]
        keyed = game._legal_keys(seat)
        assert [d for _, d in keyed] == game._legal(seat)
        assert [k for k, _ in keyed] == [tree_search.decision_key(d) for d in game._legal(seat)]


def reference_paired_lead(mine: list[float], other: list[float]) -> float:
    rounds = len(mine)
    if rounds < 2:
        return 0.0
    lead = [a - b for a, b in zip(mine, other, strict=True)]
    average = sum(lead) / rounds
    spread = sum((d - average) ** 2 for d in lead) / (rounds - 1)
    if spread == 0.0:
        return math.inf if average > 0 else 0.0
    return average / math.sqrt(spread / rounds)


def test_paired_lead_and_rewards_are_bit_for_bit_the_plain_sums() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        rounds = rng.randrange(0, 40)
        mine = [rng.choice([rng.random(), 0.5, 1.0, 0.0]) for _ in range(rounds)]
        other = [rng.choice([rng.random(), 0.5, a]) for a in mine]
        assert tree_search.paired_lead(mine, other) == reference_paired_lead(mine, other)
    for _ in range(3000):
        seats = rng.randrange(1, 7)
        scores = [rng.choice([rng.randrange(30), rng.random() * 20]) for _ in range(seats)]
        higher, weight, scale = rng.random() < 0.5, rng.random(), 1 + rng.random() * 10
        plain = tree_search.rewards(scores, higher, None, weight, scale)
        # Teams of one each take the general path, the code before.
        assert plain == tree_search.rewards(scores, higher, tuple(range(seats)), weight, scale)


def test_a_race_is_decided_exactly_when_decided_says() -> None:
    """`Race.decided` (running sums first) answers as `decided` does after every round,
    over races whose leads are clear, close, tied, or discrete."""
    rng = random.Random(11)
    answers = set()
    for _ in range(400):
        arms = rng.randrange(2, 10)
        keys = [(("arm", i),) for i in range(arms)]
        race = tree_search.Race(None, None, [(key, {}) for key in keys], None)
        means = [rng.random() for _ in range(arms)]
        noise, discrete = rng.choice([0.0, 0.01, 0.1, 0.3, 0.5]), rng.random() < 0.5
        for _ in range(rng.randrange(1, 200)):
            shared = rng.random()
            for key, mean in zip(keys, means, strict=True):
                if discrete:
                    hit = rng.random() < noise
                    value = rng.choice([0.0, 0.5, 1.0]) if hit else float(mean > 0.5)
                else:
                    value = min(1.0, max(0.0, mean + noise * (rng.random() - 0.5) + shared / 10))
                race.results[key].append(value)
            answer = tree_search.decided([race.results[key] for key in keys])
            assert race.decided() == answer
            answers.add(answer)
            if answer:
                break
    assert answers == {True, False}


GOLDEN_KRUMME10: list[tuple[Any, float]] = [
    ({"action": "play", "top": 5, "flip": True}, 0.6907652563921265),
    ({"action": "play", "top": 3, "flip": False}, 0.9548162743135121),
    ({"action": "play", "top": 5, "flip": False}, 0.9981599522851606),
    ({"action": "play", "top": 2, "flip": True}, 0.3634773420033621),
    ({"action": "play", "top": 3, "flip": False}, 0.6006790811870585),
    ({"action": "play", "top": 3, "flip": True}, 0.9588130805844356),
    ({"action": "score", "top": 1, "flip": False}, 0.1665525504275246),
    ({"action": "play", "top": 1, "flip": False}, 0.501048200315799),
    ({"action": "play", "top": 0, "flip": True}, 0.33204516274256446),
    ({"action": "play", "top": 1, "flip": True}, 0.9098571265118564),
    ({"action": "play", "top": 0, "flip": False}, 0.7699809830135035),
    ({"action": "play", "top": 5, "flip": True}, 0.24248569825052346),
    ({"action": "take", "flip": False}, 0.8571556992323238),
    ({"action": "play", "top": 4, "flip": False}, 0.6977303741012196),
    ({"action": "play", "top": 0, "flip": True}, 0.1309436820918124),
    ({"action": "play", "top": 1, "flip": False}, 0.3823533128201745),
    ({"action": "play", "top": 2, "flip": False}, 0.5469258234847338),
    ({"action": "score", "top": 3, "flip": True}, 0.5296269733441361),
    ({"action": "score", "top": 2, "flip": True}, 0.11840708649100551),
    ({"action": "score", "top": 1, "flip": True}, 0.039620213413704475),
    ({"action": "play", "top": 1, "flip": False}, 0.8559051638324977),
    ({"action": "score", "top": 0, "flip": True}, 0.8411321957058551),
    ({"action": "play", "top": 5, "flip": False}, 0.9392884321352825),
    ({"action": "play", "top": 0, "flip": False}, 0.030456788951017333),
    ({"action": "play", "top": 4, "flip": True}, 0.6037607350313465),
    ({"action": "steal", "from": 0, "top": 2}, 0.2505954088773793),
    ({"action": "score", "top": 2, "flip": True}, 0.8086546201638074),
    ({"action": "play", "top": 1, "flip": False}, 0.8185675511269973),
    ({"action": "play", "top": 1, "flip": False}, 0.25416866041704156),
    ({"action": "steal", "from": 4, "top": 2}, 0.6352626423450226),
    ({"action": "score", "top": 5, "flip": False}, 0.9326394380381992),
    ({"action": "score", "top": 0, "flip": True}, 0.8411321957058551),
    ({"action": "play", "top": 0, "flip": False}, 0.6977303741012196),
    ({"action": "play", "top": 4, "flip": False}, 0.8306775905962271),
    ({"action": "take", "flip": True}, 0.741534148284956),
    ({"action": "pass"}, 0.9144180024177262),
    ({"action": "play", "top": 5, "flip": True}, 0.5374390068751378),
    ({"action": "play", "top": 3, "flip": False}, 0.4811386538377026),
    ({"action": "play", "top": 3, "flip": True}, 0.15134430278709232),
    ({"action": "play", "top": 2, "flip": True}, 0.7716380334593835),
    ({"action": "play", "top": 3, "flip": False}, 0.6006790811870585),
    ({"action": "play", "top": 5, "flip": True}, 0.8427127007239),
    ({"action": "score", "top": 1, "flip": False}, 0.1665525504275246),
    ({"action": "play", "top": 1, "flip": False}, 0.8120226367962116),
    ({"action": "play", "top": 4, "flip": False}, 0.20864816416189658),
    ({"action": "play", "top": 3, "flip": False}, 0.46822157477595616),
    ({"action": "play", "top": 0, "flip": False}, 0.27274485249922664),
    ({"action": "play", "top": 5, "flip": True}, 0.6047601827047766),
    ({"action": "take", "flip": False}, 0.165850509966191),
    ({"action": "play", "top": 0, "flip": False}, 0.29104124882481053),
    ({"action": "play", "top": 0, "flip": True}, 0.9271394873142408),
    ({"action": "play", "top": 1, "flip": False}, 0.3823533128201745),
    ({"action": "play", "top": 2, "flip": False}, 0.8981852919500053),
    ({"action": "score", "top": 3, "flip": True}, 0.8808734293739013),
    ({"action": "score", "top": 2, "flip": True}, 0.9272927976048723),
    ({"action": "score", "top": 1, "flip": True}, 0.039620213413704475),
    ({"action": "play", "top": 2, "flip": True}, 0.7483535802980483),
    ({"action": "score", "top": 0, "flip": True}, 0.8411321957058551),
    ({"action": "play", "top": 5, "flip": False}, 0.9392884321352825),
    ({"action": "play", "top": 0, "flip": False}, 0.573771199478443),
    ({"action": "play", "top": 5, "flip": False}, 0.6134697038107682),
    ({"action": "steal", "from": 0, "top": 2}, 0.2505954088773793),
    ({"action": "score", "top": 2, "flip": True}, 0.8086546201638074),
    ({"action": "play", "top": 1, "flip": False}, 0.8188723961060907),
    ({"action": "play", "top": 1, "flip": False}, 0.283308170825058),
    ({"action": "steal", "from": 4, "top": 2}, 0.9118701616854623),
    ({"action": "score", "top": 5, "flip": False}, 0.9326394380381992),
    ({"action": "score", "top": 0, "flip": True}, 0.8411321957058551),
    ({"action": "play", "top": 0, "flip": False}, 0.034985599576275894),
    ({"action": "play", "top": 4, "flip": False}, 0.8306775905962271),
    ({"action": "take", "flip": False}, 0.11248660350410211),
    ({"action": "steal", "from": 1, "top": 5}, 0.5862390733817864),
]
GOLDEN_TAKE_THAT: list[tuple[Any, float]] = [
    ({"action": "play", "card": 53}, 0.9649453287863279),
    ({"action": "play", "card": 14}, 0.9423135578402168),
    ({"action": "play", "card": 69}, 0.32137016573817645),
    ({"action": "play", "card": 81}, 0.24375929982791578),
    ({"action": "play", "card": 62}, 0.5783485193148554),
    ({"action": "play", "card": 54}, 0.6057791222780027),
    ({"action": "play", "card": 47}, 0.7181581423147705),
    ({"action": "play", "card": 97}, 0.21302979638081376),
    ({"action": "play", "card": 76}, 0.6925569646028146),
    ({"action": "play", "card": 45}, 0.3361145774153067),
    ({"action": "play", "card": 29}, 0.7292824734544929),
    ({"action": "play", "card": 96}, 0.15100975378386006),
]
