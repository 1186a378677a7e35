// A starter bot for arena, in JavaScript (Node): it plays all four games with one
// simple idea each.
//
// How a bot works (protocol version 2, see protocol/PROTOCOL.md):
//
//     read one JSON line from stdin -> look at its "type" -> answer with one JSON line
//
// The referee sends `start` (answer `ready`), `decide` (answer `decision`), `end` (no
// answer) and `quit` (exit). Every `decide` carries the list of `legal` decisions; this
// bot gives each legal decision a score and answers the best one, copied unchanged.
// So it can never make an illegal move: improve the score functions to play better.
//
// A `decide`'s observation has the same keys in every game: `seat`, `players`, `phase`,
// `to_move` (a list of seats), `scores`, and the game's own fields under `game`
// (protocol/games/GAME.md). Its `time` is the clock: `limit_ms`, the most this answer
// may be charged (CPU time), and `bank_ms`, what is left of a bank (null without one).
//
// Only protocol messages go to stdout. Debug output goes to stderr (`log` below), or,
// one short text per decision, into the replay beside the decision (`debug`).

"use strict";

const readline = require("readline");

// ---------------------------------------------------------------------------------
// Take That: twist when you can; otherwise play the card farthest from the middle of
// the deck (few cards lie within +-10 of it, so the next player is likelier to be
// stuck and take the row); take the row only when nothing else is legal.
// ---------------------------------------------------------------------------------

function scoreTakeThat(option, observation) {
  if (option.action === "twist") return 1000; // two cards on our plus pile: +2 points
  if (option.action === "play") return 100 + Math.abs(option.card - 55); // 12, 98: hardest to follow
  return 0; // "take": the whole row becomes minus points, so only when forced
}

// ---------------------------------------------------------------------------------
// LEYLO: keep your grid low. Put a drawn card in place of your worst card when that
// lowers the grid; otherwise throw it away and turn up a hidden card.
// ---------------------------------------------------------------------------------

const HIDDEN_GUESS = 6; // a face-down card is worth about 6 points on average

// What one grid cell counts at the end of the round (lower is better).
function leyloPoints(card, leylo) {
  if (card === "hidden") return HIDDEN_GUESS;
  if (card === "empty") return 0; // a cleared cell counts nothing
  if (card === "action") return leylo.action_card_value; // 12, or 0 with 2 players
  if (card.startsWith("joker")) return 12;
  return parseInt(card, 10); // a number card: "0" .. "11"
}

// The points of the open card on the discard pile (which may be empty: then 99).
function topDiscardPoints(leylo) {
  const discard = leylo.discard;
  if (discard.length === 0) return 99;
  return leyloPoints(discard[discard.length - 1], leylo);
}

function scoreLeylo(option, observation) {
  const leylo = observation.game; // the game's own fields
  switch (option.action) {
    case "draw":
      // Take the open discard when it is a low card; otherwise try our luck on the pile.
      if (option.source === "discard") return topDiscardPoints(leylo) <= 4 ? 2 : 0;
      return 1;
    case "replace": {
      // The points we save by putting the held card in this cell (may be negative).
      const myGrid = leylo.grids[observation.seat];
      const held = leyloPoints(leylo.holding.card, leylo);
      return 10 * (leyloPoints(myGrid[option.cell], leylo) - held);
    }
    case "discard":
      return 5; // better than a replacement that saves nothing, worse than one that does
    case "clear":
      return 1; // a cleared line counts 0 points: always clear
    case "claim":
      // Swap one of our action cards (12 points) for the top discard when it is lower.
      return topDiscardPoints(leylo) < leylo.action_card_value ? 1 : -1;
    default:
      return 0; // "flip" (any cell will do), "swap" (never), "keep", "pass"
  }
}

// ---------------------------------------------------------------------------------
// Twirkle: place each card where it scores most right now, and keep placing while a
// card fits. When nothing fits, exchange the whole hand. Never shift.
// ---------------------------------------------------------------------------------

// The points a card laid on the empty cell (x, y) scores: each line of 2+ through it
// counts its length, a complete line of 6 (a Twirkle) counts 12.
function twirklePoints(x, y, board) {
  let total = 0;
  for (const [dx, dy] of [[1, 0], [0, 1]]) { // the row, then the column
    let length = 1;
    for (const sign of [1, -1]) { // walk both ways from the cell until a gap
      let step = 1;
      while (board.has(`${x + sign * step * dx},${y + sign * step * dy}`)) {
        length += 1;
        step += 1;
      }
    }
    if (length === 6) total += 12;
    else if (length >= 2) total += length;
  }
  return total;
}

function scoreTwirkle(option, observation) {
  switch (option.action) {
    case "place": {
      const board = new Set(observation.game.board.map((cell) => `${cell.x},${cell.y}`));
      return 10 + twirklePoints(option.x, option.y, board);
    }
    case "pick":
      return 3; // any card that fits: placing scores points
    case "exchange":
      return 2; // nothing fits: swap cards for new ones (all of them, one at a time)
    case "lift":
      return -1; // never shift: "end_turn" (0) is always offered with a lift
    default:
      return 0; // "pass", "end_placing", "end_exchange", "end_turn", "put"
  }
}

// ---------------------------------------------------------------------------------
// Krumme10: hit the target (10) exactly when a card does it; otherwise play your
// lowest card that keeps the sum below the target; flip a card (its unknown back
// counts) only when every card would overshoot. Never steal; score whenever you may.
// ---------------------------------------------------------------------------------

// Flip a card before it goes to our points only when it shows 0: its back is a 1 or
// a 5, always more. Any other card's back may be lower.
function krumme10FlipWanted(top) {
  return top === 0;
}

function scoreKrumme10(option, observation) {
  const krumme10 = observation.game; // the game's own fields
  switch (option.action) {
    case "play": {
      if (option.flip) return 100; // a gamble on the unknown back side
      const newSum = krumme10.sum + option.top;
      if (newSum === krumme10.target) return 300; // a hit: we take the card to our points
      if (newSum < krumme10.target) return 200 - option.top; // safe; keep high cards for a hit
      return 0; // an overrun: every other player scores
    }
    case "take":
      return option.flip === krumme10FlipWanted(krumme10.to_take[0].top) ? 1 : 0;
    case "score":
      return option.flip === krumme10FlipWanted(option.top) ? 2 : 1;
    case "steal":
      return -1; // never steal: a stolen card is played flipped, an unknown value
    default:
      return 0; // "pass"
  }
}

// ---------------------------------------------------------------------------------
// The protocol: nothing below needs to change to play differently.
// ---------------------------------------------------------------------------------

const SCORERS = {
  "take-that": scoreTakeThat,
  leylo: scoreLeylo,
  twirkle: scoreTwirkle,
  krumme10: scoreKrumme10,
};

// Debug output goes to stderr; stdout is for protocol messages only.
function log(text) {
  process.stderr.write(text + "\n");
}

// One JSON object per line. On Linux, Node writes to a pipe synchronously: the line
// leaves at once, so there is nothing to flush.
function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

// The legal decision with the highest score; on a tie, the first one in `legal`.
function choose(game, observation, legal) {
  const score = SCORERS[game];
  let best = legal[0];
  if (score === undefined) return best; // a game this bot does not know: the first legal one
  let bestScore = score(best, observation);
  for (const option of legal.slice(1)) {
    const optionScore = score(option, observation);
    if (optionScore > bestScore) {
      best = option;
      bestScore = optionScore;
    }
  }
  return best;
}

let game = null;
const input = readline.createInterface({ input: process.stdin });

input.on("line", (line) => {
  if (line.trim() === "") return;
  const message = JSON.parse(line);
  switch (message.type) {
    case "start":
      game = message.game; // a process may play several matches: reset here
      // time_control: {kind: "bank", bank_ms, increment_ms, ...} or {kind: "per-decision", ...}
      log(`start: ${game} with ${message.players} players, seat ${message.seat}, ` +
        JSON.stringify(message.time_control));
      send({ type: "ready" });
      break;
    case "decide": {
      const { observation, legal } = message;
      const decision = choose(game, observation, legal);
      // The debug text (optional, at most 1 KiB kept) is shown beside the decision in
      // `arena replay show` and the viewer: say there why the bot chose it.
      const score = SCORERS[game];
      const value = score === undefined ? null : score(decision, observation);
      const limitMs = message.time.limit_ms; // the most this answer may be charged
      const debug = `score ${value}, best of ${legal.length} legal; ${limitMs} ms allowed`;
      send({ type: "decision", id: message.id, decision, debug });
      break;
    }
    case "end":
      log(`end: scores ${JSON.stringify(message.result.scores)}`);
      break;
    case "quit":
      input.close();
      process.exit(0);
      break;
    default:
      break; // any other type: ignore it (later protocol versions may add some)
  }
});
