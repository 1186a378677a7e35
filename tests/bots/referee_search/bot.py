"""Searches with arena's own referee, as a bot in the sandbox can (protocol/SEARCH.md).

For each legal decision (at most MAX_CHOICES), a few playouts from a state sampled
from the observation; the best average score margin wins. A sampled state whose
observation differs from the one received is a broken promise: the bot then answers
an illegal decision naming it, so the test sees it. stderr says where arena.games
came from.
"""

import json
import random
import sys

import arena.games
from arena.games import load_game

PLAYOUTS = 3
MAX_CHOICES = 4


def margin(state, seat):
    """The seat's final score minus the best other seat's (sign flipped when low wins)."""
    scores = state.outcome().scores
    sign = 1 if state.spec.higher_score_wins else -1
    return sign * (scores[seat] - max(s for i, s in enumerate(scores) if i != seat))


def choose(start, message, rng):
    """The decision with the best average margin, or a broken promise as a string."""
    game = load_game(start["game"])
    seat, observation = start["seat"], message["observation"]
    best, best_value = message["legal"][0], None
    for decision in message["legal"][:MAX_CHOICES]:
        total = 0
        for _ in range(PLAYOUTS):
            state = game.determinize(observation, seat, start["players"], start["variant"], rng)
            if state.observe(seat) != observation:
                return "determinize broke its promise: another observation"
            state.apply(seat, decision)
            state.playout(rng)
            total += margin(state, seat)
        if best_value is None or total > best_value:
            best, best_value = decision, total
    return best


def main():
    print(f"referee_search: arena.games from {arena.games.__file__}", file=sys.stderr, flush=True)
    start, rng = None, random.Random(0)
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            start, rng = message, random.Random(message["seed"])
            version = load_game(start["game"]).spec.version
            if version != start["game_version"]:
                print(f"referee_search: rules {version} here", file=sys.stderr, flush=True)
            print(json.dumps({"type": "ready"}), flush=True)
        elif message["type"] == "decide":
            decision = choose(start, message, rng)
            print(json.dumps({"type": "decision", "id": message["id"], "decision": decision}))
            sys.stdout.flush()
        elif message["type"] == "quit":
            break


main()
