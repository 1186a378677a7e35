"""An attacker that tries to compute the deal from what arena gives it (issue 11, item 9).

Arena once derived everything from public numbers: the deal was
random.Random(match seed), a seat's `seed` was sha256("arena:bot:<match seed>:<seat>")[:6],
a tournament's match seeds were sha256("arena:deal:<tournament seed>:<i>")[:6]
(tournament seed 0 by default), and the `match` id was "t3-m17" or
"take-that-<seed>". This bot spends about a second at `start` on:

1. the numbers in the `match` id, as match seeds;
2. a search for the match seed whose old bot seed equals its `seed`: match seeds
   of tournament seeds 0..63 (deal indices 0..511), and `arena play --seed` values
   0..2**17;
3. a table of its own hand in the deals of small seeds (tournament seeds 0..7,
   raw seeds 0..4095), in case only the bot seed were hidden.

A candidate deal is believed only if it gives exactly the hand the bot is dealt.
It then predicts its opponents' cards (their hands plus what they can have drawn)
and, once three cards they play all fit the prediction, answers an illegal
decision: a forfeit for `illegal` is the proof that the deal was computed. Knowing
nothing, it plays the first legal decision. Standard library only (it cannot
import arena), so Take That's deal is replicated here.
"""

import hashlib
import json
import random
import re
import sys
import time

DECK = [n for n in range(12, 99) if n % 10 != 0]
BUDGET = 1.0  # seconds of search per match


def old_derive(seed, purpose, index):
    digest = hashlib.sha256(f"arena:{purpose}:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def deal(seed, players):
    """Take That's round-1 deal: hands (sorted) and the draw pile in drawing order."""
    cards = list(DECK)
    random.Random(seed).shuffle(cards)
    size = 8 if players == 4 else 9
    hands = [sorted(cards[i * size : (i + 1) * size]) for i in range(players)]
    return hands, cards[players * size :]


def match_numbers(start):
    return [int(n) for n in re.findall(r"\d+", str(start.get("match", "")))]


def seed_candidates(start):
    """Match seeds, most likely first: from the match id, tournaments, `arena play`."""
    yield from match_numbers(start)
    for tournament in range(64):
        for index in range(512):
            yield old_derive(tournament, "deal", index)
    yield from range(2**17)


def hand_candidates(start):
    yield from match_numbers(start)
    for tournament in range(8):
        for index in range(256):
            yield old_derive(tournament, "deal", index)
    yield from range(4096)


def search(start):
    """(seed found from the bot seed or None, {own hand: seed}) within the budget."""
    seat, given, players = start["seat"], start["seed"], start["players"]
    half, stop = time.monotonic() + BUDGET / 2, time.monotonic() + BUDGET
    for count, candidate in enumerate(seed_candidates(start)):
        if old_derive(candidate, "bot", seat) == given:
            return candidate, {}
        if count % 4096 == 0 and time.monotonic() > half:
            break
    table = {}
    for count, candidate in enumerate(hand_candidates(start)):
        table.setdefault(tuple(deal(candidate, players)[0][seat]), candidate)
        if count % 256 == 0 and time.monotonic() > stop:
            break
    return None, table


class Attack:
    """What the bot believes about one match."""

    def __init__(self, start):
        self.seat = start["seat"]
        self.players = start["players"]
        self.found, self.table = search(start)
        self.prediction = None
        self.decided = False
        self.mine = set()
        self.confirmed = 0

    def first_look(self, observation):
        hand = tuple(observation["hand"])
        seed = self.found if self.found is not None else self.table.get(hand)
        self.table = {}
        if seed is None:
            print("no candidate seed gives my hand: learned nothing", file=sys.stderr)
            return
        hands, pile = deal(seed, self.players)
        if tuple(hands[self.seat]) != hand:
            print(f"seed {seed} does not give my hand: learned nothing", file=sys.stderr)
            return
        print(f"my hand is the deal of seed {seed}", file=sys.stderr)
        self.prediction = (hands, pile)

    def proven(self, observation):
        """True once three opponents' cards on the table all fit the predicted deal."""
        if not self.decided:
            self.decided = True
            self.first_look(observation)
        if self.prediction is None or observation["round"] != 1:
            return False
        self.mine.update(observation["hand"])
        hands, pile = self.prediction
        drawn = len(pile) - observation["draw_pile"]
        theirs = {c for s, h in enumerate(hands) if s != self.seat for c in h} | set(pile[:drawn])
        table = set(observation["row"])
        for cards in observation["plus"] + observation["minus_seen"]:
            table.update(cards)
        seen = table - self.mine
        if not seen <= theirs:
            print("an opponent played a card the prediction missed", file=sys.stderr)
            self.prediction = None
            return False
        if len(seen) >= 3:
            print(f"predicted every opponent card seen: {sorted(seen)}", file=sys.stderr)
            return True
        return False


attack = None
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        attack = Attack(message)
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        decision = message["legal"][0]
        if attack is not None and attack.proven(message["observation"]):
            decision = {"action": "i-know-the-deal"}
        answer = {"type": "decision", "id": message["id"], "decision": decision}
        print(json.dumps(answer), flush=True)
    elif message["type"] == "quit":
        break
