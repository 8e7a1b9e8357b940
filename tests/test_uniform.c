/*
 * Settings that must agree across ranks (the config table's F_UNIFORM rows): launched MPMD
 * with a different value of one such variable per rank, every rank's arbor_init must fail with
 * ARBOR_ERR_CONFIG and say which variable differs, with its own value and the other rank's:
 *   mpirun -n 1 env ARBOR_X=a test_uniform ARBOR_X 0 b : -n 1 env ARBOR_X=b test_uniform ARBOR_X 1
 * a Arguments: the variable, this rank's index in the launch, the other rank's value (two ranks).
 * The library's error lines go to stderr, which the test captures into a temporary file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arbor.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s ARBOR_VARIABLE my-rank other-value\n", argv[0]);
        return 2;
    }
    const char *var = argv[1], *other = argv[3], *mine = getenv(var);
    int me = atoi(argv[2]);
    if (!mine) {
        fprintf(stderr, "test_uniform: %s is not set on rank %d\n", var, me);
        return 2;
    }

    /* Capture what arbor_init writes to stderr. */
    FILE *cap = tmpfile();
    int saved = dup(STDERR_FILENO);
    if (!cap || saved < 0) return 2;
    fflush(stderr);
    dup2(fileno(cap), STDERR_FILENO);
    arbor_status_t status = arbor_init();
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);

    char text[16384];
    rewind(cap);
    size_t n = fread(text, 1, sizeof(text) - 1, cap);
    text[n] = '\0';
    fclose(cap);

    char want[512];
    snprintf(want, sizeof(want), "%s differs: %s here, %s on rank %d", var, mine, other, 1 - me);
    int ok = 1;
    if (status != ARBOR_ERR_CONFIG) {
        fprintf(stderr, "rank %d: arbor_init returned %s, want ARBOR_ERR_CONFIG\n", me,
                arbor_strerror(status));
        ok = 0;
    }
    if (!strstr(text, want)) {
        fprintf(stderr, "rank %d: no line \"%s\" in what arbor_init printed:\n%s\n", me, want,
                text);
        ok = 0;
    }
    if (status == ARBOR_OK) arbor_finalize();
    printf("uniform rank %d: %s (%s)\n", me, ok ? "passed" : "FAILED", want);
    return ok ? 0 : 1;
}
