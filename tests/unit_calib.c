/*
 * The calibration file (algorithms/logp_file.h): a written file reads back to the same doubles
 * and the same digest; comments and spacing do not change the digest, a value does; every bad
 * file is refused with the number of its bad line; Gop prices a combine where it is given; a
 * version 1 file (before the per-call term) still loads, with call = 0; the per-call term adds
 * to every candidate's predicted time and changes no choice.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algorithms/coll.h"
#include "algorithms/logp_file.h"

#include "unit_check.h"

static bool same(const arb_logp_t *a, const arb_logp_t *b)
{
    return a->L == b->L && a->os == b->os && a->orecv == b->orecv && a->g == b->g && a->G == b->G &&
           a->G1 == b->G1 && a->Gop == b->Gop && a->Gc == b->Gc && a->call == b->call;
}

static void test_round_trip(void)
{
    arb_calib_t c = {.transport = "ucx"}, back;
    char text[2048], err[256] = "";
    /* Values with no short decimal form: only an exact format reads back equal. */
    c.m[ARB_CALIB_INTRA_MAPPED] = (arb_logp_t){.L = 0.1 / 3,
                                               .os = 1.0 / 7,
                                               .orecv = 2.0 / 7,
                                               .g = 1e-3 / 3,
                                               .G = 7.9147343058139086e-05,
                                               .G1 = 1.8e-05 / 3,
                                               .Gop = 2.1e-05 / 7,
                                               .call = 0.1 / 7};
    c.m[ARB_CALIB_INTER_RMA] = (arb_logp_t){.L = 20, .os = 2, .orecv = 2, .g = 2, .G = 0.001};
    c.have = 1u << ARB_CALIB_INTRA_MAPPED | 1u << ARB_CALIB_INTER_RMA;
    size_t n = arb_calib_format(&c, text, sizeof(text));
    check(n > 0 && n < sizeof(text), "format: %zu bytes", n);
    arbor_status_t st = arb_calib_parse(text, &back, err, sizeof(err));
    check(st == ARBOR_OK, "parse of the written file: %d %s\n%s", st, err, text);
    check(back.have == c.have && !strcmp(back.transport, "ucx"), "have %u transport %s", back.have,
          back.transport);
    check(strstr(text, "arbor-calibration 2\n") && strstr(text, ",call=") &&
              back.version == ARB_CALIB_VERSION,
          "written as version 2 with the call key (read back as version %d):\n%s", back.version,
          text);
    for (int p = 0; p < ARB_CALIB_PATHS; p++)
        if (c.have & (1u << p))
            check(same(&back.m[p], &c.m[p]), "%s read back differs", arb_calib_path_name(p));
    check(arb_calib_digest(&back) == arb_calib_digest(&c), "digest of the read-back file");
    /* The same values with comments, blank lines and other spacing: the same digest. */
    char spaced[4096];
    snprintf(spaced, sizeof(spaced), "# a site's note\n\n  %s\n# end\n", text);
    st = arb_calib_parse(spaced, &back, err, sizeof(err));
    check(st == ARBOR_OK && arb_calib_digest(&back) == arb_calib_digest(&c),
          "comments change the digest (status %d %s)", st, err);
    /* One value changed in its last digit: another digest. */
    arb_calib_t other = c;
    other.m[ARB_CALIB_INTRA_MAPPED].G = nextafter(c.m[ARB_CALIB_INTRA_MAPPED].G, 1);
    check(arb_calib_digest(&other) != arb_calib_digest(&c), "a changed G keeps the digest");
    /* A short buffer: the length it needs. */
    char tiny[8];
    check(arb_calib_format(&c, tiny, sizeof(tiny)) == n && strlen(tiny) == 7, "short buffer");
}

static void test_bad(void)
{
    static const char head[] = "arbor-calibration 1\ntransport ucx\n";
    static const char good[] = "intra mapped L=0.1,os=0.05,or=0.05,g=0.05,G=8e-05\n";
    static const struct {
        const char *text, *want; /* want: in the error */
    } bad[] = {
        {"", "line 0: empty file"},
        {"# only a comment\n", "line 1: empty file"},
        {"transport ucx\n", "line 1: not a calibration file"},
        {"arbor-calibration 3\n", "line 1: unsupported calibration format \"3\" (this arbor reads "
                                  "versions 1 and 2"},
        {"arbor-calibration 1.5\n", "line 1: unsupported calibration format"},
        {"arbor-calibration 2\ntransport ucx\nintra rma L=1,os=1,or=1,g=1,G=1,call=-1\n",
         "line 3: "},
        {"arbor-calibration 1\nintra mapped L=1,os=1,or=1,g=1,G=1\n", "without a transport"},
        {"arbor-calibration 1\ntransport ucx\n", "line 2: end of file without a model line"},
        {"arbor-calibration 1\ntransport ucx\ntransport ucx\n", "line 3: transport given twice"},
        {"arbor-calibration 1\ntransport\n", "line 2: transport needs one name"},
        {"arbor-calibration 1\ntransport ucx\nintra mapped L=0.1,os=0.05,or=0.05,g=0.05\n",
         "line 3: \"intra mapped\" lacks key G"},
        {"arbor-calibration 1\ntransport ucx\nintra mapped L=0.1,os=0.05,or=0.05,g=0.05,G=x\n",
         "line 3: logp: value \"x\" of G is not a finite number"},
        {"arbor-calibration 1\ntransport ucx\n\n# c\nintra mapped L=-1,os=0,or=0,g=0,G=0\n",
         "line 5: logp: value -1 of L is negative"},
        {"arbor-calibration 1\ntransport ucx\ninter mapped L=1,os=1,or=1,g=1,G=1\n",
         "line 3: unknown path \"inter mapped\""},
        {"arbor-calibration 1\ntransport ucx\nintra L=1,os=1,or=1,g=1,G=1\n",
         "line 3: unknown path \"intra L=1,os=1,or=1,g=1,G=1\""},
        {"arbor-calibration 1\ntransport ucx\nintra rma\n", "line 3: \"intra rma\" needs one list"},
        {"arbor-calibration 1\ntransport ucx\nintra rma L=1, G=1\n", "line 3: \"intra rma\" needs"},
        {"arbor-calibration 1\ntransport ucx\nintra rma L=1,os=1,or=1,g=1,G=1,Q=2\n",
         "line 3: logp: unknown key \"Q\""},
        {"arbor-calibration 1\ntransport ucx\nintra rma L=1,os=1,or=1,g=1,G=1\n"
         "intra rma L=1,os=1,or=1,g=1,G=1\n",
         "line 4: \"intra rma\" given twice"},
        {"arbor-calibration 1\ntransport ucx\nspeed fast\n", "line 3: unknown item \"speed\""},
    };
    char err[256];
    arb_calib_t c;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        arbor_status_t st = arb_calib_parse(bad[i].text, &c, err, sizeof(err));
        check(st == ARBOR_ERR_CONFIG && strstr(err, bad[i].want) != NULL,
              "bad file %zu: status %d, error \"%s\", want \"%s\"", i, st, err, bad[i].want);
    }
    char text[512];
    snprintf(text, sizeof(text), "%s%s", head, good);
    check(arb_calib_parse(text, &c, err, sizeof(err)) == ARBOR_OK && c.m[0].G1 == 0 &&
              c.m[0].Gop == 0,
          "minimal file: %s", err);
    check(arb_calib_parse(NULL, &c, err, sizeof(err)) == ARBOR_ERR_INVALID_ARG, "NULL text");
    /* A version 1 file, as arbor wrote it before the per-call term: loads, call = 0. */
    static const char v1[] = "# arbor LogGP calibration\narbor-calibration 1\ntransport ucx\n"
                             "intra mapped L=0.0738,os=0.0133,or=0.0133,g=0.0133,G=7.91e-05,"
                             "G1=1.85e-05,Gop=2.12e-05\n";
    check(arb_calib_parse(v1, &c, err, sizeof(err)) == ARBOR_OK && c.version == 1 &&
              c.m[ARB_CALIB_INTRA_MAPPED].call == 0 && c.m[ARB_CALIB_INTRA_MAPPED].L == 0.0738,
          "version 1 file: %s (version %d)", err, c.version);
    /* A version 2 file may give call; it reads back exactly. */
    static const char v2[] = "arbor-calibration 2\ntransport ucx\n"
                             "intra mapped L=0.07,os=0.01,or=0.01,g=0.01,G=8e-05,call=0.125\n";
    check(arb_calib_parse(v2, &c, err, sizeof(err)) == ARBOR_OK && c.version == 2 &&
              c.m[ARB_CALIB_INTRA_MAPPED].call == 0.125,
          "version 2 file with call: %s", err);
}

/* The per-call term: every finite prediction grows by exactly call, the choice stays. */
static void test_call_term(void)
{
    static const arb_coll_t colls[] = {ARB_COLL_BARRIER, ARB_COLL_BCAST, ARB_COLL_ALLREDUCE,
                                       ARB_COLL_SCAN};
    size_t counts[4] = {1, 1, 1, 1};
    for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++) {
        arb_coll_args_t a = {.coll = colls[c],
                             .size = 4,
                             .bytes = colls[c] == ARB_COLL_BARRIER ? 0 : 1024,
                             .count = colls[c] == ARB_COLL_BARRIER ? 0 : 128,
                             .counts = counts,
                             .chunk = 65536,
                             .commutative = 1};
        arb_logp_t m;
        arb_logp_default_mapped(&m);
        double without[32], with[32];
        int n, alg0 = arb_select(&a, &m, 0, without);
        arb_alg_table(colls[c], &n);
        m.call = 0.25;
        int alg1 = arb_select(&a, &m, 0, with);
        check(alg0 == alg1, "%s: call changed the choice", arb_coll_name(colls[c]));
        for (int i = 1; i < n; i++)
            check(isinf(without[i]) ? isinf(with[i]) : fabs(with[i] - without[i] - 0.25) < 1e-12,
                  "%s candidate %d: %g without call, %g with 0.25", arb_coll_name(colls[c]), i,
                  without[i], with[i]);
    }
    arb_logp_t m = {0};
    char err[128];
    check(arb_logp_parse("call=0.2", &m, err, sizeof(err)) == ARBOR_OK && m.call == 0.2,
          "call key: %s", err);
}

static void test_combine(void)
{
    arb_logp_t m = {.L = 1, .G = 1e-4};
    check(arb_logp_combine(&m, 1000) == 1000 * 1e-4, "combine without Gop is priced at G");
    m.Gop = 3e-5;
    check(arb_logp_combine(&m, 1000) == 1000 * 3e-5, "combine with Gop is priced at Gop");
    char err[128];
    check(arb_logp_parse("Gop=2e-5", &m, err, sizeof(err)) == ARBOR_OK && m.Gop == 2e-5, "Gop key");
    char buf[256];
    arb_logp_t back = {0};
    arb_logp_format(&m, buf, sizeof(buf));
    check(arb_logp_parse(buf, &back, err, sizeof(err)) == ARBOR_OK && same(&back, &m),
          "format / parse: %s", buf);
}

int main(void)
{
    test_round_trip();
    test_bad();
    test_combine();
    test_call_term();
    printf("unit_calib: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
