/* OpenSHMEM teams, contexts and collectives: team collectives on SHMEM_TEAM_WORLD and on split
 * teams (strided, 2-D), rank translation, team_ptr, the reductions, and the deprecated
 * active-set collectives with pSync on the whole world and on a strided subset. */
#include <complex.h>
#include <stdbool.h>
#include <shmem.h>
#include <stdint.h>
#include <string.h>

#include "shmem_check.h"

#define N 8

static long pSync[SHMEM_REDUCE_SYNC_SIZE];
static long pSync2[SHMEM_BCAST_SYNC_SIZE];
static int pWrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];

static void team_collectives(shmem_team_t team, const char *what)
{
    int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);
    int world_me = shmem_my_pe();
    long *src = shmem_malloc(sizeof(long) * N * 64), *dst = shmem_malloc(sizeof(long) * N * 64);
    /* Large payloads (8 KiB and more per member: arbor's one-copy paths between mapped PEs). */
    enum { BIG = 1024 };
    long *bsrc = shmem_malloc(sizeof(long) * BIG * 16),
         *bdst = shmem_malloc(sizeof(long) * BIG * 16);
    shmem_barrier_all();
    if (me < 0) { /* not a member: still take part in the world's barrier and frees */
        shmem_barrier_all();
        shmem_free(bdst);
        shmem_free(bsrc);
        shmem_free(dst);
        shmem_free(src);
        return;
    }
    /* broadcast from the last member: dest is updated on every member, the root included (team
     * broadcasts of OpenSHMEM 1.5; the active-set ones leave the root's dest alone) */
    for (int i = 0; i < N; i++) src[i] = 100 * world_me + i;
    memset(dst, 0, sizeof(long) * N);
    int root = n - 1, root_world = shmem_team_translate_pe(team, root, SHMEM_TEAM_WORLD);
    CHECK(shmem_long_broadcast(team, dst, src, N, root) == 0, "%s broadcast rc", what);
    for (int i = 0; i < N; i++) CHECK(dst[i] == 100 * root_world + i, "%s broadcast [%d]", what, i);
    /* fcollect: each member's N */
    CHECK(shmem_fcollect(team, dst, src, N) == 0, "%s fcollect rc", what);
    for (int r = 0; r < n; r++) {
        int w = shmem_team_translate_pe(team, r, SHMEM_TEAM_WORLD);
        CHECK(dst[r * N] == 100 * w && dst[r * N + N - 1] == 100 * w + N - 1, "%s fcollect %d",
              what, r);
    }
    /* collect: member r gives r + 1 elements */
    CHECK(shmem_long_collect(team, dst, src, (size_t)me + 1) == 0, "%s collect rc", what);
    int at = 0;
    for (int r = 0; r < n; r++) {
        int w = shmem_team_translate_pe(team, r, SHMEM_TEAM_WORLD);
        for (int k = 0; k <= r; k++)
            CHECK(dst[at + k] == 100 * w + k, "%s collect %d.%d", what, r, k);
        at += r + 1;
    }
    /* alltoall: block j goes to member j */
    for (int j = 0; j < n; j++) src[j] = 1000 * me + j;
    CHECK(shmem_long_alltoall(team, dst, src, 1) == 0, "%s alltoall rc", what);
    for (int i = 0; i < n; i++) CHECK(dst[i] == 1000 * i + me, "%s alltoall [%d]", what, i);
    /* alltoalls: source stride 2, dest stride 3, one element per member */
    for (int j = 0; j < n; j++) src[2 * j] = 1000 * me + j;
    memset(dst, 0, sizeof(long) * 3 * (size_t)n);
    CHECK(shmem_long_alltoalls(team, dst, src, 3, 2, 1) == 0, "%s alltoalls rc", what);
    for (int i = 0; i < n; i++) CHECK(dst[3 * i] == 1000 * i + me, "%s alltoalls [%d]", what, i);
    /* reductions */
    long lsum = 0, lmax = 0;
    int isrc = me + 1, iprod = 0;
    src[0] = me;
    CHECK(shmem_long_sum_reduce(team, &dst[0], &src[0], 1) == 0, "%s sum rc", what);
    lsum = dst[0];
    CHECK(lsum == (long)n * (n - 1) / 2, "%s sum %ld", what, lsum);
    shmem_long_max_reduce(team, &dst[1], &src[0], 1);
    lmax = dst[1];
    CHECK(lmax == n - 1, "%s max %ld", what, lmax);
    shmem_long_min_reduce(team, &dst[1], &src[0], 1);
    CHECK(dst[1] == 0, "%s min", what);
    int *ibuf = (int *)&dst[8];
    shmem_int_prod_reduce(team, ibuf, &isrc, 1);
    iprod = 1;
    for (int r = 1; r <= n; r++) iprod *= r;
    CHECK(*ibuf == iprod, "%s prod %d", what, *ibuf);
    unsigned int ubits = 1u << (me % 32), uor = 0;
    shmem_uint_or_reduce(team, &uor, &ubits, 1);
    CHECK(uor == (n >= 32 ? 0xffffffffu : (1u << n) - 1), "%s or %x", what, uor);
    unsigned int uand = 0, uall = 0xf0u | ubits;
    shmem_uint_and_reduce(team, &uand, &uall, 1);
    CHECK(uand == (n == 1 ? uall : 0xf0u), "%s and %x", what, uand);
    unsigned long uxor = 0, ux = 1;
    shmem_ulong_xor_reduce(team, &uxor, &ux, 1);
    CHECK(uxor == (unsigned long)(n % 2), "%s xor", what);
    /* The generic bitwise reductions on signed types: short, int and long are int16_t, int32_t
     * and int64_t; long long has functions of its own. */
    static short sand, sall;
    static int ior, ibit;
    static long lxor, lone = 1;
    static long long llor, llbit;
    sall = (short)(0x70 | (1 << (me % 4)));
    ibit = 1 << (me % 16);
    llbit = 1LL << (me % 40 + 20);
    shmem_and_reduce(team, &sand, &sall, 1);
    shmem_or_reduce(team, &ior, &ibit, 1);
    shmem_xor_reduce(team, &lxor, &lone, 1);
    shmem_or_reduce(team, &llor, &llbit, 1);
    CHECK(sand == (n == 1 ? sall : 0x70), "%s generic short and %x", what, sand);
    CHECK(ior == (n >= 16 ? 0xffff : (1 << n) - 1), "%s generic int or %x", what, ior);
    CHECK(lxor == n % 2, "%s generic long xor %ld", what, lxor);
    long long llwant = 0;
    for (int r = 0; r < n; r++) llwant |= 1LL << (r % 40 + 20);
    CHECK(llor == llwant, "%s generic long long or %llx", what, llor);
    double dsrc = 0.5 * me, dsum = 0;
    shmem_double_sum_reduce(team, &dsum, &dsrc, 1);
    CHECK(dsum == 0.25 * n * (n - 1), "%s double sum %g", what, dsum);
    double _Complex csrc = me + 1.0 * I, csum = 0;
    shmem_complexd_sum_reduce(team, &csum, &csrc, 1);
    CHECK(creal(csum) == n * (n - 1) / 2.0 && cimag(csum) == n, "%s complex sum", what);
    long double ldsrc = me, ldmax = -1;
    shmem_longdouble_max_reduce(team, &ldmax, &ldsrc, 1);
    CHECK(ldmax == n - 1, "%s long double max", what);
    /* in place */
    src[0] = 1;
    shmem_long_sum_reduce(team, src, src, 1);
    CHECK(src[0] == n, "%s in-place sum", what);
    if (n <= 16) {
        int bw = shmem_team_translate_pe(team, 0, SHMEM_TEAM_WORLD);
        for (int i = 0; i < BIG; i++) bsrc[i] = 1000L * world_me + i;
        shmem_long_broadcast(team, bdst, bsrc, BIG, 0);
        int wrong = 0;
        for (int i = 0; i < BIG; i++) wrong += bdst[i] != 1000L * bw + i;
        CHECK(wrong == 0, "%s large broadcast: %d wrong", what, wrong);
        shmem_long_fcollect(team, bdst, bsrc, BIG);
        wrong = 0;
        for (int r = 0; r < n; r++)
            for (int i = 0; i < BIG; i++)
                wrong += bdst[r * BIG + i] !=
                         1000L * shmem_team_translate_pe(team, r, SHMEM_TEAM_WORLD) + i;
        CHECK(wrong == 0, "%s large fcollect: %d wrong", what, wrong);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < BIG; i++) bsrc[j * BIG + i] = 100000L * me + 10L * j + i;
        shmem_long_alltoall(team, bdst, bsrc, BIG);
        wrong = 0;
        for (int r = 0; r < n; r++)
            for (int i = 0; i < BIG; i++) wrong += bdst[r * BIG + i] != 100000L * r + 10L * me + i;
        CHECK(wrong == 0, "%s large alltoall: %d wrong", what, wrong);
        for (int i = 0; i < BIG; i++) bsrc[i] = me + i;
        shmem_long_sum_reduce(team, bdst, bsrc, BIG);
        wrong = 0;
        for (int i = 0; i < BIG; i++) wrong += bdst[i] != (long)n * (n - 1) / 2 + (long)n * i;
        CHECK(wrong == 0, "%s large sum: %d wrong", what, wrong);
    }
    CHECK(shmem_team_sync(team) == 0, "%s sync", what);
    CHECK(shmem_sync(team) == 0, "%s generic sync", what);
    shmem_barrier_all();
    shmem_free(bdst);
    shmem_free(bsrc);
    shmem_free(dst);
    shmem_free(src);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) pSync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++) pSync2[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me && shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes,
          "world team");
    CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) >= 1, "shared team");
    team_collectives(SHMEM_TEAM_WORLD, "world");

    /* Strided split: the even PEs. */
    shmem_team_t even = SHMEM_TEAM_INVALID;
    shmem_team_config_t cfg = {.num_contexts = 2};
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, &cfg,
                                   SHMEM_TEAM_NUM_CONTEXTS, &even) == 0,
          "split_strided");
    CHECK((even != SHMEM_TEAM_INVALID) == (me % 2 == 0), "even membership");
    if (even != SHMEM_TEAM_INVALID) {
        CHECK(shmem_team_my_pe(even) == me / 2, "even rank %d", shmem_team_my_pe(even));
        CHECK(shmem_team_translate_pe(even, shmem_team_my_pe(even), SHMEM_TEAM_WORLD) == me,
              "translate to world");
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, even) == me / 2, "translate back");
        shmem_team_config_t got = {0};
        CHECK(shmem_team_get_config(even, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
                  got.num_contexts == 2,
              "get_config");
    }
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, even) == -1 || npes < 2 ||
              even == SHMEM_TEAM_INVALID,
          "odd PE is not in the even team");
    team_collectives(even, "even");

    /* A context on the even team: PE numbers are team ranks. */
    long *cell = shmem_calloc(1, sizeof(long));
    if (even != SHMEM_TEAM_INVALID) {
        shmem_ctx_t ctx;
        CHECK(shmem_team_create_ctx(even, 0, &ctx) == 0, "team_create_ctx");
        shmem_team_t back = SHMEM_TEAM_INVALID;
        CHECK(shmem_ctx_get_team(ctx, &back) == 0 && back == even, "ctx_get_team");
        int n = shmem_team_n_pes(even), r = shmem_team_my_pe(even);
        shmem_ctx_long_p(ctx, cell, (long)me + 1, (r + 1) % n);
        shmem_ctx_quiet(ctx);
        shmem_team_sync(even);
        int from = shmem_team_translate_pe(even, (r + n - 1) % n, SHMEM_TEAM_WORLD);
        CHECK(*cell == from + 1, "team context put %ld", *cell);
        CHECK(shmem_team_ptr(even, cell, r) == cell, "team_ptr to self");
        shmem_ctx_destroy(ctx);
    }
    shmem_barrier_all();
    shmem_free(cell);
    if (even != SHMEM_TEAM_INVALID) shmem_team_destroy(even);

    /* 2-D split: rows of 2. */
    shmem_team_t xt, yt;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt) == 0, "split_2d");
    CHECK(shmem_team_my_pe(xt) == me % 2 && shmem_team_my_pe(yt) == me / 2, "2-D ranks %d %d",
          shmem_team_my_pe(xt), shmem_team_my_pe(yt));
    int ysum = 0, one = 1;
    shmem_int_sum_reduce(yt, &ysum, &one, 1);
    CHECK(ysum == shmem_team_n_pes(yt), "y team sum");
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);

    /* Splits whose PEs pass different layouts, each naming its own team: a team of itself,
     * then the even and the odd PEs (the odd ones name start 1). */
    static int self_in, self_out;
    shmem_team_t self = SHMEM_TEAM_INVALID;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, me, 1, 1, NULL, 0, &self) == 0 &&
              self != SHMEM_TEAM_INVALID,
          "split to a team of one");
    if (self != SHMEM_TEAM_INVALID) {
        CHECK(shmem_team_n_pes(self) == 1 && shmem_team_my_pe(self) == 0, "team of one: %d of %d",
              shmem_team_my_pe(self), shmem_team_n_pes(self));
        CHECK(shmem_team_translate_pe(self, 0, SHMEM_TEAM_WORLD) == me, "team of one translates");
        self_in = me + 5;
        self_out = -1;
        CHECK(shmem_int_fcollect(self, &self_out, &self_in, 1) == 0 && self_out == me + 5,
              "team of one fcollect %d", self_out);
        shmem_team_destroy(self);
    }
    shmem_team_t parity = SHMEM_TEAM_INVALID;
    int pstart = me % 2, psize = (npes - pstart + 1) / 2;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, pstart, 2, psize, NULL, 0, &parity) == 0 &&
              parity != SHMEM_TEAM_INVALID,
          "parity split");
    if (parity != SHMEM_TEAM_INVALID) {
        CHECK(shmem_team_n_pes(parity) == psize && shmem_team_my_pe(parity) == me / 2,
              "parity team: %d of %d", shmem_team_my_pe(parity), shmem_team_n_pes(parity));
        static int psum, pme;
        pme = me;
        shmem_int_sum_reduce(parity, &psum, &pme, 1);
        int want = 0;
        for (int r = pstart; r < npes; r += 2) want += r;
        CHECK(psum == want, "parity sum %d, want %d", psum, want);
        shmem_team_destroy(parity);
    }
    shmem_barrier_all();

    /* Deprecated active-set collectives: the world, then the even PEs (logPE_stride 1). */
    long *asrc = shmem_malloc(sizeof(long) * 64), *adst = shmem_malloc(sizeof(long) * 64);
    int *isrc = shmem_malloc(sizeof(int) * N), *idst = shmem_malloc(sizeof(int) * N);
    for (int pass = 0; pass < 2; pass++) {
        int start = 0, log = pass, size = pass ? (npes + 1) / 2 : npes;
        bool member = pass == 0 || me % 2 == 0;
        shmem_barrier_all();
        if (!member) continue;
        int index = me >> log;
        for (int i = 0; i < 64; i++) asrc[i] = 10 * me + i, adst[i] = -1;
        shmem_barrier(start, log, size, pSync);
        shmem_broadcast64(adst, asrc, 4, 0, start, log, size, pSync2);
        if (index != 0)
            CHECK(adst[3] == 3, "broadcast64 pass %d", pass);
        else
            CHECK(adst[0] == -1, "broadcast64 leaves the root's dest");
        shmem_barrier(start, log, size, pSync);
        shmem_fcollect64(adst, asrc, 2, start, log, size, pSync2);
        for (int i = 0; i < size; i++)
            CHECK(adst[2 * i + 1] == 10 * (i << log) + 1, "fcollect64 pass %d [%d]", pass, i);
        shmem_barrier(start, log, size, pSync);
        shmem_collect64(adst, asrc, (size_t)index + 1, start, log, size, pSync2);
        int at = 0;
        for (int i = 0; i < size; i++) {
            CHECK(adst[at + i] == 10 * (i << log) + i, "collect64 pass %d [%d]", pass, i);
            at += i + 1;
        }
        shmem_barrier(start, log, size, pSync);
        for (int j = 0; j < size; j++) asrc[j] = 100 * index + j;
        shmem_alltoall64(adst, asrc, 1, start, log, size, pSync2);
        for (int i = 0; i < size; i++) CHECK(adst[i] == 100 * i + index, "alltoall64 [%d]", i);
        shmem_barrier(start, log, size, pSync);
        for (int j = 0; j < size; j++) asrc[2 * j] = 100 * index + j;
        shmem_alltoalls64(adst, asrc, 2, 2, 1, start, log, size, pSync2);
        for (int i = 0; i < size; i++) CHECK(adst[2 * i] == 100 * i + index, "alltoalls64 [%d]", i);
        shmem_barrier(start, log, size, pSync);
        for (int i = 0; i < N; i++) isrc[i] = index + i;
        shmem_int_sum_to_all(idst, isrc, N, start, log, size, pWrk, pSync);
        for (int i = 0; i < N; i++)
            CHECK(idst[i] == size * (size - 1) / 2 + size * i, "sum_to_all pass %d [%d]", pass, i);
        shmem_barrier(start, log, size, pSync);
        shmem_int_max_to_all(isrc, isrc, N, start, log, size, pWrk, pSync);
        CHECK(isrc[0] == size - 1, "max_to_all in place pass %d", pass);
        shmem_barrier(start, log, size, pSync);
        int32_t b32 = index, *d32 = (int32_t *)idst;
        *isrc = b32;
        shmem_broadcast32(d32, isrc, 1, size - 1, start, log, size, pSync2);
        if (index != size - 1) CHECK(*d32 == size - 1, "broadcast32");
        shmem_sync(start, log, size, pSync);
        for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
            CHECK(pSync[i] == SHMEM_SYNC_VALUE, "pSync restored [%d]", i);
    }
    shmem_barrier_all();
    shmem_free(idst);
    shmem_free(isrc);
    shmem_free(adst);
    shmem_free(asrc);
    return shmem_check_finish("shmem_coll");
}
