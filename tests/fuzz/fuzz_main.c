/*
 * arbor-fuzz: one libFuzzer binary for the five targets (the library sources are compiled
 * once), chosen by ARB_FUZZ_TARGET=config|logp|tune|sched|calib. Not ARBOR_*: the config target
 * must see no ARBOR_* variable but the one it sets, so all of them are removed at start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"

extern char **environ;

static int (*target)(const uint8_t *, size_t);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    static const struct {
        const char *name;
        int (*fn)(const uint8_t *, size_t);
    } targets[] = {{"config", arb_fuzz_config},
                   {"logp", arb_fuzz_logp},
                   {"tune", arb_fuzz_tune},
                   {"sched", arb_fuzz_sched},
                   {"calib", arb_fuzz_calib}};
    const char *want = getenv("ARB_FUZZ_TARGET");
    for (size_t i = 0; want && i < sizeof(targets) / sizeof(targets[0]); i++)
        if (!strcmp(want, targets[i].name)) target = targets[i].fn;
    if (!target) {
        fprintf(stderr, "arbor-fuzz: set ARB_FUZZ_TARGET to config, logp, tune, sched or calib\n");
        exit(2);
    }
    for (int again = 1; again;) { /* unsetenv reorders environ: rescan after each */
        again = 0;
        for (char **e = environ; *e; e++) {
            if (strncmp(*e, "ARBOR_", 6)) continue;
            char name[128];
            size_t n = strcspn(*e, "=");
            snprintf(name, sizeof(name), "%.*s", (int)n, *e);
            unsetenv(name);
            again = 1;
            break;
        }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return target(data, size);
}
