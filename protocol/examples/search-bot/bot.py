"""A search bot in one file: flat Monte Carlo with arena's own referee (protocol/SEARCH.md).

For every legal decision, as long as its time lasts: sample a full state that fits
what this seat sees (`determinize`), play the decision in a copy of it (`clone`,
`apply_joint`), play the match out at random (`playout`) and score the end
(`outcome`). It answers the decision with the best total. All decisions are tried
against the same sampled states and the same random playout choices, so they are
compared on equal terms.

Protocol v1 over JSON lines (protocol/PROTOCOL.md); `arena.games` is on the Python
path of every bot that arena runs. One `random.Random(start["seed"])` per match, so
with the time limit out of play (`choose(..., budget_s=math.inf)`) a match replays
exactly.
"""

import json
import random
import sys
import time

from arena.games import load_game

#: Part of a request's `deadline_ms` the search may use; the rest covers the pipes.
DEADLINE_SHARE = 0.4
#: At most this many samples per decision, however much time is left.
MAX_SAMPLES = 1000


def value(state, seat):
    """How good a finished match is for `seat`: its score margin over the best other seat."""
    sign = 1 if state.spec.higher_score_wins else -1
    scores = [sign * score for score in state.outcome().scores]
    return scores[seat] - max(score for other, score in enumerate(scores) if other != seat)


def try_decision(world, seat, decision, seed):
    """Play `decision` in a copy of `world`, then at random to the end; the end's value."""
    rng = random.Random(seed)
    state = world.clone(seed)  # the copy's future deals are drawn from `seed` too
    joint = {other: rng.choice(state.legal(other)) for other in state.to_move()}
    joint[seat] = decision  # seats deciding at the same time as us pick at random
    state.apply_joint(joint)
    state.playout(rng)
    return value(state, seat)


def choose(game, start, observation, legal, rng, budget_s, samples=MAX_SAMPLES):
    """The legal decision with the best total value over the sampled states."""
    if len(legal) == 1:
        return legal[0]
    seat, totals = start["seat"], [0.0] * len(legal)
    stop = time.monotonic() + budget_s
    for _ in range(samples):
        world = game.determinize(observation, seat, start["players"], start["variant"], rng)
        seed = rng.getrandbits(64)
        for index, decision in enumerate(legal):
            totals[index] += try_decision(world, seat, decision, seed)
        if time.monotonic() >= stop:
            break
    return legal[max(range(len(legal)), key=totals.__getitem__)]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    """Answer start with ready and every decide with a searched decision, until quit."""
    game = start = None
    rng = random.Random(0)
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            start, rng = message, random.Random(message["seed"])
            game = load_game(message["game"])
            if game.spec.version != message["game_version"]:  # never under arena: its own referee
                print(f"search-bot: rules version {game.spec.version} here", file=sys.stderr)
                game = None  # a simulator of other rules would mislead: play at random
            send({"type": "ready", "name": "search-bot"})
        elif message["type"] == "decide":
            legal = message["legal"]
            if game is None:
                decision = rng.choice(legal)
            else:
                budget_s = DEADLINE_SHARE * message["deadline_ms"] / 1000
                decision = choose(game, start, message["observation"], legal, rng, budget_s)
            send({"type": "decision", "id": message["id"], "decision": decision})
        elif message["type"] == "quit":
            break


if __name__ == "__main__":
    main()
