/*
 * Unit test of the selector and ARBOR_TUNE (no launcher): the broadcast choice moves from
 * binomial-like trees to the flat tree as L grows against the per-message overheads (the
 * seed's observation), forced and pinned choices win, and bad rules are refused with the
 * valid names.
 */
#include <stdio.h>
#include <string.h>

#include "algorithms/coll.h"
#include "algorithms/tree.h"
#include "algorithms/tune.h"

static int failures;

#define CHECK(_cond, ...)                                                                          \
    do {                                                                                           \
        if (!(_cond)) {                                                                            \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static int alg_index_of(arb_coll_t coll, const char *name)
{
    int n;
    const arb_alg_desc_t *tab = arb_alg_table(coll, &n);
    for (int i = 0; i < n; i++)
        if (!strcmp(tab[i].name, name)) return i;
    return -1;
}

static int alg_index(const char *name)
{
    return alg_index_of(ARB_COLL_BCAST, name);
}

/* Choices that used to be made in core and now are the algorithms layer's: the
 * barrier composed around ALLSYNC calls, the built-in rule for oversubscribed nodes (which
 * ARBOR_TUNE replaces, since core uses the defaults only when ARBOR_TUNE is empty), and the
 * measurement's probe schedule. */
static void test_core_choices(void)
{
    arb_logp_t m = {.L = 1, .os = 0.5, .orecv = 0.5, .g = 0.5, .G = 0.001};
    int dissemination = alg_index_of(ARB_COLL_BARRIER, "dissemination");
    int flat = alg_index_of(ARB_COLL_BARRIER, "flat");
    for (int P = 1; P <= 64; P *= 2) {
        arb_coll_args_t b = {.coll = ARB_COLL_BARRIER, .rank = 0, .size = P, .commutative = 1};
        int got = arb_select_sync_barrier(&b, &m);
        CHECK(got == dissemination, "ALLSYNC barrier at P=%d: %d, want dissemination (%d)", P, got,
              dissemination);
    }

    arb_tune_t tune;
    arb_tune_defaults(&tune, &(arb_tune_env_t){.oversubscribed = true});
    CHECK(flat > 0 && arb_tune_match(&tune, ARB_COLL_BARRIER, 0, 4) == flat,
          "oversubscribed: barrier not pinned to flat");
    CHECK(arb_tune_match(&tune, ARB_COLL_BARRIER, 0, 1 << 20) == flat,
          "oversubscribed: the pin must hold at every team size");
    CHECK(arb_tune_match(&tune, ARB_COLL_BCAST, 8, 4) == 0, "oversubscribed: bcast pinned");
    arb_tune_defaults(&tune, &(arb_tune_env_t){.oversubscribed = false});
    CHECK(tune.n == 0 && arb_tune_match(&tune, ARB_COLL_BARRIER, 0, 4) == 0,
          "not oversubscribed: a built-in rule was set");
    /* The rule is the one ARBOR_TUNE=barrier:0-inf:@flat gives, field for field. */
    arb_tune_t parsed;
    char err[256];
    arb_tune_defaults(&tune, &(arb_tune_env_t){.oversubscribed = true});
    CHECK(arb_tune_parse("barrier:0-inf:@flat", &parsed, err, sizeof(err)) == ARBOR_OK &&
              parsed.n == 1 && tune.n == 1 &&
              !memcmp(&parsed.rule[0], &tune.rule[0], sizeof(tune.rule[0])),
          "built-in oversubscribed rule differs from barrier:0-inf:@flat");

    /* Probe: rank 0 sends 3 one-block messages to rank 2, which answers once; rank 1 idles. */
    for (int me = 0; me < 3; me++) {
        arb_sched_t s;
        CHECK(arb_probe_build(me, 0, 2, 3, &s) == ARBOR_OK, "probe build on rank %d", me);
        int sends = 0, recvs = 0, blocks = 0;
        for (int i = 0; i < s.nsteps; i++) {
            const arb_step_t *st = &s.steps[i];
            sends += st->kind == ARB_STEP_SEND;
            recvs += st->kind == ARB_STEP_RECV;
            blocks += (int)st->bytes;
            CHECK(st->kind == ARB_STEP_COPY || st->peer == (me == 0 ? 2 : 0),
                  "probe rank %d step %d talks to %d", me, i, st->peer);
            CHECK((st->bytes == 1) == (st->round == 0),
                  "probe rank %d step %d: round %u with "
                  "%llu blocks",
                  me, i, st->round, (unsigned long long)st->bytes);
        }
        if (me == 0) CHECK(sends == 3 && recvs == 1 && blocks == 3, "probe origin shape");
        if (me == 2) CHECK(sends == 1 && recvs == 3 && blocks == 3, "probe target shape");
        if (me == 1) CHECK(s.nsteps == 0, "probe bystander has %d steps", s.nsteps);
        arb_sched_free(&s);
    }
    arb_sched_t s;
    CHECK(arb_probe_build(0, 1, 1, 1, &s) == ARBOR_ERR_INVALID_ARG, "probe to self accepted");
}

/* Root fan-out of the tree the chosen algorithm builds for this model. */
static int root_fanout(int alg, int P, const arb_logp_t *m)
{
    int n;
    const arb_alg_desc_t *tab = arb_alg_table(ARB_COLL_BCAST, &n);
    arb_tree_t t;
    if (arb_tree_build((arb_tree_kind_t)tab[alg].variant, P, tab[alg].radix, m, 8, &t) != ARBOR_OK)
        return -1;
    int f = t.child_start[1] - t.child_start[0];
    arb_tree_free(&t);
    return f;
}

int main(void)
{
    const int P = 64;
    arb_coll_args_t a = {
        .coll = ARB_COLL_BCAST, .rank = 0, .size = P, .root = 0, .bytes = 8, .chunk = 65536};
    double pred[16];
    int last_fanout = 0;

    /* o_s = o_r = 0.5, g = 1: at L = 0 a message costs one gap (T/s = 1, the binomial tree);
     * as L grows the root keeps sending longer before the first receivers can help, so the
     * chosen tree's root fan-out grows until it is flat. */
    const double Ls[] = {0, 1, 4, 16, 64, 1000};
    for (size_t i = 0; i < sizeof(Ls) / sizeof(Ls[0]); i++) {
        arb_logp_t m = {.L = Ls[i], .os = 0.5, .orecv = 0.5, .g = 1, .G = 0};
        int alg = arb_select(&a, &m, 0, pred);
        int fan = root_fanout(alg, P, &m);
        printf("L=%-6g chosen %-9s root fan-out %d\n", Ls[i],
               arb_alg_table(ARB_COLL_BCAST, &(int){0})[alg].name, fan);
        CHECK(fan >= last_fanout, "root fan-out shrank from %d to %d as L grew", last_fanout, fan);
        for (int k = 1; k < alg_index("flat") + 1; k++)
            CHECK(pred[alg] <= pred[k], "chosen %d predicted %g > candidate %d %g", alg, pred[alg],
                  k, pred[k]);
        last_fanout = fan;
        if (i == 0) CHECK(fan == 6, "at L=0 the tree should be binomial-like, fan-out %d", fan);
    }
    CHECK(last_fanout == P - 1, "at L=1000 the tree should be flat, fan-out %d", last_fanout);

    arb_logp_t m = {.L = 1, .os = 1, .orecv = 1, .g = 1, .G = 0};
    CHECK(arb_select(&a, &m, alg_index("binary"), pred) == alg_index("binary"), "forced ignored");

    arb_tune_t tune;
    char err[512];
    CHECK(arb_tune_parse("bcast:0-32k:@binomial#bcast:32k-inf:ranks=4-64:@flat", &tune, err,
                         sizeof(err)) == ARBOR_OK,
          "good rules refused: %s", err);
    CHECK(arb_tune_match(&tune, ARB_COLL_BCAST, 100, 8) == alg_index("binomial"), "rule 1");
    CHECK(arb_tune_match(&tune, ARB_COLL_BCAST, 1 << 20, 8) == alg_index("flat"), "rule 2");
    CHECK(arb_tune_match(&tune, ARB_COLL_BCAST, 1 << 20, 128) == 0, "ranks range ignored");
    CHECK(arb_tune_match(&tune, ARB_COLL_BARRIER, 0, 8) == 0, "wrong collective matched");
    CHECK(arb_tune_parse("bcast:0-32k:@ring", &tune, err, sizeof(err)) == ARBOR_ERR_CONFIG &&
              strstr(err, "karp") && strstr(err, "ring"),
          "bad algorithm: %s", err);
    CHECK(arb_tune_parse("gossip:0-1:@flat", &tune, err, sizeof(err)) == ARBOR_ERR_CONFIG &&
              strstr(err, "gossip"),
          "bad collective: %s", err);
    CHECK(arb_tune_parse("bcast:9-1:@flat", &tune, err, sizeof(err)) == ARBOR_ERR_CONFIG,
          "inverted range accepted");
    CHECK(arb_tune_parse("bcast:0-1:flat", &tune, err, sizeof(err)) == ARBOR_ERR_CONFIG,
          "missing @ accepted");
    test_core_choices();
    printf("select: %s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
