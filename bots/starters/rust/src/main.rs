//! A starter bot for arena, in Rust: it plays all four games with one simple idea each.
//!
//! How a bot works (protocol version 2, see protocol/PROTOCOL.md):
//!
//!     read one JSON line from stdin -> look at its "type" -> answer with one JSON line
//!
//! The referee sends `start` (answer `ready`), `decide` (answer `decision`), `end` (no
//! answer) and `quit` (exit). Every `decide` carries the list of `legal` decisions; this
//! bot gives each legal decision a score and answers the best one, copied unchanged.
//! So it can never make an illegal move: improve the score_* functions to play better.
//!
//! A `decide`'s observation has the same keys in every game: "seat", "players", "phase",
//! "to_move" (a list of seats), "scores", and the game's own fields under "game"
//! (protocol/games/GAME.md). Its "time" is the clock: "limit_ms", the most this answer
//! may be charged (CPU time), and "bank_ms", what is left of a bank (null without one).
//!
//! The build runs without network, so the bot uses no crates: the first part of this
//! file is a small JSON reader. It keeps, for every value, where its text lies in the
//! input line: the chosen decision is sent back as exactly the text that came in.
//!
//! Only protocol messages go to stdout. Debug output goes to stderr, or, one short text
//! per decision, into the replay beside the decision ("debug").
//!
//! Build: cargo build --release --offline   (arena runs the `build` line of bot.toml)

use std::io::{self, BufRead, Write};

// ================================================================================
// A minimal JSON reader
// ================================================================================

#[derive(Debug)]
enum Kind {
    Null,
    Bool(bool),
    Number(f64),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// A parsed value and where its text lies in the line (`start..end`).
#[derive(Debug)]
struct Json {
    kind: Kind,
    start: usize,
    end: usize,
}

static MISSING: Json = Json { kind: Kind::Null, start: 0, end: 0 };

impl Json {
    /// The member `key` of an object (a missing one reads as null).
    fn get(&self, key: &str) -> &Json {
        match &self.kind {
            Kind::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
        .unwrap_or(&MISSING)
    }
    /// The element `index` of an array (a missing one reads as null).
    fn at(&self, index: usize) -> &Json {
        self.items().get(index).unwrap_or(&MISSING)
    }
    fn items(&self) -> &[Json] {
        match &self.kind {
            Kind::Array(items) => items,
            _ => &[],
        }
    }
    /// Convenience readers: a missing value reads as 0, "" or false.
    fn int(&self) -> i64 {
        match self.kind {
            Kind::Number(n) => n as i64,
            _ => 0,
        }
    }
    fn str(&self) -> &str {
        match &self.kind {
            Kind::Str(s) => s,
            _ => "",
        }
    }
    fn bool(&self) -> bool {
        matches!(self.kind, Kind::Bool(true))
    }
    /// The text the value came as.
    fn raw<'a>(&self, line: &'a str) -> &'a str {
        &line[self.start..self.end]
    }
}

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> u8 {
        *self.text.get(self.at).unwrap_or(&0)
    }
    fn skip_spaces(&mut self) {
        while matches!(self.peek(), b' ' | b'\t' | b'\n' | b'\r') {
            self.at += 1;
        }
    }
    fn literal(&mut self, word: &str) -> Option<()> {
        if self.text[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Some(())
        } else {
            None
        }
    }
    fn value(&mut self) -> Option<Json> {
        self.skip_spaces();
        let start = self.at;
        let kind = match self.peek() {
            b'{' => Kind::Object(self.members()?),
            b'[' => Kind::Array(self.elements()?),
            b'"' => Kind::Str(self.string()?),
            b't' => self.literal("true").map(|_| Kind::Bool(true))?,
            b'f' => self.literal("false").map(|_| Kind::Bool(false))?,
            b'n' => self.literal("null").map(|_| Kind::Null)?,
            _ => Kind::Number(self.number()?),
        };
        Some(Json { kind, start, end: self.at })
    }
    fn number(&mut self) -> Option<f64> {
        let start = self.at;
        while matches!(self.peek(), b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
            self.at += 1;
        }
        std::str::from_utf8(&self.text[start..self.at]).ok()?.parse().ok()
    }
    /// A string starting at its opening quote, escapes decoded.
    fn string(&mut self) -> Option<String> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let start = self.at; // copy a run of plain characters at once (UTF-8 intact)
            while !matches!(self.peek(), b'"' | b'\\' | 0) {
                self.at += 1;
            }
            out.push_str(std::str::from_utf8(&self.text[start..self.at]).ok()?);
            match self.peek() {
                b'"' => {
                    self.at += 1;
                    return Some(out);
                }
                b'\\' => {
                    let escape = *self.text.get(self.at + 1)?;
                    self.at += 2;
                    out.push(match escape {
                        b'n' => '\n',
                        b't' => '\t',
                        b'r' => '\r',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'u' => {
                            let hex = std::str::from_utf8(self.text.get(self.at..self.at + 4)?).ok()?;
                            self.at += 4;
                            // a lone surrogate (never needed here) reads as '?'
                            char::from_u32(u32::from_str_radix(hex, 16).ok()?).unwrap_or('?')
                        }
                        other => other as char, // \" \\ \/
                    });
                }
                _ => return None, // the line ended inside the string
            }
        }
    }
    fn elements(&mut self) -> Option<Vec<Json>> {
        let mut items = Vec::new();
        self.at += 1;
        self.skip_spaces();
        if self.peek() == b']' {
            self.at += 1;
            return Some(items);
        }
        loop {
            items.push(self.value()?);
            if self.separator(b']')? {
                return Some(items);
            }
        }
    }
    fn members(&mut self) -> Option<Vec<(String, Json)>> {
        let mut members = Vec::new();
        self.at += 1;
        self.skip_spaces();
        if self.peek() == b'}' {
            self.at += 1;
            return Some(members);
        }
        loop {
            self.skip_spaces();
            if self.peek() != b'"' {
                return None;
            }
            let key = self.string()?;
            self.skip_spaces();
            if self.peek() != b':' {
                return None;
            }
            self.at += 1;
            members.push((key, self.value()?));
            if self.separator(b'}')? {
                return Some(members);
            }
        }
    }
    /// After an element: Some(false) at a comma, Some(true) at `close`, None otherwise.
    fn separator(&mut self, close: u8) -> Option<bool> {
        self.skip_spaces();
        let found = self.peek();
        self.at += 1;
        match found {
            b',' => Some(false),
            c if c == close => Some(true),
            _ => None,
        }
    }
}

/// Parse one whole line; None if it is not valid JSON.
fn parse(line: &str) -> Option<Json> {
    let mut reader = Reader { text: line.as_bytes(), at: 0 };
    let value = reader.value()?;
    reader.skip_spaces();
    (reader.at == line.len()).then_some(value)
}

fn is_action(option: &Json, action: &str) -> bool {
    option.get("action").str() == action
}

// ================================================================================
// Take That: twist when you can; otherwise play the card farthest from the middle
// of the deck (few cards lie within +-10 of it, so the next player is likelier to
// be stuck and take the row); take the row only when nothing else is legal.
// ================================================================================

fn score_take_that(option: &Json, _observation: &Json) -> i64 {
    if is_action(option, "twist") {
        return 1000; // two cards on our plus pile: +2 points
    }
    if is_action(option, "play") {
        return 100 + (option.get("card").int() - 55).abs();
    }
    0 // "take": the whole row becomes minus points, so only when forced
}

// ================================================================================
// LEYLO: keep your grid low. Put a drawn card in place of your worst card when
// that lowers the grid; otherwise throw it away and turn up a hidden card.
// ================================================================================

const HIDDEN_GUESS: i64 = 6; // a face-down card is worth about 6 points on average

/// What one grid cell counts at the end of the round (lower is better).
fn leylo_points(card: &str, leylo: &Json) -> i64 {
    match card {
        "hidden" => HIDDEN_GUESS,
        "empty" => 0, // a cleared cell counts nothing
        "action" => leylo.get("action_card_value").int(),
        _ if card.starts_with("joker") => 12,
        _ => card.parse().unwrap_or(0), // a number card: "0" .. "11"
    }
}

/// The points of the open card on the discard pile (which may be empty: then 99).
fn top_discard_points(leylo: &Json) -> i64 {
    match leylo.get("discard").items().last() {
        Some(card) => leylo_points(card.str(), leylo),
        None => 99,
    }
}

fn score_leylo(option: &Json, observation: &Json) -> i64 {
    let leylo = observation.get("game"); // the game's own fields
    if is_action(option, "draw") {
        // Take the open discard when it is a low card; otherwise try our luck on the pile.
        if option.get("source").str() == "discard" {
            return if top_discard_points(leylo) <= 4 { 2 } else { 0 };
        }
        return 1;
    }
    if is_action(option, "replace") {
        // The points we save by putting the held card in this cell (may be negative).
        let seat = observation.get("seat").int() as usize;
        let grid = leylo.get("grids").at(seat);
        let cell = grid.at(option.get("cell").int() as usize).str();
        let held = leylo.get("holding").get("card").str();
        return 10 * (leylo_points(cell, leylo) - leylo_points(held, leylo));
    }
    if is_action(option, "discard") {
        return 5; // beats a replacement that saves nothing
    }
    if is_action(option, "clear") {
        return 1; // a cleared line counts 0 points: always clear
    }
    if is_action(option, "claim") {
        // Swap one of our action cards (12 points) for the top discard when it is lower.
        let action_value = leylo.get("action_card_value").int();
        return if top_discard_points(leylo) < action_value { 1 } else { -1 };
    }
    0 // "flip" (any cell will do), "swap" (never), "keep", "pass"
}

// ================================================================================
// Twirkle: place each card where it scores most right now, and keep placing while
// a card fits. When nothing fits, exchange the whole hand. Never shift.
// ================================================================================

fn board_has(board: &Json, x: i64, y: i64) -> bool {
    board.items().iter().any(|c| c.get("x").int() == x && c.get("y").int() == y)
}

/// The points a card laid on the empty cell (x, y) scores: each line of 2+ through it
/// counts its length, a complete line of 6 (a Twirkle) counts 12.
fn twirkle_points(x: i64, y: i64, board: &Json) -> i64 {
    let mut total = 0;
    for (dx, dy) in [(1, 0), (0, 1)] {
        let mut length = 1; // the row, then the column
        for sign in [1, -1] {
            let mut step = 1; // walk both ways until a gap
            while board_has(board, x + sign * step * dx, y + sign * step * dy) {
                length += 1;
                step += 1;
            }
        }
        if length == 6 {
            total += 12;
        } else if length >= 2 {
            total += length;
        }
    }
    total
}

fn score_twirkle(option: &Json, observation: &Json) -> i64 {
    if is_action(option, "place") {
        let (x, y) = (option.get("x").int(), option.get("y").int());
        return 10 + twirkle_points(x, y, observation.get("game").get("board"));
    }
    if is_action(option, "pick") {
        return 3; // any card that fits: placing scores points
    }
    if is_action(option, "exchange") {
        return 2; // nothing fits: swap the hand, card by card
    }
    if is_action(option, "lift") {
        return -1; // never shift: "end_turn" (0) comes with it
    }
    0 // "pass", "end_placing", "end_exchange", "end_turn", "put"
}

// ================================================================================
// Krumme10: hit the target (10) exactly when a card does it; otherwise play your
// lowest card that keeps the sum below the target; flip a card (its unknown back
// counts) only when every card would overshoot. Never steal; always score.
// ================================================================================

/// Flip a card before it goes to our points only when it shows 0: its back is a 1 or a
/// 5, always more. Any other card's back may be lower.
fn krumme10_flip_wanted(top: i64) -> bool {
    top == 0
}

fn score_krumme10(option: &Json, observation: &Json) -> i64 {
    let krumme10 = observation.get("game"); // the game's own fields
    let flip = option.get("flip").bool();
    let top = option.get("top").int();
    if is_action(option, "play") {
        if flip {
            return 100; // a gamble on the unknown back side
        }
        let new_sum = krumme10.get("sum").int() + top;
        let target = krumme10.get("target").int();
        if new_sum == target {
            return 300; // a hit: we take the card to our points
        }
        return if new_sum < target { 200 - top } else { 0 }; // below: keep high cards for a hit
    }
    if is_action(option, "take") {
        let shown = krumme10.get("to_take").at(0).get("top").int();
        return (flip == krumme10_flip_wanted(shown)) as i64;
    }
    if is_action(option, "score") {
        return if flip == krumme10_flip_wanted(top) { 2 } else { 1 };
    }
    if is_action(option, "steal") {
        return -1; // a stolen card is played flipped: unknown
    }
    0 // "pass"
}

// ================================================================================
// The protocol: nothing below needs to change to play differently.
// ================================================================================

type Scorer = fn(&Json, &Json) -> i64;

fn scorer_for(game: &str) -> Option<Scorer> {
    match game {
        "take-that" => Some(score_take_that),
        "leylo" => Some(score_leylo),
        "twirkle" => Some(score_twirkle),
        "krumme10" => Some(score_krumme10),
        _ => None,
    }
}

/// The legal decision with the highest score (and that score); on a tie, the first one
/// in `legal`.
fn choose<'a>(score: Option<Scorer>, observation: &Json, legal: &'a [Json]) -> (&'a Json, i64) {
    let score = match score {
        Some(score) => score,
        None => return (&legal[0], 0), // a game this bot does not know: the first legal one
    };
    let mut best = &legal[0];
    let mut best_score = score(best, observation);
    for option in &legal[1..] {
        let option_score = score(option, observation);
        if option_score > best_score {
            best = option;
            best_score = option_score;
        }
    }
    (best, best_score)
}

fn main() {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut score: Option<Scorer> = None;
    for line in io::stdin().lock().lines() {
        let line = match line {
            Ok(line) => line,
            Err(_) => break,
        };
        let message = match parse(&line) {
            Some(message) => message,
            None => continue, // a blank line, or something that is not JSON
        };
        match message.get("type").str() {
            "start" => {
                // a process may play several matches: everything per match is reset here
                let game = message.get("game").str();
                score = scorer_for(game);
                let (players, seat) = (message.get("players").int(), message.get("seat").int());
                let clock = message.get("time_control").get("kind").str(); // bank or per-decision
                eprintln!("start: {game} with {players} players, seat {seat}, {clock} time control");
                writeln!(out, "{{\"type\":\"ready\"}}").unwrap();
                out.flush().unwrap(); // an answer left in the buffer is no answer
            }
            "decide" => {
                let legal = message.get("legal").items();
                let (best, value) = choose(score, message.get("observation"), legal);
                // The debug text (optional, at most 1 KiB kept) is shown beside the decision
                // in `arena replay show` and the viewer: say there why the bot chose it.
                let limit_ms = message.get("time").get("limit_ms").int(); // the most it may be charged
                let debug = format!("score {value}, best of {} legal; {limit_ms} ms allowed", legal.len());
                // id and decision are copied as the exact text that came in
                let (id, decision) = (message.get("id").raw(&line), best.raw(&line));
                writeln!(out, "{{\"type\":\"decision\",\"id\":{id},\"decision\":{decision},\"debug\":\"{debug}\"}}")
                    .unwrap();
                out.flush().unwrap();
            }
            "end" => {
                let scores = message.get("result").get("scores");
                eprintln!("end: scores {}", scores.raw(&line));
            }
            "quit" => break,
            _ => {} // any other type: ignore it (later protocol versions may add some)
        }
    }
}
