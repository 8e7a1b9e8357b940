/*
 * libFuzzer target: the calibration file (ARBOR_LOGP_FILE, algorithms/logp_file.c). An accepted
 * text has a transport and at least one model line, every value finite, non-negative and within
 * the parser's bound; what arb_calib_format writes of it reads back to the same values and the
 * same digest. A refused one says why, naming a line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "algorithms/logp_file.h"

static void fail(const char *what, const char *text)
{
    fprintf(stderr, "calib: %s for '%s'\n", what, text);
    abort();
}

int arb_fuzz_calib(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    char text[4097], err[512] = "", out[4096];
    memcpy(text, data, size);
    text[size] = '\0';
    arb_calib_t c, back;
    if (arb_calib_parse(text, &c, err, sizeof(err)) != ARBOR_OK) {
        if (strncmp(err, "line ", 5)) fail("an error without its line", text);
        return 0;
    }
    if (!c.transport[0] || !c.have) fail("accepted without a transport or a model line", text);
    for (int p = 0; p < ARB_CALIB_PATHS; p++) {
        if (!(c.have & (1u << p))) continue;
        const double v[7] = {c.m[p].L, c.m[p].os, c.m[p].orecv, c.m[p].g,
                             c.m[p].G, c.m[p].G1, c.m[p].Gop};
        for (int i = 0; i < 7; i++)
            if (!isfinite(v[i]) || v[i] < 0 || v[i] > 1e6) fail("a value out of bounds", text);
    }
    size_t n = arb_calib_format(&c, out, sizeof(out));
    if (n >= sizeof(out)) fail("a written file too long", text);
    if (arb_calib_parse(out, &back, err, sizeof(err)) != ARBOR_OK)
        fail("the written file refused", out);
    if (arb_calib_digest(&back) != arb_calib_digest(&c) || back.have != c.have ||
        strcmp(back.transport, c.transport) || memcmp(back.m, c.m, sizeof(c.m)) != 0)
        fail("the written file read back differently", text);
    return 0;
}
