"""A starter bot for arena, in Python: it plays all four games with one simple idea each.

How a bot works (protocol version 2, see protocol/PROTOCOL.md):

    read one JSON line from stdin -> look at its "type" -> answer with one JSON line

The referee sends `start` (answer `ready`), `decide` (answer `decision`), `end` (no
answer) and `quit` (exit). Every `decide` carries the list of `legal` decisions; this
bot gives each legal decision a score and answers the best one, copied unchanged.
So it can never make an illegal move: improve the `score_*` functions to make it
play better.

A `decide`'s observation has the same keys in every game: `seat`, `players`, `phase`,
`to_move` (a list of seats), `scores`, and the game's own fields under `game`
(protocol/games/GAME.md). Its `time` is the clock: `limit_ms`, the most this answer
may be charged (CPU time), and `bank_ms`, what is left of a bank (None without one).

Only protocol messages go to stdout. Debug output goes to stderr (`log` below), or,
one short text per decision, into the replay beside the decision (`debug`).
"""

import json
import sys

# ----------------------------------------------------------------------------------
# Take That: twist when you can; otherwise play the card farthest from the middle of
# the deck (few cards lie within +-10 of it, so the next player is likelier to be
# stuck and take the row); take the row only when nothing else is legal.
# ----------------------------------------------------------------------------------


def score_take_that(option, observation):
    if option["action"] == "twist":
        return 1000  # a twist puts two cards on our plus pile: +2 points
    if option["action"] == "play":
        return 100 + abs(option["card"] - 55)  # 12 and 98 are the hardest to follow
    return 0  # "take": the whole row becomes minus points, so only when forced


# ----------------------------------------------------------------------------------
# LEYLO: keep your grid low. Put a drawn card in place of your worst card when that
# lowers the grid; otherwise throw it away and turn up a hidden card.
# ----------------------------------------------------------------------------------

HIDDEN_GUESS = 6  # a face-down card is worth about 6 points on average


def leylo_points(card, leylo):
    """What one grid cell counts at the end of the round (lower is better)."""
    if card == "hidden":
        return HIDDEN_GUESS
    if card == "empty":
        return 0  # a cleared cell counts nothing
    if card == "action":
        return leylo["action_card_value"]  # 12, or 0 with 2 players
    if card.startswith("joker"):
        return 12
    return int(card)  # a number card: "0" .. "11"


def top_discard_points(leylo):
    """The points of the open card on the discard pile (which may be empty: then 99)."""
    if not leylo["discard"]:
        return 99
    return leylo_points(leylo["discard"][-1], leylo)


def score_leylo(option, observation):
    leylo = observation["game"]  # the game's own fields
    action = option["action"]
    if action == "draw":
        # Take the open discard when it is a low card; otherwise try our luck on the pile.
        if option["source"] == "discard":
            return 2 if top_discard_points(leylo) <= 4 else 0
        return 1
    if action == "replace":
        # The points we save by putting the held card in this cell (may be negative).
        my_grid = leylo["grids"][observation["seat"]]
        held = leylo_points(leylo["holding"]["card"], leylo)
        return 10 * (leylo_points(my_grid[option["cell"]], leylo) - held)
    if action == "discard":
        return 5  # better than a replacement that saves nothing, worse than one that does
    if action == "clear":
        return 1  # a cleared line counts 0 points: always clear
    if action == "claim":
        # Swap one of our action cards (12 points) for the top discard when it is lower.
        return 1 if top_discard_points(leylo) < leylo["action_card_value"] else -1
    return 0  # "flip" (any cell will do), "swap" (never), "keep", "pass"


# ----------------------------------------------------------------------------------
# Twirkle: place each card where it scores most right now, and keep placing while a
# card fits. When nothing fits, exchange the whole hand. Never shift.
# ----------------------------------------------------------------------------------


def twirkle_points(x, y, board):
    """The points a card laid on the empty cell (x, y) scores: each line of 2+ through
    it counts its length, a complete line of 6 (a Twirkle) counts 12."""
    total = 0
    for dx, dy in ((1, 0), (0, 1)):  # the row, then the column
        length = 1
        for sign in (1, -1):  # walk both ways from the cell until a gap
            step = 1
            while (x + sign * step * dx, y + sign * step * dy) in board:
                length += 1
                step += 1
        if length == 6:
            total += 12
        elif length >= 2:
            total += length
    return total


def score_twirkle(option, observation):
    action = option["action"]
    if action == "place":
        board = {(cell["x"], cell["y"]) for cell in observation["game"]["board"]}
        return 10 + twirkle_points(option["x"], option["y"], board)
    if action == "pick":
        return 3  # any card that fits: placing scores points
    if action == "exchange":
        return 2  # nothing fits: swap cards for new ones (all of them, one at a time)
    if action == "lift":
        return -1  # never shift: "end_turn" (0) is always offered with a lift
    return 0  # "pass", "end_placing", "end_exchange", "end_turn", "put"


# ----------------------------------------------------------------------------------
# Krumme10: hit the target (10) exactly when a card does it; otherwise play your lowest
# card that keeps the sum below the target; flip a card (its unknown back counts) only
# when every card would overshoot. Never steal; score whenever you may.
# ----------------------------------------------------------------------------------


def krumme10_flip_wanted(top):
    """Flip a card before it goes to our points only when it shows 0: its back is a 1 or
    a 5, always more. Any other card's back may be lower."""
    return top == 0


def score_krumme10(option, observation):
    krumme10 = observation["game"]  # the game's own fields
    action = option["action"]
    if action == "play":
        if option["flip"]:
            return 100  # a gamble on the unknown back side
        new_sum = krumme10["sum"] + option["top"]
        if new_sum == krumme10["target"]:
            return 300  # a hit: we take the card to our points
        if new_sum < krumme10["target"]:
            return 200 - option["top"]  # safe; keep the high cards for a hit later
        return 0  # an overrun: every other player scores
    if action == "take":
        return 1 if option["flip"] == krumme10_flip_wanted(krumme10["to_take"][0]["top"]) else 0
    if action == "score":
        return 2 if option["flip"] == krumme10_flip_wanted(option["top"]) else 1
    if action == "steal":
        return -1  # never steal: a stolen card is played flipped, an unknown value
    return 0  # "pass"


# ----------------------------------------------------------------------------------
# The protocol: nothing below needs to change to play differently.
# ----------------------------------------------------------------------------------

SCORERS = {
    "take-that": score_take_that,
    "leylo": score_leylo,
    "twirkle": score_twirkle,
    "krumme10": score_krumme10,
}


def log(*parts):
    """Debug output goes to stderr; stdout is for protocol messages only."""
    print(*parts, file=sys.stderr, flush=True)


def send(message):
    """One JSON object per line, flushed at once: an answer left in a buffer is no answer."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def choose(game, observation, legal):
    """The legal decision with the highest score; on a tie, the first one in `legal`."""
    score = SCORERS.get(game)
    best = legal[0]
    if score is None:
        return best  # a game this bot does not know: the first legal decision
    best_score = score(best, observation)
    for option in legal[1:]:
        option_score = score(option, observation)
        if option_score > best_score:
            best, best_score = option, option_score
    return best


def main():
    game = None
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            game = message["game"]  # a process may play several matches: reset here
            clock = message["time_control"]  # {"kind": "bank", "bank_ms": ...} or per-decision
            log(f"start: {game} with {message['players']} players, seat {message['seat']}, {clock}")
            send({"type": "ready"})
        elif kind == "decide":
            observation, legal = message["observation"], message["legal"]
            decision = choose(game, observation, legal)
            # The debug text (optional, at most 1 KiB kept) is shown beside the decision
            # in `arena replay show` and the viewer: say there why the bot chose it.
            score = SCORERS.get(game)
            value = score(decision, observation) if score else None
            limit_ms = message["time"]["limit_ms"]  # the most this answer may be charged
            debug = f"score {value}, best of {len(legal)} legal; {limit_ms} ms allowed"
            send({"type": "decision", "id": message["id"], "decision": decision, "debug": debug})
        elif kind == "end":
            log(f"end: scores {message['result']['scores']}")
        elif kind == "quit":
            break
        # any other type: ignore it (later protocol versions may add some)


if __name__ == "__main__":
    main()
