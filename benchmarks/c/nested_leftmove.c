/* Plain-C reference of nmcs's nested search on the left move problem (NMCS paper, 4.2).
 *
 * The same algorithm as nmcs/search/nested.py with nmcs/games/leftmove.py, written as a C
 * programmer would write it for one game: the same levels, memorization (from a given level
 * up), random tie-break between equally good moves, SplitMix64 generator, 64-moves-per-word
 * playouts and replay of the winning level-1 playout. Given the same seeds it returns the same
 * scores and playout counts, search for search, which benchmarks/bench_vs_c.py checks before
 * it compares speeds.
 *
 *   cc -O2 -march=native -o nested_leftmove nested_leftmove.c
 *   ./nested_leftmove DEPTH LEVEL MEMORIZE_FROM < seeds.txt   (one uint64 seed a line;
 *        MEMORIZE_FROM 0 = no memorization)
 *
 * Prints one line a search: score playouts playout_moves seconds.
 *
 * State (int64[3]):  [DEPTH | PLAYED | LEFTS]    moves: 0 = left, 1 = right.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_LEVEL 6
#define MAX_MOVES 1001
#define NO_SCORE (-(INT64_C(1) << 62))
enum { DEPTH, PLAYED, LEFTS };

/* ---- SplitMix64 and Lemire's bounded draw, as nmcs/search/rng.py ---- */
static inline uint64_t next_u64(uint64_t *rng) {
    uint64_t z = (*rng += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static inline int64_t below(uint64_t *rng, uint64_t n) {
    return (int64_t)(((next_u64(rng) >> 32) * n) >> 32);
}

/* ---- the game ---- */
static inline int legal_moves(const int64_t *s, int32_t *out) {
    if (s[PLAYED] >= s[DEPTH]) return 0;
    out[0] = 0;
    out[1] = 1;
    return 2;
}

static inline void play(int64_t *s, int32_t move) {
    s[PLAYED] += 1;
    if (move == 0) s[LEFTS] += 1;
}

static inline int64_t score(const int64_t *s) { return s[LEFTS]; }

static inline int64_t playout(int64_t *s, uint64_t *rng, int32_t *moves, int record) {
    int64_t remaining = s[DEPTH] - s[PLAYED], done = 0, lefts = 0;
    while (done < remaining) {
        int64_t k = remaining - done < 64 ? remaining - done : 64;
        uint64_t word = next_u64(rng) & (k >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << k) - 1);
        lefts += __builtin_popcountll(word);
        if (record)
            for (int64_t j = 0; j < k; j++) moves[done + j] = 1 - (int32_t)((word >> j) & 1);
        done += k;
    }
    s[PLAYED] += remaining;
    s[LEFTS] += lefts;
    return remaining;
}

/* ---- the search ---- */
typedef struct {
    int64_t states[MAX_LEVEL + 1][3];
    int32_t moves[MAX_LEVEL + 1][2];
    int32_t seqs[MAX_LEVEL + 1][2][MAX_MOVES];
    int32_t cont[MAX_MOVES];
    int64_t playouts, playout_moves;
} Workspace;

static inline void copy3(int64_t *dst, const int64_t *src) {
    dst[0] = src[0];
    dst[1] = src[1];
    dst[2] = src[2];
}

/* Level 1: a playout after each move; the winning playout's moves are learnt by replaying it
 * from its saved generator state only when memorization needs them. */
static int level1(int64_t *state, int memorize, uint64_t *rng, Workspace *ws, int32_t *seq) {
    int64_t *child = ws->states[1];
    int32_t *legal = ws->moves[1];
    int64_t best = NO_SCORE;
    int played = 0, pending = 0;
    uint64_t pending_rng = 0;
    for (;;) {
        int n = legal_moves(state, legal);
        if (n == 0) break;
        int64_t step_best = NO_SCORE, ties = 0;
        int32_t step_move = -1;
        uint64_t step_rng = 0;
        for (int i = 0; i < n; i++) {
            copy3(child, state);
            play(child, legal[i]);
            uint64_t saved = *rng;
            ws->playout_moves += playout(child, rng, ws->cont, 0);
            ws->playouts += 1;
            int64_t s = score(child);
            if (s > step_best) {
                step_best = s;
                ties = 1;
                step_move = legal[i];
                step_rng = saved;
            } else if (s == step_best) {
                ties += 1;
                if (below(rng, (uint64_t)ties) == 0) {
                    step_move = legal[i];
                    step_rng = saved;
                }
            }
        }
        if (memorize > 1) {
            seq[played] = step_move;
        } else if (step_best > best) {
            best = step_best;
            seq[played] = step_move;
            pending = 1;
            pending_rng = step_rng;
        } else if (pending) {
            uint64_t aux = pending_rng;
            copy3(child, state);
            int64_t k = playout(child, &aux, ws->cont, 1);
            for (int64_t j = 0; j < k; j++) seq[played + j] = ws->cont[j];
            pending = 0;
        }
        play(state, seq[played]);
        played++;
    }
    return played;
}

static int nested(int64_t *state, int level, int memorize, uint64_t *rng, Workspace *ws,
                  int32_t *seq) {
    if (level == 0) {
        int64_t n = playout(state, rng, seq, 1);
        ws->playouts += 1;
        ws->playout_moves += n;
        return (int)n;
    }
    if (level == 1) return level1(state, memorize, rng, ws, seq);
    int64_t *child = ws->states[level];
    int32_t *legal = ws->moves[level];
    int64_t best = NO_SCORE;
    int played = 0, cur = 0;
    for (;;) {
        int n = legal_moves(state, legal);
        if (n == 0) break;
        int64_t step_best = NO_SCORE, ties = 0;
        int32_t step_move = -1;
        int step_len = 0;
        for (int i = 0; i < n; i++) {
            copy3(child, state);
            play(child, legal[i]);
            int length = nested(child, level - 1, memorize, rng, ws, ws->seqs[level][cur]);
            int64_t s = score(child);
            int take = 0;
            if (s > step_best) {
                step_best = s;
                ties = 1;
                take = 1;
            } else if (s == step_best) {
                ties += 1;
                take = below(rng, (uint64_t)ties) == 0;
            }
            if (take) {
                step_move = legal[i];
                step_len = length;
                cur = 1 - cur;
            }
        }
        if (memorize > level) {
            seq[played] = step_move;
        } else if (step_best > best) {
            best = step_best;
            seq[played] = step_move;
            const int32_t *found = ws->seqs[level][1 - cur];
            for (int j = 0; j < step_len; j++) seq[played + 1 + j] = found[j];
        }
        play(state, seq[played]);
        played++;
    }
    return played;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s DEPTH LEVEL MEMORIZE_FROM < seeds\n", argv[0]);
        return 2;
    }
    int depth = atoi(argv[1]), level = atoi(argv[2]), memorize_from = atoi(argv[3]);
    if (depth < 1 || depth >= MAX_MOVES || level < 0 || level > MAX_LEVEL) {
        fprintf(stderr, "depth must be 1..%d and level 0..%d\n", MAX_MOVES - 1, MAX_LEVEL);
        return 2;
    }
    int memorize = memorize_from > 0 ? memorize_from : MAX_LEVEL + 1;
    static Workspace ws;
    static int32_t seq[MAX_MOVES];
    uint64_t seed;
    while (scanf("%" SCNu64, &seed) == 1) {
        int64_t state[3] = {depth, 0, 0};
        uint64_t rng = seed;
        ws.playouts = ws.playout_moves = 0;
        double t0 = now();
        nested(state, level, memorize, &rng, &ws, seq);
        double t1 = now();
        printf("%" PRId64 " %" PRId64 " %" PRId64 " %.9f\n", score(state), ws.playouts,
               ws.playout_moves, t1 - t0);
    }
    return 0;
}
