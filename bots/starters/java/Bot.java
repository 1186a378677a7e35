// A starter bot for arena, in Java: it plays all four games with one simple idea each.
//
// How a bot works (protocol version 2, see protocol/PROTOCOL.md):
//
//     read one JSON line from stdin -> look at its "type" -> answer with one JSON line
//
// The referee sends `start` (answer `ready`), `decide` (answer `decision`), `end` (no
// answer) and `quit` (exit). Every `decide` carries the list of `legal` decisions; this
// bot gives each legal decision a score and answers the best one, copied unchanged.
// So it can never make an illegal move: improve the score methods to play better.
//
// A `decide`'s observation has the same keys in every game: "seat", "players", "phase",
// "to_move" (a list of seats), "scores", and the game's own fields under "game"
// (protocol/games/GAME.md). Its "time" is the clock: "limit_ms", the most this answer
// may be charged (CPU time), and "bank_ms", what is left of a bank (null without one).
//
// Java has no JSON library built in, so the class `Json` at the end of this file is a
// small reader and writer: objects become Map<String, Object>, arrays List<Object>,
// strings String, whole numbers Long, other numbers Double, true/false Boolean.
//
// Only protocol messages go to stdout. Debug output goes to stderr, or, one short text
// per decision, into the replay beside the decision ("debug").

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

public class Bot {

    // ---------------------------------------------------------------------------------
    // Take That: twist when you can; otherwise play the card farthest from the middle
    // of the deck (few cards lie within +-10 of it, so the next player is likelier to
    // be stuck and take the row); take the row only when nothing else is legal.
    // ---------------------------------------------------------------------------------

    static int scoreTakeThat(Map<String, Object> option, Map<String, Object> observation) {
        String action = str(option.get("action"));
        if (action.equals("twist")) return 1000; // two cards on our plus pile: +2 points
        if (action.equals("play")) return 100 + Math.abs(num(option.get("card")) - 55);
        return 0; // "take": the whole row becomes minus points, so only when forced
    }

    // ---------------------------------------------------------------------------------
    // LEYLO: keep your grid low. Put a drawn card in place of your worst card when that
    // lowers the grid; otherwise throw it away and turn up a hidden card.
    // ---------------------------------------------------------------------------------

    static final int HIDDEN_GUESS = 6; // a face-down card is worth about 6 points on average

    // What one grid cell counts at the end of the round (lower is better).
    static int leyloPoints(String card, Map<String, Object> leylo) {
        if (card.equals("hidden")) return HIDDEN_GUESS;
        if (card.equals("empty")) return 0; // a cleared cell counts nothing
        if (card.equals("action")) return num(leylo.get("action_card_value")); // 12, or 0
        if (card.startsWith("joker")) return 12;
        return Integer.parseInt(card); // a number card: "0" .. "11"
    }

    // The points of the open card on the discard pile (which may be empty: then 99).
    static int topDiscardPoints(Map<String, Object> leylo) {
        List<Object> discard = list(leylo.get("discard"));
        if (discard.isEmpty()) return 99;
        return leyloPoints(str(discard.get(discard.size() - 1)), leylo);
    }

    static int scoreLeylo(Map<String, Object> option, Map<String, Object> observation) {
        Map<String, Object> leylo = map(observation.get("game")); // the game's own fields
        switch (str(option.get("action"))) {
            case "draw":
                // Take the open discard when it is a low card; otherwise try the pile.
                if (str(option.get("source")).equals("discard")) {
                    return topDiscardPoints(leylo) <= 4 ? 2 : 0;
                }
                return 1;
            case "replace": {
                // The points we save by putting the held card in this cell (may be negative).
                int seat = num(observation.get("seat"));
                List<Object> myGrid = list(list(leylo.get("grids")).get(seat));
                String cell = str(myGrid.get(num(option.get("cell"))));
                String held = str(map(leylo.get("holding")).get("card"));
                return 10 * (leyloPoints(cell, leylo) - leyloPoints(held, leylo));
            }
            case "discard":
                return 5; // better than a replacement that saves nothing, worse than one that does
            case "clear":
                return 1; // a cleared line counts 0 points: always clear
            case "claim":
                // Swap one of our action cards (12 points) for the top discard when it is lower.
                return topDiscardPoints(leylo) < num(leylo.get("action_card_value")) ? 1 : -1;
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
    static int twirklePoints(int x, int y, Set<String> board) {
        int total = 0;
        int[][] directions = {{1, 0}, {0, 1}}; // the row, then the column
        for (int[] d : directions) {
            int length = 1;
            for (int sign : new int[] {1, -1}) { // walk both ways from the cell until a gap
                int step = 1;
                while (board.contains((x + sign * step * d[0]) + "," + (y + sign * step * d[1]))) {
                    length++;
                    step++;
                }
            }
            if (length == 6) total += 12;
            else if (length >= 2) total += length;
        }
        return total;
    }

    static int scoreTwirkle(Map<String, Object> option, Map<String, Object> observation) {
        switch (str(option.get("action"))) {
            case "place": {
                Set<String> board = new HashSet<>();
                for (Object cell : list(map(observation.get("game")).get("board"))) {
                    board.add(num(map(cell).get("x")) + "," + num(map(cell).get("y")));
                }
                return 10 + twirklePoints(num(option.get("x")), num(option.get("y")), board);
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
    // counts) only when every card would overshoot. Never steal; always score.
    // ---------------------------------------------------------------------------------

    // Flip a card before it goes to our points only when it shows 0: its back is a 1 or
    // a 5, always more. Any other card's back may be lower.
    static boolean krumme10FlipWanted(int top) {
        return top == 0;
    }

    static int scoreKrumme10(Map<String, Object> option, Map<String, Object> observation) {
        Map<String, Object> krumme10 = map(observation.get("game")); // the game's own fields
        boolean flip = Boolean.TRUE.equals(option.get("flip"));
        switch (str(option.get("action"))) {
            case "play": {
                if (flip) return 100; // a gamble on the unknown back side
                int top = num(option.get("top"));
                int newSum = num(krumme10.get("sum")) + top;
                int target = num(krumme10.get("target"));
                if (newSum == target) return 300; // a hit: we take the card to our points
                if (newSum < target) return 200 - top; // safe; keep the high cards for a hit
                return 0; // an overrun: every other player scores
            }
            case "take": {
                int shown = num(map(list(krumme10.get("to_take")).get(0)).get("top"));
                return flip == krumme10FlipWanted(shown) ? 1 : 0;
            }
            case "score":
                return flip == krumme10FlipWanted(num(option.get("top"))) ? 2 : 1;
            case "steal":
                return -1; // never steal: a stolen card is played flipped, an unknown value
            default:
                return 0; // "pass"
        }
    }

    // ---------------------------------------------------------------------------------
    // The protocol: nothing below needs to change to play differently.
    // ---------------------------------------------------------------------------------

    static int score(String game, Map<String, Object> option, Map<String, Object> observation) {
        switch (game) {
            case "take-that": return scoreTakeThat(option, observation);
            case "leylo": return scoreLeylo(option, observation);
            case "twirkle": return scoreTwirkle(option, observation);
            case "krumme10": return scoreKrumme10(option, observation);
            default: return 0; // a game this bot does not know: the first legal decision
        }
    }

    // The legal decision with the highest score; on a tie, the first one in `legal`.
    static Object choose(String game, Map<String, Object> observation, List<Object> legal) {
        Object best = legal.get(0);
        int bestScore = score(game, map(best), observation);
        for (Object option : legal.subList(1, legal.size())) {
            int optionScore = score(game, map(option), observation);
            if (optionScore > bestScore) {
                best = option;
                bestScore = optionScore;
            }
        }
        return best;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        // stdout without automatic flushing: send() flushes after each whole line.
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String game = "";
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            Map<String, Object> message = map(Json.parse(line));
            String type = str(message.get("type"));
            if (type.equals("start")) {
                game = str(message.get("game")); // a process may play several matches: reset here
                // time_control: {"kind": "bank", "bank_ms": ...} or {"kind": "per-decision", ...}
                System.err.println("start: " + game + " with " + message.get("players")
                        + " players, seat " + message.get("seat") + ", "
                        + Json.write(message.get("time_control")));
                send(out, Map.of("type", "ready"));
            } else if (type.equals("decide")) {
                Map<String, Object> observation = map(message.get("observation"));
                List<Object> legal = list(message.get("legal"));
                Object decision = choose(game, observation, legal);
                Map<String, Object> answer = new LinkedHashMap<>();
                answer.put("type", "decision");
                answer.put("id", message.get("id"));
                answer.put("decision", decision);
                // The debug text (optional, at most 1 KiB kept) is shown beside the decision
                // in `arena replay show` and the viewer: say there why the bot chose it.
                int limitMs = num(map(message.get("time")).get("limit_ms")); // the most it may be charged
                answer.put("debug", "score " + score(game, map(decision), observation) + ", best of "
                        + legal.size() + " legal; " + limitMs + " ms allowed");
                send(out, answer);
            } else if (type.equals("end")) {
                System.err.println("end: scores " + Json.write(map(message.get("result")).get("scores")));
            } else if (type.equals("quit")) {
                break;
            }
            // any other type: ignore it (later protocol versions may add some)
        }
    }

    // One JSON object per line, flushed at once: an answer left in a buffer is no answer.
    static void send(PrintStream out, Object message) {
        out.print(Json.write(message) + "\n");
        out.flush();
    }

    // Small casts, so that the code above reads like the JSON it looks at.
    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object value) {
        return (List<Object>) value;
    }

    static String str(Object value) {
        return value instanceof String ? (String) value : "";
    }

    static int num(Object value) {
        return value instanceof Number ? ((Number) value).intValue() : 0;
    }
}

// A minimal JSON reader and writer (enough for the protocol; no third-party library).
class Json {
    private final String text;
    private int pos = 0;

    private Json(String text) {
        this.text = text;
    }

    // Parse one JSON value; throws IllegalArgumentException on bad input.
    static Object parse(String text) {
        Json reader = new Json(text);
        Object value = reader.value();
        reader.spaces();
        if (reader.pos != text.length()) throw reader.error("extra text");
        return value;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at character " + pos);
    }

    private void spaces() {
        while (pos < text.length() && " \t\r\n".indexOf(text.charAt(pos)) >= 0) pos++;
    }

    private Object value() {
        spaces();
        if (pos >= text.length()) throw error("unexpected end");
        char c = text.charAt(pos);
        if (c == '{') return object();
        if (c == '[') return array();
        if (c == '"') return string();
        if (text.startsWith("true", pos)) { pos += 4; return Boolean.TRUE; }
        if (text.startsWith("false", pos)) { pos += 5; return Boolean.FALSE; }
        if (text.startsWith("null", pos)) { pos += 4; return null; }
        return number();
    }

    private Map<String, Object> object() {
        Map<String, Object> result = new LinkedHashMap<>();
        pos++; // {
        spaces();
        if (text.charAt(pos) == '}') { pos++; return result; }
        while (true) {
            spaces();
            String key = string();
            spaces();
            if (text.charAt(pos++) != ':') throw error("':' expected");
            result.put(key, value());
            spaces();
            char c = text.charAt(pos++);
            if (c == '}') return result;
            if (c != ',') throw error("',' or '}' expected");
        }
    }

    private List<Object> array() {
        List<Object> result = new ArrayList<>();
        pos++; // [
        spaces();
        if (text.charAt(pos) == ']') { pos++; return result; }
        while (true) {
            result.add(value());
            spaces();
            char c = text.charAt(pos++);
            if (c == ']') return result;
            if (c != ',') throw error("',' or ']' expected");
        }
    }

    private String string() {
        if (text.charAt(pos) != '"') throw error("string expected");
        pos++;
        StringBuilder result = new StringBuilder();
        while (true) {
            char c = text.charAt(pos++);
            if (c == '"') return result.toString();
            if (c != '\\') { result.append(c); continue; }
            char e = text.charAt(pos++);
            switch (e) {
                case 'n': result.append('\n'); break;
                case 't': result.append('\t'); break;
                case 'r': result.append('\r'); break;
                case 'b': result.append('\b'); break;
                case 'f': result.append('\f'); break;
                case 'u': result.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16)); pos += 4; break;
                default: result.append(e); // \" \\ \/
            }
        }
    }

    // Whole numbers become Long (the protocol's ids, cards, cells), others Double.
    private Object number() {
        int start = pos;
        while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) pos++;
        String digits = text.substring(start, pos);
        if (digits.isEmpty()) throw error("value expected");
        if (digits.matches("-?\\d+")) return Long.parseLong(digits);
        return Double.parseDouble(digits);
    }

    // Write a value back as JSON text. A Long stays a whole number, so a decision copied
    // from `legal` is written exactly as it came (`34`, never `34.0`).
    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String) {
            out.append('"');
            for (char c : ((String) value).toCharArray()) {
                if (c == '"' || c == '\\') out.append('\\').append(c);
                else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                else out.append(c);
            }
            out.append('"');
        } else if (value instanceof Map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                if (!first) out.append(',');
                first = false;
                write(entry.getKey().toString(), out);
                out.append(':');
                write(entry.getValue(), out);
            }
            out.append('}');
        } else if (value instanceof List) {
            out.append('[');
            boolean first = true;
            for (Object item : (List<?>) value) {
                if (!first) out.append(',');
                first = false;
                write(item, out);
            }
            out.append(']');
        } else {
            out.append(value); // Long, Double, Boolean
        }
    }
}
