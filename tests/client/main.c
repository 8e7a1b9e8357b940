/* A client of the installed arbor (tests/client/run.sh builds it with CMake and pkg-config).
 * Run without a launcher it is a one-rank job: init, size, finalize must all succeed. */
#include <arbor.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", ARBOR_VERSION_MAJOR, ARBOR_VERSION_MINOR,
             ARBOR_VERSION_PATCH);
    const char *ver = arbor_version();
    if (ver == NULL || strcmp(ver, want) != 0) {
        fprintf(stderr, "client: library version %s, header version %s\n", ver ? ver : "(null)",
                want);
        return 1;
    }
    arbor_status_t st = arbor_init();
    if (st != ARBOR_OK) {
        fprintf(stderr, "client: arbor_init: %s\n", arbor_strerror(st));
        return 1;
    }
    int rank = -1, size = -1;
    st = arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    if (st == ARBOR_OK) {
        st = arbor_team_size(ARBOR_TEAM_WORLD, &size);
    }
    if (st != ARBOR_OK) {
        fprintf(stderr, "client: team query: %s\n", arbor_strerror(st));
        arbor_finalize();
        return 1;
    }
    printf("arbor-client: version %s rank %d size %d\n", ver, rank, size);
    st = arbor_finalize();
    if (st != ARBOR_OK) {
        fprintf(stderr, "client: arbor_finalize: %s\n", arbor_strerror(st));
        return 1;
    }
    return 0;
}
