/*
 * A starter bot for arena, in C: it plays all four games with one simple idea each.
 *
 * How a bot works (protocol version 2, see protocol/PROTOCOL.md):
 *
 *     read one JSON line from stdin -> look at its "type" -> answer with one JSON line
 *
 * The referee sends `start` (answer `ready`), `decide` (answer `decision`), `end` (no
 * answer) and `quit` (exit). Every `decide` carries the list of `legal` decisions; this
 * bot gives each legal decision a score and answers the best one, copied unchanged.
 * So it can never make an illegal move: improve the score_* functions to play better.
 *
 * A `decide`'s observation has the same keys in every game: "seat", "players", "phase",
 * "to_move" (a list of seats), "scores", and the game's own fields under "game"
 * (protocol/games/GAME.md). Its "time" is the clock: "limit_ms", the most this answer
 * may be charged (CPU time), and "bank_ms", what is left of a bank (null without one).
 *
 * C has no JSON library, so the first part of this file is a small JSON reader (about
 * 200 lines). It keeps, for every value, where its text lies in the input line: the
 * chosen decision is sent back as exactly the text that came in.
 *
 * Only protocol messages go to stdout. Debug output goes to stderr, or, one short text
 * per decision, into the replay beside the decision ("debug").
 *
 * Build: gcc -O2 -o bot bot.c      (arena runs the `build` line of bot.toml)
 */
#define _POSIX_C_SOURCE 200809L /* for getline() */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================================ */
/* A minimal JSON reader                                                            */
/* ================================================================================ */

typedef enum { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } JsonType;

typedef struct Json Json;
struct Json {
    JsonType type;
    double number; /* JSON_NUMBER */
    char *string;  /* JSON_STRING: the text with escapes decoded */
    char *key;     /* the key of this value in its parent object, else NULL */
    Json *child;   /* JSON_ARRAY, JSON_OBJECT: the first element */
    Json *next;    /* the next element of the parent array or object */
    const char *raw; /* where the value's text starts in the input line ... */
    size_t raw_len;  /* ... and how long it is */
};

typedef struct {
    const char *p; /* the next character to read */
    int failed;    /* set on the first syntax error */
} Reader;

static Json *parse_value(Reader *r);

static void skip_spaces(Reader *r) {
    while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r') r->p++;
}

static Json *new_node(JsonType type, const char *start) {
    Json *node = calloc(1, sizeof(Json));
    if (node == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    node->type = type;
    node->raw = start;
    return node;
}

/* A string starting at the opening quote; returns its decoded text (malloc'ed). */
static char *parse_string_text(Reader *r) {
    const char *start = ++r->p; /* past the opening quote */
    char *out = malloc(strlen(start) + 1); /* the decoded text is never longer */
    size_t n = 0;
    if (out == NULL) exit(1);
    while (*r->p != '"') {
        char c = *r->p++;
        if (c == '\0') {
            r->failed = 1;
            break;
        }
        if (c == '\\') {
            char e = *r->p++;
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': /* \uXXXX: keep ASCII, replace anything else by '?' (never needed here) */
                c = '?';
                if (strlen(r->p) >= 4) {
                    char hex[5] = {0};
                    memcpy(hex, r->p, 4);
                    long code = strtol(hex, NULL, 16);
                    if (code > 0 && code < 128) c = (char)code;
                    r->p += 4;
                }
                break;
            case '\0': r->failed = 1; r->p--; break;
            default: c = e; /* \" \\ \/ */
            }
        }
        out[n++] = c;
    }
    if (*r->p == '"') r->p++; /* past the closing quote */
    out[n] = '\0';
    return out;
}

/* The elements of an array or the members of an object, up to the closing bracket. */
static void parse_children(Reader *r, Json *parent, char close) {
    Json **tail = &parent->child;
    r->p++; /* past [ or { */
    skip_spaces(r);
    if (*r->p == close) {
        r->p++;
        return;
    }
    while (!r->failed) {
        char *key = NULL;
        skip_spaces(r);
        if (parent->type == JSON_OBJECT) { /* "key": value */
            if (*r->p != '"') { r->failed = 1; return; }
            key = parse_string_text(r);
            skip_spaces(r);
            if (*r->p != ':') { r->failed = 1; free(key); return; }
            r->p++;
        }
        Json *child = parse_value(r);
        if (child == NULL) { free(key); return; }
        child->key = key;
        *tail = child;
        tail = &child->next;
        skip_spaces(r);
        if (*r->p == ',') {
            r->p++;
        } else if (*r->p == close) {
            r->p++;
            return;
        } else {
            r->failed = 1;
        }
    }
}

static Json *parse_value(Reader *r) {
    skip_spaces(r);
    const char *start = r->p;
    Json *node;
    if (*r->p == '{' || *r->p == '[') {
        node = new_node(*r->p == '{' ? JSON_OBJECT : JSON_ARRAY, start);
        parse_children(r, node, *r->p == '{' ? '}' : ']');
    } else if (*r->p == '"') {
        node = new_node(JSON_STRING, start);
        node->string = parse_string_text(r);
    } else if (strncmp(r->p, "true", 4) == 0) {
        node = new_node(JSON_TRUE, start);
        r->p += 4;
    } else if (strncmp(r->p, "false", 5) == 0) {
        node = new_node(JSON_FALSE, start);
        r->p += 5;
    } else if (strncmp(r->p, "null", 4) == 0) {
        node = new_node(JSON_NULL, start);
        r->p += 4;
    } else {
        char *end;
        double number = strtod(r->p, &end);
        if (end == r->p) {
            r->failed = 1;
            return NULL;
        }
        node = new_node(JSON_NUMBER, start);
        node->number = number;
        r->p = end;
    }
    node->raw_len = (size_t)(r->p - start);
    return node;
}

static void json_free(Json *node) {
    while (node != NULL) {
        Json *next = node->next;
        json_free(node->child);
        free(node->string);
        free(node->key);
        free(node);
        node = next;
    }
}

/* Parse one whole line; NULL if it is not valid JSON. */
static Json *json_parse(const char *text) {
    Reader r = {text, 0};
    Json *root = parse_value(&r);
    if (r.failed) {
        json_free(root);
        return NULL;
    }
    return root;
}

/* The member `key` of an object, or NULL. */
static Json *json_get(const Json *object, const char *key) {
    if (object == NULL || object->type != JSON_OBJECT) return NULL;
    for (Json *c = object->child; c != NULL; c = c->next)
        if (strcmp(c->key, key) == 0) return c;
    return NULL;
}

/* The element `index` of an array, or NULL. */
static Json *json_at(const Json *array, int index) {
    if (array == NULL || array->type != JSON_ARRAY) return NULL;
    Json *c = array->child;
    while (c != NULL && index-- > 0) c = c->next;
    return c;
}

static int json_length(const Json *array) {
    int n = 0;
    if (array != NULL)
        for (Json *c = array->child; c != NULL; c = c->next) n++;
    return n;
}

/* Convenience readers: a missing value reads as 0, "" or false. */
static int json_int(const Json *v) { return v != NULL && v->type == JSON_NUMBER ? (int)v->number : 0; }
static const char *json_str(const Json *v) { return v != NULL && v->type == JSON_STRING ? v->string : ""; }
static int json_bool(const Json *v) { return v != NULL && v->type == JSON_TRUE; }

/* The "action" of a decision, and a shortcut for comparing it. */
static int is_action(const Json *option, const char *action) {
    return strcmp(json_str(json_get(option, "action")), action) == 0;
}

/* ================================================================================ */
/* Take That: twist when you can; otherwise play the card farthest from the middle  */
/* of the deck (few cards lie within +-10 of it, so the next player is likelier to  */
/* be stuck and take the row); take the row only when nothing else is legal.        */
/* ================================================================================ */

static int score_take_that(const Json *option, const Json *observation) {
    (void)observation;
    if (is_action(option, "twist")) return 1000; /* two cards on our plus pile: +2 points */
    if (is_action(option, "play")) return 100 + abs(json_int(json_get(option, "card")) - 55);
    return 0; /* "take": the whole row becomes minus points, so only when forced */
}

/* ================================================================================ */
/* LEYLO: keep your grid low. Put a drawn card in place of your worst card when     */
/* that lowers the grid; otherwise throw it away and turn up a hidden card.         */
/* ================================================================================ */

#define HIDDEN_GUESS 6 /* a face-down card is worth about 6 points on average */

/* What one grid cell counts at the end of the round (lower is better). */
static int leylo_points(const char *card, const Json *leylo) {
    if (strcmp(card, "hidden") == 0) return HIDDEN_GUESS;
    if (strcmp(card, "empty") == 0) return 0; /* a cleared cell counts nothing */
    if (strcmp(card, "action") == 0) return json_int(json_get(leylo, "action_card_value"));
    if (strncmp(card, "joker", 5) == 0) return 12;
    return atoi(card); /* a number card: "0" .. "11" */
}

/* The points of the open card on the discard pile (which may be empty: then 99). */
static int top_discard_points(const Json *leylo) {
    const Json *discard = json_get(leylo, "discard");
    int n = json_length(discard);
    if (n == 0) return 99;
    return leylo_points(json_str(json_at(discard, n - 1)), leylo);
}

static int score_leylo(const Json *option, const Json *observation) {
    const Json *leylo = json_get(observation, "game"); /* the game's own fields */
    if (is_action(option, "draw")) {
        /* Take the open discard when it is a low card; otherwise try our luck on the pile. */
        if (strcmp(json_str(json_get(option, "source")), "discard") == 0)
            return top_discard_points(leylo) <= 4 ? 2 : 0;
        return 1;
    }
    if (is_action(option, "replace")) {
        /* The points we save by putting the held card in this cell (may be negative). */
        int seat = json_int(json_get(observation, "seat"));
        const Json *my_grid = json_at(json_get(leylo, "grids"), seat);
        const char *cell = json_str(json_at(my_grid, json_int(json_get(option, "cell"))));
        const char *held = json_str(json_get(json_get(leylo, "holding"), "card"));
        return 10 * (leylo_points(cell, leylo) - leylo_points(held, leylo));
    }
    if (is_action(option, "discard")) return 5; /* beats a replacement that saves nothing */
    if (is_action(option, "clear")) return 1;   /* a cleared line counts 0 points: always clear */
    if (is_action(option, "claim")) {
        /* Swap one of our action cards (12 points) for the top discard when it is lower. */
        int action_value = json_int(json_get(leylo, "action_card_value"));
        return top_discard_points(leylo) < action_value ? 1 : -1;
    }
    return 0; /* "flip" (any cell will do), "swap" (never), "keep", "pass" */
}

/* ================================================================================ */
/* Twirkle: place each card where it scores most right now, and keep placing while  */
/* a card fits. When nothing fits, exchange the whole hand. Never shift.            */
/* ================================================================================ */

/* True when a card lies on the cell (x, y). */
static int board_has(const Json *board, int x, int y) {
    for (const Json *c = board->child; c != NULL; c = c->next)
        if (json_int(json_get(c, "x")) == x && json_int(json_get(c, "y")) == y) return 1;
    return 0;
}

/* The points a card laid on the empty cell (x, y) scores: each line of 2+ through it
   counts its length, a complete line of 6 (a Twirkle) counts 12. */
static int twirkle_points(int x, int y, const Json *board) {
    static const int directions[2][2] = {{1, 0}, {0, 1}}; /* the row, then the column */
    int total = 0;
    for (int d = 0; d < 2; d++) {
        int dx = directions[d][0], dy = directions[d][1];
        int length = 1;
        for (int sign = 1; sign >= -1; sign -= 2) /* walk both ways until a gap */
            for (int step = 1; board_has(board, x + sign * step * dx, y + sign * step * dy); step++)
                length++;
        if (length == 6)
            total += 12;
        else if (length >= 2)
            total += length;
    }
    return total;
}

static int score_twirkle(const Json *option, const Json *observation) {
    if (is_action(option, "place")) {
        int x = json_int(json_get(option, "x")), y = json_int(json_get(option, "y"));
        return 10 + twirkle_points(x, y, json_get(json_get(observation, "game"), "board"));
    }
    if (is_action(option, "pick")) return 3;     /* any card that fits: placing scores points */
    if (is_action(option, "exchange")) return 2; /* nothing fits: swap the hand, card by card */
    if (is_action(option, "lift")) return -1;    /* never shift: "end_turn" (0) comes with it */
    return 0; /* "pass", "end_placing", "end_exchange", "end_turn", "put" */
}

/* ================================================================================ */
/* Krumme10: hit the target (10) exactly when a card does it; otherwise play your   */
/* lowest card that keeps the sum below the target; flip a card (its unknown back   */
/* counts) only when every card would overshoot. Never steal; always score.         */
/* ================================================================================ */

/* Flip a card before it goes to our points only when it shows 0: its back is a 1 or a
   5, always more. Any other card's back may be lower. */
static int krumme10_flip_wanted(int top) { return top == 0; }

static int score_krumme10(const Json *option, const Json *observation) {
    const Json *krumme10 = json_get(observation, "game"); /* the game's own fields */
    int flip = json_bool(json_get(option, "flip"));
    int top = json_int(json_get(option, "top"));
    if (is_action(option, "play")) {
        if (flip) return 100; /* a gamble on the unknown back side */
        int new_sum = json_int(json_get(krumme10, "sum")) + top;
        int target = json_int(json_get(krumme10, "target"));
        if (new_sum == target) return 300;          /* a hit: we take the card to our points */
        if (new_sum < target) return 200 - top;     /* safe; keep the high cards for a hit later */
        return 0;                                   /* an overrun: every other player scores */
    }
    if (is_action(option, "take")) {
        int shown = json_int(json_get(json_at(json_get(krumme10, "to_take"), 0), "top"));
        return flip == krumme10_flip_wanted(shown) ? 1 : 0;
    }
    if (is_action(option, "score")) return flip == krumme10_flip_wanted(top) ? 2 : 1;
    if (is_action(option, "steal")) return -1; /* a stolen card is played flipped: unknown */
    return 0;                                   /* "pass" */
}

/* ================================================================================ */
/* The protocol: nothing below needs to change to play differently.                 */
/* ================================================================================ */

typedef int (*Scorer)(const Json *option, const Json *observation);

static Scorer scorer_for(const char *game) {
    if (strcmp(game, "take-that") == 0) return score_take_that;
    if (strcmp(game, "leylo") == 0) return score_leylo;
    if (strcmp(game, "twirkle") == 0) return score_twirkle;
    if (strcmp(game, "krumme10") == 0) return score_krumme10;
    return NULL;
}

/* The legal decision with the highest score; on a tie, the first one in `legal`. */
static const Json *choose(Scorer score, const Json *observation, const Json *legal) {
    const Json *best = legal->child;
    if (score == NULL) return best; /* a game this bot does not know: the first legal one */
    int best_score = score(best, observation);
    for (const Json *option = best->next; option != NULL; option = option->next) {
        int option_score = score(option, observation);
        if (option_score > best_score) {
            best = option;
            best_score = option_score;
        }
    }
    return best;
}

int main(void) {
    char *line = NULL;
    size_t capacity = 0;
    Scorer score = NULL;
    /* getline reads one whole line, however long, growing the buffer as needed. */
    while (getline(&line, &capacity, stdin) != -1) {
        Json *message = json_parse(line);
        if (message == NULL) continue; /* a blank line, or something that is not JSON */
        const char *type = json_str(json_get(message, "type"));
        if (strcmp(type, "start") == 0) {
            /* a process may play several matches: everything per match is reset here */
            score = scorer_for(json_str(json_get(message, "game")));
            const Json *clock = json_get(message, "time_control"); /* bank or per-decision */
            fprintf(stderr, "start: %s with %d players, seat %d, %s time control\n",
                    json_str(json_get(message, "game")), json_int(json_get(message, "players")),
                    json_int(json_get(message, "seat")), json_str(json_get(clock, "kind")));
            printf("{\"type\":\"ready\"}\n");
            fflush(stdout); /* an answer left in the buffer is no answer */
        } else if (strcmp(type, "decide") == 0) {
            const Json *id = json_get(message, "id");
            const Json *observation = json_get(message, "observation");
            const Json *legal = json_get(message, "legal");
            const Json *best = choose(score, observation, legal);
            /* The debug text (optional, at most 1 KiB kept) is shown beside the decision in
               `arena replay show` and the viewer: say there why the bot chose it. */
            char value[16] = "none";
            if (score != NULL) snprintf(value, sizeof value, "%d", score(best, observation));
            int limit_ms = json_int(json_get(json_get(message, "time"), "limit_ms"));
            /* id and decision are copied as the exact text that came in */
            printf("{\"type\":\"decision\",\"id\":%.*s,\"decision\":%.*s,"
                   "\"debug\":\"score %s, best of %d legal; %d ms allowed\"}\n",
                   (int)id->raw_len, id->raw, (int)best->raw_len, best->raw, value,
                   json_length(legal), limit_ms);
            fflush(stdout);
        } else if (strcmp(type, "end") == 0) {
            const Json *scores = json_get(json_get(message, "result"), "scores");
            if (scores != NULL) fprintf(stderr, "end: scores %.*s\n", (int)scores->raw_len, scores->raw);
        } else if (strcmp(type, "quit") == 0) {
            json_free(message);
            break;
        }
        /* any other type: ignore it (later protocol versions may add some) */
        json_free(message);
    }
    free(line);
    return 0;
}
