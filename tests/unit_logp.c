/*
 * Unit test (no launcher) of the LogGP model helpers (algorithms/logp.h): arb_logp_parse on
 * good and bad strings, the per-transport defaults, T(m) and s(m), the agreement of the init
 * price of cross-memory attach and its Gc. Prints a summary; exits non-zero on any failure.
 */
#include "algorithms/logp.h"
#include "arbor.h"
#include "runtime/model.h"
#include "transports/transport.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int checks, failures;

static void check(bool ok, const char *fmt, ...)
{
    va_list ap;

    checks++;
    if (ok) return;
    failures++;
    fprintf(stderr, "FAIL: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static bool same(const arb_logp_t *a, const arb_logp_t *b)
{
    return a->L == b->L && a->os == b->os && a->orecv == b->orecv && a->g == b->g && a->G == b->G &&
           a->G1 == b->G1;
}

static void test_good(void)
{
    arb_logp_t m = {0};
    char err[256] = "";
    arbor_status_t st = arb_logp_parse("L=2.1,os=0.4,or=0.4,g=0.6,G=0.0001", &m, err, sizeof(err));
    arb_logp_t want = {.L = 2.1, .os = 0.4, .orecv = 0.4, .g = 0.6, .G = 0.0001};

    check(st == ARBOR_OK && same(&m, &want), "full string: status %d (%s)", st, err);

    /* A subset keeps the other values; blanks around items are tolerated; g and G differ. */
    m = want;
    st = arb_logp_parse(" L = 7 , G=0", &m, err, sizeof(err));
    check(st == ARBOR_OK && m.L == 7 && m.G == 0 && m.os == 0.4 && m.g == 0.6,
          "subset: status %d (%s) L %g G %g", st, err, m.L, m.G);
    st = arb_logp_parse("g=3", &m, err, sizeof(err));
    check(st == ARBOR_OK && m.g == 3 && m.G == 0, "g vs G: g %g G %g", m.g, m.G);
    st = arb_logp_parse("L=1e1,os=0,or=.5", &m, NULL, 0);
    check(st == ARBOR_OK && m.L == 10 && m.os == 0 && m.orecv == 0.5, "exponent / NULL err buffer");

    /* G1, the one-copy per-byte cost, is its own key; unset (0) the one-copy model takes G / 2. */
    m = want;
    st = arb_logp_parse("G1=0.00003", &m, err, sizeof(err));
    check(st == ARBOR_OK && m.G1 == 0.00003 && m.G == 0.0001, "G1: status %d G1 %g G %g", st, m.G1,
          m.G);
    arb_logp_t one = arb_logp_one_copy(&m);
    check(one.G == 0.00003 && one.L == m.L, "one-copy model with G1: G %g", one.G);
    m.G1 = 0;
    one = arb_logp_one_copy(&m);
    check(one.G == 0.00005, "one-copy model without G1: G %g, want G / 2", one.G);
    arb_logp_default_mapped(&m);
    check(m.G1 > 0 && m.G1 < m.G, "mapped default: G1 %g not below G %g", m.G1, m.G);
#ifdef ARBOR_WITH_OFI
    arb_model_defaults_by_name("ofi:tcp;ofi_rxm", &m, NULL);
    check(m.G1 == m.G, "network default: G1 %g != G %g (no in-place read)", m.G1, m.G);
#endif
    st = arb_logp_parse("G1=-1", &m, err, sizeof(err));
    check(st == ARBOR_ERR_CONFIG, "G1=-1: status %d", st);

    /* Gop, a combined byte: unset, a combine costs G per byte in either model (the one-copy
     * model keeps the two-copy G for it); set, its own price (G and G1 differ by case and
     * length from it). */
    m = want;
    one = arb_logp_one_copy(&m);
    check(arb_logp_combine(&m, 1000) == 1000 * m.G && arb_logp_combine(&one, 1000) == 1000 * m.G,
          "combine without Gop: %g / %g, want %g", arb_logp_combine(&m, 1000),
          arb_logp_combine(&one, 1000), 1000 * m.G);
    st = arb_logp_parse("Gop=0.0003", &m, err, sizeof(err));
    check(st == ARBOR_OK && m.Gop == 0.0003 && m.G == 0.0001 && m.G1 == 0,
          "Gop: status %d Gop %g G %g", st, m.Gop, m.G);
    one = arb_logp_one_copy(&m);
    check(arb_logp_combine(&one, 1000) == 1000 * 0.0003, "one-copy combine with Gop: %g",
          arb_logp_combine(&one, 1000));
}

static void test_bad(void)
{
    static const struct {
        const char *text, *mention;
    } bad[] = {
        {"X=1", "X"},         {"L=1,o=2", "o"},      {"L", "L"},        {"L=1,os", "os"},
        {"L=abc", "abc"},     {"L=", "L"},           {"g=1x", "1x"},    {"L=-1", "-1"},
        {"G=-0.5", "-0.5"},   {"L=1,,g=2", "empty"}, {"", "empty"},     {"L=1,", "empty"},
        {"L=1e999", "1e999"}, {"L=nan", "nan"},      {"os=inf", "inf"}, {"L=1,L=2", "twice"},
        {"l=1", "l"},
    };
    arb_logp_t orig = {.L = 1, .os = 2, .orecv = 3, .g = 4, .G = 5};

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        arb_logp_t m = orig;
        char err[256] = "";
        arbor_status_t st = arb_logp_parse(bad[i].text, &m, err, sizeof(err));
        check(st == ARBOR_ERR_CONFIG, "\"%s\": status %d, want ARBOR_ERR_CONFIG", bad[i].text, st);
        check(strstr(err, bad[i].mention) != NULL, "\"%s\": message \"%s\" lacks \"%s\"",
              bad[i].text, err, bad[i].mention);
        check(same(&m, &orig), "\"%s\": output changed on error", bad[i].text);
    }
    arb_logp_t m = orig;
    char tiny[8];
    check(arb_logp_parse("Q=1", &m, tiny, sizeof(tiny)) == ARBOR_ERR_CONFIG &&
              strlen(tiny) < sizeof(tiny),
          "short error buffer is truncated");
    check(arb_logp_parse(NULL, &m, NULL, 0) == ARBOR_ERR_INVALID_ARG, "NULL text");
    check(arb_logp_parse("L=1", NULL, NULL, 0) == ARBOR_ERR_INVALID_ARG, "NULL output");
}

/* Every field of a default model, so that a change of any number shows. */
static bool exact(const arb_logp_t *m, const arb_logp_t *want)
{
    return same(m, want) && m->Gc == want->Gc && m->Gop == want->Gop && m->call == want->call;
}

/* The defaults each transport's hints give, by the name its describe() returns: the numbers
 * the selector has always started from (the transport publishes them, the algorithms see
 * numbers only). */
static void test_defaults(void)
{
    static const arb_logp_t mapped = {
        .L = 0.1, .os = 0.05, .orecv = 0.05, .g = 0.05, .G = 0.00008, .G1 = 0.00004, .Gc = 0.0001};
    static const arb_logp_t inter = {.L = 10, .os = 7, .orecv = 7, .g = 8, .G = 0.001, .G1 = 0.001};
    arb_logp_t m, in;
    arb_tp_hints_t h;

    arb_logp_default_mapped(&m);
    check(exact(&m, &mapped), "mapped defaults");
    arb_logp_default_inter(&in);
    check(exact(&in, &inter), "inter-node defaults");
#ifdef ARBOR_WITH_UCX
    arb_model_defaults_by_name("ucx", &m, &in);
    check(exact(&m, &mapped) && exact(&in, &inter), "ucx defaults");
    arb_tp_hints_by_name("ucx", &h);
    check(h.hwcoll_us == 0 && !h.hwcoll_software, "ucx: no provider collectives");
#endif
#ifdef ARBOR_WITH_OFI
    static const arb_logp_t shm = {
        .L = 0.5, .os = 0.3, .orecv = 0.3, .g = 0.3, .G = 0.0001, .G1 = 0.00005, .Gc = 0.00006};
    static const arb_logp_t net = {.L = 15, .os = 2, .orecv = 2, .g = 2, .G = 0.001, .G1 = 0.001};
    arb_model_defaults_by_name("ofi:shm", &m, &in);
    check(exact(&m, &shm) && exact(&in, &inter), "ofi:shm defaults");
    arb_tp_hints_by_name("ofi:shm", &h);
    check(h.hwcoll_us == 0 && !h.hwcoll_software, "ofi:shm: no hwcoll figure");
    arb_model_defaults_by_name("ofi:tcp;ofi_rxm", &m, &in);
    check(exact(&m, &net) && exact(&in, &inter), "ofi:tcp;ofi_rxm defaults");
    arb_tp_hints_by_name("ofi:tcp;ofi_rxm", &h);
    check(h.hwcoll_us == 10 && h.hwcoll_software, "ofi:tcp;ofi_rxm: software hwcoll, 10 us");
    arb_model_defaults_by_name("ofi:sockets", &m, NULL);
    check(exact(&m, &net), "ofi:sockets defaults");
    arb_tp_hints_by_name("ofi:sockets", &h);
    check(h.hwcoll_us == 0 && !h.hwcoll_software, "ofi:sockets: no hwcoll figure");
    arb_model_defaults_by_name("ofi:verbs;ofi_rxm", &m, NULL);
    check(exact(&m, &mapped), "an OFI provider without figures gets the mapped values");
    /* Mapped node peers cost loads and stores, whatever the transport's RMA costs. */
    arb_tp_hints_by_name("ofi:tcp;ofi_rxm", &h);
    arb_model_defaults(&h, true, &m, NULL);
    check(exact(&m, &mapped), "mapped peers on ofi:tcp get the mapped values");
#endif
    arb_model_defaults_by_name("bogus", &m, &in);
    check(exact(&m, &mapped) && exact(&in, &inter), "unknown transport gets the mapped values");
    arb_model_defaults_by_name(NULL, &m, NULL);
    check(exact(&m, &mapped), "NULL transport gets the mapped values");
    arb_tp_hints_by_name("ucxx", &h);
    check(!h.have_intra && h.hwcoll_us == 0, "a longer name is not its prefix's transport");
    /* The hwcoll per-call default where a transport gives none. */
    check(ARB_LOGP_HWCOLL_CALL_US == 2.0, "hwcoll default %g", ARB_LOGP_HWCOLL_CALL_US);
}

static void test_formulas(void)
{
    arb_logp_t m = {.L = 6, .os = 1, .orecv = 1, .g = 2, .G = 0.5};

    check(arb_logp_arrival(&m, 0) == 8 && arb_logp_gap(&m, 0) == 2, "T(0) = 8, s(0) = 2");
    check(arb_logp_arrival(&m, 10) == 13 && arb_logp_gap(&m, 10) == 5, "T(10) = 13, s(10) = 5");
    m.os = 3;
    check(arb_logp_gap(&m, 2) == 3, "s = o_s when o_s dominates");
}

/* The init price of cross-memory attach (runtime/model.h): the agreement of the ranks' ratios
 * and the Gc it gives. */
static void test_cma_price(void)
{
    int out = -1;
    const double three[] = {4.2, 3.9, 5.1};
    check(arb_model_cma_agree(three, 3, &out) == 4.2 && out == 0, "median of 3: %g",
          arb_model_cma_agree(three, 3, NULL));
    const double two[] = {3.0, 5.0};
    check(arb_model_cma_agree(two, 2, &out) == 4.0 && out == 0, "median of 2: mean of both");
    /* The rank order does not matter: every rank holds the same array, but not sorted. */
    const double four[] = {6.0, 2.0, 4.0, 3.0};
    check(arb_model_cma_agree(four, 4, NULL) == 3.5, "median of 4 unsorted: %g",
          arb_model_cma_agree(four, 4, NULL));
    /* A descheduled rank's reading (far out of range either way) is discarded, not averaged. */
    const double noisy[] = {4.0, 400.0, 4.4, 0.5, 4.2};
    check(arb_model_cma_agree(noisy, 5, &out) == 4.2 && out == 2, "out of range discarded: %g, %d",
          arb_model_cma_agree(noisy, 5, NULL), out);
    const double one_bad[] = {4.0, 90.0};
    check(arb_model_cma_agree(one_bad, 2, &out) == 4.0 && out == 1, "one of two sane: %g",
          arb_model_cma_agree(one_bad, 2, NULL));
    /* Fewer than half sane, unmeasured (0) or not a number: no price, the defaults stay. */
    const double mostly_bad[] = {4.0, 90.0, 0.9};
    check(arb_model_cma_agree(mostly_bad, 3, &out) == 0 && out == 2, "minority sane: %g",
          arb_model_cma_agree(mostly_bad, 3, NULL));
    const double none[] = {0, NAN, INFINITY};
    check(arb_model_cma_agree(none, 3, &out) == 0 && out == 3, "none sane");
    check(arb_model_cma_agree(NULL, 3, &out) == 0 && arb_model_cma_agree(three, 0, NULL) == 0,
          "no ratios");
    /* The range ends are sane. */
    const double ends[] = {ARB_CMA_RATIO_MIN, ARB_CMA_RATIO_MAX};
    check(arb_model_cma_agree(ends, 2, &out) == (ARB_CMA_RATIO_MIN + ARB_CMA_RATIO_MAX) / 2 &&
              out == 0,
          "range ends");

    /* Gc: the model's, scaled by ratio / fit; where the model has none, 1.25 G stands in. */
    arb_logp_t m = {.G = 0.00008, .Gc = 0.0001};
    check(fabs(arb_model_cma_gc(&m, ARB_CMA_RATIO_FIT) - 0.0001) < 1e-15, "ratio at the fit");
    check(fabs(arb_model_cma_gc(&m, 2 * ARB_CMA_RATIO_FIT) - 0.0002) < 1e-15, "twice the fit");
    m.Gc = 0;
    check(fabs(arb_model_cma_gc(&m, ARB_CMA_RATIO_FIT / 2) - 0.00005) < 1e-15,
          "no Gc: 1.25 G scaled, %g", arb_model_cma_gc(&m, ARB_CMA_RATIO_FIT / 2));
    m.Gc = 0.0001;
    check(arb_model_cma_gc(&m, 0) == 0.0001 && arb_model_cma_gc(&m, NAN) == 0.0001,
          "no ratio: Gc kept");
}

int main(void)
{
    test_good();
    test_bad();
    test_defaults();
    test_formulas();
    test_cma_price();
    printf("unit_logp: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
