/*
 * Twirkle's random playouts in C: whole turns, exactly as `playout.Turns` plays them.
 *
 * Why: search (ISMCTS) and the referee benchmark spend their time in random playouts,
 * and the pure-Python whole-turn loop (arena/games/twirkle/playout.py) tops out at a few
 * hundred playouts a second. This module plays the same turns with the same lists in the
 * same order, drawing every index from a copy of the same Mersenne Twister, so that it
 * makes the very same choices, history and final state; `fast.py` hands the state in and
 * writes it back. The Python referee stays the rules' authority: matches never come
 * here, the step loop plays the opening and partial turns, and the tests play thousands
 * of playouts both ways. A rule changed there must be changed here (or this module
 * disabled, ARENA_TWIRKLE_ENGINE=python) until the tests agree again.
 *
 * Mirrored from the Python side:
 *   - MT19937 as CPython's `_random` runs it; `getrandbits(k)` for 0 < k <= 32 is the
 *     next 32-bit word shifted right by 32 - k; `rng.choice` draws an index below n as
 *     `getrandbits(n.bit_length())` until the value is below n; `shuffle` as
 *     `leylo.draws` does (every position from the last down swapped with one drawn so).
 *   - the board's answers (board.py, shifting.py): the frontier and its masks are kept
 *     card by card (refreshed where `Board` refreshes them), line ends, leaves, runs,
 *     shift starts and puts are read off the grid when asked (the same answers as the
 *     board's incremental dicts, which `board_parts` rebuilds at the end).
 *   - the turn itself (`Turns.play` and the `Twirkle` methods it calls).
 *
 * Cells: a 256 x 256 window centred on the origin, cell = (y + 128) * 256 + x + 128, so
 * that sorting cells sorts by (y, x) like the Python integers; the engine stops at a
 * turn start once a card came within MARGIN of the window's edge (the Python loop goes
 * on from there), so no walk ever leaves the window.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ----- sizes and rules ------------------------------------------------------------ */

#define SIDE 256
#define HALF 128
#define CELLS (SIDE * SIDE)
/* No card within this many cells of the window's edge (a turn moves far less). */
#define MARGIN 24
/* The Python board's integer cells (board.py: OFFSET, WIDTH). */
#define PY_OFFSET 256
#define PY_WIDTH 512

#define DECK 108
#define KINDS 36
#define HAND_SIZE 6
#define MAX_LINE 6
#define TWIRKLE_POINTS 12
#define MAX_PLAYERS 4
/* Hands hold six cards; a roomier array lets a hand-edited test state load anyway. */
#define HAND_CAP 16
#define FRONTIER_CAP (4 * DECK + 4)
#define PUTS_CAP (4 * FRONTIER_CAP)
#define ALL_KINDS ((UINT64_C(1) << KINDS) - 1)

#define RIGHT 1
#define LEFT (-1)
#define DOWN SIDE
#define UP (-SIDE)

/* A line end is 4 * cell + rank; ranks order the directions as puts are listed. */
static const int RANK_STEP[4] = {LEFT, UP, DOWN, RIGHT};
static const int STEPS[4] = {RIGHT, LEFT, DOWN, UP};

static int
rank_of(int step)
{
    switch (step) {
    case LEFT: return 0;
    case UP: return 1;
    case DOWN: return 2;
    default: return 3;
    }
}

enum Phase { PHASE_TURN, PHASE_PLACING, PHASE_EXCHANGING, PHASE_SHIFTING, PHASE_OVER };
enum Action { ACT_NONE, ACT_PLACE, ACT_EXCHANGE, ACT_PASS };
/* The decisions a turn logs (the history entries are built after the run). */
enum Word {
    W_PICK, W_PLACE, W_EXCHANGE, W_PASS, W_END_PLACING, W_END_EXCHANGE, W_LIFT, W_PUT,
    W_END_TURN, W_COUNT
};
enum End { END_NONE, END_OUT, END_ALL_PASSED, END_IDLE };

/* ----- the Mersenne Twister, as CPython's _randommodule.c ------------------------- */

#define MT_N 624
#define MT_M 397

typedef struct {
    uint32_t state[MT_N];
    int index;
    int used; /* drawn from at all: only then is the state handed back */
} Twister;

static uint32_t
twister_next(Twister *t)
{
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t *mt = t->state;
    uint32_t y;
    if (t->index >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        y = (mt[MT_N - 1] & 0x80000000U) | (mt[0] & 0x7fffffffU);
        mt[MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 0x1U];
        t->index = 0;
    }
    y = mt[t->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

static int
bit_length(unsigned value)
{
    int width = 0;
    while (value) {
        width++;
        value >>= 1;
    }
    return width;
}

/* The index `rng.choice` picks from `count` >= 1 options (`_randbelow`). */
static int
twister_below(Twister *t, int count)
{
    int shift = 32 - bit_length((unsigned)count);
    uint32_t index;
    t->used = 1;
    do {
        index = twister_next(t) >> shift;
    } while (index >= (uint32_t)count);
    return (int)index;
}

/* `leylo.draws.shuffle` (`Random.shuffle`'s order). */
static void
twister_shuffle(Twister *t, int *items, int count)
{
    for (int last = count - 1; last > 0; last--) {
        int other = twister_below(t, last + 1);
        int kept = items[last];
        items[last] = items[other];
        items[other] = kept;
    }
}

/* ----- small helpers -------------------------------------------------------------- */

static void
sort_ints(int *items, int count)
{
    for (int i = 1; i < count; i++) { /* the lists are short: insertion sort */
        int item = items[i], j = i - 1;
        while (j >= 0 && items[j] > item) {
            items[j + 1] = items[j];
            j--;
        }
        items[j + 1] = item;
    }
}

/* The position of `item` in the sorted `items`, or where it would go. */
static int
find_sorted(const int *items, int count, int item)
{
    int low = 0, high = count;
    while (low < high) {
        int middle = (low + high) / 2;
        if (items[middle] < item)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

static void
insert_sorted(int *items, int *count, int item)
{
    int at = find_sorted(items, *count, item);
    if (at < *count && items[at] == item)
        return;
    memmove(items + at + 1, items + at, (size_t)(*count - at) * sizeof(int));
    items[at] = item;
    (*count)++;
}

static void
remove_sorted(int *items, int *count, int item)
{
    int at = find_sorted(items, *count, item);
    if (at == *count || items[at] != item)
        return;
    memmove(items + at, items + at + 1, (size_t)(*count - at - 1) * sizeof(int));
    (*count)--;
}

static int
popcount64(uint64_t value)
{
    int count = 0;
    while (value) {
        value &= value - 1;
        count++;
    }
    return count;
}

static int
lowest_bit(uint64_t value)
{
    int index = 0;
    while (!(value & 1)) {
        value >>= 1;
        index++;
    }
    return index;
}

static uint64_t
colour_mask(int colour)
{
    return UINT64_C(0x3f) << (6 * colour);
}

static uint64_t
symbol_mask(int symbol)
{
    uint64_t mask = 0;
    for (int colour = 0; colour < 6; colour++)
        mask |= UINT64_C(1) << (6 * colour + symbol);
    return mask;
}

/* W4: a line scores its length, a line of six scores 12; one card scores nothing. */
static int
line_points(int length)
{
    if (length < 2)
        return 0;
    return length == MAX_LINE ? TWIRKLE_POINTS : length;
}

/* `board.run_accepts` of a run's kind set (-1: a kind repeats, nothing joins). */
static uint64_t
run_accepts(int64_t seen)
{
    if (seen < 0)
        return 0;
    if (seen == 0)
        return ALL_KINDS;
    if (popcount64((uint64_t)seen) >= MAX_LINE)
        return 0;
    int low = lowest_bit((uint64_t)seen);
    uint64_t same_colour = colour_mask(low / 6), same_symbol = symbol_mask(low % 6);
    uint64_t accepted = 0;
    if (!((uint64_t)seen & ~same_colour))
        accepted |= same_colour;
    if (!((uint64_t)seen & ~same_symbol))
        accepted |= same_symbol;
    return accepted & ~(uint64_t)seen;
}

/* ----- the board ------------------------------------------------------------------ */

typedef struct {
    uint8_t kind[CELLS];   /* kind + 1 on a card, 0 on an empty cell */
    uint8_t degree[CELLS]; /* how many cards touch the cell by an edge */
    int cards[DECK];       /* the cells holding a card, sorted */
    int ncards;
    int frontier[FRONTIER_CAP]; /* the empty cells some card touches, sorted */
    uint64_t masks[FRONTIER_CAP]; /* per frontier cell, the kinds it accepts */
    int nfrontier;
    long changes;  /* cards laid or lifted: what `Board.version` counts */
    int near_edge; /* a card came within MARGIN of the window's edge */
} Board;

static int
in_window(int x, int y, int margin)
{
    return x >= -HALF + margin && x < HALF - margin && y >= -HALF + margin && y < HALF - margin;
}

static int
card_at(const Board *b, int cell)
{
    return b->kind[cell] - 1;
}

/* `Board.walked_mask`: the kinds a card on the empty `cell` may have, reading both lines
 * through it and stopping at `gone` (-1: none), which counts as lifted. */
static uint64_t
mask_without(const Board *b, int cell, int gone)
{
    uint64_t mask = ALL_KINDS;
    for (int axis = 0; axis < 2; axis++) {
        int step = axis ? DOWN : RIGHT;
        uint64_t seen = 0;
        unsigned colours = 0, symbols = 0;
        int count = 0;
        for (int way = step; ; way = -step) {
            int near = cell + way;
            while (b->kind[near] && near != gone) {
                int kind = b->kind[near] - 1;
                uint64_t bit = UINT64_C(1) << kind;
                if (seen & bit)
                    return 0; /* the same card twice in one line */
                seen |= bit;
                colours |= 1u << (kind / 6);
                symbols |= 1u << (kind % 6);
                count++;
                near += way;
            }
            if (way == -step)
                break;
        }
        if (count) {
            if (count >= MAX_LINE)
                return 0;
            uint64_t accepted = 0;
            if (!(colours & (colours - 1)))
                accepted |= colour_mask(lowest_bit(colours));
            if (!(symbols & (symbols - 1)))
                accepted |= symbol_mask(lowest_bit(symbols));
            mask &= accepted & ~seen;
            if (!mask)
                return 0;
        }
    }
    return mask;
}

static uint64_t
mask_at(const Board *b, int cell)
{
    return mask_without(b, cell, -1);
}

static void
frontier_insert(Board *b, int cell)
{
    int at = find_sorted(b->frontier, b->nfrontier, cell);
    size_t moved = (size_t)(b->nfrontier - at);
    memmove(b->frontier + at + 1, b->frontier + at, moved * sizeof(int));
    memmove(b->masks + at + 1, b->masks + at, moved * sizeof(uint64_t));
    b->frontier[at] = cell;
    b->masks[at] = 0; /* `refresh` sets it */
    b->nfrontier++;
}

static void
frontier_remove(Board *b, int cell)
{
    int at = find_sorted(b->frontier, b->nfrontier, cell);
    if (at == b->nfrontier || b->frontier[at] != cell)
        return;
    size_t moved = (size_t)(b->nfrontier - at - 1);
    memmove(b->frontier + at, b->frontier + at + 1, moved * sizeof(int));
    memmove(b->masks + at, b->masks + at + 1, moved * sizeof(uint64_t));
    b->nfrontier--;
}

/* The kept mask of the frontier cell `cell` recomputed, if it is one. */
static void
refresh_mask(Board *b, int cell)
{
    int at = find_sorted(b->frontier, b->nfrontier, cell);
    if (at < b->nfrontier && b->frontier[at] == cell)
        b->masks[at] = mask_at(b, cell);
}

/* After a card was laid on or lifted from `cell`: only the lines through it changed, so
 * only the masks of `cell` and of the first empty cell each way along both axes (as
 * `Board._laid` and `_lifted` refresh them). */
static void
refresh(Board *b, int cell)
{
    refresh_mask(b, cell);
    for (int axis = 0; axis < 2; axis++) {
        int step = axis ? DOWN : RIGHT;
        int low = cell - step, high = cell + step;
        while (b->kind[low])
            low -= step;
        while (b->kind[high])
            high += step;
        refresh_mask(b, low);
        refresh_mask(b, high);
    }
}

static void
board_place(Board *b, int cell, int kind)
{
    b->kind[cell] = (uint8_t)(kind + 1);
    b->changes++;
    frontier_remove(b, cell);
    insert_sorted(b->cards, &b->ncards, cell);
    for (int i = 0; i < 4; i++) {
        int other = cell + STEPS[i];
        if (++b->degree[other] == 1 && !b->kind[other])
            frontier_insert(b, other);
    }
    if (!in_window(cell % SIDE - HALF, cell / SIDE - HALF, MARGIN))
        b->near_edge = 1;
    refresh(b, cell);
}

static int
board_remove(Board *b, int cell)
{
    int kind = card_at(b, cell);
    b->kind[cell] = 0;
    b->changes++;
    remove_sorted(b->cards, &b->ncards, cell);
    for (int i = 0; i < 4; i++) {
        int other = cell + STEPS[i];
        if (--b->degree[other] == 0 && !b->kind[other])
            frontier_remove(b, other);
    }
    if (b->degree[cell])
        frontier_insert(b, cell);
    refresh(b, cell);
    return kind;
}

/* The ranks of the line ends on the empty `cell` (`Board.end_ranks`): a rank's line runs
 * back from the cell over two or more cards. */
static int
end_ranks(const Board *b, int cell)
{
    int ranks = 0;
    if (b->kind[cell])
        return 0;
    for (int rank = 0; rank < 4; rank++) {
        int step = RANK_STEP[rank];
        if (b->kind[cell - step] && b->kind[cell - 2 * step])
            ranks |= 1 << rank;
    }
    return ranks;
}

/* The kind set of the run through the card on `cell` along `step`'s axis (-1: a kind
 * repeats), as `Board.row_kinds` / `column_kinds` keep it. */
static int64_t
run_kinds(const Board *b, int cell, int step)
{
    uint64_t seen = UINT64_C(1) << card_at(b, cell);
    for (int way = step; ; way = -step) {
        for (int near = cell + way; b->kind[near]; near += way) {
            uint64_t bit = UINT64_C(1) << card_at(b, near);
            if (seen & bit)
                return -1;
            seen |= bit;
        }
        if (way == -step)
            break;
    }
    return (int64_t)seen;
}

static int
run_length(const Board *b, int cell, int step)
{
    int count = 1;
    for (int near = cell + step; b->kind[near]; near += step)
        count++;
    for (int near = cell - step; b->kind[near]; near -= step)
        count++;
    return count;
}

static int
beyond(const Board *b, int cell, int step)
{
    cell += step;
    while (b->kind[cell])
        cell += step;
    return cell;
}

static int
abs_int(int value)
{
    return value < 0 ? -value : value;
}

/* The step from the leaf on `cell` towards its one neighbour (`Board.leaf_cells`). */
static int
leaf_step(const Board *b, int cell)
{
    for (int i = 0; i < 4; i++)
        if (b->kind[cell + STEPS[i]])
            return STEPS[i];
    return 0;
}

static int
is_leaf(const Board *b, int cell)
{
    return b->kind[cell] && b->degree[cell] == 1;
}

/* `Board.placement_points` (W4): every line through a card placed this turn. */
static int
placement_points(const Board *b, const int *placed, int count)
{
    if (!count)
        return 0;
    if (count == 1)
        return line_points(run_length(b, placed[0], RIGHT))
               + line_points(run_length(b, placed[0], DOWN));
    int main = abs_int(placed[1] - placed[0]) < SIDE ? RIGHT : DOWN;
    int cross = main == RIGHT ? DOWN : RIGHT;
    int points = line_points(run_length(b, placed[0], main));
    for (int i = 0; i < count; i++)
        points += line_points(run_length(b, placed[i], cross));
    return points;
}

/* `shifting._near_puts`: the puts lifting `leaf` opens (with `first`, at most one cell's). */
static int
near_puts(const Board *b, int leaf, int kind, int first, int *found)
{
    int step = leaf_step(b, leaf); /* its line runs that way */
    int far = beyond(b, leaf, step);
    int cells[5] = {leaf + 1, leaf - 1, leaf + DOWN, leaf - DOWN, far};
    int count = 0;
    for (int i = 0; i < 5; i++) {
        int cell = cells[i];
        int ranks = end_ranks(b, cell);
        if (!ranks)
            continue;
        if (cell == leaf - step) /* the own line's end beyond the leaf is not a target */
            ranks &= ~(1 << rank_of(-step));
        else if (cell == far) /* nor is its far end */
            ranks &= ~(1 << rank_of(step));
        if (!ranks)
            continue;
        int way = RANK_STEP[lowest_bit((uint64_t)ranks)];
        int axis = (way == RIGHT || way == LEFT) ? RIGHT : DOWN;
        if (!(run_accepts(run_kinds(b, cell - way, axis)) >> kind & 1))
            continue;
        if (!(mask_without(b, cell, leaf) >> kind & 1))
            continue;
        for (int rank = 0; rank < 4; rank++)
            if (ranks >> rank & 1)
                found[count++] = 4 * cell + rank;
        if (first)
            break;
    }
    return count;
}

/* `ShiftStarts.puts`: every line end the card on `leaf` may go to, sorted (cell, then
 * direction): the ends accepting its kind now, and those the lift opens. */
static int
leaf_puts(const Board *b, int leaf, int *found)
{
    int kind = card_at(b, leaf);
    uint64_t bit = UINT64_C(1) << kind;
    int count = 0;
    for (int i = 0; i < b->nfrontier; i++) {
        if (!(b->masks[i] & bit)) /* the cheap test first: most cells take no such kind */
            continue;
        int cell = b->frontier[i];
        int ranks = end_ranks(b, cell);
        for (int rank = 0; rank < 4; rank++)
            if (ranks >> rank & 1)
                found[count++] = 4 * cell + rank;
    }
    count += near_puts(b, leaf, kind, 0, found + count);
    sort_ints(found, count);
    return count;
}

/* `ShiftStarts.liftable`: the leaves that have at least one put, sorted. */
static int
liftable(const Board *b, int *leaves)
{
    uint64_t taken = 0; /* the kinds some line end accepts (`Board.ends_taking`) */
    for (int i = 0; i < b->nfrontier; i++) /* (a mask adding nothing needs no ends) */
        if (b->masks[i] & ~taken && end_ranks(b, b->frontier[i]))
            taken |= b->masks[i];
    int count = 0, scratch[20];
    for (int i = 0; i < b->ncards; i++) {
        int cell = b->cards[i];
        if (b->degree[cell] != 1)
            continue;
        int kind = card_at(b, cell);
        if (taken >> kind & 1 || near_puts(b, cell, kind, 1, scratch))
            leaves[count++] = cell;
    }
    return count;
}

/* `shifting.next_move`: the cell for the next source card after a card went to `last`
 * along `step`, or -1 when it cannot move. */
static int
next_move(const Board *b, int card, int last, int step)
{
    if (!is_leaf(b, card))
        return -1;
    int cell = last + step; /* walk the target line forward: `card` on it may not move */
    while (b->kind[cell]) {
        if (cell == card)
            return -1;
        cell += step;
    }
    for (int behind = last - step; b->kind[behind]; behind -= step)
        if (behind == card)
            return -1;
    return mask_without(b, cell, card) >> card_at(b, card) & 1 ? cell : -1;
}

/* `Board.next_cells`: the cells (and masks) where the next card of a placement may go,
 * sorted: after one card the ends of both lines through it, then those of their line. */
static int
next_cells(const Board *b, const int *placed, int nplaced, int *cells, uint64_t *masks)
{
    static const int ROW[2] = {RIGHT, LEFT}, COLUMN[2] = {DOWN, UP};
    const int *steps = STEPS;
    int nsteps = 4, ends[4], count = 0;
    if (nplaced > 1) {
        steps = abs_int(placed[1] - placed[0]) < SIDE ? ROW : COLUMN;
        nsteps = 2;
    }
    for (int i = 0; i < nsteps; i++)
        ends[i] = beyond(b, placed[0], steps[i]);
    sort_ints(ends, nsteps);
    for (int i = 0; i < nsteps; i++) {
        uint64_t mask = mask_at(b, ends[i]);
        if (mask) {
            cells[count] = ends[i];
            masks[count++] = mask;
        }
    }
    return count;
}

/* ----- the game ------------------------------------------------------------------- */

/* One decision as the history will show it: `where` is a cell, or a line end for a put. */
typedef struct {
    int8_t seat;
    int8_t word;
    int8_t kind;
    int where;
} Entry;

/* Scratch space for `board_parts`: the pairs of each dict of the board. */
enum { GRID, ROWS, COLUMNS, DEGREES, LEAVES, ENDS, MASKS, END_MASKS, PARTS };
#define PART_CAP (FRONTIER_CAP + DECK)
typedef struct {
    long keys[PARTS][PART_CAP];
    long long values[PARTS][PART_CAP];
} Parts;

/* A seat's `last_turns` summary, when the engine played a turn of that seat. */
typedef struct {
    int set;
    int action;
    int cards;
    int points;
    int shifted;
} Summary;

typedef struct {
    Board board;
    Twister rng;    /* the playout's decisions */
    Twister chance; /* the referee's chance: the bag's shuffles after exchanges */
    int players, current, passes, idle, turns, returner;
    int idle_limit, out_bonus;
    int hands[MAX_PLAYERS][HAND_CAP];
    int hand_size[MAX_PLAYERS];
    int bag[DECK]; /* the top card is the last */
    int nbag;
    long scores[MAX_PLAYERS];
    Summary summaries[MAX_PLAYERS];
    int returned[HAND_CAP];
    int nreturned, returned_changed;
    /* the turn under way: what `Twirkle._begin_turn` resets */
    int phase, action;
    int placed[HAND_CAP], placed_kinds[HAND_CAP], nplaced;
    int selected[HAND_CAP], nselected;
    int exchanged, turn_points;
    int source[DECK], nsource;
    int direction; /* 0: none yet */
    int last;      /* -1: none yet */
    int moved, lifted;
    int puts[PUTS_CAP + 20], nputs;
    /* the end (W7) */
    int end, first_out;
    long adjustments[MAX_PLAYERS];
    /* what the run made, for the Python objects built after it */
    Entry *entries;
    size_t nentries, entries_cap;
    int *shuffles; /* per shuffle: its length, then the kinds (only when recording) */
    size_t nshuffles, shuffles_cap;
    int recording;
    Parts parts;
    int failed; /* out of memory: the run stops, nothing is written back */
} Game;

static void
log_entry(Game *g, int word, int kind, int where)
{
    if (g->nentries == g->entries_cap) {
        size_t cap = g->entries_cap ? 2 * g->entries_cap : 1024;
        Entry *grown = realloc(g->entries, cap * sizeof(Entry));
        if (!grown) {
            g->failed = 1;
            return;
        }
        g->entries = grown;
        g->entries_cap = cap;
    }
    Entry *entry = &g->entries[g->nentries++];
    entry->seat = (int8_t)g->current;
    entry->word = (int8_t)word;
    entry->kind = (int8_t)kind;
    entry->where = where;
}

static void
log_shuffle(Game *g, const int *kinds, int count)
{
    if (g->nshuffles + (size_t)count + 1 > g->shuffles_cap) {
        size_t cap = 2 * g->shuffles_cap + (size_t)count + 1024;
        int *grown = realloc(g->shuffles, cap * sizeof(int));
        if (!grown) {
            g->failed = 1;
            return;
        }
        g->shuffles = grown;
        g->shuffles_cap = cap;
    }
    g->shuffles[g->nshuffles++] = count;
    memcpy(g->shuffles + g->nshuffles, kinds, (size_t)count * sizeof(int));
    g->nshuffles += (size_t)count;
}

/* The distinct kinds of a hand in card order (`dict.fromkeys(hand)`). */
static int
distinct(const int *hand, int size, int *kinds)
{
    uint64_t seen = 0;
    int count = 0;
    for (int i = 0; i < size; i++) {
        uint64_t bit = UINT64_C(1) << hand[i];
        if (!(seen & bit)) {
            seen |= bit;
            kinds[count++] = hand[i];
        }
    }
    return count;
}

/* `list.remove`: the first card of `kind`. */
static void
hand_remove(int *hand, int *size, int kind)
{
    for (int i = 0; i < *size; i++) {
        if (hand[i] == kind) {
            memmove(hand + i, hand + i + 1, (size_t)(*size - i - 1) * sizeof(int));
            (*size)--;
            return;
        }
    }
}

static void
begin_turn(Game *g)
{
    g->phase = PHASE_TURN;
    g->action = ACT_NONE;
    g->nplaced = g->nselected = 0;
    g->exchanged = g->turn_points = 0;
    g->nsource = 0;
    g->direction = 0;
    g->last = -1;
    g->moved = 0;
    g->lifted = -1;
    g->nputs = 0;
}

/* `Twirkle._record_turn`. */
static void
record_turn(Game *g)
{
    Summary *summary = &g->summaries[g->current];
    summary->set = 1;
    summary->action = g->action == ACT_NONE ? ACT_PASS : g->action;
    summary->cards = summary->points = 0;
    if (summary->action == ACT_PLACE) {
        summary->cards = g->nplaced;
        summary->points = g->turn_points;
    } else if (summary->action == ACT_EXCHANGE) {
        summary->cards = g->exchanged;
    }
    summary->shifted = g->moved;
    g->turns++;
}

/* `Twirkle._finish` (W7): +6 for the first player out, -1 per card left for the others. */
static void
finish(Game *g, int first_out, int reason)
{
    for (int seat = 0; seat < g->players; seat++) {
        long delta = seat == first_out ? g->out_bonus : -g->hand_size[seat];
        g->scores[seat] += delta;
        g->adjustments[seat] = delta;
    }
    g->end = reason;
    g->first_out = first_out;
    g->phase = PHASE_OVER;
}

/* `Twirkle.end_turn`: W7's all-pass end and the idle guard, else the next seat. */
static void
end_turn(Game *g)
{
    record_turn(g);
    int action = g->action == ACT_NONE ? ACT_PASS : g->action;
    g->passes = action == ACT_PASS ? g->passes + 1 : 0;
    g->idle = action == ACT_PLACE ? 0 : g->idle + 1;
    if (g->passes >= g->players) {
        finish(g, -1, END_ALL_PASSED);
    } else if (g->idle >= g->idle_limit) {
        finish(g, -1, END_IDLE);
    } else {
        g->current = (g->current + 1) % g->players;
        begin_turn(g);
    }
}

/* `Twirkle.place`. */
static void
place_card(Game *g, int kind, int cell)
{
    int seat = g->current;
    hand_remove(g->hands[seat], &g->hand_size[seat], kind);
    board_place(&g->board, cell, kind);
    g->placed[g->nplaced] = cell;
    g->placed_kinds[g->nplaced++] = kind;
    g->action = ACT_PLACE;
    if (g->phase == PHASE_TURN)
        g->phase = PHASE_PLACING;
}

/* `Twirkle.finish_placing` after a turn's placement: score, refill, W7's end check. */
static void
finish_placing(Game *g)
{
    int seat = g->current;
    int *hand = g->hands[seat], *size = &g->hand_size[seat];
    int points = placement_points(&g->board, g->placed, g->nplaced);
    g->turn_points = points;
    g->scores[seat] += points;
    if (*size < HAND_SIZE && g->nbag) {
        g->returner = -1; /* a card leaves the bag */
        while (*size < HAND_SIZE && g->nbag)
            hand[(*size)++] = g->bag[--g->nbag];
    }
    sort_ints(hand, *size);
    if (!*size) {
        record_turn(g);
        finish(g, seat, END_OUT);
        return;
    }
    g->phase = PHASE_SHIFTING;
}

/* `Twirkle.finish_exchange` (W5), with the chance's shuffle of the bag. */
static void
finish_exchange(Game *g)
{
    int seat = g->current;
    int *hand = g->hands[seat], *size = &g->hand_size[seat];
    for (int i = 0; i < g->nselected; i++)
        hand[(*size)++] = g->bag[--g->nbag];
    sort_ints(hand, *size);
    int counts[KINDS] = {0}, contents[DECK], count = 0;
    for (int i = 0; i < g->nbag; i++)
        counts[g->bag[i]]++;
    for (int i = 0; i < g->nselected; i++)
        counts[g->selected[i]]++;
    for (int kind = 0; kind < KINDS; kind++) /* sorted(bag + selected) */
        for (int copy = 0; copy < counts[kind]; copy++)
            contents[count++] = kind;
    twister_shuffle(&g->chance, contents, count);
    if (g->recording)
        log_shuffle(g, contents, count);
    for (int i = 0; i < count; i++)
        g->bag[i] = contents[count - 1 - i];
    g->nbag = count;
    g->exchanged = g->nselected;
    g->returner = seat;
    memcpy(g->returned, g->selected, (size_t)g->nselected * sizeof(int));
    g->nreturned = g->nselected;
    sort_ints(g->returned, g->nreturned);
    g->returned_changed = 1;
    g->nselected = 0;
    g->phase = PHASE_SHIFTING;
}

/* `Turns._placement`: pick and place cards from `kind` on until the seat ends (or no
 * card fits). */
static int
placement(Game *g, int kind)
{
    Board *b = &g->board;
    int *hand = g->hands[g->current];
    int cells[FRONTIER_CAP], ncells = 0, made = 0;
    for (int i = 0; i < b->nfrontier; i++) /* `Board.cells_taking` */
        if (b->masks[i] >> kind & 1)
            cells[ncells++] = b->frontier[i];
    for (;;) {
        log_entry(g, W_PICK, kind, 0);
        int cell = cells[twister_below(&g->rng, ncells)];
        log_entry(g, W_PLACE, kind, cell);
        made += 2;
        place_card(g, kind, cell);
        int open[4], kinds[HAND_CAP], picks[HAND_CAP], npicks = 0;
        uint64_t open_masks[4], fits = 0;
        int nopen = next_cells(b, g->placed, g->nplaced, open, open_masks);
        for (int i = 0; i < nopen; i++)
            fits |= open_masks[i];
        int nkinds = distinct(hand, g->hand_size[g->current], kinds);
        for (int i = 0; i < nkinds; i++)
            if (fits >> kinds[i] & 1)
                picks[npicks++] = kinds[i];
        if (!npicks)
            break; /* only end_placing is left: the referee takes it */
        int index = twister_below(&g->rng, npicks + 1);
        if (index == npicks) {
            log_entry(g, W_END_PLACING, 0, 0);
            made++;
            break;
        }
        kind = picks[index];
        ncells = 0;
        for (int i = 0; i < nopen; i++)
            if (open_masks[i] >> kind & 1)
                cells[ncells++] = open[i];
    }
    finish_placing(g);
    return made;
}

static int
exchange_cap(const Game *g)
{
    int cap = HAND_SIZE;
    if (g->nbag < cap)
        cap = g->nbag;
    if (g->hand_size[g->current] + g->nselected < cap)
        cap = g->hand_size[g->current] + g->nselected;
    return cap;
}

/* `Turns._exchange`: set cards aside from `kind` on until the seat ends (or may set no
 * more aside). */
static int
exchange(Game *g, int kind)
{
    int *hand = g->hands[g->current], *size = &g->hand_size[g->current];
    int made = 0;
    g->action = ACT_EXCHANGE;
    g->phase = PHASE_EXCHANGING;
    for (;;) {
        log_entry(g, W_EXCHANGE, kind, 0);
        made++;
        hand_remove(hand, size, kind);
        g->selected[g->nselected++] = kind;
        if (g->nselected >= exchange_cap(g))
            break; /* only end_exchange is left: the referee takes it */
        int kinds[HAND_CAP];
        int nkinds = distinct(hand, *size, kinds);
        int index = twister_below(&g->rng, nkinds + 1);
        if (index == nkinds) {
            log_entry(g, W_END_EXCHANGE, 0, 0);
            made++;
            break;
        }
        kind = kinds[index];
    }
    finish_exchange(g);
    return made;
}

/* `Twirkle.next_put`: the cell the next source card would go to, or -1. */
static int
next_put(const Game *g)
{
    if (!g->nsource || g->last < 0 || !g->direction)
        return -1;
    return next_move(&g->board, g->source[0], g->last, g->direction);
}

/* `Twirkle.lift` (W6): take a leaf off the board, listing where it may go. */
static void
lift(Game *g, int cell)
{
    Board *b = &g->board;
    if (g->moved == 0) {
        g->nputs = leaf_puts(b, cell, g->puts);
        int step = leaf_step(b, cell);
        g->nsource = 0; /* the source line beyond the leaf */
        for (int near = cell + step; b->kind[near]; near += step)
            g->source[g->nsource++] = near;
    } else {
        int target = next_put(g);
        g->puts[0] = 4 * target + rank_of(g->direction);
        g->nputs = 1;
        memmove(g->source, g->source + 1, (size_t)(g->nsource - 1) * sizeof(int));
        g->nsource--;
    }
    g->lifted = board_remove(b, cell);
}

/* `Twirkle.put` (W6): the lifted card extends the line at `end` in its direction. */
static void
put(Game *g, int end)
{
    int cell = end >> 2;
    board_place(&g->board, cell, g->lifted);
    g->lifted = -1;
    g->nputs = 0;
    g->last = cell;
    g->direction = RANK_STEP[end & 3];
    g->moved++;
}

/* `Turns._shift` (W6): lift and put cards until the seat ends the turn (or no card may
 * move), then end the turn. */
static int
shift(Game *g)
{
    int cards[DECK], made = 0;
    int count = liftable(&g->board, cards);
    while (count) {
        int index = twister_below(&g->rng, count + 1);
        if (index == count) {
            log_entry(g, W_END_TURN, 0, 0);
            made++;
            break;
        }
        int cell = cards[index];
        log_entry(g, W_LIFT, 0, cell);
        lift(g, cell);
        int end = g->puts[twister_below(&g->rng, g->nputs)];
        log_entry(g, W_PUT, 0, end);
        put(g, end);
        made += 2;
        count = 0;
        if (next_put(g) >= 0) { /* only the next card of the source line may follow */
            cards[0] = g->source[0];
            count = 1;
        }
    }
    end_turn(g);
    return made;
}

/* `Turns.play`: the turn that starts now, to its end; returns its decisions. */
static int
play_turn(Game *g)
{
    Board *b = &g->board;
    int seat = g->current;
    int kinds[HAND_CAP], picks[HAND_CAP], npicks = 0, made;
    uint64_t fits = 0;
    for (int i = 0; i < b->nfrontier; i++) /* `Board.fitting` */
        fits |= b->masks[i];
    int nkinds = distinct(g->hands[seat], g->hand_size[seat], kinds);
    for (int i = 0; i < nkinds; i++)
        if (fits >> kinds[i] & 1)
            picks[npicks++] = kinds[i];
    int exchanges = g->nbag ? nkinds : 0;
    int index = twister_below(&g->rng, npicks + exchanges + 1);
    if (index < npicks) {
        made = placement(g, picks[index]);
    } else if (index < npicks + exchanges) {
        made = exchange(g, kinds[index - npicks]);
    } else {
        log_entry(g, W_PASS, 0, 0);
        g->action = ACT_PASS;
        g->phase = PHASE_SHIFTING;
        made = 1;
    }
    if (g->phase == PHASE_SHIFTING) /* not when the placement emptied the hand */
        made += shift(g);
    return made;
}

/* ----- Python objects in and out -------------------------------------------------- */

/* Interned strings: the decisions' words and keys, the phases, the ends' reasons. */
enum Text {
    T_ACTION, T_CARD, T_X, T_Y, T_DIRECTION, T_CARDS, T_POINTS, T_SHIFTED, T_REASON,
    T_FIRST_OUT, T_ADJUSTMENTS, T_TURN, T_OVER, T_EMPTY, T_OUT, T_ALL_PASSED, T_IDLE, T_COUNT
};
static const char *const TEXTS[T_COUNT] = {
    "action", "card", "x", "y", "direction", "cards", "points", "shifted", "reason",
    "first_out", "adjustments", "turn", "over", "", "out", "all_passed", "idle",
};
static const char *const WORDS[W_COUNT] = {
    "pick", "place", "exchange", "pass", "end_placing", "end_exchange", "lift", "put",
    "end_turn",
};
static PyObject *texts[T_COUNT];
static PyObject *words[W_COUNT];

/* A tuple of `count` new references; NULL (and every reference dropped) if one is NULL. */
static PyObject *
pack(Py_ssize_t count, PyObject **items)
{
    PyObject *tuple = NULL;
    for (Py_ssize_t i = 0; i < count; i++)
        if (!items[i])
            goto fail;
    tuple = PyTuple_New(count);
    if (!tuple)
        goto fail;
    for (Py_ssize_t i = 0; i < count; i++)
        PyTuple_SET_ITEM(tuple, i, items[i]);
    return tuple;
fail:
    for (Py_ssize_t i = 0; i < count; i++)
        Py_XDECREF(items[i]);
    return NULL;
}

/* Set `key` to a new reference `value` (NULL: the error is already set). */
static int
set_new(PyObject *dict, PyObject *key, PyObject *value)
{
    if (!value)
        return -1;
    int failed = PyDict_SetItem(dict, key, value);
    Py_DECREF(value);
    return failed;
}

static int
x_of(int cell)
{
    return cell % SIDE - HALF;
}

static int
y_of(int cell)
{
    return cell / SIDE - HALF;
}

/* The Python board's integer of a cell (`board.encode`). */
static long
py_cell(int cell)
{
    return (long)(y_of(cell) + PY_OFFSET) * PY_WIDTH + x_of(cell) + PY_OFFSET;
}

/* A step as the Python board writes it (a row or column is PY_WIDTH cells apart). */
static long
py_step(int step)
{
    return step == DOWN ? PY_WIDTH : step == UP ? -PY_WIDTH : step;
}

/* A Python list of ints: the items as they are, or (as_cells) as the Python board's cells. */
static PyObject *
py_list(const int *items, int count, int as_cells)
{
    PyObject *list = PyList_New(count);
    for (int i = 0; list && i < count; i++) {
        PyObject *item = PyLong_FromLong(as_cells ? py_cell(items[i]) : items[i]);
        if (!item) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

static PyObject *
py_cells(const int *cells, int count)
{
    return py_list(cells, count, 1);
}

static PyObject *
py_ints(const int *items, int count)
{
    return py_list(items, count, 0);
}

static PyObject *
py_names(PyObject *names, const int *kinds, int count)
{
    PyObject *list = PyList_New(count);
    for (int i = 0; list && i < count; i++) {
        PyObject *name = PyTuple_GET_ITEM(names, kinds[i]);
        Py_INCREF(name);
        PyList_SET_ITEM(list, i, name);
    }
    return list;
}

static int
set_xy(PyObject *dict, int cell)
{
    if (set_new(dict, texts[T_X], PyLong_FromLong(x_of(cell))) < 0)
        return -1;
    return set_new(dict, texts[T_Y], PyLong_FromLong(y_of(cell)));
}

/* One decision as `moves` writes it (the same keys in the same order). */
static PyObject *
decision(const Entry *entry, PyObject *names, PyObject *directions)
{
    PyObject *dict = PyDict_New();
    if (!dict || PyDict_SetItem(dict, texts[T_ACTION], words[entry->word]) < 0)
        goto fail;
    switch (entry->word) {
    case W_PICK:
    case W_EXCHANGE:
        if (PyDict_SetItem(dict, texts[T_CARD], PyTuple_GET_ITEM(names, entry->kind)) < 0)
            goto fail;
        break;
    case W_PLACE:
        if (PyDict_SetItem(dict, texts[T_CARD], PyTuple_GET_ITEM(names, entry->kind)) < 0
            || set_xy(dict, entry->where) < 0)
            goto fail;
        break;
    case W_LIFT:
        if (set_xy(dict, entry->where) < 0)
            goto fail;
        break;
    case W_PUT:
        if (set_xy(dict, entry->where >> 2) < 0
            || PyDict_SetItem(dict, texts[T_DIRECTION],
                              PyTuple_GET_ITEM(directions, entry->where & 3)) < 0)
            goto fail;
        break;
    default:
        break;
    }
    return dict;
fail:
    Py_XDECREF(dict);
    return NULL;
}

/* The history entries, ``(seat, decision)``, in order. */
static PyObject *
history(const Game *g, PyObject *names, PyObject *directions)
{
    PyObject *list = PyList_New((Py_ssize_t)g->nentries);
    for (size_t i = 0; list && i < g->nentries; i++) {
        PyObject *items[2] = {
            PyLong_FromLong(g->entries[i].seat), decision(&g->entries[i], names, directions),
        };
        PyObject *entry = pack(2, items);
        if (!entry) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, entry);
    }
    return list;
}

/* The bag's orders after the exchanges, as card names (what a recording chance logs). */
static PyObject *
shuffles(const Game *g, PyObject *names)
{
    if (!g->recording)
        Py_RETURN_NONE;
    PyObject *list = PyList_New(0);
    for (size_t at = 0; list && at < g->nshuffles; at += (size_t)g->shuffles[at] + 1) {
        PyObject *order = py_names(names, g->shuffles + at + 1, g->shuffles[at]);
        if (!order || PyList_Append(list, order) < 0)
            Py_CLEAR(list);
        Py_XDECREF(order);
    }
    return list;
}

static PyObject *
dump_twister(const Twister *t)
{
    if (!t->used)
        Py_RETURN_NONE;
    PyObject *state = PyTuple_New(MT_N + 1);
    for (int i = 0; state && i <= MT_N; i++) {
        PyObject *word = i < MT_N ? PyLong_FromUnsignedLong(t->state[i])
                                  : PyLong_FromLong(t->index);
        if (!word) {
            Py_CLEAR(state);
            break;
        }
        PyTuple_SET_ITEM(state, i, word);
    }
    return state;
}

/* A dict of int keys and values: `keys[i]` -> `values[i]`. */
static PyObject *
int_dict(const long *keys, const long long *values, int count)
{
    PyObject *dict = PyDict_New();
    for (int i = 0; dict && i < count; i++) {
        PyObject *key = PyLong_FromLong(keys[i]);
        PyObject *value = PyLong_FromLongLong(values[i]);
        if (!key || !value || PyDict_SetItem(dict, key, value) < 0)
            Py_CLEAR(dict);
        Py_XDECREF(key);
        Py_XDECREF(value);
    }
    return dict;
}

/* Everything `board.Board` keeps, for the board as it is now: grid, row_kinds,
 * column_kinds, frontier, degrees, leaf_cells, end_ranks, masks, end_masks, and the
 * number of cards laid or lifted. */
static PyObject *
board_parts(const Board *b, Parts *parts)
{
    long (*keys)[PART_CAP] = parts->keys;
    long long (*values)[PART_CAP] = parts->values;
    int counts[PARTS] = {0};
#define ADD(part, key, value)                                                            \
    do {                                                                                 \
        keys[part][counts[part]] = (key);                                                \
        values[part][counts[part]++] = (value);                                          \
    } while (0)
    for (int i = 0; i < b->ncards; i++) {
        int cell = b->cards[i];
        long at = py_cell(cell);
        ADD(GRID, at, card_at(b, cell));
        ADD(ROWS, at, run_kinds(b, cell, RIGHT));
        ADD(COLUMNS, at, run_kinds(b, cell, DOWN));
        if (b->degree[cell])
            ADD(DEGREES, at, b->degree[cell]);
        if (b->degree[cell] == 1)
            ADD(LEAVES, at, py_step(leaf_step(b, cell)));
    }
    PyObject *frontier = PySet_New(NULL);
    for (int i = 0; frontier && i < b->nfrontier; i++) {
        int cell = b->frontier[i];
        long at = py_cell(cell);
        PyObject *item = PyLong_FromLong(at);
        if (!item || PySet_Add(frontier, item) < 0)
            Py_CLEAR(frontier);
        Py_XDECREF(item);
        ADD(DEGREES, at, b->degree[cell]);
        int ranks = end_ranks(b, cell);
        uint64_t mask = b->masks[i];
        if (ranks)
            ADD(ENDS, at, ranks);
        if (mask)
            ADD(MASKS, at, (long long)mask);
        if (mask && ranks)
            ADD(END_MASKS, at, (long long)mask);
    }
#undef ADD
    PyObject *items[PARTS + 2];
    items[0] = frontier;
    for (int part = 0; part < PARTS; part++)
        items[part + 1] = int_dict(keys[part], values[part], counts[part]);
    items[PARTS + 1] = PyLong_FromLong(b->changes);
    /* in `Board`'s order: grid, rows, columns, frontier, degrees, leaves, ends, masks,
     * end_masks, changes */
    PyObject *ordered[PARTS + 2] = {
        items[1 + GRID], items[1 + ROWS], items[1 + COLUMNS], items[0], items[1 + DEGREES],
        items[1 + LEAVES], items[1 + ENDS], items[1 + MASKS], items[1 + END_MASKS],
        items[PARTS + 1],
    };
    return pack(PARTS + 2, ordered);
}

static PyObject *
int_or_none(long value)
{
    if (value < 0)
        Py_RETURN_NONE;
    return PyLong_FromLong(value);
}

static PyObject *
action_text(int action)
{
    PyObject *text = action == ACT_PLACE      ? words[W_PLACE]
                     : action == ACT_EXCHANGE ? words[W_EXCHANGE]
                     : action == ACT_PASS     ? words[W_PASS]
                                              : texts[T_EMPTY];
    Py_INCREF(text);
    return text;
}

/* The fields of the turn under way (or the last one, once the game is over). */
static PyObject *
turn_fields(const Game *g)
{
    PyObject *direction = g->direction ? PyLong_FromLong(py_step(g->direction)) : Py_None;
    if (direction == Py_None)
        Py_INCREF(Py_None);
    PyObject *items[9] = {
        py_cells(g->placed, g->nplaced),
        py_ints(g->placed_kinds, g->nplaced),
        PyLong_FromLong(g->exchanged),
        action_text(g->action),
        PyLong_FromLong(g->turn_points),
        py_cells(g->source, g->nsource),
        direction,
        g->last < 0 ? int_or_none(-1) : PyLong_FromLong(py_cell(g->last)),
        PyLong_FromLong(g->moved),
    };
    return pack(9, items);
}

/* Per seat, its new `last_turns` summary (same keys, same order), or None if unchanged. */
static PyObject *
summaries(const Game *g)
{
    PyObject *list = PyList_New(g->players);
    for (int seat = 0; list && seat < g->players; seat++) {
        const Summary *summary = &g->summaries[seat];
        PyObject *dict = Py_None;
        Py_INCREF(Py_None);
        if (summary->set) {
            Py_DECREF(Py_None);
            dict = PyDict_New();
            if (!dict || set_new(dict, texts[T_ACTION], action_text(summary->action)) < 0
                || set_new(dict, texts[T_CARDS], PyLong_FromLong(summary->cards)) < 0
                || set_new(dict, texts[T_POINTS], PyLong_FromLong(summary->points)) < 0
                || set_new(dict, texts[T_SHIFTED], PyLong_FromLong(summary->shifted)) < 0) {
                Py_XDECREF(dict);
                Py_CLEAR(list);
                break;
            }
        }
        PyList_SET_ITEM(list, seat, dict);
    }
    return list;
}

/* `Twirkle.end` once the game is over, else None. */
static PyObject *
end_dict(const Game *g)
{
    if (g->end == END_NONE)
        Py_RETURN_NONE;
    int text = g->end == END_OUT ? T_OUT : g->end == END_IDLE ? T_IDLE : T_ALL_PASSED;
    PyObject *reason = texts[text];
    PyObject *adjustments = PyList_New(g->players);
    for (int seat = 0; adjustments && seat < g->players; seat++) {
        PyObject *item = PyLong_FromLong(g->adjustments[seat]);
        if (!item)
            Py_CLEAR(adjustments);
        else
            PyList_SET_ITEM(adjustments, seat, item);
    }
    PyObject *dict = adjustments ? PyDict_New() : NULL;
    if (!dict || PyDict_SetItem(dict, texts[T_REASON], reason) < 0
        || set_new(dict, texts[T_FIRST_OUT], int_or_none(g->first_out)) < 0
        || PyDict_SetItem(dict, texts[T_ADJUSTMENTS], adjustments) < 0)
        Py_CLEAR(dict);
    Py_XDECREF(adjustments);
    return dict;
}

static PyObject *
py_scores(const Game *g)
{
    PyObject *list = PyList_New(g->players);
    for (int seat = 0; list && seat < g->players; seat++) {
        PyObject *item = PyLong_FromLong(g->scores[seat]);
        if (!item)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, seat, item);
    }
    return list;
}

static PyObject *
py_hands(const Game *g)
{
    PyObject *list = PyList_New(g->players);
    for (int seat = 0; list && seat < g->players; seat++) {
        PyObject *hand = py_ints(g->hands[seat], g->hand_size[seat]);
        if (!hand)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, seat, hand);
    }
    return list;
}

/* Everything the run changed, for `fast.py` to write back (see `play`'s docstring). */
static PyObject *
result(Game *g, int made, PyObject *names, PyObject *directions)
{
    PyObject *counters[5] = {
        PyLong_FromLong(g->current), PyLong_FromLong(g->passes), PyLong_FromLong(g->idle),
        PyLong_FromLong(g->turns), int_or_none(g->returner),
    };
    PyObject *phase = texts[g->phase == PHASE_OVER ? T_OVER : T_TURN];
    Py_INCREF(phase);
    PyObject *returned = Py_None;
    if (g->returned_changed)
        returned = py_ints(g->returned, g->nreturned);
    else
        Py_INCREF(Py_None);
    PyObject *items[15] = {
        PyLong_FromLong(made),
        history(g, names, directions),
        shuffles(g, names),
        dump_twister(&g->rng),
        dump_twister(&g->chance),
        py_hands(g),
        py_ints(g->bag, g->nbag),
        board_parts(&g->board, &g->parts),
        py_scores(g),
        pack(5, counters),
        phase,
        turn_fields(g),
        summaries(g),
        returned,
        end_dict(g),
    };
    return pack(15, items);
}

/* ----- loading the state ---------------------------------------------------------- */

static int
load_twister(Twister *t, PyObject *state)
{
    if (!PyTuple_Check(state) || PyTuple_GET_SIZE(state) != MT_N + 1) {
        PyErr_SetString(PyExc_ValueError, "a generator state is Random.getstate()[1]");
        return -1;
    }
    for (int i = 0; i < MT_N; i++) {
        unsigned long word = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(state, i));
        if (word == (unsigned long)-1 && PyErr_Occurred())
            return -1;
        t->state[i] = (uint32_t)word;
    }
    long index = PyLong_AsLong(PyTuple_GET_ITEM(state, MT_N));
    if (index == -1 && PyErr_Occurred())
        return -1;
    if (index < 0 || index > MT_N) {
        PyErr_SetString(PyExc_ValueError, "a generator state's index is out of range");
        return -1;
    }
    t->index = (int)index;
    t->used = 0;
    return 0;
}

/* Returns 0, 1 when the state does not fit the engine's arrays, -1 on an error. */
static int
load_kinds(PyObject *list, int *kinds, int cap, int *count)
{
    if (!PyList_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "a hand or the bag is a list of kinds");
        return -1;
    }
    Py_ssize_t size = PyList_GET_SIZE(list);
    if (size > cap)
        return 1;
    for (Py_ssize_t i = 0; i < size; i++) {
        long kind = PyLong_AsLong(PyList_GET_ITEM(list, i));
        if (kind == -1 && PyErr_Occurred())
            return -1;
        if (kind < 0 || kind >= KINDS)
            return 1;
        kinds[i] = (int)kind;
    }
    *count = (int)size;
    return 0;
}

static int
load_grid(Board *b, PyObject *grid)
{
    PyObject *key, *value;
    Py_ssize_t at = 0;
    if (!PyDict_Check(grid)) {
        PyErr_SetString(PyExc_TypeError, "the grid is a dict of cells to kinds");
        return -1;
    }
    if (PyDict_GET_SIZE(grid) > DECK)
        return 1;
    while (PyDict_Next(grid, &at, &key, &value)) {
        long cell = PyLong_AsLong(key), kind = PyLong_AsLong(value);
        if ((cell == -1 || kind == -1) && PyErr_Occurred())
            return -1;
        long x = cell % PY_WIDTH - PY_OFFSET, y = cell / PY_WIDTH - PY_OFFSET;
        if (cell < 0 || kind < 0 || kind >= KINDS || !in_window((int)x, (int)y, MARGIN))
            return 1;
        int here = (int)((y + HALF) * SIDE + x + HALF);
        if (b->kind[here])
            return 1;
        board_place(b, here, (int)kind);
    }
    b->changes = 0;
    return 0;
}

static int
load_game(Game *g, PyObject *hands, PyObject *bag, PyObject *grid, PyObject *scores)
{
    int fits;
    if (!PyList_Check(hands) || !PyList_Check(scores)) {
        PyErr_SetString(PyExc_TypeError, "hands and scores are lists");
        return -1;
    }
    g->players = (int)PyList_GET_SIZE(hands);
    if (g->players < 1 || g->players > MAX_PLAYERS || PyList_GET_SIZE(scores) != g->players)
        return 1;
    for (int seat = 0; seat < g->players; seat++) {
        fits = load_kinds(PyList_GET_ITEM(hands, seat), g->hands[seat], HAND_CAP,
                          &g->hand_size[seat]);
        if (fits)
            return fits;
        g->scores[seat] = PyLong_AsLong(PyList_GET_ITEM(scores, seat));
        if (g->scores[seat] == -1 && PyErr_Occurred())
            return -1;
    }
    fits = load_kinds(bag, g->bag, DECK, &g->nbag);
    if (fits)
        return fits;
    if (g->current < 0 || g->current >= g->players)
        return 1;
    return load_grid(&g->board, grid);
}

/* ----- the module ----------------------------------------------------------------- */

PyDoc_STRVAR(play_doc,
"play(hands, bag, grid, scores, numbers, rng_state, chance_state, names, directions,\n"
"     recording)\n"
"--\n\n"
"Play whole random turns from a turn's start, as `playout.Turns` does, while\n"
"`budget - made >= turn_decisions`; return what changed, or None when the state does\n"
"not fit the engine (nothing drawn, nothing changed).\n\n"
"`numbers` is (current, passes, idle, turns, returner or -1, budget, turn_decisions,\n"
"idle_limit, out_bonus); the states are `Random.getstate()[1]`; `names` the 36 card\n"
"names, `directions` the direction names by rank. The result is (made, history entries,\n"
"the bag orders drawn (names, when `recording`, else None), rng state, chance state\n"
"(None: not drawn from), hands, bag, board parts, scores, (current, passes, idle, turns,\n"
"returner), phase, (placed_cells, placed_kinds, exchanged, turn_action, turn_points,\n"
"shift_source, shift_direction, shift_last, moved), last_turns per seat (None:\n"
"unchanged), returned (None: unchanged), end).");

static PyObject *
play(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *hands, *bag, *grid, *scores, *numbers, *rng_state, *chance_state;
    PyObject *names, *directions, *answer = NULL;
    int recording, budget, turn_decisions, made = 0, fits;
    if (!PyArg_ParseTuple(args, "OOOOO!OOO!O!p", &hands, &bag, &grid, &scores, &PyTuple_Type,
                          &numbers, &rng_state, &chance_state, &PyTuple_Type, &names,
                          &PyTuple_Type, &directions, &recording))
        return NULL;
    if (PyTuple_GET_SIZE(names) != KINDS || PyTuple_GET_SIZE(directions) != 4) {
        PyErr_SetString(PyExc_ValueError, "36 card names and 4 direction names");
        return NULL;
    }
    Game *g = calloc(1, sizeof(Game));
    if (!g)
        return PyErr_NoMemory();
    if (!PyArg_ParseTuple(numbers, "iiiiiiiii", &g->current, &g->passes, &g->idle, &g->turns,
                          &g->returner, &budget, &turn_decisions, &g->idle_limit,
                          &g->out_bonus))
        goto done;
    if (load_twister(&g->rng, rng_state) < 0 || load_twister(&g->chance, chance_state) < 0)
        goto done;
    fits = load_game(g, hands, bag, grid, scores);
    if (fits < 0)
        goto done;
    if (fits > 0) {
        answer = Py_None;
        Py_INCREF(answer);
        goto done;
    }
    g->recording = recording;
    g->end = END_NONE;
    g->first_out = -1;
    begin_turn(g);
    while (g->phase == PHASE_TURN && budget - made >= turn_decisions && !g->board.near_edge
           && !g->failed)
        made += play_turn(g);
    if (g->failed)
        PyErr_NoMemory();
    else
        answer = result(g, made, names, directions);
done:
    free(g->entries);
    free(g->shuffles);
    free(g);
    return answer;
}

static PyMethodDef methods[] = {
    {"play", play, METH_VARARGS, play_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef engine_module = {
    PyModuleDef_HEAD_INIT,
    "_engine",
    "Twirkle's whole-turn random playouts in C (see arena/games/twirkle/fast.py).",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit__engine(void)
{
    for (int i = 0; i < T_COUNT; i++)
        if (!texts[i] && !(texts[i] = PyUnicode_InternFromString(TEXTS[i])))
            return NULL;
    for (int i = 0; i < W_COUNT; i++)
        if (!words[i] && !(words[i] = PyUnicode_InternFromString(WORDS[i])))
            return NULL;
    PyObject *module = PyModule_Create(&engine_module);
    if (module && (PyModule_AddIntConstant(module, "SIDE", SIDE) < 0
                   || PyModule_AddIntConstant(module, "MARGIN", MARGIN) < 0)) {
        Py_CLEAR(module);
    }
    return module;
}
