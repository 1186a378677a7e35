// A starter bot for arena, in Go: it plays all four games with one simple idea each.
//
// How a bot works (protocol version 2, see protocol/PROTOCOL.md):
//
//	read one JSON line from stdin -> look at its "type" -> answer with one JSON line
//
// The referee sends `start` (answer `ready`), `decide` (answer `decision`), `end` (no
// answer) and `quit` (exit). Every `decide` carries the list of `legal` decisions; this
// bot gives each legal decision a score and answers the best one, copied unchanged.
// So it can never make an illegal move: improve the score* functions to play better.
//
// A `decide`'s observation has the same keys in every game: "seat", "players", "phase",
// "to_move" (a list of seats), "scores", and the game's own fields under "game"
// (protocol/games/GAME.md). Its "time" is the clock: "limit_ms", the most this answer
// may be charged (CPU time), and "bank_ms", what is left of a bank (null without one).
//
// Go's standard library reads JSON (encoding/json): the legal decisions are kept as
// json.RawMessage, so the chosen one is sent back as exactly the text that came in.
//
// Only protocol messages go to stdout. Debug output goes to stderr, or, one short text
// per decision, into the replay beside the decision ("debug").
//
// Build: go build -o bot .   (arena runs the `build` line of bot.toml)
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Obj is a JSON object as decoded (numbers are float64); the readers below make a
// missing or mistyped value read as 0, "" or false.
type Obj = map[string]interface{}

func get(v interface{}, key string) interface{} {
	if o, ok := v.(Obj); ok {
		return o[key]
	}
	return nil
}

func at(v interface{}, index int) interface{} {
	if a, ok := v.([]interface{}); ok && index >= 0 && index < len(a) {
		return a[index]
	}
	return nil
}

func num(v interface{}) int {
	if n, ok := v.(float64); ok {
		return int(n)
	}
	return 0
}

func str(v interface{}) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

func boolean(v interface{}) bool {
	b, ok := v.(bool)
	return ok && b
}

func isAction(option Obj, action string) bool { return str(option["action"]) == action }

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// ================================================================================
// Take That: twist when you can; otherwise play the card farthest from the middle
// of the deck (few cards lie within +-10 of it, so the next player is likelier to
// be stuck and take the row); take the row only when nothing else is legal.
// ================================================================================

func scoreTakeThat(option Obj, observation Obj) int {
	if isAction(option, "twist") {
		return 1000 // two cards on our plus pile: +2 points
	}
	if isAction(option, "play") {
		return 100 + abs(num(option["card"])-55)
	}
	return 0 // "take": the whole row becomes minus points, so only when forced
}

// ================================================================================
// LEYLO: keep your grid low. Put a drawn card in place of your worst card when
// that lowers the grid; otherwise throw it away and turn up a hidden card.
// ================================================================================

const hiddenGuess = 6 // a face-down card is worth about 6 points on average

// leyloPoints is what one grid cell counts at the end of the round (lower is better).
func leyloPoints(card string, leylo Obj) int {
	switch {
	case card == "hidden":
		return hiddenGuess
	case card == "empty":
		return 0 // a cleared cell counts nothing
	case card == "action":
		return num(leylo["action_card_value"])
	case strings.HasPrefix(card, "joker"):
		return 12
	}
	points, _ := strconv.Atoi(card) // a number card: "0" .. "11"
	return points
}

// topDiscardPoints: the points of the open card on the discard pile (empty: 99).
func topDiscardPoints(leylo Obj) int {
	discard, _ := leylo["discard"].([]interface{})
	if len(discard) == 0 {
		return 99
	}
	return leyloPoints(str(discard[len(discard)-1]), leylo)
}

func scoreLeylo(option Obj, observation Obj) int {
	leylo, _ := observation["game"].(Obj) // the game's own fields
	switch {
	case isAction(option, "draw"):
		// Take the open discard when it is a low card; otherwise try our luck on the pile.
		if str(option["source"]) == "discard" {
			if topDiscardPoints(leylo) <= 4 {
				return 2
			}
			return 0
		}
		return 1
	case isAction(option, "replace"):
		// The points we save by putting the held card in this cell (may be negative).
		grid := at(leylo["grids"], num(observation["seat"]))
		cell := str(at(grid, num(option["cell"])))
		held := str(get(leylo["holding"], "card"))
		return 10 * (leyloPoints(cell, leylo) - leyloPoints(held, leylo))
	case isAction(option, "discard"):
		return 5 // beats a replacement that saves nothing
	case isAction(option, "clear"):
		return 1 // a cleared line counts 0 points: always clear
	case isAction(option, "claim"):
		// Swap one of our action cards (12 points) for the top discard when it is lower.
		if topDiscardPoints(leylo) < num(leylo["action_card_value"]) {
			return 1
		}
		return -1
	}
	return 0 // "flip" (any cell will do), "swap" (never), "keep", "pass"
}

// ================================================================================
// Twirkle: place each card where it scores most right now, and keep placing while
// a card fits. When nothing fits, exchange the whole hand. Never shift.
// ================================================================================

func boardHas(board interface{}, x, y int) bool {
	cards, _ := board.([]interface{})
	for _, card := range cards {
		if num(get(card, "x")) == x && num(get(card, "y")) == y {
			return true
		}
	}
	return false
}

// twirklePoints: the points a card laid on the empty cell (x, y) scores: each line of
// 2+ through it counts its length, a complete line of 6 (a Twirkle) counts 12.
func twirklePoints(x, y int, board interface{}) int {
	total := 0
	for _, d := range [][2]int{{1, 0}, {0, 1}} { // the row, then the column
		length := 1
		for _, sign := range []int{1, -1} { // walk both ways until a gap
			for step := 1; boardHas(board, x+sign*step*d[0], y+sign*step*d[1]); step++ {
				length++
			}
		}
		if length == 6 {
			total += 12
		} else if length >= 2 {
			total += length
		}
	}
	return total
}

func scoreTwirkle(option Obj, observation Obj) int {
	switch {
	case isAction(option, "place"):
		return 10 + twirklePoints(num(option["x"]), num(option["y"]), get(observation["game"], "board"))
	case isAction(option, "pick"):
		return 3 // any card that fits: placing scores points
	case isAction(option, "exchange"):
		return 2 // nothing fits: swap the hand, card by card
	case isAction(option, "lift"):
		return -1 // never shift: "end_turn" (0) comes with it
	}
	return 0 // "pass", "end_placing", "end_exchange", "end_turn", "put"
}

// ================================================================================
// Krumme10: hit the target (10) exactly when a card does it; otherwise play your
// lowest card that keeps the sum below the target; flip a card (its unknown back
// counts) only when every card would overshoot. Never steal; always score.
// ================================================================================

// krumme10FlipWanted: flip a card before it goes to our points only when it shows 0:
// its back is a 1 or a 5, always more. Any other card's back may be lower.
func krumme10FlipWanted(top int) bool { return top == 0 }

func scoreKrumme10(option Obj, observation Obj) int {
	krumme10, _ := observation["game"].(Obj) // the game's own fields
	flip, top := boolean(option["flip"]), num(option["top"])
	switch {
	case isAction(option, "play"):
		if flip {
			return 100 // a gamble on the unknown back side
		}
		newSum, target := num(krumme10["sum"])+top, num(krumme10["target"])
		if newSum == target {
			return 300 // a hit: we take the card to our points
		}
		if newSum < target {
			return 200 - top // safe; keep the high cards for a hit later
		}
		return 0 // an overrun: every other player scores
	case isAction(option, "take"):
		shown := num(get(at(krumme10["to_take"], 0), "top"))
		if flip == krumme10FlipWanted(shown) {
			return 1
		}
		return 0
	case isAction(option, "score"):
		if flip == krumme10FlipWanted(top) {
			return 2
		}
		return 1
	case isAction(option, "steal"):
		return -1 // a stolen card is played flipped: unknown
	}
	return 0 // "pass"
}

// ================================================================================
// The protocol: nothing below needs to change to play differently.
// ================================================================================

type scorer func(option Obj, observation Obj) int

var scorers = map[string]scorer{
	"take-that": scoreTakeThat,
	"leylo":     scoreLeylo,
	"twirkle":   scoreTwirkle,
	"krumme10":  scoreKrumme10,
}

type message struct {
	Type        string            `json:"type"`
	Game        string            `json:"game"`
	Players     int               `json:"players"`
	Seat        int               `json:"seat"`
	ID          json.RawMessage   `json:"id"`
	TimeControl Obj               `json:"time_control"` // start: "kind" bank or per-decision
	Observation Obj               `json:"observation"`
	Time        Obj               `json:"time"` // decide: the clock
	Legal       []json.RawMessage `json:"legal"`
	Result      Obj               `json:"result"`
}

// choose: the legal decision with the highest score (and that score); on a tie, the
// first in `legal`.
func choose(score scorer, observation Obj, legal []json.RawMessage) (json.RawMessage, int) {
	best, bestScore := legal[0], 0
	if score == nil {
		return best, 0 // a game this bot does not know: the first legal one
	}
	for i, raw := range legal {
		var option Obj
		_ = json.Unmarshal(raw, &option) // a decision that is not an object scores as {}
		if s := score(option, observation); i == 0 || s > bestScore {
			best, bestScore = raw, s
		}
	}
	return best, bestScore
}

func main() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	var score scorer
	for {
		line, err := in.ReadString('\n') // one whole line, however long
		if strings.TrimSpace(line) != "" {
			var m message
			if json.Unmarshal([]byte(line), &m) == nil { // else not JSON: skip it
				switch m.Type {
				case "start":
					// a process may play several matches: everything per match is reset here
					score = scorers[m.Game]
					fmt.Fprintf(os.Stderr, "start: %s with %d players, seat %d, %s time control\n",
						m.Game, m.Players, m.Seat, str(m.TimeControl["kind"]))
					fmt.Fprintln(out, `{"type":"ready"}`)
				case "decide":
					best, value := choose(score, m.Observation, m.Legal)
					// The debug text (optional, at most 1 KiB kept) is shown beside the decision
					// in `arena replay show` and the viewer: say there why the bot chose it.
					limitMs := num(m.Time["limit_ms"]) // the most this answer may be charged
					debug := fmt.Sprintf("score %d, best of %d legal; %d ms allowed", value, len(m.Legal), limitMs)
					// id and decision are copied as the exact text that came in
					fmt.Fprintf(out, "{\"type\":\"decision\",\"id\":%s,\"decision\":%s,\"debug\":%q}\n",
						m.ID, best, debug)
				case "end":
					scores, _ := json.Marshal(m.Result["scores"])
					fmt.Fprintf(os.Stderr, "end: scores %s\n", scores)
				case "quit":
					out.Flush()
					return
				} // any other type: ignore it (later protocol versions may add some)
				out.Flush() // an answer left in the buffer is no answer
			}
		}
		if err != nil {
			return // the end of input
		}
	}
}
