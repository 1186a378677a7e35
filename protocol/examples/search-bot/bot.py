"""A search bot in one file: flat Monte Carlo with arena's own referee (protocol/SEARCH.md).

For every legal decision, as long as its time lasts: sample a full state that fits
what this seat sees (`determinize`), play the decision in a copy of it (`clone`,
`apply_joint`), play the match out at random (`playout`) and score the end
(`outcome`). It answers the decision with the best total. All decisions are tried
against the same sampled states and the same random playout choices, so they are
compared on equal terms.

Protocol 2 over JSON lines (protocol/PROTOCOL.md): the observation is the envelope
(`seat`, `players`, ..., the game's own fields under `game`), which `determinize`
takes as it is. Time: under a bank (`time.bank_ms`) each decision plans a share of
the bank, as bots/ismcts does; under a limit per decision, a part of `limit_ms`;
never more than the limit less a margin. It counts its search in wall time, never
less than what arena charges a one-threaded bot for it. Each answer carries a
`debug` text for the replay: the samples searched and the best decision's mean
value. One
`random.Random(start["seed"])` per match, so with the time limit out of play
(`choose(..., budget_s=math.inf)`) a match replays exactly.
"""

import json
import random
import sys
import time

from arena.games import load_game

#: Part of `limit_ms` one decision may use under a limit per decision.
DEADLINE_SHARE = 0.4
#: Under a bank: the reserve kept back (this part of the bank, and at least RESERVE_S
#: and ANSWER_S for each of twice the decisions expected to be left), the most of what
#: is left one decision may plan, and the part of the increment it adds.
BANK_RESERVE, RESERVE_S, ANSWER_S, BANK_SHARE, INCREMENT_SHARE = 0.05, 0.03, 0.002, 0.25, 0.8
#: Decisions a match is expected to ask (a rough figure for every game); a match
#: that runs longer is expected to run on half as long again, and never fewer than 8.
EXPECTED_DECISIONS, LATE_SHARE, FEWEST_LEFT = 60, 0.5, 8
#: Kept between the budget and the limit: the last playout's overrun and the pipes.
MARGIN_S = 0.05
#: At most this many samples per decision, however much time is left.
MAX_SAMPLES = 1000


def budget(clock, made):
    """Seconds of search for a decide's `time`, after `made` decisions with a choice."""
    limit_s = clock["limit_ms"] / 1000
    if clock.get("bank_ms") is None:
        plan = DEADLINE_SHARE * limit_s
    else:
        left = max(EXPECTED_DECISIONS - made, LATE_SHARE * made, FEWEST_LEFT)
        bank_s = clock["bank_ms"] / 1000
        usable = bank_s - max(BANK_RESERVE * bank_s, RESERVE_S + ANSWER_S * 2 * left)
        share = usable / left + INCREMENT_SHARE * (clock.get("increment_ms") or 0) / 1000
        plan = min(share, BANK_SHARE * usable)
    return max(0.0, min(plan, limit_s - MARGIN_S))


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


def choose(game, variant, observation, legal, rng, budget_s, samples=MAX_SAMPLES, report=None):
    """The legal decision with the best total value over the sampled states. `report`,
    when given, receives `samples` (complete ones: every decision tried) and `value`
    (the chosen decision's mean value); a sample cut by the clock is left out."""
    report = {} if report is None else report
    report.update(samples=0, value=None)
    if len(legal) == 1:
        return legal[0]
    seat, players = observation["seat"], observation["players"]  # the envelope names both
    totals, stop = [0.0] * len(legal), time.monotonic() + budget_s
    while report["samples"] < samples and time.monotonic() < stop:
        world = game.determinize(observation, seat, players, variant, rng)
        seed = rng.getrandbits(64)
        sample = []
        for decision in legal:
            sample.append(try_decision(world, seat, decision, seed))
            if time.monotonic() >= stop:
                break
        if len(sample) < len(legal):
            break
        totals = [total + new for total, new in zip(totals, sample, strict=True)]
        report["samples"] += 1
    if report["samples"] == 0:
        return rng.choice(legal)  # no time for one whole sample
    best = max(range(len(legal)), key=totals.__getitem__)
    report["value"] = totals[best] / report["samples"]
    return legal[best]


def debug_text(report, legal, budget_s, spent_s, bank_ms):
    """The answer's `debug` text: '12 samples x 3 decisions in 61/71 ms; best value 4.25'
    (samples, the time spent of the budget, the chosen decision's mean value), and the
    bank left under a bank."""
    if len(legal) == 1:
        text = "forced"
    else:
        text = f"{report['samples']} samples x {len(legal)} decisions"
        text += f" in {spent_s * 1000:.0f}/{budget_s * 1000:.0f} ms"
        found = report["value"] is not None
        text += f"; best value {report['value']:.2f}" if found else "; no time: at random"
    return text if bank_ms is None else f"{text}; bank {bank_ms:.0f} ms"


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    """Answer start with ready and every decide with a searched decision, until quit."""
    game = start = None
    rng, made = random.Random(0), 0
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            start, rng, made = message, random.Random(message["seed"]), 0
            game = load_game(message["game"])
            if game.spec.version != message["game_version"]:  # never under arena: its own referee
                print(f"search-bot: rules version {game.spec.version} here", file=sys.stderr)
                game = None  # a simulator of other rules would mislead: play at random
            send({"type": "ready", "name": "search-bot"})
        elif message["type"] == "decide":
            legal, clock, report = message["legal"], message["time"], {}
            began, budget_s = time.monotonic(), budget(clock, made)
            made += len(legal) > 1
            if game is None:
                decision, debug = rng.choice(legal), "no referee of these rules: at random"
            else:
                observation, variant = message["observation"], start["variant"]
                decision = choose(game, variant, observation, legal, rng, budget_s, report=report)
                spent_s = time.monotonic() - began
                debug = debug_text(report, legal, budget_s, spent_s, clock.get("bank_ms"))
            send({"type": "decision", "id": message["id"], "decision": decision, "debug": debug})
        elif message["type"] == "quit":
            break


if __name__ == "__main__":
    main()
