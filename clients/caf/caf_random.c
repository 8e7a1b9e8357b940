/*
 * random_init (Fortran 2018): seeds this image's random_number generator.
 *   repeatable:     the same seed on every run of the program (a fixed base), else a base drawn
 *                   once per run (image 1 draws it at init and broadcasts it, so the images
 *                   agree without random_init being collective);
 *   image_distinct: the image's index in the initial team mixed in, else the same seed on
 *                   every image.
 * The seed goes through the program's own RANDOM_SEED (libgfortran's random_seed_i4, looked up
 * in the process: the Fortran program has libgfortran loaded, this library does not link it).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "caf_api.h"
#include "caf_state.h"

typedef void random_seed_i4_fn(int32_t *size, caf_desc_t *put, caf_desc_t *get);

/* SplitMix64: spreads one 64-bit value over a stream of well-mixed words. */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t caf_random_nonce(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    x ^= (uint64_t)getpid() << 32;
    return splitmix64(&x);
}

void _gfortran_caf_random_init(bool repeatable, bool image_distinct)
{
    random_seed_i4_fn *seed_fn =
        (random_seed_i4_fn *)dlsym(RTLD_DEFAULT, "_gfortran_random_seed_i4");
    if (!seed_fn)
        caf_fatal(1, "random_init is not supported here: the program's RANDOM_SEED "
                     "(_gfortran_random_seed_i4) was not found");
    int32_t n = 0;
    seed_fn(&n, NULL, NULL);
    if (n <= 0) caf_fatal(1, "random_init: RANDOM_SEED reports a seed size of %d", (int)n);
    int32_t *seed = malloc((size_t)n * sizeof(int32_t));
    caf_desc_t *put = calloc(1, sizeof(caf_desc_t) + sizeof(caf_dim_t));
    if (!seed || !put) caf_fatal(1, "random_init: out of memory");

    uint64_t x = repeatable ? 0x2545f4914f6cdd1dull : caf_state.run_nonce;
    if (image_distinct) x ^= splitmix64(&(uint64_t){(uint64_t)caf_state.world_rank + 1});
    for (int32_t i = 0; i < n; i += 2) {
        uint64_t v = splitmix64(&x);
        seed[i] = (int32_t)(uint32_t)v;
        if (i + 1 < n) seed[i + 1] = (int32_t)(uint32_t)(v >> 32);
    }
    put->base_addr = seed;
    put->offset = 0;
    put->dtype.elem_len = sizeof(int32_t);
    put->dtype.rank = 1;
    put->dtype.type = CAF_BT_INTEGER;
    put->span = sizeof(int32_t);
    put->dim[0].stride = 1;
    put->dim[0].lbound = 0;
    put->dim[0].ubound = n - 1;
    seed_fn(NULL, put, NULL);
    free(put);
    free(seed);
}
